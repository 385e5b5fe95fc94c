"""Applications: the ``uno-bench`` command line and what it runs.

==================  ==============================================================
module              holds
==================  ==============================================================
``cli``             ``uno-bench`` and its commands
``play``            a game in the terminal against agents
``seat_view``       what one seat may see of a ``Game`` (the terminal's table)
``server``          ``uno-bench serve``: UNO in the browser, a JSON API
``viewer``          a replay as one self-contained HTML page
``_web``            the CSS and JavaScript the server and the viewer share
``replay``          games recorded as replays, rebuilt through ``Game``
``demo``            ``uno-bench demo``: random agents, printed
``warmup``          compile the engine ahead of time
``throughput``      the throughput table (``uno-bench bench``)
``results``         the result files of ``uno-bench simulate --out`` and ``evaluate --out``
==================  ==============================================================
"""
