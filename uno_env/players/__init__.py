"""Players: what uno_env knows of agents, without depending on any agent's code.

The package sits above ``uno_env.envs`` (a position agent plays a ``Game``) and below
``uno_env.evaluation`` (which runs agents by name). The agents themselves live in the
``agents`` package above ``uno_env`` (and OpenSpiel's in ``uno_env.integrations``); they
register here.

==================  ==============================================================
module              holds
==================  ==============================================================
``protocol``        the agent protocol: ``act``/``act_batch``, the observation split
``registry``        agents by name, the plug-ins that register them, training jobs
``position``        ``PositionAgent``: what the agents that play an attached ``Game``
                    share (``attach``, the observation check)
``policy_file``     the record of a trained policy's ``.npz`` file (one builder)
``training``        ``TrainResult``: what every training job returns
==================  ==============================================================
"""
