"""Family-wide decisions (docs/rules/family.md F1..F24) and the contract's numbers
(/work/main/.wt/brief/family_contract.md: action ids, the seat_void evidence rule).

Every expected value below was derived by hand from the pages and the contract, never from
the engine. Seats: A=0, B=1, C=2, D=3.
"""

from __future__ import annotations

import numpy as np
import pytest

from family_helpers import (all_tiles, assert_legal, obs_field, on_table, position, step,
                            tile_index, tiles_with, void_tiles)
from nos_env.family import encoding as enc
from nos_env.family.engine import FamilyGame
from nos_env.family.rules import make_rules, player_counts


# ----------------------------------------------------------------- players and hand sizes
PLAYERS = {  # each page's Summary
    "block": (2, 3, 4, 5), "draw": (2, 3, 4, 5), "cross": (2, 3, 4, 5),
    "double_nine_cross": (2, 3, 4, 5, 6, 7, 8), "matador": (2, 3, 4), "all_fives": (2, 3, 4),
    "fives_and_threes": (2, 3, 4), "five_up": (2, 3, 4), "bergen": (2, 3, 4), "fours": (4,),
}

HAND_SIZES = [  # (game, options, {players: tiles}) from each page (BL2, DR2, DR5, CR3, DN1, ...)
    ("block", {}, {2: 8, 3: 6, 4: 6, 5: 5}),
    ("block", {"tileset": "double_nine"}, {2: 9, 3: 9, 4: 9, 5: 9}),
    ("draw", {}, {2: 7, 3: 5, 4: 4, 5: 3}),
    ("draw", {"tileset": "double_nine"}, {2: 7, 3: 7, 4: 5, 5: 5}),
    ("cross", {}, {2: 7, 3: 5, 4: 4, 5: 3}),
    ("double_nine_cross", {}, {2: 7, 3: 7, 4: 5, 5: 5, 6: 5, 7: 5, 8: 5}),
    ("matador", {}, {2: 7, 3: 5, 4: 5}),
    ("all_fives", {}, {2: 7, 3: 5, 4: 5}),
    ("fives_and_threes", {}, {2: 7, 3: 5, 4: 5}),
    ("five_up", {}, {2: 7, 3: 5, 4: 5}),
    ("bergen", {}, {2: 6, 3: 6, 4: 6}),
    ("fours", {}, {4: 5}),
]


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_player_counts(game):
    """Each page's "players" (BL2, DR2, CR3, DN1, FO1, ...)."""
    assert tuple(player_counts(game)) == PLAYERS[game]


def _hands(g):
    """Every seat's tiles, read from its own observation ("hand")."""
    names = all_tiles(g.rules.max_pip)
    return [{names[i] for i in np.flatnonzero(obs_field(g, s, "hand"))} for s in range(g.rules.num_players)]


def _set_tile(g):
    names = all_tiles(g.rules.max_pip)
    hot = np.flatnonzero(obs_field(g, 0, "set_tile"))
    return names[hot[0]] if len(hot) else None


@pytest.mark.parametrize("game,options,sizes", HAND_SIZES,
                         ids=[f"{g}-{o.get('tileset', 'd6')}" for g, o, _ in HAND_SIZES])
def test_f3_hand_sizes(game, options, sizes):
    """F3 and the pages' hand sizes: every seat is dealt k tiles; a set already placed (forced,
    F12) came out of the setter's hand."""
    for n, k in sizes.items():
        g = FamilyGame(make_rules(game, num_players=n, target_score=None, **options), seed=n)
        held = sorted(len(h) for h in _hands(g))
        if _set_tile(g) is None:  # free opening: the SET is pending
            assert held == [k] * n, (n, held)
        else:
            assert held == [k - 1] + [k] * (n - 1), (n, held)


def _rank(tile):
    """F2: doubles by number above every single; singles by pips, then the higher end."""
    a, b = (int(x) for x in tile.split("-"))
    return (1, a, 0) if a == b else (0, a + b, b)


FORCED = [("block", "highest_double"), ("block", "highest_tile"), ("draw", "highest_double"),
          ("cross", "highest_double"), ("double_nine_cross", "highest_double"),
          ("matador", "highest_double"), ("all_fives", "highest_tile"),
          ("fives_and_threes", "highest_double"), ("five_up", "highest_double"),
          ("fours", "highest_tile"), ("bergen", "lowest_double"), ("bergen", "lowest_tile")]


