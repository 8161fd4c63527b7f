"""Mexican Train's rules (docs/rules/mexican_train.md, MT1..MT13) on the reference engine.

Positions come from ``MexicanTrainGame.from_deal`` (hands and a boneyard, top first) and
legal sequences of actions; expected legal moves, turn order and scores are written from
the page, never read back from the engine.
"""

from __future__ import annotations

import pytest

from nos_env.family import mexican_train as M
from nos_env.family import mexican_train_encoding as enc
from nos_env.rng import SplitMix64

NINE = M.make_mexican_train_rules(2, tileset="double_nine", rounds=1)


def T(a, b, rules=NINE):
    return rules.tiles.index[(min(a, b), max(a, b))]


def play(a, b, arm, rules=NINE):
    return enc.play_index(T(a, b, rules), arm, rules=rules)


DRAW, PASS = enc.draw_index(NINE), enc.pass_index(NINE)


def deal(hands, top=(), rules=NINE, setter=0, round_index=0, scores=None):
    """The hands as given (pairs), the boneyard: ``top`` first, then every other tile but the engine."""
    hands = [[T(*x, rules=rules) for x in h] for h in hands]
    top = [T(*x, rules=rules) for x in top]
    used = set(sum(hands, [])) | set(top) | {rules.engine_of(round_index)}
    rest = [t for t in range(rules.num_tiles) if t not in used]
    return M.MexicanTrainGame.from_deal(rules, hands, top + rest, setter=setter, scores=scores,
                                        round_index=round_index)


def pips(tiles):
    return sum(a + b for a, b in tiles)


# ------------------------------------------------------------------ MT1, MT2, MT3
@pytest.mark.parametrize("tileset, sizes", [("double_twelve", [12, 11, 10, 12, 11, 10, 9]),
                                            ("double_nine", [12, 11, 10, 7, 7, 6, 5])])
def test_hand_sizes_and_the_engine_out_of_the_deal(tileset, sizes):
    """MT2's table; MT1: the first engine is the top double, in no hand and not in the boneyard."""
    top = 12 if tileset == "double_twelve" else 9
    for n, k in zip(range(2, 9), sizes):
        rules = M.make_mexican_train_rules(n, tileset=tileset)
        g = M.MexicanTrainGame(rules, seed=n)
        engine = rules.tiles.index[(top, top)]
        assert g.hand.engine == engine
        assert [len(h) for h in g.hand.hands] == [k] * n
        assert len(g.hand.boneyard) == rules.num_tiles - 1 - n * k
        assert engine not in set().union(*g.hand.hands) | set(g.hand.boneyard)


