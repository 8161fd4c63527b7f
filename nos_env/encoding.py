"""Encoding: the one place where actions become integers and positions arrays.

Action space: ``Discrete(557)``, in blocks

    ==========  =====  ===================================================
    block       size   index
    ==========  =====  ===================================================
    set         28     ``0 + tile``                  (set this tile)
    draw        1      ``28``
    announce    76     ``29 + announcement index``   (games.ALL_ANNOUNCEMENTS)
    declare     2      ``105`` declare, ``106`` no-declare
    decline     1      ``107``                       (end one's immediate doubles)
    play        448    ``108 + ((tile*4 + arm)*2 + side)*2 + close``
    pass        1      ``556``
    ==========  =====  ===================================================

``tile`` is the tile index 0..27 (tiles.ALL_TILES), ``arm`` 0..3 the arm's
number (L0/L1, C0..C3, T0..T3), ``side`` 0 when the tile's lower number
faces outward and 1 when the higher does (a double always uses 0), and
``close`` 1 to announce a closing. In the immediate-double window, the play
block places a double at once (``close`` 0).

Observation: a float32 vector from the observer's seat (D18): seat offset 0
is the observer, 1 the player on his left, and so on; slots for seats a
smaller table lacks are zero. :data:`OBSERVATION_LAYOUT` names every slice;
:func:`decode_observation` reads one back into a dict.
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from .actions import Action
from .engine import PHASES, Hand
from .announcements import ALL_ANNOUNCEMENTS, ANNOUNCEMENT_INDEX, MATADOR, ORDINARY
from .tiles import ALL_TILES, NUM_TILES, TILE_INDEX, Tile

MAX_SEATS = 5
MAX_ARMS = 4

# ----------------------------------------------------------------- actions
SET0 = 0
DRAW = 28
ANNOUNCE0 = 29
DECLARE = ANNOUNCE0 + len(ALL_ANNOUNCEMENTS)  # 105
NO_DECLARE = DECLARE + 1
DECLINE = NO_DECLARE + 1
PLAY0 = DECLINE + 1  # 108
PASS = PLAY0 + NUM_TILES * MAX_ARMS * 2 * 2  # 556
NUM_ACTIONS = PASS + 1  # 557

ACTION_BLOCKS = OrderedDict(
    [
        ("set", (SET0, DRAW)),
        ("draw", (DRAW, ANNOUNCE0)),
        ("announce", (ANNOUNCE0, DECLARE)),
        ("declare", (DECLARE, DECLINE)),
        ("decline", (DECLINE, PLAY0)),
        ("play", (PLAY0, PASS)),
        ("pass", (PASS, NUM_ACTIONS)),
    ]
)


def play_index(tile_index, arm, side, close):
    """The action index of a play: tile index, arm 0..3, side (0: the tile's low number faces
    outward, 1: the high one) and close (0/1), the close digit lowest. Ints or integer arrays. The
    one definition of the formula: the fast engine's kernels compile this function as it is."""
    return PLAY0 + ((tile_index * MAX_ARMS + arm) * 2 + side) * 2 + close


def play_parts(index):
    """(tile index, arm, side, close) of play action indices PLAY0..PASS-1 (ints or integer arrays):
    the inverse of :func:`play_index`."""
    rest, close = divmod(index - PLAY0, 2)
    rest, side = divmod(rest, 2)
    tile_index, arm = divmod(rest, MAX_ARMS)
    return tile_index, arm, side, close


def action_to_index(action: Action) -> int:
    kind = action.kind
    if kind == "set":
        return SET0 + TILE_INDEX[action.tile]
    if kind == "draw":
        return DRAW
    if kind == "announce":
        return ANNOUNCE0 + ANNOUNCEMENT_INDEX[action.announcement]
    if kind == "declare":
        return DECLARE
    if kind == "no-declare":
        return NO_DECLARE
    if kind == "decline":
        return DECLINE
    if kind == "pass":
        return PASS
    if kind in ("play", "immediate"):
        tile = action.tile
        if action.out is None:
            raise ValueError(f"{action} has no outward number; resolve it against the hand first")
        side = 0 if action.out == tile[0] else 1
        arm = int(action.arm[1])
        return play_index(TILE_INDEX[tile], arm, side, int(action.close))
    raise ValueError(f"unknown action kind {kind!r}")


