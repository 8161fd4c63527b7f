"""The observation layout of a game with its own encoding, and its compact uint8 form.

Blind, Chickenfoot and Mexican Train each lay out a float32 observation (named fields, one
after another: ``stack_fields``) and offer the compact form of the family contract: the same
slots as bytes (every slot but the scores holds a small count), the float part rounded up to a
multiple of 4, then an int32 tail of ``max_seats + 1`` values, the seats' scores by offset from
the observer and the target (0 for these games: they have none). What differs per game is its
field list and seat count; ``CompactForm`` writes the rest once, and a game's encoding module
exposes its bound methods under the contract's names (``float_size``, ``compact_size``, ...).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable

import numpy as np

OBSERVATION_DTYPES = ("uint8", "float32")
TAIL_FIELDS = ("seat_score", "target")
SCORE_FIELDS = TAIL_FIELDS  # the name nos_env.family.encoding gives them

Layout = "OrderedDict[str, tuple[int, int, tuple[int, ...]]]"


def stack_fields(fields) -> Layout:
    """name -> (start, stop, shape) for ``fields`` [(name, shape), ...] laid out in order."""
    layout: OrderedDict = OrderedDict()
    start = 0
    for name, shape in fields:
        size = int(np.prod(shape))
        layout[name] = (start, start + size, tuple(shape))
        start += size
    return layout


def field_shapes(num_counts: int, n_t: int, m: int, seats: int, arms: int) -> dict[str, tuple[int, ...]]:
    """The shape of each observation field that more than one family encoding has, by name, for
    ``num_counts`` allowed player counts, ``n_t`` tiles, pips 0..``m``, ``seats`` seat slots and
    ``arms`` open ends. One vocabulary, so that a field means the same thing (and has the same
    shape) in every game that has it; each encoding picks its fields, in its order, and adds its own."""
    return {
        "num_players": (num_counts,), "phase": (4,), "hand": (n_t,), "turned_up": (n_t,), "on_table": (n_t,),
        "placer": (n_t, seats), "tile_arm": (n_t, arms + 1), "set_tile": (n_t,), "arm_exists": (arms,),
        "arm_open": (arms, m + 1), "arm_count": (arms,), "arm_playable": (arms,), "arm_double_end": (arms,),
        "seat_present": (seats,), "seat_to_move": (seats,), "seat_hand_size": (seats,), "seat_partner": (seats,),
        "seat_void": (seats, n_t), "boneyard_size": (1,), "boneyard_drawable": (1,), "seat_score": (seats,),
        "target": (1,),
    }


def lay_out(names, shapes: dict[str, tuple[int, ...]]) -> Layout:
    """``stack_fields`` of the fields ``names``, in that order, with their ``shapes``."""
    return stack_fields((name, shapes[name]) for name in names)


def check_observation_dtype(dtype: object) -> str:
    name = np.dtype(dtype).name if isinstance(dtype, (type, np.dtype)) else dtype
    if name not in OBSERVATION_DTYPES:
        raise ValueError(f"observation dtype must be 'uint8' (compact) or 'float32', got {dtype!r}")
    return name


class CompactForm:
    """One game's sizes, tail slots, packing and decoding (``layout(num_tiles, max_pip)``: its layout)."""

    def __init__(self, layout: Callable[[int, int], Layout], max_seats: int, label: str):
        self.layout, self.max_seats, self.label = layout, max_seats, label

    def layout_of(self, rules) -> Layout:
        """The game's layout (``layout(num_tiles, max_pip)``, cached by the game) for ``rules``."""
        return self.layout(rules.num_tiles, rules.max_pip)

    def float_size(self, rules) -> int:
        return next(reversed(self.layout_of(rules).values()))[1]

    def tail_at(self, rules) -> int:
        """Where the int32 tail starts in a compact row (the float size rounded up to 4)."""
        return -(-self.float_size(rules) // 4) * 4

    def compact_size(self, rules) -> int:
        return self.tail_at(rules) + 4 * (self.max_seats + 1)

    def observation_size(self, rules, dtype: object = "float32") -> int:
        return self.compact_size(rules) if check_observation_dtype(dtype) == "uint8" else self.float_size(rules)

    def tail_slots(self, rules) -> np.ndarray:
        """The float slots of the tail fields, in tail order."""
        layout = self.layout_of(rules)
        return np.concatenate([np.arange(*layout[f][:2]) for f in TAIL_FIELDS])

    def pack(self, obs: np.ndarray, rules, scores_by_offset) -> np.ndarray:
        """The compact row of a float observation: its slots as bytes (the tail slots zero),
        then the seats' scores (by offset from the observer) and a zero target as int32."""
        compact = np.zeros(self.compact_size(rules), np.uint8)
        body = obs.copy()
        body[self.tail_slots(rules)] = 0
        compact[: len(obs)] = body.astype(np.uint8)
        tail = np.zeros(self.max_seats + 1, "<i4")
        tail[: len(scores_by_offset)] = scores_by_offset
        compact[self.tail_at(rules):] = tail.view(np.uint8)
        return compact

    def scores(self, compact: np.ndarray, rules) -> np.ndarray:
        """The tail of compact observations as int32 [..., max_seats + 1]: seat_score by offset, then target."""
        return np.ascontiguousarray(compact[..., self.tail_at(rules):]).view("<i4")

    def decode(self, compact: np.ndarray, rules, score_scale: float = 100.0) -> np.ndarray:
        """Compact observations [..., compact_size] as the float32 ones [..., float_size]."""
        size = self.compact_size(rules)
        if not isinstance(compact, np.ndarray) or compact.dtype != np.uint8 or compact.shape[-1:] != (size,):
            got = f"{compact.dtype} {compact.shape}" if isinstance(compact, np.ndarray) else type(compact).__name__
            raise ValueError(f"compact {self.label} observations are uint8 arrays [..., {size}], got {got}")
        out = compact[..., : self.float_size(rules)].astype(np.float32)
        out[..., self.tail_slots(rules)] = self.scores(compact, rules) / float(score_scale)
        return out

    def functions(self):
        """The encoding module's names: (float_size, compact_tail_at, compact_scores_at (the
        family encoding's name of it), compact_size, observation_size, tail_slots,
        compact_scores, decode_compact)."""
        return (self.float_size, self.tail_at, self.tail_at, self.compact_size, self.observation_size,
                self.tail_slots, self.scores, self.decode)
