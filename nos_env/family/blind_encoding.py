"""Blind's action ids and observation layout ([rules/blind.md](../../docs/rules/blind.md)).

Both engines use this module: the reference engine (``nos_env.family.blind``) encodes
through :func:`encode`, the fast engine (``nos_env/games/blind/observe.py``) writes the same
numbers at the offsets of :func:`observation_layout`.

Actions (the family contract's space, N tiles, A = 2 arms L0/L1):

======== ================= =====================================================
block    ids               Blind
======== ================= =====================================================
PLAY     ``t*2 + arm``     the turned-up tile t on L0 (0) or L1 (1) (BD5)
SET      ``2N + t``        never legal: the set is the starter's first tile (BD4)
DRAW     ``3N``            never legal: Blind has no drawing (BD5)
PASS     ``3N + 1``        DECLINE, only with ``optional_play`` (BD5)
======== ================= =====================================================

``num_actions = 3N + 2``: 86 (double-six), 167 (double-nine).

Observation (BD3: nobody knows a tile before it is turned up, his own included, so there
is no private part; seat offset 0 is the observer, S = 5 seats, M = max pip):

==================== ========== ======================================================
slice                shape      meaning
==================== ========== ======================================================
``num_players``      (4,)       one-hot of 2..5 players
``phase``            (4,)       one-hot, contract order: opening (never), play (the
                                turn's first tile is up), drawn (never), continuing (the
                                player has played a tile this turn); all 0 when over
``turned_up``        (N,)       the tile turned up that the player decides on
``on_table``         (N,)       tiles on the line, the set included
``placer``           (N, S)     who placed each tile on the table (seat offset)
``tile_arm``         (N, 3)     its arm L0/L1; last column: the set tile
``set_tile``         (N,)       one-hot
``arm_exists``       (2,)       both 1 once the set lies
``arm_open``         (2, M+1)   the open number, one-hot
``arm_count``        (2,)       tiles on the arm (the set not counted)
``arm_playable``     (2,)       the turned-up tile fits the arm
``arm_double_end``   (2,)       the arm's last tile (the set tile on an empty arm) is a double
``seat_present``     (S,)
``seat_to_move``     (S,)
``seat_hand_size``   (S,)       tiles in the seat's row (the turned-up one included)
``seat_unseen``      (S,)       tiles of the row never turned up
``row_seen``         (S, N)     tile t has been seen and lies in the seat's row
``row_place``        (S, N)     its place there, 1 = front (the next to turn up)
``unseen``           (N,)       tiles never turned up (in some row, or set aside)
``set_aside``        (1,)       how many tiles are set aside (BD2)
``seat_score``       (S,)       int32 tail: 1 for the winner once the game is over;
                                float form divides by ``score_scale``
``target``           (1,)       int32 tail: always 0 (one hand, BD8)
==================== ========== ======================================================

Compact form (the vector default): every slot as one byte at its float index (the tail
slots hold 0), then from ``compact_tail_at`` (4-byte aligned) the tail fields as
little-endian int32 (``seat_score`` by offset, then ``target``). :func:`decode_compact`
gives the float form value for value.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache

import numpy as np

from .compact_form import (  # noqa: F401 (OBSERVATION_DTYPES, SCORE_FIELDS, TAIL_FIELDS: the contract's names, here too)
    OBSERVATION_DTYPES, SCORE_FIELDS, TAIL_FIELDS, CompactForm, check_observation_dtype, field_shapes, lay_out)

NUM_ARMS = 2
MAX_SEATS = 5
PLAYER_COUNTS = (2, 3, 4, 5)


# ------------------------------------------------------------------ actions
def num_actions(rules) -> int:
    return 3 * rules.num_tiles + 2


def play_index(t: int, arm: int, side: int = 0, *, rules) -> int:
    """PLAY(t, arm): the turned-up tile t on L0 (arm 0) or L1 (arm 1)."""
    if not 0 <= int(t) < rules.num_tiles or arm not in (0, 1) or side != 0:
        raise ValueError(f"a Blind play is a tile 0..{rules.num_tiles - 1} on arm 0 (L0) or 1 (L1), side 0; "
                         f"got tile {t!r}, arm {arm!r}, side {side!r}")
    return int(t) * NUM_ARMS + arm


def set_index(t: int, *, rules) -> int:
    return 2 * rules.num_tiles + int(t)


def draw_index(rules) -> int:
    return 3 * rules.num_tiles


def pass_index(rules) -> int:
    """The PASS id; in Blind it is DECLINE (BD5, ``optional_play``)."""
    return 3 * rules.num_tiles + 1


decline_index = pass_index


def action_parts(a: int, rules) -> tuple:
    """("play", t, arm) / ("set", t) / ("draw",) / ("decline",) for an action id."""
    n_t = rules.num_tiles
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < num_actions(rules):
        raise ValueError(f"a Blind action is an integer 0..{num_actions(rules) - 1}, got {a!r}")
    a = int(a)
    if a < 2 * n_t:
        return ("play", a // 2, a % 2)
    if a < 3 * n_t:
        return ("set", a - 2 * n_t)
    return ("draw",) if a == 3 * n_t else ("decline",)


def tile_text(t: int, rules) -> str:
    low, high = rules.tiles.tiles[t]
    return f"{low}-{high}"


def describe(a: int, rules) -> str:
    """"play 3-5 on L1", "set 6-6", "draw", "decline"."""
    parts = action_parts(a, rules)
    if parts[0] == "play":
        return f"play {tile_text(parts[1], rules)} on L{parts[2]}"
    if parts[0] == "set":
        return f"set {tile_text(parts[1], rules)}"
    return parts[0]


def parse(text: str, rules) -> int:
    """The action id of describe()'s text ("play 3-5 on L1", "decline"; "pass" = "decline")."""
    words = str(text).strip().lower().split()
    try:
        if words in (["decline"], ["pass"]):
            return pass_index(rules=rules)
        if words == ["draw"]:
            return draw_index(rules=rules)
        low, high = sorted(int(x) for x in words[1].split("-"))
        t = rules.tiles.index[(low, high)]
        if words[0] == "set" and len(words) == 2:
            return set_index(t, rules=rules)
        if words[0] == "play" and len(words) == 4 and words[2] == "on" and words[3] in ("l0", "l1"):
            return play_index(t, int(words[3][1]), rules=rules)
    except (ValueError, IndexError, KeyError):
        pass
    raise ValueError(f"cannot read {text!r} as a Blind action: write 'play a-b on L0', 'play a-b on L1' or "
                     f"'decline' (tiles of the {rules.tiles.name} set)")


