"""The environments: every way to play the engine's games from Python, the core APIs
and the standard adapters (Gymnasium, PettingZoo). Adapters to other frameworks (SB3,
RLlib, OpenSpiel, ...) are ``uno_env.integrations``.

======================  ==========================================================
module                  holds
======================  ==========================================================
``game``                ``Game``: positions and moves by name (scenarios, search)
``replay_format``       a ``Game`` written as a replay record and rebuilt from one
``aec``                 ``env``/``raw_env``: the PettingZoo AEC environment
``single_seat``         ``SingleAgentEnv`` (Gymnasium, one learning seat) and
                        ``LearnerBatch`` (many such games, numpy in and out)
``gym_vector``          ``GymVectorEnv``: a ``gymnasium.vector.VectorEnv`` of them
``every_seat``          ``EverySeatBatch``: many games, every seat decided by the caller
``registration``        the Gymnasium and PettingZoo ids
``legacy``              the envs of the deprecated ids (the observation before
                        ``shown_hand``)
======================  ==========================================================
"""
