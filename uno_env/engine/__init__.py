"""numba kernels only, and how they are compiled. Nothing here imports from the rest of
``uno_env``, and each module imports only modules of the layers below its own
(``tests/engine/test_layers.py`` checks it against ``tests/support.py``'s ``LAYERS``;
``tests/project/test_architecture.py`` checks that this table and docs/architecture.md
have those layers). ``codes``, ``variants``, ``names`` and ``obs_layout`` are plain
Python, so the rules model (``uno_env.rules``) reads them without loading a kernel:

=====  ===================================================  =============================
layer  modules                                              hold
=====  ===================================================  =============================
0      ``codes``, ``variants``, ``names``                   integer codes and slots; the
                                                            declaration of every variant;
                                                            the numba agents' names and
                                                            codes (plain Python)
0      ``_cache``, ``_link_only``                           compiler plumbing
1      ``jit``                                              the decorators every kernel
                                                            uses; the cached entry points
1      ``obs_layout``                                       the observation's layout
                                                            (plain Python, no kernel)
2      ``rng``, ``state``, ``bits``                         per-game random streams; the
                                                            state record and each
                                                            variant's ``Spec`` class; sets
                                                            of card types as uint64 words
3      ``faces``, ``tallies``                               what a card shows and does;
                                                            each hand's counts per colour
                                                            and rank
4      ``piles``                                            drawing, reshuffling
5      ``turns``                                            turn bookkeeping, the moves
                                                            every variant shares, the
                                                            challenge verdict
6      ``plays``, ``rounds``                                which cards may be played;
                                                            dealing, scoring, a round's end
7      ``classic``, ``house``, ``flip``, ``onepiece``       one module per variant, with
                                                            the same entry names
8      ``dispatch``                                         the rules of a ``Spec``
                                                            class's variant, chosen at
                                                            compile time
9      ``observe``, ``determinize``                         the observation; redrawing
                                                            the cards a seat cannot see
10     ``policies``, ``belief``, ``public_record``          the numba agents; what public
                                                            moves say about the hands; the
                                                            public record (opt-in)
11     ``batch``, ``learner``                               the loops of the Python APIs
12     ``search``, ``soak``                                 the search agent ``mcts``;
                                                            games with invariants checked
13     ``entry``                                            those loops compiled and
                                                            cached once per variant
=====  ===================================================  =============================
"""
