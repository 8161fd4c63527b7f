"""agents/announce_values.py: the survey's values per announcement and per (bucket, game) with intervals."""

import json
import math

import numpy as np
import pytest

from agents import announce
from agents.announce import survey
from agents.announce_values import HandValues, main, wilson

ORDINARY, MATADOR, TRIANGLE = 0, 3, 70  # indices of "ordinary", "matador", "triangle" (nos_env.announcements)
NAMES = {ORDINARY: "ordinary", MATADOR: "matador", TRIANGLE: "triangle"}


def hand(doubles, blank, means, best, tactics, set_tile="1-1"):
    """One per-hand record as the survey's JSON writes it; the game values equal the single
    announcement of each game here (games 1, 4 and 13 have one announcement each in this case)."""
    m = [None] * 76
    gv = [None] * 17
    for a, v in means.items():
        m[a] = v
        gv[{ORDINARY: 0, MATADOR: 3, TRIANGLE: 12}[a]] = v
    return {"doubles": doubles, "matadors": "1", "[0-0]": blank, "longest number": "2",
            "set tile": "own double" if doubles != "0" else "drawn other", "means": m, "game_values": gv,
            "best_game": {ORDINARY: 1, MATADOR: 4, TRIANGLE: 13}[best], "best": NAMES[best],
            "tactics_choice": NAMES[tactics], "tiles": [doubles, blank], "set_tile": set_tile}


def tiny(seed=0, rollouts=2):
    # Four hands. Their averages over the legal announcements: 20, -3, 12, -4.
    return {"num_players": 4, "rollouts": rollouts, "agents": ["x"], "seed": seed, "seconds": 1.5, "per_hand": [
        hand("1", "yes", {ORDINARY: 10, MATADOR: 20, TRIANGLE: 30}, TRIANGLE, TRIANGLE),
        hand("0", "no", {ORDINARY: 0, MATADOR: -6}, ORDINARY, MATADOR),
        hand("1", "no", {ORDINARY: 20, MATADOR: 4}, ORDINARY, ORDINARY),
        hand("0", "no", {ORDINARY: -10, MATADOR: 2}, MATADOR, MATADOR),
    ]}


def test_wilson_interval_matches_published_values():
    # Wilson score interval, z = 1.96: 2 of 4 gives 0.150..0.850, 1 of 1 gives 0.2065..1 (standard tables).
    p, lo, hi = wilson(2, 4)
    assert p == 0.5 and lo == pytest.approx(0.1500, abs=5e-4) and hi == pytest.approx(0.8500, abs=5e-4)
    p, lo, hi = wilson(1, 1)
    assert p == 1 and lo == pytest.approx(0.2065, abs=5e-4) and hi == 1
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_per_announcement_values_by_hand():
    v = HandValues.from_summaries([tiny()])
    rows = {r["index"]: r for r in v.announcement_table()}
    o = rows[ORDINARY]
    # ordinary: 10, 0, 20, -10: mean 5; sample sd sqrt(500/3) = 12.910; 1.96 * 12.910 / 2 = 12.651.
    assert (o["legal"], o["value"]) == (4, 5) and o["value_ci95"] == pytest.approx(12.651, abs=2e-3)
    # its advantage over the hand's average: -10, 3, 8, -6: mean -1.25; sd sqrt(202.75/3) = 8.2209; CI 8.056.
    assert o["advantage"] == -1.25 and o["advantage_ci95"] == pytest.approx(8.056, abs=2e-3)
    assert o["best_share"] == 0.5 and o["best_share_ci95"] == pytest.approx([0.150, 0.850], abs=5e-4)
    t = rows[TRIANGLE]  # legal in one hand only: no interval
    assert (t["legal"], t["value"], t["advantage"], t["best_share"]) == (1, 30, 10, 1)
    assert math.isnan(t["value_ci95"])
    never = rows[1]  # "ordinary cross": legal in no hand
    assert never["legal"] == 0 and math.isnan(never["value"]) and math.isnan(never["best_share"])


def test_bucket_cells_by_hand():
    v = HandValues.from_summaries([tiny()])
    f = v.feature_tables()
    g1 = f["doubles"]["0"][0]  # game 1 over the two hands without doubles: 0 and -10
    assert (g1["hands"], g1["legal"], g1["value"]) == (2, 2, -5)
    assert g1["value_ci95"] == pytest.approx(1.959964 * 5, abs=1e-4)  # sd 7.0711 / sqrt 2 = 5
    assert g1["advantage"] == -1.5 and g1["advantage_ci95"] == pytest.approx(1.959964 * 4.5, abs=1e-4)  # 3, -6
    assert g1["best_share"] == 0.5
    g13 = f["[0-0]"]["yes"][12]
    assert (g13["hands"], g13["legal"], g13["advantage"], g13["best_share"]) == (1, 1, 10, 1)
    assert f["[0-0]"]["no"][12]["legal"] == 0 and f["[0-0]"]["no"][12]["best_share"] == 0
    assert f["doubles"]["2"][0]["hands"] == 0
    t = v.tactics_summary()
    # Tactics' picks against the hands' averages: +10, -3, +8, +6; the best announcement in 3 of 4.
    assert t["advantage"] == 5.25 and t["same_announcement"] == 0.75 and t["same_game"] == 0.75


