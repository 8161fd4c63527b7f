"""Chickenfoot's action ids and observation layout ([rules/chickenfoot.md](../../docs/rules/chickenfoot.md)).

Both engines use this module: the reference engine (``nos_env.family.chickenfoot``) encodes
through :func:`encode`, the fast engine (``nos_env/games/chickenfoot/observe.py``) writes the
same numbers at the offsets of :func:`observation_layout`.

Actions (CK14: the family contract's space, N tiles, A = 6 + 2M toes as arms):

======== ================= =====================================================
block    ids               Chickenfoot
======== ================= =====================================================
PLAY     ``t*A + k``       tile t on toe k ("play 9-4 on T3")
SET      ``N*A + t``       never legal: the engine places the set double (CK4)
DRAW     ``N*A + N``       one tile from the yard, only when nothing fits (CK8)
PASS     ``N*A + N + 1``   after a draw that does not fit, or with an empty yard
======== ================= =====================================================

``num_actions``: 1377 (double-nine, A = 24), 2823 (double-twelve, A = 30).

Observation (from the observer's seat: seat offset 0 is the observer, S = 8 seats; only the
others' hands and the yard are hidden, CK15):

==================== ========== ======================================================
slice                shape      meaning
==================== ========== ======================================================
``num_players``      (7,)       one-hot of 2..8 players
``phase``            (4,)       one-hot, contract order: play (1), drawn (2: the mover
                                has drawn this turn); opening/continuing never occur
``hand``             (N,)       own tiles
``on_table``         (N,)       tiles on the layout, the set included
``placer``           (N, S)     who placed each tile (seat offset; the set: its holder)
``tile_arm``         (N, A+1)   the toe a tile lies on; column A: the set tile
``set_tile``         (N,)       one-hot
``arm_exists``       (A,)       the toe has been created (0..5 with the set; 2 a double)
``arm_open``         (A, M+1)   its open number, one-hot
``arm_count``        (A,)       tiles on the toe (a double on it included)
``arm_playable``     (A,)       the toe takes a tile now (CK6, CK7: while a foot is
                                pending only its next toe)
``arm_double_end``   (A,)       the toe's last tile is a double (its foot's straight toe
                                waits for a tile)
``seat_present``     (S,)
``seat_to_move``     (S,)       all zero once the match is over
``seat_hand_size``   (S,)
``seat_partner``     (S,)       always zero (no teams)
``seat_void``        (S, N)     public evidence (CK15)
``boneyard_size``    (1,)       tiles in the yard
``boneyard_drawable`` (1,)      the yard has a tile
``foot_left``        (1,)       toes of the pending foot still to fill (6 for the
                                double chickenfoot, 3 for a chickenfoot; 0: none)
``foot_number``      (M+1,)     one-hot: the number they need (all zero: none pending)
``foot_toe``         (A,)       one-hot: the toe to fill next
``hand_number``      (1,)       hands finished so far in the match
``hands_left``       (1,)       hands still to play, the current one included
``seat_score``       (S,)       int32 tail: penalty totals (CK12); float / ``score_scale``
``target``           (1,)       int32 tail: always 0 (no target score, CK13)
==================== ========== ======================================================

Compact form (the vector default): every body slot as one byte at its float index (the tail
slots hold 0), then from ``compact_scores_at`` (4-byte aligned) the tail as little-endian
int32 (``seat_score`` by offset, then ``target``). :func:`decode_compact` gives the float
form back, value for value.
"""

from __future__ import annotations

from collections import OrderedDict
from functools import cache

import numpy as np

from .compact_form import (  # noqa: F401 (OBSERVATION_DTYPES, SCORE_FIELDS, TAIL_FIELDS: the contract's names, here too)
    OBSERVATION_DTYPES, SCORE_FIELDS, TAIL_FIELDS, CompactForm, check_observation_dtype, field_shapes, lay_out)

