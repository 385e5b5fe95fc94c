"""Evaluation: whole games in numba, tournaments, the benchmark, and their statistics.

==================  ==============================================================
module              holds
==================  ==============================================================
``simulation``      ``simulate``: whole games played by agents by name
``win_rate``        ``evaluate``: one agent's win rate in one seat, fixed deals
``tournament``      ``tournament``: agents in every seat, leaderboard and OpenSkill
``distributed``     the Ray backend of ``tournament``
``ray_runtime``     connecting to Ray; the error naming a missing extra
``benchmark``       the fixed benchmark tracks and report cards (``uno-bench/6``)
``reproduce``       a card's games played again and compared (``--reproduce``)
``duplicate``       duplicate deals, paired edges, the sequential budget
``calibration``     agents of known edge, the intervals' coverage
``analysis``        statistics over ``simulate`` runs (rule variants, agents)
``plots``           matplotlib figures of those results
``stats``           confidence intervals shared by the above
==================  ==============================================================
"""
