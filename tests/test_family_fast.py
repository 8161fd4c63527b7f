"""The family games' fast engine against the reference engine, step by step, and its bad input.

Every family game, every allowed player count and each non-default option value at least
once, several seeds: legal actions, masks, observations in both dtypes, points, scores and
terminations equal to the reference engine's (``nos_env.family_differential.run``). The long
run is ``benchmarks/differential_family.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from nos_env.family.engine import FamilyGame
from nos_env.family.rules import GAMES, player_counts
from nos_env.family_differential import run
from nos_env.family_tables import FamilyTables

#: (game, options) beyond the defaults: each non-default option value at least once.
OPTION_CASES = [
    ("block", dict(opening="highest_tile")), ("block", dict(opening="free")),
    ("block", dict(opening="free", first_seat=2)), ("block", dict(tileset="double_nine")),
    ("block", dict(hand_size=4)), ("block", dict(blocked_scoring="total")),
    ("block", dict(hand_scoring="one_point", target_score=None)), ("block", dict(target_score=None)),
    ("block", dict(target_score=30)), ("block", dict(teams=True)), ("block", dict(teams=True, team_out="both")),
    ("block", dict(double_counts_one_end=True)), ("block", dict(stock_to_winner=True)),
    ("block", dict(play_on_double=True)),
    ("draw", dict(draw_rule="one")), ("draw", dict(boneyard_reserve=2)), ("draw", dict(tileset="double_nine")),
    ("draw", dict(hand_size=5)), ("draw", dict(opening="free")), ("draw", dict(opening="highest_tile")),
    ("draw", dict(teams=True, team_out="both")), ("draw", dict(play_on_double=True)),
    ("draw", dict(stock_to_winner=True, blocked_scoring="total")),
    ("cross", dict(cross_phase_draw="one")), ("cross", dict(draw_rule="one")), ("cross", dict(tileset="double_nine")),
    ("cross", dict(boneyard_reserve=3)), ("cross", dict(play_on_double=True)), ("cross", dict(teams=True)),
    ("double_nine_cross", dict(cross_phase_draw="one")), ("double_nine_cross", dict(play_on_double=True)),
    ("double_nine_cross", dict(draw_rule="one", boneyard_reserve=2)),
    ("double_nine_cross", dict(teams=True, team_out="both")),
    ("matador", dict(boneyard_reserve=2)), ("matador", dict(opening="free")), ("matador", dict(opening="highest_tile")),
    ("matador", dict(blocked_scoring="total", stock_to_winner=True, double_counts_one_end=True)),
    ("all_fives", dict(hand_size=5)), ("all_fives", dict(boneyard_reserve=2)),
    ("all_fives", dict(award_rounding="total")), ("all_fives", dict(opening="free")),
    ("all_fives", dict(opening="highest_tile", double_counts_one_end=True)), ("all_fives", dict(target_score=None)),
    ("fives_and_threes", dict(boneyard_reserve=2, hand_size=5)), ("fives_and_threes", dict(opening="free")),
    ("fives_and_threes", dict(opening="highest_tile", double_counts_one_end=True)),
    ("five_up", dict(spinners="first")), ("five_up", dict(award_rounding="total")),
    ("five_up", dict(opening="highest_double")), ("five_up", dict(opening="highest_tile", first_seat=None)),
    ("five_up", dict(first_seat=1, double_counts_one_end=True)), ("five_up", dict(target_score=None)),
    ("bergen", dict(opening="lowest_tile")), ("bergen", dict(opening="free")), ("bergen", dict(target_score=None)),
    ("fours", dict(multi_play="may")), ("fours", dict(opening="highest_double")),
    ("fours", dict(opening="highest_tile", blocked_scoring="total", stock_to_winner=True)),
    ("fours", dict(double_counts_one_end=True, first_seat=3)),
]

PLAYER_CASES = [(g, n) for g in GAMES for n in player_counts(g)]


@pytest.mark.parametrize("game,n", PLAYER_CASES, ids=[f"{g}-{n}" for g, n in PLAYER_CASES])
def test_every_player_count_matches_the_reference(game, n):
    counts = run(game, n, seeds=range(100 * n, 100 * n + 2), steps=150)
    assert counts["steps"] == 300


@pytest.mark.parametrize("game,options", OPTION_CASES, ids=[f"{g}-{o}" for g, o in OPTION_CASES])
def test_every_option_matches_the_reference(game, options):
    options = {k: v for k, v in options.items() if v is not None or k != "first_seat"}
    counts = run(game, None, seeds=range(7, 9), steps=110, action_seed=3, **options)
    assert counts["steps"] == 220


def test_a_seeded_table_plays_the_reference_game():
    """Table b seeded with s plays FamilyGame(rules, seed=s) (the contract), whole episodes."""
    ft = FamilyTables("all_fives", 3, seed=40, target_score=None)
    for b in range(3):
        ref = FamilyGame(ft.rules, seed=40 + b)
        assert ft.legal_actions(b).tolist() == ref.legal_actions()


def test_bad_input_names_what_is_allowed_and_changes_nothing():
    ft = FamilyTables("draw", 2, seed=1)
    before = ft.clone()
    legal = ft.legal_actions(0)
    illegal = next(a for a in range(ft.num_actions) if a not in legal)
    for actions, words in (([illegal, ft.legal_actions(1)[0]], "legal:"), ([0.5, 1.0], "integer array"),
                           ([0, 0, 0], "shape (2,)"), ([ft.num_actions, 0], "outside 0..")):
        with pytest.raises(ValueError, match=words.replace("(", r"\(").replace(")", r"\)")):
            ft.step(np.array(actions))
        after = ft.clone()
        assert all(np.array_equal(before[k], after[k]) for k in before)
    with pytest.raises(ValueError, match="table index must be an integer 0..1"):
        ft.legal_actions(2)
    with pytest.raises(ValueError, match="seat numbers 0..3"):
        ft.observe(np.array([4, 0]))
    with pytest.raises(ValueError, match="draw has no option"):
        FamilyTables("draw", 2, spinners="every")
    with pytest.raises(ValueError, match="num_tables must be a positive integer"):
        FamilyTables("draw", 0)
    with pytest.raises(ValueError, match="dtype must be one of"):
        FamilyTables("draw", 2, observation_dtype="int16")
    with pytest.raises(ValueError, match="every tile 0..27 exactly once"):
        ft.load_deal(0, [[0, 1]] * 4, [])
    after = ft.clone()
    assert all(np.array_equal(before[k], after[k]) for k in before)



def test_phase_after_a_set_that_ends_the_match():
    """Bergen, 3 players, seed 300: a setter at 13 sets the lowest double (+2 = 15, BE2, BE7):
    the match ends with the set on the table, and both engines show the phase "play"
    (was reference issue 1 of deviations-fast.md, fixed in the reference engine)."""
    run("bergen", 3, seeds=range(300, 302), steps=150)


@pytest.mark.parametrize("game,options", [("draw", {}), ("five_up", {}), ("fours", {"multi_play": "may"})])
def test_reference_game_rebuilds_a_table_mid_match(game, options):
    """reference_game(b): the table's current hand from its deal, the scores at the hand's start
    and the hand's decisions; it goes on exactly as the table does (its random stream too)."""
    ft = FamilyTables(game, 2, seed=5, **options)
    state = np.array([11, 12], np.uint64)
    for _ in range(70):
        ft.step(ft.sample_legal(state))
    for b in range(2):
        ref = ft.reference_game(b)
        assert ref.legal_actions() == ft.legal_actions(b).tolist()
        assert list(ref.scores) == ft.scores[b, : ft.num_players].tolist()
        seat = ref.to_move
        assert np.array_equal(ref.observe(seat, dtype="uint8"), ft.observe_rows([b], [seat])[0])


