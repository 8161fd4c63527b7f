"""The one place for the family games' action ids and observation layout.

Actions (contract "Actions"), with N tiles in the set and A arms of the game's layout:

| block | ids |
|---|---|
| PLAY | ``t*A + arm`` (P = N*A ids); Matador ``(t*A + arm)*2 + side``, side 0: the tile's lower number faces outward, 1: the higher (a double uses 0), P = N*A*2 |
| SET | ``P + t`` (opening="free": the setter's first action, F4) |
| DRAW | ``P + N`` |
| PASS | ``P + N + 1`` (also ends an F23 extra play, and a Fours turn under multi_play="may") |

Observation (from the observer's seat: seat offset 0 is the observer; F24: nothing but his
own hand is hidden information): a float32 vector of named slices (:func:`observation_layout`)
and a compact form, a uint8 body with the scores as an int32 tail, 4-byte aligned
(:func:`decode_compact` gives the float32 form back, value for value).
"""

from __future__ import annotations

from collections import OrderedDict

import numpy as np

from ..kernels.tilesets import tile_set
from .compact_form import field_shapes, lay_out
from .rules import FamilyRules, player_counts

PHASES = ("opening", "play", "drawn", "continuing")


# -- actions ----------------------------------------------------------------------------------
def _sides(rules: FamilyRules) -> int:
    return 2 if rules.matching == "seven" else 1


def num_plays(rules: FamilyRules) -> int:
    """P: the number of PLAY ids."""
    return rules.num_tiles * rules.num_arms * _sides(rules)


def num_actions(rules: FamilyRules) -> int:
    return num_plays(rules) + rules.num_tiles + 2


def play_index(t: int, arm: int, side: int = 0, *, rules: FamilyRules) -> int:
    if not (0 <= t < rules.num_tiles and 0 <= arm < rules.num_arms and 0 <= side < _sides(rules)):
        raise ValueError(f"no play of tile {t!r} on arm {arm!r} side {side!r} in {rules.game} "
                         f"(tiles 0..{rules.num_tiles - 1}, arms 0..{rules.num_arms - 1}, "
                         f"sides 0..{_sides(rules) - 1})")
    return (t * rules.num_arms + arm) * _sides(rules) + side


def set_index(t: int, *, rules: FamilyRules) -> int:
    if not 0 <= t < rules.num_tiles:
        raise ValueError(f"no tile {t!r} in {rules.game} (0..{rules.num_tiles - 1})")
    return num_plays(rules) + t


def draw_index(rules: FamilyRules) -> int:
    return num_plays(rules) + rules.num_tiles


def pass_index(rules: FamilyRules) -> int:
    return num_plays(rules) + rules.num_tiles + 1