def test_markdown_shows_the_cells():
    text = HandValues.from_summaries([tiny()]).markdown()
    assert "| 0 | ordinary | 1 | 4 | +5.0 ± 12.7 | -1.2 ± 8.1 | 50.0% (15.0-85.0) |" in text
    assert "| 13 triangle | 1 | +30.0 | +10.0 | 25.0% (4.6-69.9) |" in text  # best in 1 of all 4 hands
    assert "+5.25 chips" not in text and "+5.2 ± " in text


def test_combining_runs_and_refusing_what_cannot_be_combined():
    both = HandValues.from_summaries([tiny(0), tiny(1)])
    assert both.hands == 8 and both.seeds == [0, 1] and both.seconds == 3.0
    assert {r["index"]: r for r in both.announcement_table()}[ORDINARY]["legal"] == 8
    with pytest.raises(ValueError, match="same seed"):
        HandValues.from_summaries([tiny(0), tiny(0)])
    with pytest.raises(ValueError, match="rollouts"):
        HandValues.from_summaries([tiny(0), tiny(1, rollouts=4)])
    with pytest.raises(ValueError, match="at least one"):
        HandValues.from_summaries([])


def test_a_real_survey_reproduces_and_agrees_with_its_own_summary(tmp_path):
    a = HandValues.from_survey(survey(hands=4, rollouts=2, seed=9))
    b = HandValues.from_survey(survey(hands=4, rollouts=2, seed=9))
    a.seconds = b.seconds = 0.0  # only the wall time may differ
    assert a.markdown() == b.markdown()
    assert np.array_equal(a.means, b.means, equal_nan=True) and a.buckets == b.buckets
    s = survey(hands=4, rollouts=2, seed=9).summary()
    for g, row in enumerate(a.game_table()):
        expected = s["all"]["mean_game_advantage"][g]
        assert (math.isnan(row["advantage"]) and math.isnan(expected)) or row["advantage"] == \
            pytest.approx(expected, abs=2e-3)  # the JSON's per-hand values are rounded to 3 places


def test_survey_plays_the_compiled_tactics():
    agents, _ = announce.make_seat_agents("tactics", 4, seed=0)
    assert agents[0].compiled


def test_cli_writes_tables_png_and_json(tmp_path, capsys):
    paths = []
    for seed in (0, 1):
        paths.append(tmp_path / f"s{seed}.json")
        paths[-1].write_text(json.dumps(tiny(seed)))
    main([str(p) for p in paths] + ["--md", str(tmp_path / "v.md"), "--png", str(tmp_path / "v.png"),
                                    "--json", str(tmp_path / "v.json")])
    assert "8 hands, 4 players, 2 rollouts" in (tmp_path / "v.md").read_text()
    assert (tmp_path / "v.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((tmp_path / "v.json").read_text())["hands"] == 8
    with pytest.raises(SystemExit):
        main([str(paths[0]), str(paths[0])])
    assert "same seed" in capsys.readouterr().err
    np.testing.assert_equal(json.loads((tmp_path / "v.json").read_text())["seeds"], [0, 1])


def test_paired_differences_between_two_agents_on_the_same_hands():
    mine = HandValues.from_summaries([tiny(0)])
    other = tiny(0)
    other["agents"] = ["y"]
    a = other["per_hand"][0]  # every announcement +9: the advantages stay
    a["means"] = [None if m is None else m + 9 for m in a["means"]]
    a["game_values"] = [None if m is None else m + 9 for m in a["game_values"]]
    other["per_hand"][2]["set_tile"] = "2-2"  # another set tile: not paired
    d = other["per_hand"][3]  # ordinary -10 -> -4: average -1, advantages -3 and +3 (were -6 and +6)
    d["means"][ORDINARY] = d["game_values"][0] = -4
    rows = mine.paired_games(HandValues.from_summaries([other]))
    g1, g4, g13 = rows[0], rows[3], rows[12]
    # game 1 on hands 0, 1, 3: differences 0, 0, +3: mean 1, sd sqrt(3), se 1.
    assert g1["hands"] == 3 and g1["difference"] == 1 and g1["difference_ci95"] == pytest.approx(1.959964, abs=1e-5)
    assert g4["difference"] == -1 and g13["hands"] == 1 and g13["difference"] == 0
    assert g1["advantage"] == pytest.approx((-10 + 3 - 6) / 3)
    assert g1["other_advantage"] == pytest.approx((-10 + 3 - 3) / 3)
    with pytest.raises(ValueError, match="same hands"):
        mine.paired_games(HandValues.from_summaries([tiny(1)]))