@pytest.mark.parametrize("game,opening", FORCED)
def test_f4_forced_set_is_the_highest_double_or_tile(game, opening):
    """F4 / F12 / BE2 over 40 seeded deals: the set is the highest double held (Bergen: the
    lowest), else under *_tile the highest (lowest) single by F2; F5: the setter's left moves."""
    n = 3 if 3 in PLAYERS[game] else 4
    options = {} if opening in ("highest_double",) and game in ("cross", "double_nine_cross") else {"opening": opening}
    lowest = opening.startswith("lowest")
    for seed in range(40):
        g = FamilyGame(make_rules(game, num_players=n, target_score=None, **options), seed=seed)
        hands = _hands(g)
        set_tile = _set_tile(g)
        pool = set().union(*hands) | {set_tile}
        doubles = [t for t in pool if t.split("-")[0] == t.split("-")[1]]
        candidates = doubles if doubles or opening.endswith("double") else list(pool)
        want = (min if lowest else max)(candidates, key=_rank)
        assert set_tile == want, (seed, set_tile, want)
        placer = obs_field(g, 0, "placer")[tile_index(set_tile, g.rules.max_pip)]
        setter = int(np.flatnonzero(placer)[0])  # observer 0: offsets are seats
        if game != "fours":  # FO2: the Fours setter goes on placing while a tile fits
            assert g.to_move == (setter + 1) % n


def test_f4_free_opening_first_seat():
    """F4 free with first_seat: that seat sets, choosing any tile of his hand (SET only)."""
    g = FamilyGame(make_rules("five_up", num_players=4, first_seat=2, target_score=None), seed=5)
    assert g.to_move == 2
    hand = _hands(g)[2]
    assert_legal(g, [f"set {t}" for t in hand])


# ----------------------------------------------------------------- the action ids
def test_contract_action_ids():
    """The contract's action table, ids computed by hand: PLAY t*A + arm (Matador
    (t*A + arm)*2 + side), SET P + t, DRAW P + N, PASS P + N + 1. Tile index: 3-5 is
    7 + 6 + 5 + 2 = 20, 6-6 is 27, 1-6 is 7 + 5 = 12, 2-6 is 7 + 6 + 4 = 17; double-nine 9-9
    is 54."""
    block = make_rules("block", num_players=3)
    assert enc.parse("play 3-5 on L1", block) == 20 * 2 + 1
    assert enc.parse("set 6-6", block) == 56 + 27
    assert enc.parse("draw", block) == 56 + 28
    assert enc.parse("pass", block) == 56 + 29
    assert block.num_actions == 86
    matador = make_rules("matador", num_players=3)
    assert enc.parse("play 1-6 on L0 leaving 6", matador) == (12 * 2 + 0) * 2 + 1
    assert enc.parse("play 1-6 on L1 leaving 1", matador) == (12 * 2 + 1) * 2 + 0
    assert matador.num_actions == 28 * 2 * 2 + 30
    cross = make_rules("cross", num_players=4)
    assert enc.parse("play 2-6 on C3", cross) == 17 * 4 + 3
    five_up = make_rules("five_up", num_players=4)
    assert enc.parse("play 0-0 on A15", five_up) == 15
    assert enc.parse("set 0-1", five_up) == 28 * 16 + 1
    dn = make_rules("double_nine_cross", num_players=4)
    assert enc.parse("play 9-9 on A21", dn) == 54 * 22 + 21
    assert enc.parse("set 9-9", dn) == 55 * 22 + 54
    assert enc.parse("pass", dn) == 55 * 22 + 56
    assert dn.num_actions == 55 * 22 + 57


# ----------------------------------------------------------------- F22 illegal actions
def test_f22_illegal_action_raises_and_changes_nothing():
    """F22: an action outside the mask raises ValueError naming the legal ones; the state
    (seat to move, legal actions, scores, observation) is exactly as before."""
    g = position("block", [["4-4", "0-0", "1-1", "2-2", "3-3", "0-2"],
                           ["0-1", "2-3", "5-6", "0-6", "1-2", "3-5"],
                           ["0-3", "0-4", "0-5", "1-3", "1-4", "1-5"]])
    before = (g.to_move, list(g.legal_actions()), list(g.scores), np.array(g.observe(1)))
    for bad in (enc.parse("play 0-1 on L0", g.rules), enc.parse("draw", g.rules), -1, 10_000):
        with pytest.raises(ValueError, match="pass"):
            g.step(bad)
    assert (g.to_move, list(g.legal_actions()), list(g.scores)) == before[:3]
    assert np.array_equal(np.array(g.observe(1)), before[3])


