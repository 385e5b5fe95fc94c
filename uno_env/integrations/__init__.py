"""Integrations: uno-env's games adapted to other frameworks, and the jobs run with them.

The package sits above ``uno_env.evaluation`` and below ``uno_env.apps``: an integration
may use anything below it (the environments, the players, ``evaluate`` to measure what
it trained), and nothing below imports an integration (agents reach one by name through
the registry's plug-ins, ``uno_env.players.registry``). A new framework's adapter (JAX,
another trainer) is a new module here, or a subpackage when it has several. Each needs
its own extra; none is imported by ``import uno_env``.

==================  ==============================================================
module              holds
==================  ==============================================================
``sb3``             Stable-Baselines3: ``UnoVecEnv``, the PPO settings (``rl`` extra)
``rllib``           RLlib: the multi-agent env, the PPO config, the policy's export
                    (the ``rllib`` extra)
``train_rllib``     the RLlib self-play job (``uno-bench train --framework rllib``)
``scaling``         the observation scaling the SB3, RLlib and PPO networks share
``threads``         ``set_threads()``: torch's threads for every training recipe
``openspiel``       OpenSpiel (subpackage: the game ``python_uno``, explicit chance,
                    the game tree, OpenSpiel's agents; the ``openspiel`` extra)
==================  ==============================================================
"""
