"""The observation's layout in plain Python: which fields a configuration's vector has,
in which order, and the slice of each (the fields are described in the docstring of
``engine/observe.py``, whose kernel writes them). It imports no kernel, so the rules
model (``uno_env.rules``) sizes a configuration's observation without loading any
variant's kernels.
"""
import numpy as np

from uno_env.engine import codes as C
from uno_env.engine.variants import BY_NAME

BASE_FIELDS = C.OBS_FIELDS[:C.O_SIDE + 1]
#: the hand a challenge showed the observer: last in the vector (module docstring)
SHOWN_FIELDS = ("shown_hand", "shown_by")
#: faces of the flip deck (``cards.flip_deck``): 52 light and 52 dark coloured, W W2 WC
FLIP_NUM_FACES = 107


def _fields(rules) -> tuple[str, ...]:
    extra = ()
    if rules is not None and rules.jump_in:
        extra += ("jump_from", "jump_resume")
    if rules is not None and rules.multi_play:
        extra += ("multi_count",)
    if rules is not None:
        extra += BY_NAME[rules.variant].obs_fields
    if rules is not None and rules.bluff:
        extra += SHOWN_FIELDS
    return BASE_FIELDS + extra


def observation_slices(num_types: int, num_players: int, rules=None) -> dict[str, slice]:
    """Name -> slice of the observation vector (the tables in this module's docstring);
    ``rules`` (a ``uno_env.rules.Rules``) adds the fields its variant and flags turn on."""
    lengths = {"hand": num_types, "top": num_types, "color": 4, "direction": 1,
               "phase": C.NUM_PHASES, "pending_draw": 1, "opponent_cards": num_players - 1,
               "catchable": num_players, "uno_called": 1, "draw_pile": 1,
               "played": num_types, "scores": num_players, "side": 1,
               "jump_from": num_players, "jump_resume": num_players, "multi_count": 1,
               "hancock": num_players,
               "hand_dark": num_types, "opponent_backs": (num_players - 1) * FLIP_NUM_FACES,
               "draw_back": FLIP_NUM_FACES, "top_other": FLIP_NUM_FACES,
               "played_dark": FLIP_NUM_FACES, "shown_hand": num_types,
               "shown_by": num_players}
    out, start = {}, 0
    for name in _fields(rules):
        out[name] = slice(start, start + lengths[name])
        start += lengths[name]
    return out


def observation_size(num_types: int, num_players: int, rules=None) -> int:
    return observation_slices(num_types, num_players, rules)[_fields(rules)[-1]].stop


def legacy_observation_size(num_types: int, num_players: int, rules=None) -> int:
    """The length of the vector before ``shown_hand``: the whole observation of the ids
    before ``uno_env/UnoSingleSeat-v3`` and ``uno_v1`` (module docstring), a prefix of
    today's."""
    slices = observation_slices(num_types, num_players, rules)
    if "shown_hand" in slices:
        return slices["shown_hand"].start
    return observation_size(num_types, num_players, rules)


def field_offsets(num_types: int, num_players: int, rules) -> np.ndarray:
    """``Spec.obs_at``: the first index of each field ``O_*`` (-1 when absent)."""
    out = np.full(len(C.OBS_FIELDS), -1, np.int32)
    for name, where in observation_slices(num_types, num_players, rules).items():
        out[C.OBS_FIELDS.index(name)] = where.start
    return out


# --- the public record (``public_record=True``; ``engine/public_record.py``) -------------

#: the record's version: a model trained on the record reads these fields at these places
RECORD_VERSION = 1
#: the record's fields, appended after the whole observation above, each by relative
#: seat 1 .. P-1 (seat-major): name -> width per seat (``None``: ``K``, the card types).
#: docs/environments.md, "The public record", describes each
RECORD_FIELDS = (("rec_drew_color", 4), ("rec_drew_rank", C.FIRST_WILD_RANK), ("rec_named", 4),
                 ("rec_played_color", 5), ("rec_played_rank", C.NUM_RANKS), ("rec_taken", 1),
                 ("rec_draw_choices", 1), ("rec_taken_since", 1), ("rec_known", None))


def record_slices(num_types: int, num_players: int, rules=None) -> dict[str, slice]:
    """Name -> slice of the public record's fields in an observation with the record
    (``public_record=True``): after every field of ``observation_slices``."""
    out, start = {}, observation_size(num_types, num_players, rules)
    for name, width in RECORD_FIELDS:
        n = (num_players - 1) * (num_types if width is None else width)
        out[name] = slice(start, start + n)
        start += n
    return out


def record_observation_size(num_types: int, num_players: int, rules=None) -> int:
    """The length of an observation with the public record."""
    return record_slices(num_types, num_players, rules)[RECORD_FIELDS[-1][0]].stop


def record_offsets(num_types: int, num_players: int, rules=None) -> np.ndarray:
    """``PublicRecord.at``: the first index of each record field, in ``RECORD_FIELDS``
    order."""
    slices = record_slices(num_types, num_players, rules)
    return np.array([slices[name].start for name, _ in RECORD_FIELDS], np.int64)