# ----------------------------------------------------------------- F20 teams
TEAM_HANDS = [["5-5", "5-6"], ["0-0", "0-1"], ["4-5", "2-3"], ["1-1", "2-6"]]


def test_f20_team_out_both_skips_the_partner_who_is_out():
    """F20 team_out="both" (F5: a player who is out is skipped): A goes out, the hand goes on,
    A is skipped; C goes out and team A-C scores team B-D's count, [0-0] + [0-1] + [1-1] = 3."""
    g = position("block", TEAM_HANDS, opening="free", setter=0, hand_size=2, teams=True,
                 team_out="both", target_score=None)
    step(g, 0, "set 5-5")
    step(g, 1, "pass", legal=["pass"])
    step(g, 2, "play 4-5 on L0", legal=["play 4-5 on L0", "play 4-5 on L1"])
    step(g, 3, "pass", legal=["pass"])
    step(g, 0, "play 5-6 on L1", [0, 0, 0, 0])  # A is out; ends 4 and 6
    assert not g.done
    step(g, 1, "pass", legal=["pass"])
    step(g, 2, "pass", legal=["pass"])          # [2-3] fits neither 4 nor 6
    step(g, 3, "play 2-6 on L1", legal=["play 2-6 on L1"])
    step(g, 1, "pass", legal=["pass"])          # A (out) is skipped
    step(g, 2, "play 2-3 on L1", [3, 0, 3, 0])
    assert g.done and g.scores == [3, 0, 3, 0]


def test_f20_team_out_one_ends_the_hand():
    """F20 team_out="one": A's last tile ends the hand; team B-D holds [0-0] + [0-1] + [1-1] +
    [2-6] = 0 + 1 + 2 + 8 = 11, which team A-C scores."""
    g = position("block", TEAM_HANDS, opening="free", setter=0, hand_size=2, teams=True,
                 target_score=None)
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "play 4-5 on L0")
    step(g, 3, "pass")
    step(g, 0, "play 5-6 on L1", [11, 0, 11, 0])
    assert g.done


# ----------------------------------------------------------------- F19 later hands
def test_f19_tie_last_placer_sets_the_next_hand():
    """F19 (free opening): a blocked hand without a winner (counts A 6, B 6, C 10, F15) is
    followed by a hand set by the player who placed its last tile, B."""
    g = position("block", [["0-0", "0-1", "0-5"], ["6-6", "0-2", "1-3"], ["1-1", "0-3", "1-4"]],
                 opening="free", setter=1, hand_size=3)
    step(g, 1, "set 6-6", [0, 0, 0])
    assert not g.done and g.hand_number == 1 and g.scores == [0, 0, 0]
    assert g.to_move == 1
    plays = 28 * 2
    assert g.legal_actions() and all(plays <= a < plays + 28 for a in g.legal_actions())


def test_f19_highest_double_opens_every_hand():
    """F19 under highest_double: every later hand of a match is set by the highest double of
    its own deal (F4), whoever won before. Checked on the hands of a seeded match."""
    g = FamilyGame(make_rules("block", num_players=3, target_score=30), seed=11)
    rng = np.random.default_rng(0)
    hands_seen = 0
    while not g.done and hands_seen < 6:
        start = g.hand_number
        pool = set().union(*_hands(g)) | {_set_tile(g)}
        doubles = [t for t in pool if t.split("-")[0] == t.split("-")[1]]
        assert _set_tile(g) == max(doubles, key=_rank)
        while not g.done and g.hand_number == start:
            g.step(int(rng.choice(g.legal_actions())))
        hands_seen += 1
    assert hands_seen >= 2


# ----------------------------------------------------------------- F23 play on one's double
F23_HANDS = [["4-4", "1-4", "1-1", "1-6"], ["4-6", "1-3", "2-2", "0-0"]]