def action_parts(a: int, rules: FamilyRules) -> tuple[str, int, int, int]:
    """(kind, tile, arm, side) of an action id; -1 where a part does not apply."""
    if isinstance(a, bool) or not hasattr(a, "__index__") or not 0 <= int(a) < num_actions(rules):
        raise ValueError(f"{a!r} is not a {rules.game} action (0..{num_actions(rules) - 1})")
    a = int(a)
    P, N = num_plays(rules), rules.num_tiles
    if a < P:
        sides = _sides(rules)
        side = a % sides
        t, arm = divmod(a // sides, rules.num_arms)
        return "play", t, arm, side
    if a < P + N:
        return "set", a - P, -1, -1
    return ("draw", -1, -1, -1) if a == P + N else ("pass", -1, -1, -1)


def arm_name(arm: int, rules: FamilyRules) -> str:
    """L0/L1 in a line (and Five Up's first two arms), C0..C3 on a spinner set tile, A<k> for a
    later spinner's arms (F7)."""
    if rules.game in ("cross", "double_nine_cross"):
        return f"C{arm}" if arm < 4 else f"A{arm}"
    return f"L{arm}" if arm < 2 else f"A{arm}"


def _tile_str(t: int, rules: FamilyRules) -> str:
    a, b = tile_set(rules.max_pip).tiles[t]
    return f"{a}-{b}"


def describe(a: int, rules: FamilyRules) -> str:
    """"play 3-5 on L1" (Matador: "play 1-6 on L0 leaving 6"), "set 6-6", "draw", "pass"."""
    kind, t, arm, side = action_parts(a, rules)
    if kind == "play":
        text = f"play {_tile_str(t, rules)} on {arm_name(arm, rules)}"
        if rules.matching == "seven":
            lo, hi = tile_set(rules.max_pip).tiles[t]
            text += f" leaving {hi if side else lo}"
        return text
    if kind == "set":
        return f"set {_tile_str(t, rules)}"
    return kind


def _parse_tile(text: str, rules: FamilyRules) -> int:
    ts = tile_set(rules.max_pip)
    parts = text.split("-")
    if len(parts) == 2 and all(p.isdigit() for p in parts):
        a, b = sorted(int(p) for p in parts)
        if (a, b) in ts.index:
            return ts.index[(a, b)]
    raise ValueError(f"not a tile of the {ts.name} set: {text!r} (expected 'a-b', numbers 0..{rules.max_pip})")


def parse(text: str, rules: FamilyRules) -> int:
    """The action id of :func:`describe`'s text ("play 3-5 on L1", "set 6-6", "draw", "pass")."""
    if not isinstance(text, str):
        raise ValueError(f"an action text must be a string, got {text!r}")
    words = text.strip().lower().split()
    usage = ("expected 'play a-b on <arm>' (arms " + ", ".join(arm_name(k, rules) for k in range(rules.num_arms))
             + ")" + (" followed by 'leaving x'" if rules.matching == "seven" else "")
             + ", 'set a-b', 'draw' or 'pass'")
    if words == ["draw"]:
        return draw_index(rules)
    if words == ["pass"]:
        return pass_index(rules)
    if len(words) == 2 and words[0] == "set":
        return set_index(_parse_tile(words[1], rules), rules=rules)
    if len(words) in (4, 6) and words[0] == "play" and words[2] == "on":
        t = _parse_tile(words[1], rules)
        names = {arm_name(k, rules).lower(): k for k in range(rules.num_arms)}
        if words[3] not in names:
            raise ValueError(f"no arm {words[3]!r} in {rules.game}: {usage}")
        arm = names[words[3]]
        lo, hi = tile_set(rules.max_pip).tiles[t]
        side = 0
        if rules.matching == "seven":
            if len(words) != 6 or words[4] != "leaving" or words[5] not in (str(lo), str(hi)):
                raise ValueError(f"{text!r}: a Matador play names the outward number, one of the tile's ({usage})")
            side = 1 if (int(words[5]) == hi and lo != hi) else 0
        elif len(words) != 4:
            raise ValueError(f"{text!r}: {usage}")
        return play_index(t, arm, side, rules=rules)
    raise ValueError(f"cannot read action {text!r}: {usage}")


# -- observation --------------------------------------------------------------------------------
#: the features that are scores: int32 tail of the compact form, divided by score_scale as floats
SCORE_FIELDS = ("seat_score", "target")
OBSERVATION_DTYPES = ("uint8", "float32")


#: the observation's fields, in order (their shapes: compact_form.field_shapes)
FIELDS = ("num_players", "phase", "hand", "on_table", "placer", "tile_arm", "set_tile", "arm_exists", "arm_open",
          "arm_count", "arm_playable", "arm_double_end", "seat_present", "seat_to_move", "seat_hand_size",
          "seat_partner", "seat_void", "boneyard_size", "boneyard_drawable", "seat_score", "target")


def observation_layout(rules: FamilyRules) -> "OrderedDict[str, tuple[int, int, tuple[int, ...]]]":
    """name -> (start, stop, shape) of the float32 observation of this game and tile set."""
    shapes = field_shapes(len(player_counts(rules.game)), rules.num_tiles, rules.max_pip, rules.max_seats,
                          rules.num_arms)
    return lay_out(FIELDS, shapes)


def observation_size(rules: FamilyRules, dtype="float32") -> int:
    """The float32 length, or the compact length (body aligned to 4, then the int32 scores)."""
    size = next(reversed(observation_layout(rules).values()))[1]
    if np.dtype(_check_dtype(dtype)) == np.float32:
        return size
    return compact_scores_at(rules) + 4 * (rules.max_seats + 1)


def compact_scores_at(rules: FamilyRules) -> int:
    size = next(reversed(observation_layout(rules).values()))[1]
    return -(-size // 4) * 4


def _check_dtype(dtype) -> str:
    if isinstance(dtype, (type, np.dtype)):
        dtype = np.dtype(dtype).name
    if dtype not in OBSERVATION_DTYPES:
        raise ValueError(f"dtype must be one of {', '.join(map(repr, OBSERVATION_DTYPES))} "
                         f"(uint8: the compact encoding, float32: decoded), got {dtype!r}")
    return dtype


def phase_of(hand) -> int:
    """The observation's phase, from the hand's flags: 0 opening (SET pending), 3 continuing
    (an F23 extra play pending, or in Fours a tile placed this turn, FO3), 2 drawn (has drawn
    this turn), else 1 play. A finished hand keeps the flags of its last turn."""
    from .engine import OPENING
    if hand.phase == OPENING:
        return 0
    if hand.extra_double is not None or (hand.rules.game == "fours" and hand.placed):
        return 3
    if hand.drawn:
        return 2
    return 1


def encode(game, seat: int, dtype="float32", score_scale: float = 100.0) -> np.ndarray:
    """The observation of ``seat`` in a FamilyGame (float32, or the compact uint8 form)."""
    dtype = _check_dtype(dtype)
    rules = game.rules
    n = rules.num_players
    if isinstance(seat, bool) or not hasattr(seat, "__index__") or not 0 <= int(seat) < n:
        raise ValueError(f"seat must be 0..{n - 1}, got {seat!r}")
    seat = int(seat)
    layout = observation_layout(rules)
    size = next(reversed(layout.values()))[1]
    obs = np.zeros(size, np.float32)
    hand = game.hand
    lay = hand.layout

    def view(name):
        start, stop, shape = layout[name]
        return obs[start:stop].reshape(shape)

    def rel(s):
        return (s - seat) % n

    view("num_players")[player_counts(rules.game).index(n)] = 1
    view("phase")[phase_of(hand)] = 1
    for t in hand.hands[seat]:
        view("hand")[t] = 1
    A = rules.num_arms
    for t, who in lay.placer.items():
        view("on_table")[t] = 1
        view("placer")[t, rel(who)] = 1
        k = lay.tile_arm[t]
        view("tile_arm")[t, A if k < 0 else k] = 1
    if lay.set_tile is not None:
        view("set_tile")[lay.set_tile] = 1
    for arm in lay.arms:
        k = arm.number
        view("arm_exists")[k] = 1
        view("arm_open")[k, arm.open] = 1
        view("arm_count")[k] = len(arm.tiles)
        view("arm_playable")[k] = 1 if lay.arm_playable(k) else 0
        view("arm_double_end")[k] = 1 if lay.arm_double_end(k) else 0
    for s in range(n):
        r = rel(s)
        view("seat_present")[r] = 1
        view("seat_hand_size")[r] = len(hand.hands[s])
        for t in hand.void[s]:
            view("seat_void")[r, t] = 1
    if not game.done and not hand.over:
        view("seat_to_move")[rel(hand.to_move)] = 1
    if rules.teams:
        view("seat_partner")[2] = 1
    view("boneyard_size")[0] = len(hand.boneyard)
    view("boneyard_drawable")[0] = 1 if hand.drawable() else 0
    scores = [game.scores[(seat + r) % n] if r < n else 0 for r in range(rules.max_seats)]
    target = rules.target_score or 0
    if dtype == "float32":
        view("seat_score")[:] = np.array(scores, np.float64) / float(score_scale)
        view("target")[0] = target / float(score_scale)
        return obs
    at = compact_scores_at(rules)
    out = np.zeros(observation_size(rules, "uint8"), np.uint8)
    out[:size] = obs.astype(np.uint8)
    out[at:] = np.array(scores + [target], "<i4").view(np.uint8)
    return out


def compact_scores(compact: np.ndarray, rules: FamilyRules) -> np.ndarray:
    """The int32 tail of compact observations [..., size]: seat_score by offset, then target."""
    at = compact_scores_at(rules)
    return np.ascontiguousarray(compact[..., at:]).view("<i4")


def decode_compact(compact: np.ndarray, rules: FamilyRules, score_scale: float = 100.0) -> np.ndarray:
    """Compact observations [..., size] as the float32 observations :func:`encode` gives."""
    size_c = observation_size(rules, "uint8")
    if not isinstance(compact, np.ndarray) or compact.dtype != np.uint8 or compact.shape[-1:] != (size_c,):
        got = f"{compact.dtype} {compact.shape}" if isinstance(compact, np.ndarray) else type(compact).__name__
        raise ValueError(f"compact {rules.game} observations are uint8 arrays [..., {size_c}], got {got}")
    layout = observation_layout(rules)
    size = next(reversed(layout.values()))[1]
    out = np.empty(compact.shape[:-1] + (size,), np.float32)
    out[...] = compact[..., :size]
    tail = compact_scores(compact, rules)
    s0, s1, _ = layout["seat_score"]
    out[..., s0:s1] = tail[..., :rules.max_seats] / float(score_scale)
    t0, _, _ = layout["target"]
    out[..., t0] = tail[..., rules.max_seats] / float(score_scale)
    return out