MAX_SEATS = 8
PLAYER_COUNTS = tuple(range(2, MAX_SEATS + 1))
PHASE_PLAY, PHASE_DRAWN = 1, 2


def num_arms_for(max_pip: int) -> int:
    """CK7: six toes on the set, two more for each of the M other doubles."""
    return 6 + 2 * max_pip


# ------------------------------------------------------------------ actions
def num_plays(rules) -> int:
    return rules.num_tiles * rules.num_arms


def num_actions(rules) -> int:
    return num_plays(rules) + rules.num_tiles + 2


def play_index(t: int, arm: int, side: int = 0, *, rules) -> int:
    """PLAY(t, k): tile t on toe k."""
    if isinstance(t, bool) or isinstance(arm, bool) or not (0 <= int(t) < rules.num_tiles
                                                             and 0 <= int(arm) < rules.num_arms and side == 0):
        raise ValueError(f"a Chickenfoot play is a tile 0..{rules.num_tiles - 1} on a toe 0..{rules.num_arms - 1}, "
                         f"side 0; got tile {t!r}, toe {arm!r}, side {side!r}")
    return int(t) * rules.num_arms + int(arm)


def set_index(t: int, *, rules) -> int:
    return num_plays(rules) + int(t)


def draw_index(rules) -> int:
    return num_plays(rules) + rules.num_tiles


def pass_index(rules) -> int:
    return num_plays(rules) + rules.num_tiles + 1


def action_parts(a: int, rules) -> tuple[str, int, int, int]:
    """(kind, tile, toe, side) of an action id; -1 where a part does not apply."""
    if isinstance(a, bool) or not hasattr(a, "__index__") or not 0 <= int(a) < num_actions(rules):
        raise ValueError(f"{a!r} is not a chickenfoot action (0..{num_actions(rules) - 1})")
    a = int(a)
    P, N = num_plays(rules), rules.num_tiles
    if a < P:
        t, k = divmod(a, rules.num_arms)
        return "play", t, k, 0
    if a < P + N:
        return "set", a - P, -1, -1
    return ("draw", -1, -1, -1) if a == P + N else ("pass", -1, -1, -1)


def arm_name(arm: int, rules=None) -> str:
    return f"T{int(arm)}"


def tile_text(t: int, rules) -> str:
    low, high = rules.tiles.tiles[t]
    return f"{low}-{high}"


def describe(a: int, rules) -> str:
    """"play 9-4 on T3", "set 9-9", "draw", "pass"."""
    kind, t, k, _ = action_parts(a, rules)
    if kind == "play":
        return f"play {tile_text(t, rules)} on T{k}"
    if kind == "set":
        return f"set {tile_text(t, rules)}"
    return kind


def parse(text: str, rules) -> int:
    """The action id of describe()'s text ("play 9-4 on T3", "draw", "pass")."""
    words = str(text).strip().lower().split()
    try:
        if words == ["draw"]:
            return draw_index(rules)
        if words == ["pass"]:
            return pass_index(rules)
        low, high = sorted(int(x) for x in words[1].split("-"))
        t = rules.tiles.index[(low, high)]
        if words[0] == "set" and len(words) == 2:
            return set_index(t, rules=rules)
        if words[0] == "play" and len(words) == 4 and words[2] == "on" and words[3][:1] == "t":
            return play_index(t, int(words[3][1:]), rules=rules)
    except (ValueError, IndexError, KeyError):
        pass
    raise ValueError(f"cannot read {text!r} as a Chickenfoot action: write 'play a-b on T<toe>' (toes "
                     f"0..{rules.num_arms - 1}), 'draw' or 'pass' (tiles of the {rules.tiles.name} set)")


# -------------------------------------------------------------- observation
#: the observation's fields, in order (shapes: compact_form.field_shapes and _layout's own)
FIELDS = ("num_players", "phase", "hand", "on_table", "placer", "tile_arm", "set_tile", "arm_exists", "arm_open",
          "arm_count", "arm_playable", "arm_double_end", "seat_present", "seat_to_move", "seat_hand_size",
          "seat_partner", "seat_void", "boneyard_size", "boneyard_drawable", "foot_left", "foot_number", "foot_toe",
          "hand_number", "hands_left", "seat_score", "target")