def test_f23_extra_play_on_ones_own_double():
    """F23 play_on_double: after the set [4-4] A may place one tile on it (either arm) or
    PASS; after [1-1] on L0 the extra tile must go on L0 (not L1, though [1-6] fits L1's 6)."""
    g = position("block", F23_HANDS, opening="free", setter=0, hand_size=4, play_on_double=True,
                 target_score=None)
    step(g, 0, "set 4-4")
    step(g, 0, "play 1-4 on L0", legal=["play 1-4 on L0", "play 1-4 on L1", "pass"])
    step(g, 1, "play 4-6 on L1", legal=["play 1-3 on L0", "play 4-6 on L1"])  # ends 1 and 6
    step(g, 0, "play 1-1 on L0", legal=["play 1-1 on L0", "play 1-6 on L0", "play 1-6 on L1"])
    # A goes out; B holds [1-3], [2-2], [0-0]: 4 + 4 + 0 = 8
    step(g, 0, "play 1-6 on L0", [8, 0], legal=["play 1-6 on L0", "pass"])
    assert g.done


def test_f23_pass_is_not_evidence():
    """F23: ending the extra play with PASS is a choice, not being stuck (contract seat_void):
    A's void stays empty; B moves next."""
    g = position("block", F23_HANDS, opening="free", setter=0, hand_size=4, play_on_double=True,
                 target_score=None)
    step(g, 0, "set 4-4")
    step(g, 0, "pass")
    assert g.to_move == 1
    assert void_tiles(g, 1, 0) == set() and void_tiles(g, 0, 0) == set()


def test_f23_off_by_default():
    """F23 is off by default: after the set [4-4] the turn passes at once."""
    g = position("block", F23_HANDS, opening="free", setter=0, hand_size=4, target_score=None)
    step(g, 0, "set 4-4")
    assert g.to_move == 1


# ----------------------------------------------------------------- F24 seat_void
def test_seat_void_pass_adds_the_fitting_tiles():
    """Contract seat_void on PASS (block.md Examples 6): B passes against 4 and 4: every tile
    with a 4 (off the table) is void for B, in every observer's view (rows are offsets)."""
    g = position("block", [["4-4", "0-0", "1-1", "2-2", "3-3", "0-2"],
                           ["0-1", "2-3", "5-6", "0-6", "1-2", "3-5"],
                           ["0-3", "0-4", "0-5", "1-3", "1-4", "1-5"]])
    for observer in range(3):
        assert all(void_tiles(g, observer, s) == set() for s in range(3))
    step(g, 1, "pass")
    want = {"0-4", "1-4", "2-4", "3-4", "4-5", "4-6"}
    for observer in range(3):
        assert void_tiles(g, observer, 1) - on_table(g) == want
        assert void_tiles(g, observer, 0) == set() and void_tiles(g, observer, 2) == set()


def test_seat_void_stuck_draw_sets_the_fitting_tiles():
    """Contract seat_void on a stuck DRAW (draw.md Examples 1): void[B] = F, the tiles with a
    2 or a 5 (ends 2 and 5); a PLAY changes nothing."""
    g = position("draw", [["2-5", "0-5", "1-4"], ["0-0", "1-3", "4-6"]], ["1-1", "3-6", "2-4"],
                 opening="free", setter=0, hand_size=3, target_score=None)
    step(g, 0, "set 2-5")
    step(g, 1, "draw")
    table = on_table(g)
    want = tiles_with({2, 5}) - table
    assert void_tiles(g, 0, 1) - table == want and void_tiles(g, 1, 1) - table == want
    step(g, 1, "draw")
    step(g, 1, "draw")
    step(g, 1, "play 2-4 on L0")
    table = on_table(g)
    assert void_tiles(g, 0, 1) - table == tiles_with({2, 5}) - table
    assert void_tiles(g, 0, 0) == set()


def test_seat_void_cleared_by_a_new_hand():
    """Contract seat_void: a new hand starts with no evidence (B and C passed in the first)."""
    g = position("block", [["5-5", "5-6"], ["2-3", "6-6"], ["0-0", "1-4"]],
                 opening="free", setter=0, hand_size=2)
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "pass")
    assert void_tiles(g, 0, 1) - on_table(g) == tiles_with({5}) - on_table(g)
    step(g, 0, "play 5-6 on L0", [22, 0, 0])
    assert g.hand_number == 1
    for observer in range(3):
        assert all(void_tiles(g, observer, s) == set() for s in range(3))


