"""Tournament arithmetic on hand-made results, closing attribution, agents' legality, reproducibility."""

import json
import re

import numpy as np
import pytest

import nos_env
from agents import AGENTS, make_agent
from agents.base import BatchContext
from agents.tournament import TournamentResult, label_agents, main, mean_ci, run_tournament
from nos_env.games import nos as K
from nos_env.encoding import index_to_action


def handmade():
    """Two deals, each played in both rotations by agents A and B (2 seats would not be Nos,
    but the arithmetic does not care; 3 seats with a third agent C)."""
    # deal 0: rotation 0 seats (A, B, C), rotation 1 seats (B, C, A)
    seat_agent = np.array([[0, 1, 2], [1, 2, 0], [0, 1, 2], [1, 2, 0]])
    chips = np.array([[10, -4, -6], [2, 0, -2], [-3, 6, -3], [9, 1, -10]])
    n_reasons = len(K.REASONS)
    return TournamentResult(
        labels=["A", "B", "C"], num_players=3, duplicate=True, seed=0,
        deal=np.array([0, 0, 1, 1]), seat_agent=seat_agent, chips=chips,
        announcement=np.array([0, 0, 3, 3]), setter=np.array([0, 1, 2, 0]), end=np.array([0, 1, 2, 0]),
        close_right=np.zeros((4, 3), int), close_wrong=np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0]]),
        by_reason=np.zeros((4, 3, n_reasons), int),
    )


def test_per_deal_means_and_head_to_head_by_hand():
    r = handmade()
    # Agent chips per hand: hand 0 A=10 B=-4 C=-6; hand 1 (B,C,A) = (2,0,-2) -> A=-2 B=2 C=0;
    # hand 2 A=-3 B=6 C=-3; hand 3 (B,C,A) = (9,1,-10) -> A=-10 B=9 C=1.
    np.testing.assert_array_equal(r.agent_chips(), [[10, -4, -6], [-2, 2, 0], [-3, 6, -3], [-10, 9, 1]])
    per_deal = r.per_deal()  # deal 0: A=(10-2)/2=4, B=-1, C=-3; deal 1: A=-6.5, B=7.5, C=-1
    np.testing.assert_allclose(per_deal, [[4, -1, -3], [-6.5, 7.5, -1]])
    s = r.summary()
    assert s["agents"]["A"]["mean_chips_per_hand"] == pytest.approx(-1.25)
    # CI half-width: 1.96 * sd([4, -6.5], ddof=1) / sqrt(2) = 1.96 * 7.4246 / 1.4142
    assert s["agents"]["A"]["ci95"] == pytest.approx(1.959964 * np.std([4, -6.5], ddof=1) / np.sqrt(2))
    h = s["head_to_head"]["B vs A"]  # per-deal differences: -5 and 14
    assert h["mean_difference"] == pytest.approx(4.5)
    assert h["ci95"] == pytest.approx(1.959964 * np.std([-5, 14], ddof=1) / np.sqrt(2))
    assert h["significant"] is False
    assert s["hands"] == 4 and s["deals"] == 2
    # Games: announcement 0 is game 1 (2 hands), 3 is game 4 (2 hands).
    assert s["games"]["1"]["hands"] == 2 and s["games"]["4"]["hands"] == 2
    # Announcer results: hand 0 setter seat 0 -> 10, hand 1 setter seat 1 -> 0: mean 5.
    assert s["games"]["1"]["announcer_mean_chips"] == pytest.approx(5)
    assert s["closings"]["B"] == {"right": 0, "wrong": 1}  # seat 0 of hand 1 is agent B
    assert s["ends"] == {"out": 2, "close": 1, "blocked": 1}


def test_mean_ci_and_labels():
    mean, ci = mean_ci(np.array([1.0, 3.0]))
    assert mean == 2 and ci == pytest.approx(1.959964 * np.sqrt(2) / np.sqrt(2))
    assert label_agents(["greedy", "random", "greedy"]) == ["greedy#1", "random", "greedy#2"]


