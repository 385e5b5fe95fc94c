"""The rules of play for any variant: each kernel here hands over to the variant module
of its ``Spec`` class (``engine/variants.py`` names the module of each: ``classic``,
``house``, ``flip``, ``onepiece``, with the same entry names in each), chosen when the
caller is compiled (``uno_env.engine.jit.by_spec``). Everything above this module
(observations, agents, the batch and learner loops) is written once for all variants.

Public kernels: ``legal_mask`` (the current decider's legal actions),
``apply_action`` (assumes a legal action), ``step_and_mask`` and ``random_legal``.
"""
import importlib

import numpy as np

from uno_env.engine.jit import by_spec, njit
from uno_env.engine import codes as C
from uno_env.engine.bits import trailing_zeros
from uno_env.engine.rng import below
from uno_env.engine.turns import NO_SHORTCUT
from uno_env.engine.variants import VARIANTS


@by_spec
def rules_legal_mask(st, g, sp, mask):
    """The variant's legal mask (``mask`` zeroed, the game on); the count of actions."""


@by_spec
def apply_action(st, g, sp, action):
    """Apply a legal ``action`` of the current decider (check with ``is_legal`` first)."""


@by_spec
def observe_fields(st, g, sp, seat, out):
    """Write the variant's own observation fields (``engine/observe.py``)."""


@by_spec
def random_move(st, g, sp):
    """The variant's shortcut for the random agent's move (``turns.NO_SHORTCUT``: none)."""


@random_move.register_default
def _no_shortcut(st, g, sp):
    return NO_SHORTCUT


def _register(spec_class, module):
    # thin wrappers: the variant's kernels stay ordinary calls (compiled once per
    # variant), not inlined into every caller
    rules_legal_mask.register(spec_class)(
        lambda st, g, sp, mask: module.legal_mask(st, g, sp, mask))
    apply_action.register(spec_class)(
        lambda st, g, sp, action: module.apply_action(st, g, sp, action))
    observe_fields.register(spec_class)(
        lambda st, g, sp, seat, out: module.observe_fields(st, g, sp, seat, out))
    if hasattr(module, "random_move"):  # optional
        random_move.register(spec_class)(lambda st, g, sp: module.random_move(st, g, sp))


# each variant's rules module, from the declaration (its layer is below this one:
# tests/engine/test_layers.py); importing it also registers its own by-spec kernels
for _variant in VARIANTS:
    _register(_variant.spec_class, importlib.import_module(f"uno_env.engine.{_variant.module}"))


@njit
def legal_mask(st, g, sp, mask):
    """Fill ``mask`` (uint8[A]) with the current decider's legal actions.

    Returns the number of legal actions (0 only when the episode is over)."""
    mask[:] = 0
    if st.info[g, C.I_PHASE] == C.PHASE_OVER:
        return 0
    return rules_legal_mask(st, g, sp, mask)


@njit
def random_legal(st, g, sp, scratch):
    """A uniformly random legal action of the current decider, drawn from the game's own
    stream (the random agent's kernel); -1 when the episode is over."""
    n = legal_mask(st, g, sp, scratch)
    if n == 0:
        return -1
    return random_pick(st, g, scratch, n)


@njit
def random_action(st, g, sp, scratch):
    """``random_legal``'s action, without filling ``scratch`` where the variant has a
    shortcut (``random_move``): the engine's own random agent (``policies``)."""
    action = random_move(st, g, sp)
    if action != NO_SHORTCUT:
        return action
    return random_legal(st, g, sp, scratch)


@njit(inline="always")
def random_pick(st, g, mask, n):
    """The random agent's choice among the ``n`` (> 0) legal actions of ``mask``: the
    ``k``-th, ``k`` uniform from the game's own stream."""
    k = below(st.rng, g, n)
    if mask.shape[0] % 8 == 0:  # a scratch mask of ``scratch_mask``: eight at a time
        return kth_marked(mask.view(np.uint64), k)
    for a in range(mask.shape[0]):
        if mask[a] != 0:
            if k == 0:
                return a
            k -= 1
    return -1


#: a byte of every action of a word, to count the marked actions of eight at once
BYTE_ONES = np.uint64(0x0101010101010101)


@njit(inline="always")
def kth_marked(words, k):
    """The ``k``-th (from 0) marked action of a mask seen as uint64 words (each byte 0
    or 1): the marks of a word are counted by one multiplication."""
    for i in range(words.shape[0]):
        w = words[i]
        marked = np.int64((w * BYTE_ONES) >> np.uint64(56))
        if k < marked:
            for j in range(8):
                if (w >> np.uint64(8 * j)) & np.uint64(0xFF):
                    if k == 0:
                        return 8 * i + j
                    k -= 1
        k -= marked
    return -1


@njit(inline="always")
def next_marked(mask, a, end):
    """The first marked action of ``mask`` in ``[a, end)``, or ``end`` if none. On a
    scratch mask (``scratch_mask``: whole uint64 words) eight actions at a time."""
    if mask.shape[0] % 8 != 0:
        while a < end and mask[a] == 0:
            a += 1
        return min(a, end)
    words = mask.view(np.uint64)
    while a < end:
        # this word's marks from action a on (little-endian: action 8i + j is byte j)
        w = words[a // 8] >> np.uint64(8 * (a % 8))
        if w != 0:
            return min(a + trailing_zeros(w) // 8, end)
        a = (a // 8 + 1) * 8
    return end


@njit(inline="always", allocates=True)
def scratch_mask(sp):
    """A zeroed legal-mask buffer for the engine's own agents: the action space rounded
    up to whole uint64 words (the actions past it never marked), which ``random_pick``
    walks eight actions at a time."""
    return np.zeros((sp.layout[C.L_SIZE] + 7) // 8 * 8, np.uint8)


#: bits of ``step_and_mask``'s result above the next decider's seat
STEP_ROUND_ENDED = 1 << 8    # a round ended in this step (rewards may have been given)
STEP_EPISODE_ENDED = 1 << 9  # the episode is over (terminated or truncated)
STEP_SEAT_MASK = 0xFF


@njit
def step_and_mask(st, g, sp, action, mask):
    """``apply_action`` then refill ``mask`` for the next decider, in one kernel call per
    environment step. Returns the next decider's seat OR the ``STEP_*`` bits."""
    apply_action(st, g, sp, action)
    legal_mask(st, g, sp, mask)
    out = st.info[g, C.I_CURRENT]
    if st.info[g, C.I_LAST_ROUND_OVER] != 0:
        out |= STEP_ROUND_ENDED
    if st.info[g, C.I_STATUS] != C.STATUS_PLAYING:
        out |= STEP_EPISODE_ENDED
    return out