def test_the_deal_follows_the_stream():
    """MT3: Fisher-Yates over the tiles but the engine, hands in order, boneyard top first,
    then the first starter below(n)."""
    rules = M.make_mexican_train_rules(3, tileset="double_nine")
    rng = SplitMix64(11)
    order = [t for t in range(55) if t != T(9, 9)]
    for i in range(53, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    starter = rng.below(3)
    g = M.MexicanTrainGame(rules, seed=11)
    assert [sorted(h) for h in g.hand.hands] == [sorted(order[s * 11:(s + 1) * 11]) for s in range(3)]
    assert g.hand.boneyard == order[33:]
    assert g.to_move == starter == g.hand.starter


def test_engines_descend_and_starters_rotate_left():
    """MT1: round r's engine is the double (9 - r); MT3: round r's starter is first + r."""
    rules = M.make_mexican_train_rules(3, tileset="double_nine", rounds=4, first_seat=2)
    g = M.MexicanTrainGame(rules, seed=5)
    seen = []
    while not g.done:
        if not seen or seen[-1][0] != g.hand.index:
            seen.append((g.hand.index, g.hand.engine, g.hand.starter))
        g.step(g.legal_actions()[0])
    assert seen == [(r, T(9 - r, 9 - r), (2 + r) % 3) for r in range(4)]
    assert len(g.finished_hands) == 4


# ------------------------------------------------------------------ MT5, MT6, MT13
def test_where_to_play_markers_and_the_draw():
    g = deal([[(9, 1), (2, 3)], [(1, 5), (9, 8), (0, 0)]], top=[(6, 7), (5, 2)])
    # MT5: own train (arm 0) or the Mexican train (arm 8); the engine's number starts both
    assert g.legal_actions() == sorted([play(9, 1, 0), play(9, 1, 8)])
    g.step(play(9, 1, 0))
    assert g.to_move == 1
    # B may not play 1-5 on A's unmarked train (A is offset 1 from B), only 9-8 on his own or the Mexican
    assert g.legal_actions() == sorted([play(9, 8, 0), play(9, 8, 8)])
    g.step(play(9, 8, 8))
    # MT6: A holds nothing that fits (own 1, Mexican 8): he must draw; 6-7 does not fit: pass
    assert g.legal_actions() == [DRAW]
    g.step(DRAW)
    assert g.hand.hands[0] == {T(2, 3), T(6, 7)} and g.legal_actions() == [PASS]
    assert g.observe(0)[slice(*enc.observation_layout(NINE)["phase"][:2])].tolist() == [0, 0, 1, 0]
    g.step(PASS)
    assert g.hand.marker[0] and g.to_move == 1
    # MT12: A's pass shows he holds no tile with a 1 or an 8
    assert g.hand.void[0] == {t for t, (a, b) in enumerate(NINE.tiles.tiles) if {a, b} & {1, 8}}
    # A's marker opens his train: B must play 1-5 there (his only fitting tile)
    assert g.legal_actions() == [play(1, 5, 1)]
    g.step(play(1, 5, 1))
    assert g.legal_actions() == [DRAW]
    g.step(DRAW)  # 5-2 fits his own train (5) only
    assert g.legal_actions() == [play(5, 2, 0)]
    g.step(play(5, 2, 0))
    assert not g.hand.marker[0], "MT6: the owner playing on his train takes the marker off"


def test_a_drawn_tile_that_fits_must_be_played():
    g = deal([[(9, 1), (2, 3)], [(9, 8), (0, 0)]], top=[(9, 4)])
    g.step(play(9, 1, 0))
    g.step(play(9, 8, 0))
    assert g.legal_actions() == [DRAW]
    g.step(DRAW)  # 9-4: the Mexican train is still empty (9); no pass while it fits
    assert g.legal_actions() == [play(9, 4, 8)]


def test_empty_boneyard_means_pass():
    rules = NINE
    hands = [[(9, 1), (2, 3)], [(9, 8)] + [t for t in rules.tiles.tiles if t not in ((1, 9), (2, 3), (8, 9), (9, 9))]]
    g = deal(hands)
    assert g.hand.boneyard == []
    g.step(play(9, 1, 0))
    g.step(play(9, 8, 0))
    assert g.legal_actions() == [PASS]


# ------------------------------------------------------------------ MT7
def test_a_double_is_followed_and_then_stops_all_play():
    g = deal([[(9, 4), (4, 4), (9, 2), (3, 3)], [(9, 1), (7, 7), (6, 3), (8, 2)]], top=[(1, 6), (4, 7)])
    g.step(play(9, 4, 0))
    g.step(play(9, 1, 0))
    g.step(play(4, 4, 0))
    assert g.to_move == 0, "MT7: after a double the same player plays again"
    # a second tile anywhere he may play: 9-2 on the Mexican train (nothing of his fits the 4)
    assert g.legal_actions() == [play(9, 2, 8)]
    g.step(play(9, 2, 8))
    assert g.to_move == 1
    # B must play on A's 4-4 (offset 1); his 8-2 fits the Mexican train's 2 but may not go there
    assert g.legal_actions() == [DRAW]
    g.step(DRAW)  # 1-6 fits B's own train (1), not the double
    assert g.legal_actions() == [PASS]
    g.step(PASS)
    assert g.hand.marker[1]
    assert g.hand.void[1] == {t for t, (a, b) in enumerate(NINE.tiles.tiles) if 4 in (a, b)}
    # A too must play on his double first: 3-3 does not fit; the drawn 4-7 does
    assert g.legal_actions() == [DRAW]
    g.step(DRAW)
    assert g.legal_actions() == [play(4, 7, 0)]
    g.step(play(4, 7, 0))
    assert g.to_move == 1 and not g.hand.ends_in_double(0)


def test_the_player_who_cannot_follow_his_double_draws_then_marks():
    g = deal([[(9, 4), (4, 4), (0, 2)], [(9, 1), (7, 7)]], top=[(5, 6)])
    g.step(play(9, 4, 0))
    g.step(play(9, 1, 0))
    g.step(play(4, 4, 0))
    assert g.legal_actions() == [DRAW]
    g.step(DRAW)
    assert g.legal_actions() == [PASS]
    g.step(PASS)
    assert g.hand.marker[0] and g.to_move == 1


# ------------------------------------------------------------------ MT8
def test_two_doubles_and_the_third_tile():
    g = deal([[(9, 4), (9, 6), (4, 4), (6, 6), (6, 1), (0, 2)], [(9, 1), (1, 3), (8, 8), (7, 5)]])
    g.step(play(9, 4, 0))
    g.step(play(9, 1, 0))
    g.step(play(9, 6, 8))
    g.step(play(1, 3, 0))
    g.step(play(4, 4, 0))
    # second tile: 6-6 is allowed because 6-1 can follow it; 6-1 itself too
    assert g.legal_actions() == sorted([play(6, 6, 8), play(6, 1, 8)])
    g.step(play(6, 6, 8))
    # third tile: from his hand, on one of his two doubles: only 6-1 on the 6-6; no draw, no pass
    assert g.to_move == 0 and g.legal_actions() == [play(6, 1, 8)]
    g.step(play(6, 1, 8))
    assert g.to_move == 1 and g.hand.ends_in_double(0) and not g.hand.ends_in_double(M.MEXICAN)


def test_a_second_double_without_a_follower_is_not_legal():
    g = deal([[(9, 4), (9, 6), (4, 4), (6, 6), (0, 2), (5, 7)], [(9, 1), (1, 3), (8, 8), (7, 3)]], top=[(2, 8)])
    g.step(play(9, 4, 0))
    g.step(play(9, 1, 0))
    g.step(play(9, 6, 8))
    g.step(play(1, 3, 0))
    g.step(play(4, 4, 0))
    assert g.legal_actions() == [DRAW]


# ------------------------------------------------------------------ MT10, MT11
def test_going_out_on_a_double_ends_the_round_at_once():
    b_hand = [(9, 1), (7, 7), (3, 5)]
    g = deal([[(9, 4), (4, 4)], b_hand])
    g.step(play(9, 4, 0))
    g.step(play(9, 1, 0))
    points = g.step(play(4, 4, 0))
    assert points == [0, -pips(b_hand[1:])] == [0, -22]  # 9-1 was played
    assert g.done and g.winner == 0 and g.scores == [0, -22]


def test_blocked_round_counts_every_hand():
    """MT10: blocked when a turn ends with an empty boneyard and no tile that fits."""
    g = deal([[(9, 1), (2, 3)], [(9, 8), (0, 0)]])
    h = g.hand
    # every other tile out of play (on no train's number): the test sets the trains' numbers
    h.boneyard.clear()
    h.open_end = [5] * enc.NUM_ARMS
    h.count = [1] * enc.NUM_ARMS
    h.hands = [{T(2, 3)}, {T(0, 0)}]
    assert g.legal_actions() == [PASS]
    points = g.step(PASS)
    assert h.blocked and g.done
    assert points == [-5, 0] and g.scores == [-5, 0] and g.winner == 1


def test_an_unsatisfied_double_blocks_when_nobody_holds_its_number():
    g = deal([[(9, 1), (2, 3)], [(9, 8), (0, 0)]])
    h = g.hand
    h.boneyard.clear()
    h.open_end = [5] * enc.NUM_ARMS
    h.open_end[1] = 2
    h.last[1], h.count[1] = T(2, 2), 1
    h.hands = [{T(3, 5)}, {T(0, 0)}]  # 3-5 fits the other trains' 5, not the 2-2
    assert g.legal_actions() == [PASS]
    points = g.step(PASS)
    assert g.done and points == [-8, 0]


def test_match_totals_lowest_wins_and_ties_have_no_winner():
    rules = M.make_mexican_train_rules(2, tileset="double_nine", rounds=2)
    g = deal([[(9, 4), (4, 4)], [(9, 1), (0, 3)]], rules=rules, scores=[-10, -7])
    g.step(play(9, 4, 0, rules))
    g.step(play(9, 1, 0, rules))
    assert g.step(play(4, 4, 0, rules)) == [0, -3]
    assert g.scores == [-10, -10] and not g.done and g.hand_number == 1 and g.hand_over
    assert g.hand.engine == T(8, 8) and g.to_move == 1, "round 2: engine 8-8, the next seat starts"
    rules1 = M.make_mexican_train_rules(2, tileset="double_nine", rounds=1)
    g = deal([[(9, 4), (4, 4)], [(9, 1), (0, 3)]], rules=rules1, scores=[-10, -7])
    for a in (play(9, 4, 0, rules1), play(9, 1, 0, rules1), play(4, 4, 0, rules1)):
        g.step(a)
    assert g.done and g.scores == [-10, -10] and g.winner is None


# ------------------------------------------------------------------ bad input, records, text
def test_illegal_action_changes_nothing():
    g = deal([[(9, 1), (2, 3)], [(9, 8), (0, 0)]])
    before = g.observe(0).copy(), g.legal_actions()
    for bad in (DRAW, play(2, 3, 0), -1, 10**6, 1.0, True, "draw"):
        with pytest.raises(ValueError, match="not legal"):
            g.step(bad)
    assert (g.observe(0) == before[0]).all() and g.legal_actions() == before[1] and g.actions == []


@pytest.mark.parametrize("options, message", [({"tileset": "double_six"}, "double_twelve"),
                                              ({"rounds": 14}, "1..13"), ({"rounds": 0}, "1..13"),
                                              ({"first_seat": 4}, "0..3"), ({"target_score": 100}, "no option"),
                                              ({"rounds": 11, "tileset": "double_nine"}, "1..10")])
def test_bad_options_name_what_is_allowed(options, message):
    with pytest.raises(ValueError, match=message):
        M.make_mexican_train_rules(4, **options)
    with pytest.raises(ValueError, match="2 to 8"):
        M.make_mexican_train_rules(9)


def test_record_replays_and_text_round_trips():
    rules = M.make_mexican_train_rules(3, rounds=2)
    g = M.MexicanTrainGame(rules, seed=3)
    for _ in range(60):
        if g.done:
            break
        g.step(g.legal_actions()[-1])
    again = M.MexicanTrainGame.from_record(g.record())
    assert again.scores == g.scores and again.legal_actions() == g.legal_actions()
    assert (again.observe(1) == g.observe(1)).all()
    for a in range(rules.num_actions):
        assert enc.parse(enc.describe(a, rules), rules) == a
    assert enc.describe(play(9, 1, 8), NINE) == "play 1-9 on mexican"
    assert enc.describe(play(9, 1, 3), NINE) == "play 1-9 on +3"
