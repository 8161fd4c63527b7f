"""Blind's rules (docs/rules/blind.md, BD1..BD8) in the reference engine, with expected
values worked out by hand from the page (the arithmetic is in the comments).

Deals are written out tile by tile: rows front first (the front is turned up first),
seats A..E = 0..4, five players unless said (5 tiles a row, 3 set aside, BD2).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from nos_env.family import blind_encoding as enc
from nos_env.family.blind import BlindGame, make_blind_rules
from nos_env.rng import SplitMix64


def tiles(text: str) -> list[tuple[int, int]]:
    """ "2-5 1-5" -> [(2, 5), (1, 5)]"""
    return [tuple(int(x) for x in w.split("-")) for w in text.split()]


def game_of(rows: list[str], aside: str, setter: int = 0, **options) -> BlindGame:
    rules = make_blind_rules(len(rows), **options)
    return BlindGame.from_deal(rules, [tiles(r) for r in rows], tiles(aside), setter=setter)


def ix(game, text: str) -> int:
    return game.rules.tiles.index[tiles(text)[0]]


def play(game, text: str, arm: int) -> int:
    return enc.play_index(ix(game, text), arm, rules=game.rules)


def row_text(game, seat: int) -> str:
    return " ".join(enc.tile_text(t, game.rules) for t in game.rows[seat])


# Example 2 and the choice (BD4, BD5). A sets [2-5]: L0 = 2, L1 = 5.
# B turns up [1-5]: 5 fits L1 only -> played by itself (F12); L1 shows 1. B turns up [4-4]:
# ends 2/1, no fit -> to the bottom, B's turn ends. C: [3-6] no fit, bottom. D: [3-3] no fit,
# bottom. E: [1-2] fits both (L0 shows 2, L1 shows 1): E decides.
EXAMPLE2 = ["2-5 0-0 0-1 0-2 0-3", "1-5 4-4 0-4 0-5 0-6", "3-6 1-1 1-3 1-4 1-6", "3-3 2-2 2-3 2-4 2-6",
            "1-2 3-4 3-5 4-5 4-6"]
EXAMPLE2_ASIDE = "5-5 5-6 6-6"


# ------------------------------------------------------------------- BD2
@pytest.mark.parametrize("tileset, sizes", [
    ("double_six", {2: (14, 0), 3: (9, 1), 4: (7, 0), 5: (5, 3)}),  # 28 = 2*14 = 3*9+1 = 4*7 = 5*5+3
    ("double_nine", {2: (27, 1), 3: (18, 1), 4: (13, 3), 5: (11, 0)}),  # 55 = 2*27+1 = 3*18+1 = 4*13+3 = 5*11
])
def test_bd2_all_tiles_dealt_equally_rest_aside(tileset, sizes):
    for n, (k, aside) in sizes.items():
        rules = make_blind_rules(n, tileset=tileset)
        assert (rules.hand_size, rules.set_aside) == (k, aside)
        game = BlindGame(rules, seed=n)
        assert [len(r) for r in game.dealt] == [k] * n and len(game.aside) == aside
        assert sorted(sum(game.dealt, []) + game.aside) == list(range(rules.num_tiles))
        # the set-aside tiles are never seen, and the observation counts them
        obs = game.observe(0)
        lay = enc.observation_layout(rules)
        assert obs[lay["set_aside"][0]] == aside
        for t in game.aside:
            assert not game.seen[t] and obs[lay["unseen"][0] + t] == 1


def test_bd2_bd4_random_stream_order():
    # The docstring's order, by hand: Fisher-Yates over 0..27 from the top, rows of 7 in
    # order, then the starter below(4); nothing else is drawn.
    rules = make_blind_rules(4)
    rng = SplitMix64(123)
    order = list(range(28))
    for i in range(27, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    starter = rng.below(4)
    game = BlindGame(rules, seed=123)
    assert game.dealt == [order[0:7], order[7:14], order[14:21], order[21:28]]
    assert game.starter == starter and game.set_tile == order[7 * starter]
    # a plain reset goes on with the same stream
    after = rng.state
    game.reset()
    assert game.stream_state == after
    # first_seat: no draw for the starter
    fixed = BlindGame(make_blind_rules(4, first_seat=2), seed=123)
    assert fixed.dealt == [order[0:7], order[7:14], order[14:21], order[21:28]]
    assert fixed.starter == 2 and fixed.set_tile == order[14]


# ------------------------------------------------------------ BD4, BD5, Ex. 2
def test_example2_continuing_turn_and_bd4_set():
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    assert g.describe_events() == [
        "seat 0 set 2-5",
        "seat 1 play 1-5 on L1 (forced)",
        "seat 1 bottom 4-4",
        "seat 2 bottom 3-6",
        "seat 3 bottom 3-3",
    ]
    assert g.open_ends == [2, 1] and g.to_move == 4 and not g.done
    assert g.legal_actions() == [play(g, "1-2", 0), play(g, "1-2", 1)]
    # Everyone now knows that B's last tile is [4-4]: B's row is 0-4 0-5 0-6 4-4
    assert row_text(g, 1) == "0-4 0-5 0-6 4-4"


def test_example2_observation_by_hand():
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    lay = enc.observation_layout(g.rules)
    obs = g.observe(4)  # E, to move: offsets A=1, B=2, C=3, D=4

    def at(name, *index):
        start, _, shape = lay[name]
        return obs[start + (np.ravel_multi_index(index, shape) if len(index) > 1 else index[0])]

    assert at("turned_up", ix(g, "1-2")) == 1 and obs[slice(*lay["turned_up"][:2])].sum() == 1
    assert at("phase", 1) == 1 and obs[slice(*lay["phase"][:2])].sum() == 1  # first tile of E's turn
    assert at("placer", ix(g, "2-5"), 1) == 1 and at("placer", ix(g, "1-5"), 2) == 1
    assert at("tile_arm", ix(g, "2-5"), 2) == 1 and at("tile_arm", ix(g, "1-5"), 1) == 1
    assert at("arm_open", 0, 2) == 1 and at("arm_open", 1, 1) == 1
    assert (at("arm_count", 0), at("arm_count", 1)) == (0, 1)
    assert (at("arm_playable", 0), at("arm_playable", 1)) == (1, 1)  # [1-2] on 2 and 1
    assert (at("arm_double_end", 0), at("arm_double_end", 1)) == (0, 0)
    # rows: A 4 (set one), B 4 (played one), C, D, E 5
    assert [at("seat_hand_size", r) for r in range(5)] == [5, 4, 4, 5, 5]
    # never turned up: A 4, B 3 (0-4 0-5 0-6), C 4, D 4, E 4 ([1-2] is up)
    assert [at("seat_unseen", r) for r in range(5)] == [4, 4, 3, 4, 4]
    assert at("row_seen", 2, ix(g, "4-4")) == 1 and at("row_place", 2, ix(g, "4-4")) == 4
    assert at("row_place", 3, ix(g, "3-6")) == 5 and at("row_place", 0, ix(g, "1-2")) == 1
    # seen so far: 2-5 1-5 4-4 3-6 3-3 1-2 -> 28 - 6 = 22 unseen
    assert obs[slice(*lay["unseen"][:2])].sum() == 22
    assert at("set_aside", 0) == 3 and at("seat_to_move", 0) == 1


def test_bd5_choice_of_arm_leads_to_different_games():
    # E plays [1-2] on L0 (shows 2): L0 now shows 1; ends 1/1. E's next [3-4] no fit, bottom.
    # A: [0-0] no fit, bottom. B: [0-4] no fit, bottom. C: row 1-1 1-3 1-4 1-6 3-6: [1-1]
    # fits both ends -> C decides.
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    assert g.step(play(g, "1-2", 0)) == [0, 0, 0, 0, 0]
    assert g.open_ends == [1, 1] and g.to_move == 2
    assert g.legal_actions() == [play(g, "1-1", 0), play(g, "1-1", 1)]
    assert g.describe_events()[5:] == ["seat 4 play 1-2 on L0", "seat 4 bottom 3-4", "seat 0 bottom 0-0",
                                       "seat 1 bottom 0-4"]
    # E plays it on L1 (shows 1) instead: L1 shows 2; ends 2/2. E: [3-4] bottom; A: [0-0]
    # bottom; B: [0-4] bottom; C: [1-1] bottom; D: row 2-2 2-3 2-4 2-6 3-3: [2-2] fits both.
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    g.step(play(g, "1-2", 1))
    assert g.open_ends == [2, 2] and g.to_move == 3
    assert g.legal_actions() == [play(g, "2-2", 0), play(g, "2-2", 1)]


def test_example3_tile_fitting_both_ends_and_continuing():
    # A sets [2-3]: L0 2, L1 3. B: [3-5] fits L1 only -> L1 shows 5; B's [1-1] no fit, bottom.
    # C turns up [2-5] with ends 2 and 5: fits both; C chooses.
    rows = ["2-3 0-0 0-1 0-2 0-3", "3-5 1-1 0-4 0-5 0-6", "2-5 1-2 1-3 1-4 1-5", "1-6 2-2 2-4 2-6 3-3",
            "3-4 3-6 4-4 4-5 4-6"]
    g = game_of(rows, "5-5 5-6 6-6")
    assert g.open_ends == [2, 5] and g.to_move == 2
    assert g.legal_actions() == [play(g, "2-5", 0), play(g, "2-5", 1)]
    left = game_of(rows, "5-5 5-6 6-6")
    left.step(play(left, "2-5", 0))  # on L0 it leaves 5 and 5
    assert left.describe_events()[3] == "seat 2 play 2-5 on L0"
    # then C [1-2] no, D [1-6] no, E [3-4] no, A [0-0] no, B [0-4] no, C [1-3] no, D [2-2] no,
    # E [3-6] no, A [0-1] no, B [0-5] fits both 5s -> B decides
    assert left.open_ends == [5, 5] and left.to_move == 1
    assert left.legal_actions() == [play(left, "0-5", 0), play(left, "0-5", 1)]
    right = game_of(rows, "5-5 5-6 6-6")
    right.step(play(right, "2-5", 1))  # on L1 it leaves 2 and 2
    # C goes on: his next tile [1-2] fits both 2s, a second decision in the same turn
    assert right.open_ends == [2, 2] and right.to_move == 2 and right.played_this_turn
    assert right.legal_actions() == [play(right, "1-2", 0), play(right, "1-2", 1)]
    lay = enc.observation_layout(right.rules)
    assert right.observe(2)[lay["phase"][0] + 3] == 1  # "continuing"


def test_bd5_optional_play_decline():
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE, optional_play=True)
    # B's [1-5] fits L1 only: with optional_play it is B's decision, PLAY or DECLINE
    decline = enc.pass_index(rules=g.rules)
    assert g.to_move == 1 and g.legal_actions() == [play(g, "1-5", 1), decline]
    assert enc.describe(decline, g.rules) == "decline"
    # declined: [1-5] to the bottom of B's row, B's turn ends; C [3-6] no, D [3-3] no;
    # E's [1-2] fits L0 only (ends 2 and 5): PLAY on L0 or DECLINE
    assert g.step(decline) == [0] * 5
    assert row_text(g, 1) == "4-4 0-4 0-5 0-6 1-5"
    assert g.to_move == 4 and g.legal_actions() == [play(g, "1-2", 0), decline]


def test_bd7_blocked_lowest_count_wins():
    # Traced by hand (every play below is forced, so the game is over after the deal):
    # A sets [4-6]: L0 4, L1 6.  B: [6-6] on L1 (6); [3-4] on L0 (3); [5-6] on L1 (5);
    # [2-2] bottom.  C: [0-6] bottom.  D: [0-5] on L1 (0); [1-1] bottom.  E: [1-5] bottom.
    # A: [0-4] on L1 (4); [3-5] on L0 (5); [0-1] bottom.  B: [5-5] on L0 (5); [2-2] bottom.
    # C: [1-3] bottom.  D: [0-2] bottom.  E: [1-2] bottom.  A: [2-6] bottom.  B: [2-2] bottom.
    # C: [2-5] on L0 (2); [0-3] bottom.  D: [3-6] bottom.  E: [1-4] on L1 (1); [2-4] on L0 (4);
    # [4-4] on L0 (4); [1-5] on L1 (5).  Ends 4 and 5: the rows hold A 2-6 0-1, B 2-2,
    # C 1-6 0-6 1-3 0-3, D 3-3 1-1 0-2 3-6, E 1-2: none carries a 4 or a 5 -> blocked.
    # Counts: A 8+1 = 9, B 4, C 7+6+4+3 = 20, D 6+2+2+9 = 19, E 3 -> E (seat 4) wins, scores 1.
    rows = ["4-6 0-4 3-5 0-1 2-6", "6-6 3-4 5-6 2-2 5-5", "0-6 1-3 2-5 0-3 1-6", "0-5 1-1 0-2 3-6 3-3",
            "1-5 1-2 1-4 2-4 4-4"]
    g = game_of(rows, "0-0 4-5 2-3")
    assert g.done and g.blocked and g.open_ends == [4, 5]
    assert g.counts() == [9, 4, 20, 19, 3]
    assert g.winner == 4 and g.scores == [0, 0, 0, 0, 1] and g.reset_points == [0, 0, 0, 0, 1]
    assert len(g.describe_events()) == 27 and g.describe_events()[-1] == "end: blocked, winner 4"
    assert g.legal_actions() == [] and g.to_move is None
    with pytest.raises(ValueError, match="over"):
        g.step(0)


def test_bd7_f15_shared_lowest_count_nobody_wins():
    # The same deal with E's [1-2] and C's [1-3] exchanged: each is turned up only when it
    # fits nowhere in either deal (ends 5/4), and the rows hold the same tiles, so the game
    # runs as above. Final counts: A 9, B [2-2] 4, C 1-6 0-6 1-2 0-3 = 7+6+3+3 = 19, D 19,
    # E [1-3] 4: the lowest, 4, is shared by B and E -> no winner, nobody scores (F15, BD8).
    rows = ["4-6 0-4 3-5 0-1 2-6", "6-6 3-4 5-6 2-2 5-5", "0-6 1-2 2-5 0-3 1-6", "0-5 1-1 0-2 3-6 3-3",
            "1-5 1-3 1-4 2-4 4-4"]
    g = game_of(rows, "0-0 4-5 2-3")
    assert g.done and g.blocked and g.open_ends == [4, 5]
    assert g.counts() == [9, 4, 19, 19, 4]
    assert g.winner is None and g.scores == [0] * 5


def test_rule4_first_to_empty_his_row_wins():
    # A sets [1-6]: L0 1, L1 6. B: [1-4] on L0 (4); [6-6] on L1 (6); [0-6] on L1 (0);
    # [3-4] on L0 (3); [2-3] on L0 (2): B's row is empty, B wins at once.
    rows = ["1-6 3-6 4-5 3-3 4-4", "1-4 6-6 0-6 3-4 2-3", "1-1 3-5 0-1 1-2 2-5", "4-6 0-3 2-4 2-2 0-5",
            "5-6 1-3 2-6 5-5 0-4"]
    g = game_of(rows, "0-0 1-5 0-2")
    assert g.done and not g.blocked and g.winner == 1 and g.scores == [0, 1, 0, 0, 0]
    assert g.open_ends == [2, 0] and g.rows[1] == []


def test_bd8_points_come_with_the_winning_step():
    # random games: each step's points are 0 until the last; then exactly the winner gains 1,
    # the winner being the seat whose row is empty, else the unique lowest count (BD7).
    for seed in range(60):
        rules = make_blind_rules(2 + seed % 4, tileset=("double_six", "double_nine")[seed % 2],
                                 optional_play=seed % 3 == 0)
        g = BlindGame(rules, seed=seed, skip_decisionless=True)
        rnd = random.Random(seed)
        while True:
            points = g.step(rnd.choice(g.legal_actions()))
            if g.done:
                break
            assert points == [0] * rules.num_players
        empty = [s for s, row in enumerate(g.rows) if not row]
        counts = g.counts()
        expect = empty[0] if empty else (counts.index(min(counts)) if counts.count(min(counts)) == 1 else None)
        assert len(empty) <= 1 and g.winner == expect
        assert points == [int(s == expect) for s in range(rules.num_players)] == g.scores


# ------------------------------------------------------------------ BD3
def _scrambled(game: BlindGame, rnd: random.Random) -> BlindGame:
    """The same position with the never-seen tiles shuffled among their places (rows' unseen
    places and the set-aside tiles): a position no player can tell from the first (BD3)."""
    other = BlindGame.__new__(BlindGame)
    other.__dict__.update({k: (list(map(list, v)) if k == "rows" else list(v) if isinstance(v, list) else v)
                           for k, v in game.__dict__.items()})
    slots = [(s, i) for s, row in enumerate(other.rows) for i, t in enumerate(row) if not other.seen[t]]
    hidden = [other.rows[s][i] for s, i in slots] + other.aside
    rnd.shuffle(hidden)
    for (s, i), t in zip(slots, hidden):
        other.rows[s][i] = t
    other.aside = hidden[len(slots):]
    return other


@pytest.mark.parametrize("optional_play", [False, True])
def test_bd3_no_observation_depends_on_an_unturned_tile(optional_play):
    rnd = random.Random(5)
    checked = changed = 0
    for seed in range(12 if optional_play else 40):  # optional_play: long games, fewer of them
        rules = make_blind_rules(2 + seed % 4, tileset=("double_six", "double_nine")[seed % 2],
                                 optional_play=optional_play)
        g = BlindGame(rules, seed=seed, skip_decisionless=True)
        while not g.done:
            if optional_play and rnd.random() < 0.7:
                g.step(rnd.choice(g.legal_actions()))
                continue
            other = _scrambled(g, rnd)
            if sorted(map(tuple, other.rows)) != sorted(map(tuple, g.rows)):
                changed += 1  # the hidden tiles really moved
            for seat in range(rules.num_players):  # every seat, its own row included
                for dtype in ("float32", "uint8"):
                    assert (g.observe(seat, dtype) == other.observe(seat, dtype)).all()
            checked += 1
            g.step(rnd.choice(g.legal_actions()))
    assert checked > 50 and changed > 50
    # and the test can fail: a seen tile moved to another place changes the observation
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    other = _scrambled(g, rnd)
    other.rows[1] = other.rows[1][-1:] + other.rows[1][:-1]  # B's known [4-4] moved to the front
    assert not (g.observe(0) == other.observe(0)).all()


def test_bd3_every_seat_sees_the_same_apart_from_the_seat_offset():
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    lay = enc.observation_layout(g.rules)
    a, b = g.observe(0), g.observe(3)
    for name in ("turned_up", "on_table", "set_tile", "arm_open", "arm_count", "unseen", "set_aside"):
        assert (a[slice(*lay[name][:2])] == b[slice(*lay[name][:2])]).all()
    # seat-relative slices are rotations: seat 3's offset r is seat 0's offset r + 3
    hs = lay["seat_hand_size"]
    assert (np.roll(a[hs[0]:hs[1]], -3) == b[hs[0]:hs[1]]).all()


# ------------------------------------------------------ options and bad input
def test_options_and_errors():
    assert make_blind_rules().num_players == 4
    r = make_blind_rules(3, tileset="double_nine", first_seat=2, optional_play=True)
    assert (r.num_tiles, r.max_pip, r.num_actions, r.num_arms, r.matching) == (55, 9, 3 * 55 + 2, 2, "equal")
    for kwargs, words in [(dict(num_players=1), "2 to 5"), (dict(num_players=6), "2 to 5"),
                          (dict(num_players=True), "2 to 5"), (dict(hand_size=5), "no option 'hand_size'"),
                          (dict(draw_rule="one"), "no option"), (dict(tileset="double_twelve"), "double_six"),
                          (dict(num_players=3, first_seat=3), "0..2"), (dict(optional_play=1), "False or True"),
                          (dict(target_score=100), "None only")]:
        with pytest.raises(ValueError, match=words):
            make_blind_rules(**kwargs)


def test_illegal_action_changes_nothing():
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    before = (g.observe(4).copy(), list(g.events), [list(r) for r in g.rows], list(g.actions))
    for bad in (play(g, "1-2", 0) + 2, enc.pass_index(rules=g.rules), -1, 1.0, True, "0"):
        # [1-2] is tile 8 (0-0..0-6 are 0..6, 1-1 is 7): PLAY ids 8*2 + arm
        with pytest.raises(ValueError, match=r"legal: 16 \(play 1-2 on L0\), 17 \(play 1-2 on L1\)"):
            g.step(bad)
        assert (g.observe(4) == before[0]).all() and g.events == before[1] and g.rows == before[2]
        assert g.actions == before[3]


def test_actions_text_round_trip():
    rules = make_blind_rules(2)
    for a in range(rules.num_actions):
        assert enc.parse(enc.describe(a, rules), rules) == a
    assert enc.describe(enc.play_index(rules.tiles.index[(3, 5)], 1, rules=rules), rules) == "play 3-5 on L1"
    with pytest.raises(ValueError, match="play a-b on L0"):
        enc.parse("play 7-7 on L0", rules)


def test_record_replays_and_decisionless_deals():
    rules = make_blind_rules(3, optional_play=True)
    g = BlindGame(rules, seed=11)
    rnd = random.Random(1)
    while not g.done:
        g.step(rnd.choice(g.legal_actions()))
    again = BlindGame.from_record(g.record())
    assert again.events == g.events and again.scores == g.scores
    # A deal without a decision is a finished game at once; skip_decisionless deals again
    # from the same stream (as BlindTables does) and counts it.
    rules = make_blind_rules(5, first_seat=0)
    plain = BlindGame(rules, seed=6)
    assert plain.done and plain.actions == [] and plain.winner == 1  # test_rule4's deal
    skip = BlindGame(rules, seed=6, skip_decisionless=True)
    assert skip.skipped >= 1 and not skip.done
    plain.reset()
    while plain.done:
        plain.reset()
    assert plain.dealt == skip.dealt and plain.events == skip.events


def test_family_rules_module_hands_blind_over():
    from nos_env.family import rules

    r = rules.make_rules("blind", 3, optional_play=True)
    assert r == make_blind_rules(3, optional_play=True)
    assert rules.player_counts("blind") == (2, 3, 4, 5) and rules.default_players("blind") == 4
    assert set(rules.options_table("blind")) == {"tileset", "first_seat", "optional_play", "target_score"}
    with pytest.raises(ValueError, match="no option 'teams'"):
        rules.make_rules("blind", 4, teams=True)


def test_determinizations_keep_every_observation():
    # search samples the never-seen tiles; no seat can tell the sample from the game (BD3),
    # and the sample plays the same history (with_hidden replays it and refuses otherwise)
    rnd = random.Random(8)
    moved = 0
    for seed in range(20):
        rules = make_blind_rules(3 + seed % 3, tileset=("double_six", "double_nine")[seed % 2])
        g = BlindGame(rules, seed=seed, skip_decisionless=True)
        while not g.done:
            h = g.sample_hidden(rnd)
            moved += h.hidden_tiles() != g.hidden_tiles()
            assert h.events == g.events and sorted(h.hidden_tiles()) == sorted(g.hidden_tiles())
            for seat in range(rules.num_players):
                assert (h.observe(seat, "uint8") == g.observe(seat, "uint8")).all()
            g.step(rnd.choice(g.legal_actions()))
    assert moved > 10
    g = game_of(EXAMPLE2, EXAMPLE2_ASIDE)
    with pytest.raises(ValueError, match="an order of the 22 hidden tiles"):
        g.with_hidden([0, 1])


def test_bad_records_are_refused():
    g = BlindGame(make_blind_rules(2), seed=3)
    good = g.record()
    for bad in ({**good, "game": "draw"}, {k: v for k, v in good.items() if k != "actions"},
                {**good, "stream_state": -1}, {**good, "options": ["tileset"]}, "blind"):
        with pytest.raises(ValueError, match="a Blind record is a dict"):
            BlindGame.from_record(bad)
    assert not g.done  # seed 3 has a decision, so an action id outside the space is refused as illegal
    with pytest.raises(ValueError, match="not legal"):
        BlindGame.from_record({**good, "actions": [-5]})


def test_bd6_a_line_doubles_across_no_spinner():
    # A sets [3-3]: both ends show 3 (BD4), both arms end in the double. B's [3-5] fits
    # both (two actions, F6). On L0: ends 5 and 3, only L1 still ends in a double; the
    # line never gets more than two ends (BD6: no spinner, unlike Cross).
    rows = ["3-3 0-0 0-1 0-2 0-3", "3-5 1-1 0-4 0-5 0-6", "1-2 1-3 1-4 1-5 1-6", "2-2 2-3 2-4 2-5 2-6",
            "3-4 3-6 4-4 4-5 4-6"]
    g = game_of(rows, "5-5 5-6 6-6")
    lay = enc.observation_layout(g.rules)
    obs = g.observe(1)
    assert g.open_ends == [3, 3] and g.to_move == 1
    assert obs[slice(*lay["arm_double_end"][:2])].tolist() == [1, 1]
    assert obs[slice(*lay["arm_exists"][:2])].tolist() == [1, 1]
    assert g.legal_actions() == [play(g, "3-5", 0), play(g, "3-5", 1)]
    g.step(play(g, "3-5", 0))
    # B's [1-1] no fit (5/3) -> bottom; C [1-2] no; D [2-2] no; E [3-4] fits L1 only -> L1 4;
    # E's [3-6] no fit (5/4) -> bottom; A [0-0] no; B [0-4] fits L1 only -> L1 0; B's [0-5]
    # fits both (L0 5, L1 0) -> B decides
    assert g.open_ends == [5, 0] and g.to_move == 1
    assert g.legal_actions() == [play(g, "0-5", 0), play(g, "0-5", 1)]
    obs = g.observe(1)
    assert obs[slice(*lay["arm_double_end"][:2])].tolist() == [0, 0]
    assert obs[slice(*lay["arm_count"][:2])].tolist() == [1, 2]


def test_bd1_bd2_no_set_and_no_draw_action_is_ever_legal():
    # Blind is passages 1, 2 and the Five Up passage (BD1): no boneyard to draw from, the set
    # is whatever the starter turns up (BD4). Only PLAY ids (< 2N) and DECLINE are ever legal.
    rnd = random.Random(2)
    for seed in range(30):
        rules = make_blind_rules(2 + seed % 4, optional_play=seed % 2 == 1)
        g = BlindGame(rules, seed=seed, skip_decisionless=True)
        while not g.done:
            legal = g.legal_actions()
            assert all(a < 2 * rules.num_tiles or a == enc.pass_index(rules) for a in legal)
            assert (enc.pass_index(rules) in legal) == rules.optional_play
            g.step(rnd.choice(legal))