# -------------------------------------------------------------- observation
#: the observation's fields, in order (shapes: compact_form.field_shapes and _layout's own)
FIELDS = ("num_players", "phase", "turned_up", "on_table", "placer", "tile_arm", "set_tile", "arm_exists", "arm_open",
          "arm_count", "arm_playable", "arm_double_end", "seat_present", "seat_to_move", "seat_hand_size",
          "seat_unseen", "row_seen", "row_place", "unseen", "set_aside", "seat_score", "target")


def observation_layout(rules) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    """name -> (start, stop, shape) in the float32 observation (a new dict each call)."""
    return OrderedDict(_layout(rules.num_tiles, rules.max_pip))


@cache
def _layout(n_t: int, m: int) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    s = MAX_SEATS
    shapes = field_shapes(len(PLAYER_COUNTS), n_t, m, s, NUM_ARMS)
    shapes.update(seat_unseen=(s,), row_seen=(s, n_t), row_place=(s, n_t), unseen=(n_t,), set_aside=(1,))
    return lay_out(FIELDS, shapes)


#: sizes, tail, packing and decoding of the compact form (nos_env/family/compact_form.py)
FORM = CompactForm(_layout, MAX_SEATS, "Blind")
(float_size, compact_tail_at, compact_scores_at, compact_size, observation_size, tail_slots, compact_scores,
 decode_compact) = FORM.functions()


def encode(game, seat: int, dtype: object = "float32", score_scale: float = 100.0) -> np.ndarray:
    """Seat ``seat``'s observation of a ``BlindGame`` (float32, or the compact uint8 form).

    It reads only public state (BD3): the line, who placed what, the tile turned up, every
    row's length and the seen tiles' places in their rows, the scores. The rows' unseen
    tiles and the set-aside tiles are never read (``tests/test_blind_rules.py`` checks it)."""
    rules = game.rules
    dtype = check_observation_dtype(dtype)
    n, n_t = rules.num_players, rules.num_tiles
    layout = _layout(n_t, rules.max_pip)
    obs = np.zeros(float_size(rules), np.float32)

    def put(name, index, value=1):
        start, _, shape = layout[name]
        flat = index[0] * shape[1] + index[1] if isinstance(index, tuple) else index
        obs[start + flat] = value

    def rel(s):
        return (s - seat) % n

    put("num_players", n - PLAYER_COUNTS[0])
    if not game.done:
        put("phase", 3 if game.played_this_turn else 1)
    if game.turned is not None:
        put("turned_up", game.turned)
    for t, placer in enumerate(game.placer):
        if placer >= 0:
            put("on_table", t)
            put("placer", (t, rel(placer)))
            put("tile_arm", (t, game.tile_arm[t]))
    if game.set_tile is not None:
        put("set_tile", game.set_tile)
        for arm in range(NUM_ARMS):
            put("arm_exists", arm)
            put("arm_open", (arm, game.open_ends[arm]))
            put("arm_count", arm, game.arm_count[arm])
            if game.turned is not None and game.fits(game.turned, arm):
                put("arm_playable", arm)
            last = game.arm_last[arm]
            if rules.tiles.IS_DOUBLE[last]:
                put("arm_double_end", arm)
    for s in range(n):
        r = rel(s)
        put("seat_present", r)
        if game.to_move == s:
            put("seat_to_move", r)
        row = game.rows[s]
        put("seat_hand_size", r, len(row))
        put("seat_unseen", r, sum(1 for t in row if not game.seen[t]))
        for place, t in enumerate(row):
            if game.seen[t]:  # an unseen tile's identity is never read
                put("row_seen", (r, t))
                put("row_place", (r, t), place + 1)
    for t in range(n_t):
        if not game.seen[t]:
            put("unseen", t)
    put("set_aside", 0, len(game.aside))
    start = layout["seat_score"][0]
    for s in range(n):
        obs[start + rel(s)] = game.scores[s] / float(score_scale)
    if dtype == "float32":
        return obs
    by_offset = [0] * n
    for s in range(n):
        by_offset[rel(s)] = game.scores[s]
    return FORM.pack(obs, rules, by_offset)
