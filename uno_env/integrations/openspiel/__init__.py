"""OpenSpiel (the ``openspiel`` extra; docs/openspiel.md, docs/game-theory.md).
``import uno_env.integrations.openspiel.game`` registers the game ``python_uno`` with
pyspiel; importing this package imports no pyspiel.

===================  =============================================================
module               holds
===================  =============================================================
``game``             the game ``python_uno`` over ``uno_env.Game``, registered with
                     pyspiel on import
``explicit_chance``  the deal and every card drawn as chance outcomes over a ``Game``
                     (small decks; no pyspiel)
``tree``             a small deck's whole ``python_uno`` tree as an EFG game: CFR+,
                     NashConv, the exploitability of agents
``resample``         resampling inside a player's information set: the real moves
                     replayed on another deal (no pyspiel)
``agents``           OpenSpiel's IS-MCTS (``openspiel-ismcts:N``) and a CFR policy
                     (``cfr:<file>``) as position agents (a registry plug-in)
===================  =============================================================
"""
