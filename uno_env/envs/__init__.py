"""The environments: every way to play the engine's games from Python.

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
``sb3``                 Stable-Baselines3 (``UnoVecEnv``; the ``rl`` extra)
``rllib``               RLlib: the multi-agent env, PPO config, export (``rllib`` extra)
``ray_runtime``         connecting to Ray; the error naming a missing extra
``scaling``             observation scaling shared by SB3 and RLlib
``agent_registry``      agents by name (the protocol; plug-ins register here)
``openspiel``           OpenSpiel's ``python_uno`` game (the ``openspiel`` extra)
======================  ==========================================================
"""
