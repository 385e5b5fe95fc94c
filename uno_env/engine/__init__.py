"""numba kernels only, and how they are compiled. Nothing here imports from the rest of
``uno_env``, and each module imports only modules of the layers below its own
(``tests/engine/test_layers.py`` checks it):

0. ``codes`` (integer codes), ``_cache`` and ``_link_only`` (compiler plumbing), then
   ``jit``: the decorators every kernel uses and the compiled, cached entry points;
1. ``rng`` (per-game random streams), ``state`` (the
   state record and the ``Spec`` class of each variant) and ``bits`` (sets of card
   types as uint64 words);
2. ``faces``: what a card shows and does (the face accessor chosen per variant), and
   ``tallies``: each hand's cards per colour and rank, kept as cards move;
3. ``piles`` (drawing, reshuffling), then ``turns`` (turn bookkeeping, the moves every
   variant shares, the challenge verdict), then ``plays`` (which cards may be played)
   and ``rounds`` (dealing, scoring, the end of a round);
4. the variants' rules, with the same entry names: ``classic``, ``house``, ``flip``,
   ``onepiece``;
5. ``dispatch``: the rules of the variant of a ``Spec`` class, chosen at compile time;
6. ``observe`` (the observation) and ``determinize`` (redrawing the cards a seat cannot
   see, for search), then ``policies`` (the numba agents) and ``belief`` (what the
   public moves say about the hands, for search);
7. ``batch`` and ``learner``: the loops of the Python APIs;
8. ``search``: the search agent ``mcts`` and its simulate loop, and ``soak``: games
   played as ``simulate`` plays them with the invariants checked after every step
   (entry points of their own);
9. ``entry``: those loops compiled and cached once per variant.
"""