def test_f20_teams_blocked_tie_nobody_scores():
    """F20 / F15: blocked with team A-C at 3 + 8 = 11 and team B-D at 5 + 6 = 11: no winner."""
    g = position("block", [["6-6", "1-2"], ["0-1", "0-4"], ["0-3", "0-5"], ["0-2", "1-3"]],
                 opening="free", setter=0, hand_size=2, teams=True, target_score=None)
    step(g, 0, "set 6-6", [0, 0, 0, 0])
    assert g.done and g.scores == [0, 0, 0, 0]


# ----------------------------------------------------------------- random hands, page formulas
def _round5(x):
    return 5 * ((x + 2) // 5)  # AF8


def _layout(g):
    names = all_tiles(g.rules.max_pip)
    obs, layout = np.asarray(g.observe(0)), enc.observation_layout(g.rules)
    f = {k: obs[layout[k][0]:layout[k][1]].reshape(layout[k][2])
         for k in ("set_tile", "arm_exists", "arm_open", "arm_count", "arm_double_end")}
    p, q = (int(x) for x in names[int(np.argmax(f["set_tile"]))].split("-"))
    arms = [(int(np.argmax(f["arm_open"][k])), int(f["arm_count"][k]), bool(f["arm_double_end"][k]))
            for k in range(g.rules.num_arms) if f["arm_exists"][k]]
    return p, q, arms


def _end_count(g):
    """AF4 / FU4: E, from the public layout (observation)."""
    p, q, arms = _layout(g)
    e = sum(2 * o if dbl else o for o, count, dbl in arms if count)
    l0_empty, l1_empty = arms[0][1] == 0, arms[1][1] == 0
    if p == q:
        return e + (2 * p if (l0_empty or l1_empty) else 0)
    return e + p * l0_empty + q * l1_empty


def _bergen_play(g):
    """BE3 (the "For implementers" formula); None where the page is ambiguous (a set double
    with one side covered and the other end showing its number: see the report)."""
    p, q, arms = _layout(g)
    (o0, c0, d0), (o1, c1, d1) = arms[0], arms[1]
    x0 = o0 if c0 else p
    x1 = o1 if c1 else q
    if x0 != x1:
        return 0
    if (c0 and d0) or (c1 and d1):
        return 3
    if p == q and (c0 == 0) != (c1 == 0):
        return None
    return 2


def _play_score(game, g):
    if game == "bergen":
        return _bergen_play(g)
    e = _end_count(g)
    if e <= 0:
        return 0
    if game == "all_fives":
        return e if e % 5 == 0 else 0
    if game == "fives_and_threes":
        return e if e % 5 == 0 or e % 3 == 0 else 0
    if game == "five_up":
        return e // 5 if e % 5 == 0 else 0
    return 0


def _award(game, hands, mover):
    """F14..F16, AF7, FT2, FU6, BE5, BE8: (winner, points) of the hand's end."""
    counts = [sum(int(a) + int(b) for a, b in (t.split("-") for t in h)) for h in hands]
    n = len(hands)
    if not hands[mover]:
        w = mover
    elif game == "bergen":
        free = [s for s in range(n) if not any(t.split("-")[0] == t.split("-")[1] for t in hands[s])]
        if len(free) == 1:
            w = free[0]
        elif free:
            low = min(counts[s] for s in free)
            w = [s for s in free if counts[s] == low]
            w = w[0] if len(w) == 1 else None
        else:
            lowest = min((int(t.split("-")[0]), s) for s in range(n) for t in hands[s]
                         if t.split("-")[0] == t.split("-")[1])
            w = lowest[1]
    else:
        low = min(counts)
        w = counts.index(low) if counts.count(low) == 1 else None
    if w is None:
        return None, 0
    diffs = [counts[s] - counts[w] for s in range(n) if s != w]
    points = {"bergen": 1, "all_fives": sum(_round5(d) for d in diffs),
              "five_up": sum(_round5(d) for d in diffs) // 5}.get(game, sum(diffs))
    return w, points


SCORING = ("all_fives", "fives_and_threes", "five_up", "bergen")


@pytest.mark.parametrize("game", ["block", "draw", "cross", "double_nine_cross", "matador",
                                  "all_fives", "fives_and_threes", "five_up", "bergen", "fours"])
def test_random_hands_score_by_the_page_formulas(game):
    """Random single hands (default options, 25 seeds): every play's points are the page's
    play score of the public layout after it (AF4, FT1, FU4/FU5, BE3), and the hand's end pays
    the page's award to its winner (F15/F16, AF7, FT2, FU6, BE5/BE8), from the hands shown at
    the end (F24). The formulas are written here from the pages, independently of the engine."""
    rng = np.random.default_rng(7)
    checked_ends = 0
    for seed in range(25):
        g = FamilyGame(make_rules(game, target_score=None), seed=seed)
        n = g.rules.num_players
        if game in SCORING and _set_tile(g) is not None:  # the forced set scored already
            s = _play_score(game, g)
            if s is not None:
                assert sum(g.scores) == s, (seed, g.scores, s)
        while not g.done:
            mover = g.to_move
            action = int(rng.choice(g.legal_actions()))
            kind = enc.describe(action, g.rules).split()[0]
            points = g.step(action)
            expected = [0] * n
            if game in SCORING and kind in ("play", "set"):
                s = _play_score(game, g)
                if s is None:
                    continue
                expected[mover] += s
            if g.done:
                w, award = _award(game, _hands(g), mover)
                if w is not None:
                    expected[w] += award
                checked_ends += 1
            assert list(points) == expected, (seed, enc.describe(action, g.rules), points, expected)
    assert checked_ends >= 20


def test_f19_teams_blocked_winning_teams_last_placer_sets_next():
    """F19 with F20 (free opening): in a blocked hand won by team A-C (A [0-1] 1 + C [0-0] 0 = 1
    against B [0-2], [0-3] 5 + D [1-2], [1-3] 7 = 12: 11 points), the next hand is set by the
    winning team's player who placed a tile last, C."""
    g = position("block", [["5-5", "0-1"], ["0-2", "0-3"], ["5-6", "0-0"], ["1-2", "1-3"]],
                 opening="free", setter=0, hand_size=2, teams=True)
    step(g, 0, "set 5-5")
    step(g, 1, "pass")
    step(g, 2, "play 5-6 on L0", [11, 0, 11, 0])  # ends 6 and 5: nobody holds either
    assert not g.done and g.hand_number == 1 and g.to_move == 2
    plays = 28 * 2
    assert g.legal_actions() and all(plays <= a < plays + 28 for a in g.legal_actions())


# ----------------------------------------------------------------- the contract's deal
def _contract_deal(seed, rules, k, redeal_without_double):
    """The contract's deal, written from its text: Fisher-Yates from the top on 0..N-1 with
    SplitMix64(seed), seat s takes order[s*k:(s+1)*k], the boneyard order[n*k:]; without a
    double in the hands (highest/lowest_double) deal again from a fresh identity list."""
    from nos_env.rng import SplitMix64
    names = all_tiles(rules.max_pip)
    rng = SplitMix64(seed)
    n, N = rules.num_players, rules.num_tiles
    redeals = 0
    while True:
        order = list(range(N))
        for i in range(N - 1, 0, -1):
            j = rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
        hands = [{names[t] for t in order[s * k:(s + 1) * k]} for s in range(n)]
        if redeal_without_double and not any(t.split("-")[0] == t.split("-")[1] for h in hands for t in h):
            redeals += 1
            continue
        return hands, N - n * k, rng, redeals


@pytest.mark.parametrize("game,n,k", [("double_nine_cross", 2, 7), ("block", 3, 6),
                                      ("bergen", 3, 6), ("five_up", 3, 5), ("fours", 4, 5)])
def test_contract_deal_order_and_redeal(game, n, k):
    """The contract's deal (and F4's redeal, and the free opening's setter drawn as below(n)
    right after the deal) for 60 seeds; Double-Nine Cross with two players redeals about one
    deal in 26 (DN2), so some seeds here redeal."""
    rules = make_rules(game, num_players=n, target_score=None)
    free = rules.opening == "free"
    redeals = 0
    for seed in range(60):
        g = FamilyGame(rules, seed=seed)
        hands, boneyard, rng, r = _contract_deal(seed, rules, k, rules.opening.endswith("double"))
        redeals += r
        got = _hands(g)
        if free:
            assert got == hands and g.to_move == rng.below(n), seed
        else:
            set_tile = _set_tile(g)
            setter = next(s for s in range(n) if set_tile in hands[s])
            assert [h | {set_tile} if s == setter else h for s, h in enumerate(got)] == hands, seed
        assert int(obs_field(g, 0, "boneyard_size")[0]) == boneyard
    if game == "double_nine_cross":
        assert redeals > 0
