"""nos-announce (agents/announce.py): sampled deals, forced announcements, features, routing, CLI."""

import json

import numpy as np
import pytest

from agents import announce
from agents.announce import (
    AnnounceWith,
    SurveyResult,
    compare_announcers,
    evaluate_hand,
    feature_buckets,
    hand_features,
    load_tables,
    main,
    play_out,
    sample_deal,
    survey,
)
from agents.base import Agent, BatchContext
from agents.random_agent import RandomAgent
from nos_env.deal import Deal
from nos_env.encoding import ANNOUNCE0, DECLARE, DRAW, PLAY0, SET0
from nos_env.engine import Hand
from nos_env.announcements import ALL_ANNOUNCEMENTS, legal_announcements
from nos_env.tiles import ALL_TILES

# Tiles as the test sees them, independently of the module's helpers.
IDX = {f"{a}-{b}": i for i, (a, b) in enumerate(ALL_TILES)}
IDX.update({f"{b}-{a}": i for i, (a, b) in enumerate(ALL_TILES)})


def bits(*names):
    return sum(1 << IDX[t] for t in names)


def tiles_of(mask):
    return [ALL_TILES[i] for i in range(28) if (int(mask) >> i) & 1]


def table_deal(result, sample, column=0):
    """The deal a table actually held, rebuilt from the bits and boneyard read off the tables."""
    hands = [tiles_of(m) for m in result.dealt[sample, column]]
    boneyard = [ALL_TILES[i] for i in result.boneyard[sample, column]]
    return Deal.from_tiles(hands, boneyard)


OWN_DOUBLE = ("6-6 6-4 2-5 0-3", "6-6")  # a double from the hand: 43 announcements (docs/rules/nos.md §4)
DRAWN = ("1-2 3-5 0-4 2-6", "4-5")  # no double: the top boneyard tile is set: 60 announcements


@pytest.fixture(scope="module")
def own_double():
    return evaluate_hand(*OWN_DOUBLE, num_players=4, setter=2, samples=3, seed=5)


@pytest.fixture(scope="module")
def drawn():
    return evaluate_hand(*DRAWN, num_players=4, setter=0, samples=2, seed=5)


# ------------------------------------------------------------ sampled deals
def test_every_announcement_table_of_a_sample_holds_the_same_deal(own_double):
    r = own_double
    for s in range(r.samples):
        assert (r.dealt[s] == r.dealt[s, 0]).all(), "hands differ between announcements of one sample"
        assert (r.boneyard[s] == r.boneyard[s, 0]).all(), "boneyard order differs between announcements"
    # ... and the samples are different deals (3 uniform deals of 24 hidden tiles: equal only by a fluke).
    hidden = {(tuple(r.dealt[s, 0]), tuple(r.boneyard[s, 0])) for s in range(r.samples)}
    assert len(hidden) == r.samples


def test_the_setters_hand_is_exactly_the_given_one_and_the_deal_is_whole(own_double, drawn):
    assert (own_double.dealt[:, :, 2] == bits("6-6", "4-6", "2-5", "0-3")).all()
    assert (drawn.dealt[:, :, 0] == bits("1-2", "3-5", "0-4", "2-6")).all()
    for r in (own_double, drawn):
        for s in range(r.samples):
            table_deal(r, s)  # Deal.from_tiles: 4 tiles a seat, all 28 tiles exactly once
    # A drawn set tile is the top of every sampled boneyard; an own double is nowhere else.
    assert (drawn.boneyard[:, :, 0] == IDX["4-5"]).all()
    assert (own_double.boneyard != IDX["6-6"]).all()