def test_closing_attribution_matches_the_reference_ledger():
    """EpisodeStats.closings_by_seat recovers each seat's closings exactly (checked on real hands)."""
    venv = nos_env.vector_env(64, num_players=4, seed=11)
    obs, masks, current = venv.reset()
    rng = np.random.default_rng(0)
    checked = 0
    while checked < 150:
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        # The reference hands before the step, rebuilt (a replay in Python) only for the tables
        # whose hand the step ends: the step is undone on the arrays, then redone.
        pre = venv.tables.clone()
        obs, masks, current, rewards, terminated, infos = venv.step(actions)
        post = venv.tables.clone()
        venv.tables.restore(pre)
        before = {b: venv.hand(b) for b in np.flatnonzero(terminated)}
        venv.tables.restore(post)
        for b in np.flatnonzero(terminated):
            hand = before[b]
            hand.step(index_to_action(int(actions[b]), hand))
            right, wrong = (x[0] for x in venv.tables.episode_stats([b]).closings_by_seat())
            want_wrong = [sum(1 for e in hand.events if e.seat == s and any(p.reason == "wrong_close" for p in e.payments)) for s in range(4)]
            want_right = [int(any(p.reason == "close" and p.payee == s for p in hand.ledger)) for s in range(4)]
            assert list(wrong) == want_wrong and list(right) == want_right
            checked += 1


@pytest.mark.parametrize("name", ["random", "greedy"])
@pytest.mark.parametrize("n", [3, 4, 5])
def test_agents_choose_only_legal_actions(name, n):
    agent = make_agent(name, seed=1)
    venv = nos_env.vector_env(128, num_players=n, seed=n)
    obs, masks, current = venv.reset()
    for _ in range(150):
        actions = agent.act_batch(obs, np.array(masks), BatchContext(venv.tables, np.arange(128), current))
        assert (np.array(masks)[np.arange(128), actions] == 1).all()
        obs, masks, current, *_ = venv.step(actions)


def test_greedy_never_closes_and_never_draws_by_choice():
    agent = make_agent("greedy", seed=0)
    venv = nos_env.vector_env(64, num_players=4, seed=2)
    obs, masks, current = venv.reset()
    from agents import features as F

    for _ in range(100):
        m = np.array(masks)
        actions = agent.act_batch(obs, m)
        assert not F.CLOSE[actions].any()
        could_play = (m[:, F.KIND == F.PLAY].any(axis=1))
        assert not (could_play & (F.KIND[actions] == F.DRAW)).any()
        obs, masks, current, *_ = venv.step(actions)


def test_tournament_is_reproducible_and_rotates_seats(tmp_path):
    a = run_tournament(["greedy", "random", "greedy", "random"], 40, seed=3, tables=32, progress=False)
    b = run_tournament(["greedy", "random", "greedy", "random"], 40, seed=3, tables=32, progress=False)
    np.testing.assert_array_equal(a.chips, b.chips)
    np.testing.assert_array_equal(a.deal, b.deal)
    assert len(a.deal) == 160  # 40 deals x 4 rotations
    for deal in np.unique(a.deal):  # every agent sat in every seat of every deal, once
        rows = a.seat_agent[a.deal == deal]
        assert len(rows) == 4
        assert all(sorted(seat_column) == [0, 1, 2, 3] for seat_column in rows.T.tolist())
    assert (a.chips.sum(axis=1) == 0).all()  # zero-sum per hand


