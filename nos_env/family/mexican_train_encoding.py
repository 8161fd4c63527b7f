"""Mexican Train's action ids and observation layout ([rules/mexican_train.md](../../docs/rules/mexican_train.md)).

Both engines use this module: the reference engine (``nos_env.family.mexican_train``)
encodes through :func:`encode`, the fast engine (``nos_env/games/mexican_train/observe.py``)
writes the same numbers at the offsets of :func:`observation_layout`.

Actions (the family contract's space with A = 9 arms, N tiles; MT13: trains by seat offset
from the player to move, the Mexican train last):

======== ================= =====================================================
block    ids               Mexican Train
======== ================= =====================================================
PLAY     ``t*9 + j``       tile t on train j: 0 his own, 1..7 the train of the seat
                           j places to his left, 8 the Mexican train
SET      ``9N + t``        never legal: the engine places itself (MT1)
DRAW     ``10N``           draw one tile (MT6, MT7)
PASS     ``10N + 1``       pass and put the marker on his train (MT6, MT7)
======== ================= =====================================================

``num_actions = 10N + 2``: 912 (double-twelve), 552 (double-nine).

Observation (seat offset 0 is the observer; trains by offset from the observer as MT13,
S = 8 seats, A = 9 trains, M = max pip):

==================== ========== ======================================================
slice                shape      meaning
==================== ========== ======================================================
``num_players``      (7,)       one-hot of 2..8 players
``phase``            (4,)       one-hot, contract order: opening (never), play, drawn
                                (has drawn and not played since), continuing (owes the
                                tile after a double, MT7/MT8); all 0 when not his turn
``hand``             (N,)       own tiles
``on_table``         (N,)       tiles on the table, the engine included
``set_tile``         (N,)       the round's engine, one-hot
``arm_exists``       (A,)       the train's seat is at the table (the Mexican: always)
``arm_open``         (A, M+1)   the train's open number, one-hot
``arm_count``        (A,)       tiles on the train
``arm_playable``     (A,)       the observer may play on it now (MT5/MT7; a seat not
                                to move: as at the start of his turn)
``arm_double_end``   (A,)       it ends in an unsatisfied double (MT7)
``arm_marked``       (A,)       its owner's marker is out (the Mexican: 0)
``seat_present``     (S,)
``seat_to_move``     (S,)
``seat_hand_size``   (S,)
``seat_void``        (S, N)     public evidence (MT12): tiles the seat is known not to hold
``boneyard_size``    (1,)
``rounds_left``      (1,)       rounds of the match after this one
``seat_score``       (S,)       int32 tail: minus the seat's pip total (MT11); float form
                                divides by ``score_scale``
``target``           (1,)       int32 tail: always 0 (no target score; MT1's rounds)
==================== ========== ======================================================

Compact form (the vector default): every slot as one byte at its float index (the tail
slots hold 0), then from ``compact_tail_at`` (4-byte aligned) the tail fields as
little-endian int32. :func:`decode_compact` gives the float form value for value.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache

import numpy as np

from .compact_form import (  # noqa: F401 (OBSERVATION_DTYPES, SCORE_FIELDS, TAIL_FIELDS: the contract's names, here too)
    OBSERVATION_DTYPES, SCORE_FIELDS, TAIL_FIELDS, CompactForm, check_observation_dtype, field_shapes, lay_out)

NUM_ARMS = 9
MEXICAN = 8  # the Mexican train's arm (action and observation, MT13)
MAX_SEATS = 8
PLAYER_COUNTS = (2, 3, 4, 5, 6, 7, 8)


# ------------------------------------------------------------------ actions
def num_actions(rules) -> int:
    return (NUM_ARMS + 1) * rules.num_tiles + 2


def play_index(t: int, arm: int, side: int = 0, *, rules) -> int:
    """PLAY(t, arm): tile t on train ``arm`` (0 own, 1..7 by seat offset, 8 Mexican)."""
    if not 0 <= int(t) < rules.num_tiles or not 0 <= int(arm) < NUM_ARMS or side != 0:
        raise ValueError(f"a Mexican Train play is a tile 0..{rules.num_tiles - 1} on train 0..8 (0 own, 1..7 by "
                         f"seat offset, 8 Mexican), side 0; got tile {t!r}, arm {arm!r}, side {side!r}")
    return int(t) * NUM_ARMS + int(arm)


def set_index(t: int, *, rules) -> int:
    return NUM_ARMS * rules.num_tiles + int(t)


def draw_index(rules) -> int:
    return (NUM_ARMS + 1) * rules.num_tiles


def pass_index(rules) -> int:
    return (NUM_ARMS + 1) * rules.num_tiles + 1


def action_parts(a: int, rules) -> tuple:
    """("play", t, arm) / ("set", t) / ("draw",) / ("pass",) for an action id."""
    n_t = rules.num_tiles
    if isinstance(a, bool) or not isinstance(a, (int, np.integer)) or not 0 <= a < num_actions(rules):
        raise ValueError(f"a Mexican Train action is an integer 0..{num_actions(rules) - 1}, got {a!r}")
    a = int(a)
    if a < NUM_ARMS * n_t:
        return ("play", a // NUM_ARMS, a % NUM_ARMS)
    if a < (NUM_ARMS + 1) * n_t:
        return ("set", a - NUM_ARMS * n_t)
    return ("draw",) if a == draw_index(rules) else ("pass",)


def tile_text(t: int, rules) -> str:
    low, high = rules.tiles.tiles[t]
    return f"{low}-{high}"


def arm_text(arm: int) -> str:
    return "own" if arm == 0 else "mexican" if arm == MEXICAN else f"+{arm}"


def describe(a: int, rules) -> str:
    """"play 12-5 on own", "play 5-7 on +2", "play 12-3 on mexican", "set 9-9", "draw", "pass"."""
    parts = action_parts(a, rules)
    if parts[0] == "play":
        return f"play {tile_text(parts[1], rules)} on {arm_text(parts[2])}"
    if parts[0] == "set":
        return f"set {tile_text(parts[1], rules)}"
    return parts[0]


def parse(text: str, rules) -> int:
    """The action id of describe()'s text."""
    words = str(text).strip().lower().split()
    try:
        if words == ["pass"]:
            return pass_index(rules=rules)
        if words == ["draw"]:
            return draw_index(rules=rules)
        low, high = sorted(int(x) for x in words[1].split("-"))
        t = rules.tiles.index[(low, high)]
        if words[0] == "set" and len(words) == 2:
            return set_index(t, rules=rules)
        if words[0] == "play" and len(words) == 4 and words[2] == "on":
            where = words[3]
            arm = 0 if where == "own" else MEXICAN if where == "mexican" else \
                int(where[1:]) if where[:1] == "+" and where[1:].isdigit() and 1 <= int(where[1:]) <= 7 else None
            if arm is not None:
                return play_index(t, arm, rules=rules)
    except (ValueError, IndexError, KeyError):
        pass
    raise ValueError(f"cannot read {text!r} as a Mexican Train action: write 'play a-b on own', 'play a-b on +j' "
                     f"(j = 1..7, the train of the seat j places to the left), 'play a-b on mexican', 'draw' or "
                     f"'pass' (tiles of the {rules.tiles.name} set)")