def test_hidden_tiles_are_uniform_over_what_the_setter_cannot_see():
    rng = np.random.default_rng(1)
    hand = [(1, 2), (3, 5), (0, 4), (2, 6)]
    counts = np.zeros(28)
    draws = 3000
    for _ in range(draws):
        deal = sample_deal(hand, (4, 5), True, 4, 0, rng)
        assert deal.hands[0] == tuple(hand) and deal.boneyard[0] == (4, 5)
        for t in deal.hands[1]:
            counts[IDX[f"{t[0]}-{t[1]}"]] += 1
    unseen = [i for i, t in enumerate(ALL_TILES) if t not in hand and t != (4, 5)]
    assert len(unseen) == 23
    # Seat 1 gets 4 of the 23 unseen tiles: each with probability 4/23 (sd of the share about 0.007).
    np.testing.assert_allclose(counts[unseen] / draws, 4 / 23, atol=0.03)
    assert counts.sum() == 4 * draws and counts[[i for i in range(28) if i not in unseen]].sum() == 0


# -------------------------------------------------------------- announcements
def reference_legal(result, drawn_set):
    """The announcements the reference engine offers after the set, on a table's own deal."""
    hand = Hand(table_deal(result, 0), on_set=result.setter)
    if drawn_set:
        hand.step("draw")
    hand.step(f"set {result.set_tile[0]}-{result.set_tile[1]}")
    assert hand.phase == "announce"
    return {a.announcement for a in hand.legal_actions()}


def test_every_legal_announcement_and_only_those_is_evaluated(own_double, drawn):
    assert set(own_double.announcements) == reference_legal(own_double, False)
    assert set(drawn.announcements) == reference_legal(drawn, True)
    # docs/rules/nos.md §4: 43 after a double, 60 after a non-double, each once.
    assert len(own_double.announcements) == len(set(own_double.announcements)) == 43
    assert len(drawn.announcements) == len(set(drawn.announcements)) == 60
    assert own_double.chips.shape == (3, 43, 4) and drawn.chips.shape == (2, 60, 4)


def test_blank_double_set_offers_the_triangles():
    r = evaluate_hand("0-0 1-6 2-3 4-4", "0-0", samples=1, seed=0)
    games = {a.game for a in r.announcements}
    assert {13, 14, 15, 16} <= games and not games & {5, 6, 9, 10}  # section 4 table
    assert set(r.announcements) == reference_legal(r, False)


def test_the_forced_announcement_is_the_one_played(own_double, drawn):
    for r in (own_double, drawn):
        expected = np.array([ALL_ANNOUNCEMENTS.index(a) for a in r.announcements])
        assert (r.played == expected[None, :]).all()  # final_stats F_ANN of every table


class Spy(Agent):
    """Random play that records every mask it was asked about."""

    def __init__(self, seed=0):
        super().__init__(seed)
        self.inner = RandomAgent(seed)
        self.masks = []

    def act_batch(self, obs, masks, context=None):
        self.masks.append(np.array(masks))
        return self.inner.act_batch(obs, masks, context)


def test_forced_set_and_announcement_reach_no_agent_and_are_recorded():
    rng = np.random.default_rng(3)
    deals = [sample_deal([(1, 2), (3, 5), (0, 4), (2, 6)], (4, 5), True, 4, 1, rng) for _ in range(3)]
    ann = [ALL_ANNOUNCEMENTS.index(a) for a in legal_announcements((4, 5))[:3]]
    forced = np.array([[DRAW, SET0 + IDX["4-5"], ANNOUNCE0 + a] for a in ann])
    spy = Spy()
    out = play_out(load_tables(deals, [1, 1, 1], 4, seed=0), [spy], np.zeros((3, 4), np.int64), forced)
    seen = np.concatenate(spy.masks)
    assert not seen[:, SET0:DRAW].any() and not seen[:, ANNOUNCE0:DECLARE].any()
    assert list(out.announcement) == ann and list(out.setter) == [1, 1, 1]
    assert list(out.set_tile) == [IDX["4-5"]] * 3
    assert (out.chips.sum(axis=1) == 0).all()  # every payment moves chips between players