def index_to_action(index: int, hand: Hand) -> Action:
    """The action an index stands for in this hand's phase (arm names follow its layout)."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"an action index must be an integer 0..{NUM_ACTIONS - 1}, got {index!r}")
    index = int(index)
    if index < DRAW:
        return Action("set", tile=ALL_TILES[index - SET0])
    if index == DRAW:
        return Action("draw")
    if index < DECLARE:
        return Action("announce", announcement=ALL_ANNOUNCEMENTS[index - ANNOUNCE0])
    if index == DECLARE:
        return Action("declare")
    if index == NO_DECLARE:
        return Action("no-declare")
    if index == DECLINE:
        return Action("decline")
    if index == PASS:
        return Action("pass")
    tile_i, arm, side, close = play_parts(index)
    tile = ALL_TILES[tile_i]
    prefix = {"line": "L", "cross": "C", "triangle": "T"}[hand.layout.kind] if hand.layout else "L"
    kind = "immediate" if hand.phase == "immediate" else "play"
    return Action(kind, tile=tile, arm=f"{prefix}{arm}", out=tile[side], close=bool(close))


def legal_mask(hand: Hand) -> np.ndarray:
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for action in hand.legal_actions():
        mask[action_to_index(action)] = 1
    return mask


# ------------------------------------------------------------ observation
#: What an arm needs next (docs/rules/nos.md §4).
NEEDS = (
    "matching",  # any tile matching the open end under the arm's rule
    "cross_tile",  # the arm's first tile in the cross or triangle phase
    "compulsory_double",  # ordinary double cross: the double equal to the open end
    "double_or_matador",  # matador double cross: [7-e|7-e] or any matador
    "matador",  # a matador arm with an open 0: only a matador
    "blank",  # game 16: a blank-ended tile on T3
    "nothing_yet",  # waits for the cross/triangle phase to end, or unused T3
)
RULES = (ORDINARY, MATADOR)
CONDITIONS = ("none", "FHTT", "FIRST")
LAYOUT_KINDS = ("line", "cross", "triangle")
DOUBLES = tuple((d, d) for d in range(7))


def _build_layout() -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    """name -> (start, stop, shape) of each slice of the observation vector."""
    fields = [
        ("num_players", (3,)),  # one-hot: 3, 4, 5
        ("phase", (len(PHASES),)),
        ("hand", (NUM_TILES,)),  # own tiles
        ("layout_tiles", (NUM_TILES,)),  # on the layout (the set tile included)
        ("layout_placer", (NUM_TILES, MAX_SEATS)),  # who placed it (seat offset)
        ("layout_arm", (NUM_TILES, MAX_ARMS + 1)),  # which arm, or the set tile (last column)
        ("layout_immediate", (NUM_TILES,)),  # placed at once on the set tile (section 6)
        ("set_tile", (NUM_TILES,)),
        ("set_drawn", (1,)),  # the set tile was drawn (later-hand rule)
        ("arm_exists", (MAX_ARMS,)),
        ("arm_open", (MAX_ARMS, 7)),  # open number, one-hot
        ("arm_rule", (MAX_ARMS, 2)),  # rule in force: ordinary, matador
        ("arm_needs", (MAX_ARMS, len(NEEDS))),
        ("arm_locked", (MAX_ARMS,)),  # D4: a side condition forbids it now
        ("arm_dead", (MAX_ARMS,)),
        ("arm_count", (MAX_ARMS,)),  # tiles on the arm
        ("announcement", (len(ALL_ANNOUNCEMENTS),)),
        ("game", (17,)),
        ("base_rule", (2,)),  # game 11: ordinary, matador
        ("condition", (len(CONDITIONS),)),
        ("condition_side", (2,)),
        ("condition_k", (4,)),
        ("switch", (1,)),
        ("volapuk_ordinary_arm", (2,)),
        ("layout_kind", (len(LAYOUT_KINDS),)),
        ("double_cross", (1,)),  # a compulsory tile follows the cross/triangle
        ("seat_present", (MAX_SEATS,)),
        ("seat_hand_size", (MAX_SEATS,)),
        ("seat_out", (MAX_SEATS,)),
        ("seat_nos", (MAX_SEATS,)),
        ("seat_waits_owed", (MAX_SEATS,)),
        ("seat_on_set", (MAX_SEATS,)),
        ("seat_to_move", (MAX_SEATS,)),
        ("seat_declared", (MAX_SEATS,)),
        ("seat_face_up", (MAX_SEATS, 7)),  # D9: declared doubles still held, by number
        ("seat_chips", (MAX_SEATS,)),  # (chips - the session's starting chips) / chip_scale
        ("seat_hand_payments", (MAX_SEATS,)),  # this hand's net payments / chip_scale
        ("seat_passed_on", (MAX_SEATS, 7)),  # open numbers of the arms taking tiles when he passed
        ("seat_drew_on", (MAX_SEATS, 7)),  # ... when he drew (a hint: drawing may be voluntary)
        ("seat_passed_tiles", (MAX_SEATS, NUM_TILES)),  # tiles that fitted when he passed: he holds none
        ("seat_drew_tiles", (MAX_SEATS, NUM_TILES)),  # tiles that fitted when he drew: a hint
        ("claim_arm", (MAX_ARMS + 2,)),  # arm holding the preceding turn's tile; set tile; none
        ("claim_seat", (MAX_SEATS,)),  # who placed it (he pays for a double on it)
        ("boneyard_size", (1,)),
        ("boneyard_drawable", (1,)),  # tiles above the last two
    ]
    layout: OrderedDict[str, tuple[int, int, tuple[int, ...]]] = OrderedDict()
    start = 0
    for name, shape in fields:
        size = int(np.prod(shape))
        layout[name] = (start, start + size, shape)
        start += size
    return layout


OBSERVATION_LAYOUT = _build_layout()
OBSERVATION_SIZE = next(reversed(OBSERVATION_LAYOUT.values()))[1]
#: The column of the observation that reads 0 once no tile can be drawn any more (only the last
#: two remain in the boneyard, section 7): the *endgame* of a hand, where the plays decide the
#: closings and the final count. ``distill.phases: [endgame]`` labels its plays and
#: ``policy.hint_freed_in_endgame`` lets a hinted policy choose them (train/, agents/policy.py).
ENDGAME_COLUMN = OBSERVATION_LAYOUT["boneyard_drawable"][0]


# ------------------------------------------------------ compact observation
#: The compact observation (the vector API's default): the same features in one byte each,
#: 4x less memory to write, copy and keep than float32 (1,084 bytes a row instead of 4,164).
#:
#: - bytes ``[0, OBSERVATION_SIZE)``: every feature at its float index (``OBSERVATION_LAYOUT``),
#:   as an unsigned integer: the 0/1 features, and the counts (hand sizes, arm lengths, waits,
#:   boneyard), which never exceed 28. The slots of the chip features (``CHIP_FIELDS``) hold 0;
#: - bytes ``[COMPACT_CHIPS_AT, COMPACT_SIZE)``: the chip features as little-endian int32 in
#:   whole chips, not divided by ``chip_scale`` (``seat_chips`` then ``seat_hand_payments``,
#:   by seat offset), 4-byte aligned so ``obs[..., COMPACT_CHIPS_AT:].view("<i4")`` reads them.
#:
#: :func:`decode_compact` turns it into the float32 observation, value for value.
COMPACT_DTYPE = np.dtype(np.uint8)
CHIP_FIELDS = ("seat_chips", "seat_hand_payments")
COMPACT_CHIPS_AT = -(-OBSERVATION_SIZE // 4) * 4  # 1044
NUM_CHIP_VALUES = 2 * MAX_SEATS
COMPACT_SIZE = COMPACT_CHIPS_AT + 4 * NUM_CHIP_VALUES  # 1084
#: Where each chip feature's float slots are (seat_chips' 5, then seat_hand_payments' 5).
CHIP_SLOTS = np.concatenate([np.arange(*OBSERVATION_LAYOUT[f][:2]) for f in CHIP_FIELDS])
OBSERVATION_DTYPES = ("uint8", "float32")


def check_observation_dtype(dtype: object) -> np.dtype:
    """The observation dtype an option names: "uint8" (compact) or "float32"."""
    if isinstance(dtype, (type, np.dtype)):
        dtype = np.dtype(dtype).name
    if dtype not in OBSERVATION_DTYPES:
        raise ValueError(f"observation_dtype must be one of {', '.join(map(repr, OBSERVATION_DTYPES))} "
                         f"(uint8: the compact encoding, float32: decoded), got {dtype!r}")
    return np.dtype(dtype)


def observation_size(dtype: object) -> int:
    """The length of an observation row of this dtype: COMPACT_SIZE for uint8, OBSERVATION_SIZE for float32."""
    return COMPACT_SIZE if check_observation_dtype(dtype) == COMPACT_DTYPE else OBSERVATION_SIZE


def compact_chips(compact: np.ndarray) -> np.ndarray:
    """The chip features of compact observations [..., COMPACT_SIZE] as int32 [..., 10], whole chips."""
    compact = _checked_compact(compact)
    return np.ascontiguousarray(compact[..., COMPACT_CHIPS_AT:]).view("<i4")


def decode_compact(compact: np.ndarray, chip_scale: float = 100.0, out: np.ndarray | None = None) -> np.ndarray:
    """Compact observations [..., COMPACT_SIZE] uint8 as the float32 observations [..., OBSERVATION_SIZE]
    that ``encode_observation`` gives (the chip features divided by ``chip_scale``)."""
    compact = _checked_compact(compact)
    shape = compact.shape[:-1] + (OBSERVATION_SIZE,)
    if out is None:
        out = np.empty(shape, np.float32)
    elif not isinstance(out, np.ndarray) or out.shape != shape or out.dtype != np.float32:
        raise ValueError(f"out must be a float32 array of shape {shape} or None")
    out[...] = compact[..., :OBSERVATION_SIZE]
    # (divided in float64 and rounded to float32, as both engines compute it: the same float, bit for bit)
    out[..., CHIP_SLOTS] = compact_chips(compact) / float(chip_scale)
    return out


def _checked_compact(compact: np.ndarray) -> np.ndarray:
    if not isinstance(compact, np.ndarray) or compact.dtype != COMPACT_DTYPE or compact.ndim < 1 \
            or compact.shape[-1] != COMPACT_SIZE:
        got = f"{compact.dtype} {compact.shape}" if isinstance(compact, np.ndarray) else type(compact).__name__
        raise ValueError(f"compact observations are uint8 arrays [..., {COMPACT_SIZE}], got {got}")
    return compact


def _view(obs: np.ndarray, name: str) -> np.ndarray:
    start, stop, shape = OBSERVATION_LAYOUT[name]
    return obs[start:stop].reshape(shape)


def arm_needs(hand: Hand, arm: int) -> str:
    """What the arm needs next (a NEEDS entry), whether or not it is locked now."""
    layout = hand.layout
    spec = layout.spec
    cells = layout.arms[arm]
    if layout.kind == "cross" and not layout.cross_complete():
        return "nothing_yet" if cells else "cross_tile"
    if layout.kind == "triangle":
        if not all(layout.arms[:3]):
            return "cross_tile" if arm < 3 and not cells else "nothing_yet"
        if arm == 3:
            if not spec.t3:
                return "nothing_yet"
            if not cells:
                return "blank"
        elif spec.t3 and not layout.arms[3]:
            return "nothing_yet"
    rule = layout.rule_in_force(arm)
    if spec.compulsory and len(cells) == 1 and layout.kind != "line":
        return "compulsory_double" if rule == ORDINARY else "double_or_matador"
    if rule == MATADOR and layout.open_end(arm) == 0:
        return "matador"
    return "matching"


#: Flat start offset of each slice, for writing single entries quickly.
_AT = {name: start for name, (start, _, _) in OBSERVATION_LAYOUT.items()}


def encode_observation(
    hand: Hand, seat: int, chip_scale: float = 100.0, chips_reference: list[int] | None = None
) -> np.ndarray:
    """The observation of ``seat``: only public information and his own tiles (D17).

    ``seat_chips`` is each seat's chips minus ``chips_reference`` (the
    session's starting chips; by default the hand's), over ``chip_scale``.
    Entries of a 2-D slice of shape (rows, cols) sit at ``start + row*cols + col``.
    """
    reference = hand.chips_start if chips_reference is None else chips_reference
    n = hand.num_players
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    at = _AT

    def rel(s: int) -> int:  # D18: seat offset from the observer
        return (s - seat) % n

    obs[at["num_players"] + n - 3] = 1
    obs[at["phase"] + PHASES.index(hand.phase)] = 1
    for t in hand.hands[seat]:
        obs[at["hand"] + TILE_INDEX[t]] = 1

    if hand.set_tile is not None:
        st = TILE_INDEX[hand.set_tile]
        obs[at["set_tile"] + st] = 1
        obs[at["layout_tiles"] + st] = 1
        obs[at["layout_placer"] + st * MAX_SEATS + rel(hand.on_set)] = 1
        obs[at["layout_arm"] + st * (MAX_ARMS + 1) + MAX_ARMS] = 1
        obs[at["set_drawn"]] = float(hand.set_drawn is not None)

    layout = hand.layout
    if layout is not None:
        for arm, cells in enumerate(layout.arms):
            for p in cells:
                ti = TILE_INDEX[p.tile]
                obs[at["layout_tiles"] + ti] = 1
                obs[at["layout_placer"] + ti * MAX_SEATS + rel(p.seat)] = 1
                obs[at["layout_arm"] + ti * (MAX_ARMS + 1) + arm] = 1
                obs[at["layout_immediate"] + ti] = float(p.immediate)
            obs[at["arm_exists"] + arm] = 1
            obs[at["arm_open"] + arm * 7 + layout.open_end(arm)] = 1
            obs[at["arm_rule"] + arm * 2 + RULES.index(layout.rule_in_force(arm))] = 1
            obs[at["arm_needs"] + arm * len(NEEDS) + NEEDS.index(arm_needs(hand, arm))] = 1
            obs[at["arm_locked"] + arm] = float(layout.locked(arm))
            obs[at["arm_dead"] + arm] = float(layout.is_dead(arm))
            obs[at["arm_count"] + arm] = len(cells)
        spec = layout.spec
        obs[at["layout_kind"] + LAYOUT_KINDS.index(spec.layout)] = 1
        obs[at["double_cross"]] = float(spec.compulsory)

    a = hand.announcement
    if a is not None:
        obs[at["announcement"] + ANNOUNCEMENT_INDEX[a]] = 1
        obs[at["game"] + a.game - 1] = 1
        if a.base is not None:
            obs[at["base_rule"] + RULES.index(a.base)] = 1
        cond = a.condition
        obs[at["condition"] + CONDITIONS.index(cond.kind if cond else "none")] = 1
        if cond is not None:
            obs[at["condition_side"] + cond.side] = 1
            if cond.kind == "FIRST":
                obs[at["condition_k"] + cond.k - 1] = 1
        obs[at["switch"]] = float(a.switch)
        if a.ordinary_arm is not None:
            obs[at["volapuk_ordinary_arm"] + a.ordinary_arm] = 1

    net = [0] * n
    for p in hand.ledger:
        net[p.payer] -= p.amount
        net[p.payee] += p.amount
    for s in range(n):
        r = rel(s)
        obs[at["seat_present"] + r] = 1
        obs[at["seat_hand_size"] + r] = len(hand.hands[s])
        obs[at["seat_out"] + r] = float(hand.out[s])
        obs[at["seat_nos"] + r] = float(hand.nos_seat == s)
        obs[at["seat_waits_owed"] + r] = len(hand.waits_owed[s])
        obs[at["seat_on_set"] + r] = float(hand.on_set == s)
        obs[at["seat_to_move"] + r] = float(hand.to_move == s)
        obs[at["seat_declared"] + r] = float(hand.declared[s])
        for d in hand.public_doubles(s):
            obs[at["seat_face_up"] + r * 7 + d[0]] = 1
        obs[at["seat_chips"] + r] = (hand.chips[s] - reference[s]) / chip_scale
        obs[at["seat_hand_payments"] + r] = net[s] / chip_scale
        for e in hand.passed_on[s]:
            obs[at["seat_passed_on"] + r * 7 + e] = 1
        for e in hand.drew_on[s]:
            obs[at["seat_drew_on"] + r * 7 + e] = 1
        for t in hand.passed_tiles[s]:
            obs[at["seat_passed_tiles"] + r * NUM_TILES + TILE_INDEX[t]] = 1
        for t in hand.drew_tiles[s]:
            obs[at["seat_drew_tiles"] + r * NUM_TILES + TILE_INDEX[t]] = 1

    claim = hand.pending_claim()
    if claim is None:
        obs[at["claim_arm"] + MAX_ARMS + 1] = 1
    else:
        arm, claimer = claim
        obs[at["claim_arm"] + (MAX_ARMS if arm is None else arm)] = 1
        obs[at["claim_seat"] + rel(claimer)] = 1

    obs[at["boneyard_size"]] = len(hand.boneyard)
    obs[at["boneyard_drawable"]] = max(0, len(hand.boneyard) - 2)
    return obs


def decode_observation(obs: np.ndarray) -> dict:
    """Read an observation back into named, human-sized values (for tests and research)."""
    obs = np.asarray(obs)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"an observation has shape ({OBSERVATION_SIZE},), got {obs.shape}")
    v = {name: _view(obs, name) for name in OBSERVATION_LAYOUT}

    def tiles(bits) -> list[Tile]:
        return [ALL_TILES[i] for i in np.flatnonzero(bits)]

    def one(bits) -> int | None:
        hits = np.flatnonzero(bits)
        return int(hits[0]) if len(hits) else None

    n = int(v["seat_present"].sum())
    out: dict = {
        "num_players": one(v["num_players"]) + 3,
        "phase": PHASES[one(v["phase"])],
        "hand": tiles(v["hand"]),
        "set_tile": (tiles(v["set_tile"]) or [None])[0],
        "set_drawn": bool(v["set_drawn"][0]),
        "layout": {
            ALL_TILES[i]: {
                "placer": one(v["layout_placer"][i]),
                "arm": (None if one(v["layout_arm"][i]) == MAX_ARMS else one(v["layout_arm"][i])),
                "immediate": bool(v["layout_immediate"][i]),
            }
            for i in np.flatnonzero(v["layout_tiles"])
        },
        "arms": [
            {
                "open": one(v["arm_open"][a]),
                "rule": RULES[one(v["arm_rule"][a])],
                "needs": NEEDS[one(v["arm_needs"][a])],
                "locked": bool(v["arm_locked"][a]),
                "dead": bool(v["arm_dead"][a]),
                "count": int(v["arm_count"][a]),
            }
            for a in range(MAX_ARMS)
            if v["arm_exists"][a]
        ],
        "announcement": (
            None if one(v["announcement"]) is None else ALL_ANNOUNCEMENTS[one(v["announcement"])]
        ),
        "seats": [
            {
                "hand_size": int(v["seat_hand_size"][r]),
                "out": bool(v["seat_out"][r]),
                "nos": bool(v["seat_nos"][r]),
                "waits_owed": int(v["seat_waits_owed"][r]),
                "on_set": bool(v["seat_on_set"][r]),
                "to_move": bool(v["seat_to_move"][r]),
                "declared": bool(v["seat_declared"][r]),
                "face_up": [(d, d) for d in np.flatnonzero(v["seat_face_up"][r])],
                "chips_change": float(v["seat_chips"][r]),
                "hand_payments": float(v["seat_hand_payments"][r]),
                "passed_on": set(int(e) for e in np.flatnonzero(v["seat_passed_on"][r])),
                "drew_on": set(int(e) for e in np.flatnonzero(v["seat_drew_on"][r])),
                "passed_tiles": set(tiles(v["seat_passed_tiles"][r])),
                "drew_tiles": set(tiles(v["seat_drew_tiles"][r])),
            }
            for r in range(n)
        ],
        "claim": None,
        "boneyard_size": int(v["boneyard_size"][0]),
    }
    claim_arm = one(v["claim_arm"])
    if claim_arm != MAX_ARMS + 1:
        out["claim"] = (None if claim_arm == MAX_ARMS else claim_arm, one(v["claim_seat"]))
    return out