def test_load_deal_plays_from_deal():
    """load_deal(b, hands, boneyard, setter, scores) starts FamilyGame.from_deal's game."""
    ft = FamilyTables("all_fives", 2, seed=3, opening="free")
    hands = [list(range(0, 5)), list(range(5, 10)), list(range(10, 15)), list(range(15, 20))]
    boneyard = list(range(20, 28))
    ft.load_deal(1, hands, boneyard, setter=2, scores=[10, 20, 30, 40])
    ref = FamilyGame.from_deal(ft.rules, hands, boneyard, setter=2, scores=[10, 20, 30, 40])
    assert ft.legal_actions(1).tolist() == ref.legal_actions()
    assert ft.current_player[1] == 2 and ft.scores[1].tolist() == [10, 20, 30, 40]
    for _ in range(12):
        a = ref.legal_actions()[-1]
        actions = np.array([ft.legal_actions(0)[0], a])
        _, points, _, _ = ft.step(actions, autoreset=False)
        assert points[1].tolist() == ref.step(a)
        assert ft.legal_actions(1).tolist() == ref.legal_actions()
        assert np.array_equal(ft.observe_rows([1], [ref.to_move])[0], ref.observe(ref.to_move, dtype="uint8"))


def test_set_hidden_replaces_the_hidden_tiles_and_checks_first():
    ft = FamilyTables("draw", 1, seed=8)
    mover = int(ft.current_player[0])
    hands = [[t for t in range(28) if (int(ft.SS[0, s, 0, 0]) >> t) & 1] for s in range(4)]
    boneyard = ft.BONE[0, ft.T[0, 7]:ft.T[0, 8]].tolist()
    legal = ft.legal_actions(0).tolist()
    others = [s for s in range(4) if s != mover]
    # swap the hidden tiles of two other seats with each other and with the boneyard
    pool = hands[others[0]] + hands[others[1]] + boneyard
    pool = pool[::-1]
    new = [list(h) for h in hands]
    new[others[0]], new[others[1]] = pool[: len(hands[others[0]])], pool[len(hands[others[0]]):][: len(hands[others[1]])]
    new_bone = pool[len(hands[others[0]]) + len(hands[others[1]]):]
    before = ft.clone()
    with pytest.raises(ValueError, match=f"seat {mover} \\(to move\\) must stay"):
        ft.set_hidden(0, [new_bone[:len(hands[mover])] if s == mover else new[s] for s in range(4)], boneyard)
    with pytest.raises(ValueError, match="exactly once"):
        ft.set_hidden(0, new, [new[others[0]][0]] + new_bone[1:])
    assert all(np.array_equal(before[k], ft.clone()[k]) for k in before)
    ft.set_hidden(0, new, new_bone)
    assert ft.legal_actions(0).tolist() == legal
    assert [[t for t in range(28) if (int(ft.SS[0, s, 0, 0]) >> t) & 1] for s in range(4)] == [sorted(h) for h in new]
    assert ft.BONE[0, ft.T[0, 7]:ft.T[0, 8]].tolist() == new_bone


def test_nbytes_counts_every_state_array():
    # TablesBase.nbytes reads the schema as _schema (FamilyTables had it as schema only).
    tables = FamilyTables("double_nine_cross", 3, 8, seed=0)
    assert tables.nbytes == sum(getattr(tables, name).nbytes for name in tables.array_names) > 3 * 1000