def test_same_seed_same_numbers():
    a = evaluate_hand(*DRAWN, samples=2, seed=11)
    b = evaluate_hand(*DRAWN, samples=2, seed=11)
    c = evaluate_hand(*DRAWN, samples=2, seed=12)
    assert np.array_equal(a.chips, b.chips) and np.array_equal(a.dealt, b.dealt)
    assert not np.array_equal(a.dealt, c.dealt)
    s1 = survey(hands=2, rollouts=2, seed=4)
    s2 = survey(hands=2, rollouts=2, seed=4)
    assert np.array_equal(s1.chips, s2.chips, equal_nan=True) and s1.set_tiles == s2.set_tiles


# ------------------------------------------------------------------ features
@pytest.mark.parametrize("hand, doubles, matadors, blank, longest", [
    (["0-0", "1-6", "2-5", "3-4"], 1, 4, True, 1),  # the four matadors: every number once
    (["6-6", "6-4", "6-1", "6-0"], 1, 1, False, 4),  # all sixes ([6-6] counts once); [6-1] is a matador
    (["1-2", "3-5", "0-4", "2-6"], 0, 0, False, 2),  # two twos
    (["0-0", "1-1", "2-2", "3-3", "4-3"], 4, 2, True, 2),  # 3 players: [0-0] and [4-3]; two threes
    (["5-2", "2-2", "2-0", "2-4", "2-6"], 1, 1, False, 5),  # five twos
])
def test_hand_features(hand, doubles, matadors, blank, longest):
    f = hand_features(" ".join(hand))
    assert f == {"doubles": doubles, "matadors": matadors, "blank_double": blank, "longest": longest}


def test_feature_buckets():
    b = feature_buckets("0-0 1-1 2-2 3-3 4-3", (3, 3), False)
    assert b == {"doubles": "3+", "matadors": "2+", "[0-0]": "yes", "longest number": "2", "set tile": "own double"}
    b = feature_buckets("5-2 2-2 2-0 2-4 2-6", (2, 2), False)
    assert b["longest number"] == "4+" and b["matadors"] == "1" and b["[0-0]"] == "no"
    assert feature_buckets("1-2 3-5 0-4 2-6", (4, 4), True)["set tile"] == "drawn double"
    assert feature_buckets("1-2 3-5 0-4 2-6", (4, 5), True)["set tile"] == "drawn other"


def test_game_values_pick_on_one_half_and_value_on_the_other():
    # One hand, two rollouts, three legal announcements: "ordinary" (game 1) and two game-11 variants.
    i1 = ALL_ANNOUNCEMENTS.index(legal_announcements((4, 5))[0])
    g11 = [i for i, a in enumerate(ALL_ANNOUNCEMENTS) if a.game == 11][:2]
    chips = np.full((1, 2, 76), np.nan)
    chips[0, :, i1] = [10, 10]
    chips[0, :, g11[0]] = [30, 0]
    chips[0, :, g11[1]] = [0, 20]
    r = SurveyResult(num_players=4, rollouts=2, agents=["x"], seed=0, hands=[[(1, 2), (3, 5), (0, 4), (2, 6)]],
                     set_tiles=[(4, 5)], drawn=np.array([True]), chips=chips)
    # Plain means: 10, 15, 10, so the maximum would crown game 11. Picked on rollout 0 the variant
    # worth 30 is worth 0 on rollout 1, and the other way round: game 11 is worth 0, game 1 10.
    values = r.game_values()[0]
    assert values[0] == 10 and values[10] == 0 and np.isnan(values[[g for g in range(17) if g not in (0, 10)]]).all()
    assert r.best_game()[0] == 1 and r.best_announcement()[0] == i1
    np.testing.assert_allclose(r.game_advantage()[0, [0, 10]], [10 - 35 / 3, 0 - 35 / 3])