def test_command_line_writes_every_output(tmp_path, capsys):
    out = tmp_path
    main(["--agents", "greedy", "random", "random", "--deals", "12", "--tables", "12", "--quiet",
          "--json", str(out / "r.json"), "--csv", str(out / "r.csv"), "--png", str(out / "r.png")])
    text = capsys.readouterr().out
    assert "head to head" in text and "greedy" in text
    summary = json.loads((out / "r.json").read_text())
    assert summary["hands"] == 36 and set(summary["agents"]) == {"greedy", "random#1", "random#2"}
    assert len((out / "r.csv").read_text().splitlines()) == 1 + 36 * 3
    assert (out / "r.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(SystemExit):
        main(["--agents", "greedy", "nobody", "random"])


def test_threads_option_of_the_tournament(capsys):
    """Results do not depend on the threads setting (270 tables: the parallel kernels' size), and
    --threads is checked, applies to the run, and leaves the process default as it was."""
    from nos_env.threads import default_num_threads

    kwargs = dict(deals=90, seed=5, tables=270, progress=False)
    one = run_tournament(["greedy", "random", "random"], num_threads=1, **kwargs)
    auto = run_tournament(["greedy", "random", "random"], num_threads="auto", **kwargs)
    np.testing.assert_array_equal(one.chips, auto.chips)
    np.testing.assert_array_equal(one.by_reason, auto.by_reason)
    with pytest.raises(ValueError, match="num_threads must be 'auto' or a number of threads"):
        run_tournament(["greedy", "random", "random"], num_threads=0, **kwargs)
    main(["--agents", "greedy", "random", "random", "--deals", "6", "--tables", "6", "--quiet", "--threads", "1"])
    assert "head to head" in capsys.readouterr().out
    assert default_num_threads() == "auto"
    with pytest.raises(SystemExit):
        main(["--agents", "greedy", "random", "random", "--threads", "many"])
    assert "--threads must be 'auto' or a number of threads from 1 to" in capsys.readouterr().err


def test_known_agents():
    assert {"random", "greedy"} <= set(AGENTS)
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nobody")


def test_saved_records_replay_to_the_reported_chips_and_open_in_the_viewer(tmp_path, capsys):
    """Deliverable 4 of issue 17: a tournament's hand records replay (record.replay, verified) to
    the chips the tournament's CSV reports for that deal and seat, and nos-view accepts them."""
    import csv

    from nos_env.record import replay
    from nos_env.view import main as view_main

    main(["--agents", "greedy", "random", "tactics", "--deals", "5", "--seed", "4", "--tables", "6", "--quiet",
          "--csv", str(tmp_path / "h.csv"), "--json", str(tmp_path / "r.json"),
          "--save-records", str(tmp_path / "rec"), "--records-for", "worst:2"])
    out = capsys.readouterr().out
    assert "wrote 2 record file(s)" in out
    # The command that opens the most surprising saved hand: a file written, a hand in it.
    line = out[out.index("open it with:"):].splitlines()[1].strip()
    command = re.fullmatch(r"nos-view (\S+) --hand (\d) --open", line)
    assert command and command[1].startswith(str(tmp_path / "rec" / "deal-"))
    assert 1 <= int(command[2]) <= len(json.loads(open(command[1]).read()))
    rows = list(csv.DictReader(open(tmp_path / "h.csv")))
    reported = {(int(r["deal"]), int(r["hand"]), int(r["seat"])): (int(r["chips"]), r["agent"]) for r in rows}
    summary = json.loads((tmp_path / "r.json").read_text())
    per_deal = {d["deal"]: d for d in summary["deals_played"]}
    # The first agent's (greedy's) mean per deal, from the CSV: the two lowest are the files written.
    greedy = {}
    for (deal, _, _), (chips, agent) in reported.items():
        if agent == "greedy":
            greedy.setdefault(deal, []).append(chips)
    worst = sorted(greedy, key=lambda d: (np.mean(greedy[d]), d))[:2]
    files = sorted((tmp_path / "rec").iterdir())
    assert sorted(f.name for f in files) == sorted(f"deal-{d}.json" for d in worst)
    for f in files:
        deal = int(f.stem.split("-")[1])
        records = json.loads(f.read_text())
        assert len(records) == 3  # one hand per rotation (duplicate)
        for record in records:
            hand = replay(record)  # verified: chips, ledger, end and phase as recorded
            t = record["tournament"]
            assert t["deal"] == deal
            assert (t["stream_seed"], t["stream_index"]) == (per_deal[deal]["stream_seed"],
                                                             per_deal[deal]["stream_index"])
            for seat in range(3):
                chips, agent = reported[(deal, t["hand"], seat)]
                assert hand.chips[seat] - record["chips_start"][seat] == chips
                assert t["agents"][seat] == agent
        assert view_main([str(f), "-o", str(tmp_path / "page.html")]) == 0
        assert (tmp_path / "page.html").read_text().startswith("<!DOCTYPE html>")
    # Every CSV row names its deal's random stream: same deal, same stream, different deals differ.
    streams = {(int(r["deal"]), r["stream_seed"], r["stream_index"]) for r in rows}
    assert len(streams) == 5 == len({(s, i) for _, s, i in streams})


def test_records_for_is_checked(tmp_path, capsys):
    r = run_tournament(["greedy", "random", "random"], 3, seed=1, tables=3, progress=False, keep_hands=True)
    deals = sorted(set(r.deal.tolist()))
    assert r.choose_deals("all") == deals
    assert r.choose_deals(f"{deals[1]},{deals[0]}") == [deals[1], deals[0]]
    assert len(r.choose_deals("best")) == 3  # at most the deals played
    with pytest.raises(ValueError, match=r"deal\(s\) \[7\] were not played"):
        r.save_records(tmp_path / "none", "7")
    assert not (tmp_path / "none").exists()  # refused before anything is written
    with pytest.raises(SystemExit):
        main(["--agents", "greedy", "random", "random", "--save-records", str(tmp_path), "--records-for", "worse"])
    assert "--records-for must be all, worst[:K], best[:K] or deal numbers" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--agents", "greedy", "random", "random", "--records-for", "worst"])
    assert "give --save-records DIR too" in capsys.readouterr().err
    plain = run_tournament(["greedy", "random", "random"], 3, seed=1, tables=3, progress=False)
    with pytest.raises(ValueError, match="were not kept"):
        plain.hand_record(0)
    np.testing.assert_array_equal(plain.chips, r.chips)  # keeping the hands changes no game