# -------------------------------------------------------------- observation
FIELDS = ("num_players", "phase", "hand", "on_table", "set_tile", "arm_exists", "arm_open", "arm_count",
          "arm_playable", "arm_double_end", "arm_marked", "seat_present", "seat_to_move", "seat_hand_size",
          "seat_void", "boneyard_size", "rounds_left", "seat_score", "target")


def observation_layout(rules) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    """name -> (start, stop, shape) in the float32 observation (a new dict each call)."""
    return OrderedDict(_layout(rules.num_tiles, rules.max_pip))


@cache
def _layout(n_t: int, m: int) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    s, a = MAX_SEATS, NUM_ARMS
    shapes = field_shapes(len(PLAYER_COUNTS), n_t, m, s, a)
    shapes.update(arm_marked=(a,), rounds_left=(1,))
    return lay_out(FIELDS, shapes)


#: sizes, tail, packing and decoding of the compact form (nos_env/family/compact_form.py)
FORM = CompactForm(_layout, MAX_SEATS, "Mexican Train")
(float_size, compact_tail_at, compact_scores_at, compact_size, observation_size, tail_slots, compact_scores,
 decode_compact) = FORM.functions()


def encode(game, seat: int, dtype: object = "float32", score_scale: float = 100.0) -> np.ndarray:
    """Seat ``seat``'s observation of a ``MexicanTrainGame`` (float32, or the compact uint8 form).

    It reads the seat's own hand and public state only: the trains, markers, hand sizes, the
    boneyard's size, the public void sets (MT12), the scores. Other hands and the boneyard's
    tiles are never read (``tests/test_mexican_train_env.py``'s leak test checks it)."""
    rules = game.rules
    dtype = check_observation_dtype(dtype)
    n, n_t, m1 = rules.num_players, rules.num_tiles, rules.max_pip + 1
    layout = _layout(n_t, rules.max_pip)
    obs = np.zeros(float_size(rules), np.float32)
    at = {name: start for name, (start, _, _) in layout.items()}
    hand = game.hand

    obs[at["num_players"] + n - PLAYER_COUNTS[0]] = 1
    if not game.done and hand.to_move == seat:
        obs[at["phase"] + hand.phase()] = 1
    for t in hand.hands[seat]:
        obs[at["hand"] + t] = 1
    for t in range(n_t):
        if hand.placer[t] >= 0 or t == hand.engine:
            obs[at["on_table"] + t] = 1
    obs[at["set_tile"] + hand.engine] = 1
    playable = hand.accessible(seat)
    for k in range(NUM_ARMS):  # k: absolute arm (seat trains 0..n-1, MEXICAN)
        if k != MEXICAN and k >= n:
            continue
        j = MEXICAN if k == MEXICAN else (k - seat) % n
        obs[at["arm_exists"] + j] = 1
        obs[at["arm_open"] + j * m1 + hand.open_end[k]] = 1
        obs[at["arm_count"] + j] = hand.count[k]
        if k in playable:
            obs[at["arm_playable"] + j] = 1
        if hand.ends_in_double(k):
            obs[at["arm_double_end"] + j] = 1
        if k != MEXICAN and hand.marker[k]:
            obs[at["arm_marked"] + j] = 1
    for s in range(n):
        r = (s - seat) % n
        obs[at["seat_present"] + r] = 1
        if not game.done and hand.to_move == s:
            obs[at["seat_to_move"] + r] = 1
        obs[at["seat_hand_size"] + r] = len(hand.hands[s])
        for t in hand.void[s]:
            obs[at["seat_void"] + r * n_t + t] = 1
        obs[at["seat_score"] + r] = game.scores[s] / float(score_scale)
    obs[at["boneyard_size"]] = len(hand.boneyard)
    obs[at["rounds_left"]] = game.rounds_left
    if dtype == "float32":
        return obs
    return FORM.pack(obs, rules, [game.scores[(seat + r) % n] for r in range(n)])