def test_survey_evaluates_every_legal_announcement_of_each_hand():
    r = survey(hands=3, rollouts=2, num_players=3, seed=2)
    for h in range(3):
        tiles, set_tile = r.hands[h], r.set_tiles[h]
        holds_double = any(a == b for a, b in tiles)
        assert bool(r.drawn[h]) == (not holds_double)
        assert (set_tile in tiles) == holds_double and (not holds_double or set_tile[0] == set_tile[1])
        legal = {ALL_ANNOUNCEMENTS.index(a) for a in legal_announcements(set_tile)}
        for k in range(2):
            assert set(np.flatnonzero(~np.isnan(r.chips[h, k]))) == legal


# ---------------------------------------------------------- composite agent
class Recorder(Agent):
    def __init__(self, pick_last=False):
        super().__init__(0)
        self.pick_last = pick_last
        self.rows, self.contexts = [], []

    def act_batch(self, obs, masks, context=None):
        self.rows.append(obs[:, 0].astype(int).tolist())
        self.contexts.append(context)
        legal = [np.flatnonzero(m) for m in masks]
        return np.array([lg[-1] if self.pick_last else lg[0] for lg in legal], np.int64)


def test_announce_with_routes_set_and_announce_rows_to_the_announcer():
    masks = np.zeros((6, 557), np.int8)
    masks[0, [SET0 + IDX["6-6"], SET0 + IDX["2-2"]]] = 1  # a set choice
    masks[1, [ANNOUNCE0, ANNOUNCE0 + 40]] = 1  # announcing
    masks[2, [DRAW, PLAY0 + 8, PLAY0 + 9]] = 1  # a turn
    masks[3, DRAW] = 1  # the set draw of a setter without doubles (only legal action)
    masks[4, [DECLARE, DECLARE + 1]] = 1  # declaring
    masks[5, ANNOUNCE0 + 75] = 1
    obs = np.zeros((6, 1041), np.float32)
    obs[:, 0] = np.arange(6)  # the row number, to see who got which row
    announcer, player = Recorder(pick_last=True), Recorder()
    context = BatchContext(tables="T", table_index=np.arange(10, 16), seats=np.array([0, 1, 2, 3, 0, 1]))
    actions = AnnounceWith(announcer, player).act_batch(obs, masks, context)
    assert announcer.rows == [[0, 1, 5]] and player.rows == [[2, 3, 4]]
    assert list(actions) == [SET0 + IDX["6-6"], ANNOUNCE0 + 40, DRAW, DRAW, DECLARE, ANNOUNCE0 + 75]
    assert list(announcer.contexts[0].table_index) == [10, 11, 15] and list(announcer.contexts[0].seats) == [0, 1, 1]
    assert list(player.contexts[0].table_index) == [12, 13, 14] and player.contexts[0].tables == "T"


def test_compare_holds_tile_play_fixed(monkeypatch):
    # Deterministic stand-ins for make_agent: "first" takes the lowest legal action, "last" the highest.
    monkeypatch.setattr(announce, "make_agent", lambda spec, seed=0: Recorder(pick_last=(spec == "last")))
    same = compare_announcers("first", "first", play="first", deals=12, seed=3)
    assert np.array_equal(same.chips_a, same.chips_b) and same.summary()["same_announcement"] == 1.0
    r = compare_announcers("first", "last", play="first", deals=12, seed=3)
    assert (r.ann_a == 0).all()  # "ordinary" is the first announcement and always legal
    for ann, set_tile in zip(r.ann_b, r.set_b):
        assert ann == ALL_ANNOUNCEMENTS.index(legal_announcements(ALL_TILES[set_tile])[-1])
    # The same deals, so the same set options: "last" sets the highest of them, "first" the lowest.
    assert (r.set_b >= r.set_a).all()
    s = r.summary()
    assert s["same_announcement"] == 0.0 and s["deals"] == 12
    assert s["difference_a_minus_b"] == pytest.approx(np.mean(r.chips_a - r.chips_b))


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize("tiles, set_tile, match", [
    ("6-6 6-4 2-5", "6-6", "dealt 4 tiles, got 3"),
    ("6-6 6-4 2-5 9-3", "6-6", "bad tile '9-3'"),
    ("6-6 4-6 2-5 6-4", "6-6", "appears twice"),
    ("6-6 6-4 2-5 0-3", "2-5", "must set one of them"),
    ("6-6 1-1 2-5 0-3", "3-3", r"must set one of them \(1-1, 6-6"),
    ("1-2 3-5 0-4 2-6", "2-6", "cannot be one of his own"),
    ("", "2-6", "no tiles"),
])
def test_bad_hands_and_set_tiles(tiles, set_tile, match):
    with pytest.raises(ValueError, match=match):
        evaluate_hand(tiles, set_tile, samples=1)