def observation_layout(rules) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    """name -> (start, stop, shape) in the float32 observation (a new dict each call)."""
    return OrderedDict(_layout(rules.num_tiles, rules.max_pip))


@cache
def _layout(N: int, M: int) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    S, A = MAX_SEATS, num_arms_for(M)
    shapes = field_shapes(len(PLAYER_COUNTS), N, M, S, A)
    shapes.update(foot_left=(1,), foot_number=(M + 1,), foot_toe=(A,), hand_number=(1,), hands_left=(1,))
    return lay_out(FIELDS, shapes)


#: sizes, tail, packing and decoding of the compact form (nos_env/family/compact_form.py)
FORM = CompactForm(_layout, MAX_SEATS, "Chickenfoot")
(float_size, compact_tail_at, compact_scores_at, compact_size, observation_size, tail_slots, compact_scores,
 decode_compact) = FORM.functions()


def encode(game, seat: int, dtype: object = "float32", score_scale: float = 100.0) -> np.ndarray:
    """Seat ``seat``'s observation of a ``ChickenfootGame`` (float32, or the compact uint8 form).

    Reads the public state and the seat's own hand only: the other hands and the yard are
    read for their sizes (``tests/test_chickenfoot_rules.py`` shuffles them and checks)."""
    dtype = check_observation_dtype(dtype)
    rules = game.rules
    n, N, A = rules.num_players, rules.num_tiles, rules.num_arms
    layout = _layout(N, rules.max_pip)
    obs = np.zeros(float_size(rules), np.float32)
    hand = game.hand

    def view(name):
        start, stop, shape = layout[name]
        return obs[start:stop].reshape(shape)

    def rel(s):
        return (s - seat) % n

    view("num_players")[n - PLAYER_COUNTS[0]] = 1
    view("phase")[PHASE_DRAWN if hand.drawn else PHASE_PLAY] = 1
    for t in hand.hands[seat]:
        view("hand")[t] = 1
    for t, who in hand.placer.items():
        view("on_table")[t] = 1
        view("placer")[t, rel(who)] = 1
        k = hand.tile_arm[t]
        view("tile_arm")[t, A if k < 0 else k] = 1
    view("set_tile")[hand.set_tile] = 1
    playable = hand.playable_toes()
    for k, toe in enumerate(hand.toes):
        view("arm_exists")[k] = 1
        view("arm_open")[k, toe.open] = 1
        view("arm_count")[k] = toe.count
        view("arm_playable")[k] = 1 if k in playable else 0
        view("arm_double_end")[k] = 1 if toe.last is not None and rules.tiles.IS_DOUBLE[toe.last] else 0
    for s in range(n):
        r = rel(s)
        view("seat_present")[r] = 1
        view("seat_hand_size")[r] = len(hand.hands[s])
        for t in hand.void[s]:
            view("seat_void")[r, t] = 1
    if not game.done and not hand.over:
        view("seat_to_move")[rel(hand.to_move)] = 1
    view("boneyard_size")[0] = len(hand.yard)
    view("boneyard_drawable")[0] = 1 if hand.yard else 0
    if hand.foot_left:
        view("foot_left")[0] = hand.foot_left
        view("foot_number")[hand.foot_number] = 1
        view("foot_toe")[hand.foot_toe()] = 1
    view("hand_number")[0] = game.hands_finished
    view("hands_left")[0] = rules.num_hands - game.hands_finished
    scores = [game.scores[(seat + r) % n] if r < n else 0 for r in range(MAX_SEATS)]
    if dtype == "float32":
        view("seat_score")[:] = np.array(scores, np.float64) / float(score_scale)
        return obs
    return FORM.pack(obs, rules, scores)