def test_bad_counts_and_names():
    with pytest.raises(ValueError, match="samples"):
        evaluate_hand(*OWN_DOUBLE, samples=0)
    with pytest.raises(ValueError, match="3, 4 or 5"):
        evaluate_hand(*OWN_DOUBLE, num_players=6)
    with pytest.raises(ValueError, match="seat"):
        evaluate_hand(*OWN_DOUBLE, setter=4)
    with pytest.raises(ValueError, match="unknown agent"):
        evaluate_hand(*OWN_DOUBLE, samples=1, agents=["nobody"])
    with pytest.raises(ValueError, match="one per seat"):
        evaluate_hand(*OWN_DOUBLE, samples=1, agents=["tactics", "greedy"])
    with pytest.raises(ValueError, match="rollouts"):
        survey(hands=1, rollouts=0)
    with pytest.raises(ValueError, match="deals"):
        compare_announcers("tactics", "greedy", deals=-1)


@pytest.mark.parametrize("argv, match", [
    (["hand", "--tiles", "6-6 6-4 2-5", "--set", "6-6"], "dealt 4 tiles"),
    (["hand", "--tiles", "6-6 6-4 2-5 0-3", "--set", "2-5"], "not legal"),
    (["hand", "--tiles", "6-6 6-4 2-5 0-3", "--set", "6-6 4-4"], "one tile"),
    (["hand", "--tiles", "6-6 6-x 2-5 0-3", "--set", "6-6"], "bad tile"),
    (["survey", "--hands", "0"], "hands must be"),
    (["compare", "--announcer-a", "nobody"], "unknown agent"),
])
def test_cli_errors(argv, match, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--quiet"])
    assert exc.value.code == 2
    assert match in capsys.readouterr().err


# ----------------------------------------------------------------------- CLI
def test_cli_smoke(tmp_path, capsys):
    main(["hand", "--tiles", "6-6 6-4 2-5 0-3", "--set", "6-6", "--samples", "2", "--quiet",
          "--json", str(tmp_path / "hand.json")])
    out = capsys.readouterr().out
    assert "ordinary cross" in out and "43 announcements" in out
    hand = json.loads((tmp_path / "hand.json").read_text())
    assert len(hand["announcements"]) == 43 and hand["set_tile"] == "6-6"
    means = [r["setter_mean"] for r in hand["announcements"]]
    assert means == sorted(means, reverse=True) and hand["announcements"][0]["diff_to_best"] == 0

    main(["survey", "--hands", "3", "--rollouts", "2", "--players", "5", "--quiet",
          "--json", str(tmp_path / "survey.json"), "--png", str(tmp_path / "survey.png")])
    assert "doubles" in capsys.readouterr().out
    s = json.loads((tmp_path / "survey.json").read_text())
    assert s["hands"] == 3 and len(s["per_hand"]) == 3 and s["num_players"] == 5
    assert sum(b["hands"] for b in s["features"]["doubles"].values()) == 3
    assert (tmp_path / "survey.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    main(["compare", "--announcer-a", "tactics", "--announcer-b", "random", "--deals", "6", "--quiet",
          "--json", str(tmp_path / "compare.json")])
    assert "paired difference" in capsys.readouterr().out
    c = json.loads((tmp_path / "compare.json").read_text())
    assert c["deals"] == 6 and c["announcer_b"] == "random"
