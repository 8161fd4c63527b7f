"""Tournaments, Search and the leaderboard on the family games (agents/tournament.py with --game)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents import make_agent
from agents.base import BatchContext
from agents.family.search import FamilySearchAgent
from agents.tournament import main, run_tournament
from nos_env.family import rules as R
from nos_env.family_tables import FamilyTables
from nos_env.kernels.tilesets import tile_set

T6 = tile_set(6).index


def test_a_family_tournament_is_duplicate_and_reproducible():
    args = (["greedy", "random", "greedy", "random"], 6)
    a = run_tournament(*args, seed=5, game="draw", tables=8, progress=False)
    b = run_tournament(*args, seed=5, game="draw", tables=8, progress=False)
    c = run_tournament(*args, seed=6, game="draw", tables=8, progress=False)
    for name in ("deal", "seat_agent", "chips", "stream_seed", "stream_index"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    assert not np.array_equal(a.chips, c.chips)
    assert len(a.deal) == 24 and len(np.unique(a.deal)) == 6
    for d in np.unique(a.deal):  # every deal once per rotation, at tables sharing one stream
        rows = np.flatnonzero(a.deal == d)
        assert sorted(a.seat_agent[rows, 0].tolist()) == [0, 1, 2, 3]
        assert len(set(a.stream_seed[rows].tolist())) == 1
    # Draw pays the winner only (F16): at most one seat scores in a hand, never negative.
    assert (a.chips >= 0).all() and ((a.chips > 0).sum(axis=1) <= 1).all()
    s = a.summary()
    assert s["game"] == "draw" and s["game_options"] == {"target_score": None}
    assert "points/hand" in a.table()


def test_family_tournament_checks_players_and_options():
    with pytest.raises(ValueError, match="fours is played by 4 players"):
        run_tournament(["greedy", "random", "greedy"], 2, game="fours", progress=False)
    with pytest.raises(ValueError, match="tileset"):
        run_tournament(["greedy", "random"], 2, game="draw", game_options={"tileset": "double_twelve"},
                       progress=False)
    with pytest.raises(ValueError, match="unknown agent 'tactics' for draw"):
        run_tournament(["tactics", "random"], 2, game="draw", progress=False)


def test_cli_runs_a_family_game_and_rates_it_under_its_name(tmp_path, capsys):
    board = tmp_path / "board.json"
    main(["--game", "all_fives", "--agents", "greedy", "random", "--deals", "4", "--seed", "2", "--quiet",
          "--option", "award_rounding=total", "--leaderboard", str(board)])
    out = capsys.readouterr().out
    assert out.startswith("all_fives (award_rounding=total, target_score=None): 8 hands (4 deals, duplicate)")
    data = json.loads(board.read_text())
    assert list(data["games"]) == ["all_fives"]
    with pytest.raises(SystemExit):
        main(["--game", "drw", "--agents", "greedy", "random", "--deals", "1", "--no-leaderboard"])
    assert "unknown game 'drw'" in capsys.readouterr().err


# ------------------------------------------------------------------ search
def draw_position(hidden):
    """Draw, 2 players: seat 0 sets [6-6] (forced), seat 1 holds [2-6], [1-6], [1-4], [1-5]; seat 0
    keeps ``hidden`` (two tiles), the rest is the boneyard, ascending."""
    rules = R.make_rules("draw", 2, target_score=None)
    hands = [[T6[6, 6]] + [T6[p] for p in hidden], [T6[2, 6], T6[1, 6], T6[1, 4], T6[1, 5]]]
    held = {t for h in hands for t in h}
    tables = FamilyTables("draw", 1, 2, observation_dtype="float32", target_score=None)
    tables.load_deal(0, hands, [t for t in range(28) if t not in held])
    return rules, tables


def test_search_reads_only_public_information():
    # The same public position with other hidden tiles (seat 0's hand and the boneyard): the
    # same decision and the same value estimates.
    results = []
    for hidden in ([(0, 0), (3, 4)], [(2, 2), (0, 5)]):
        rules, tables = draw_position(hidden)
        assert int(tables.current_player[0]) == 1
        agent = FamilySearchAgent(tables.rules, seed=3, rollouts=24)
        obs = tables.observe_rows(np.array([0]), np.array([1]))
        ctx = BatchContext(tables=tables, table_index=np.array([0]), seats=np.array([1]))
        action = agent.act_batch(obs, tables.masks[:1], ctx)[0]
        results.append((int(action), agent.last_search["values"].copy()))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])


def test_search_plays_legal_moves_and_leaves_the_table_alone():
    rules, tables = draw_position([(0, 0), (3, 4)])
    before = {k: np.array(v) for k, v in tables.clone_table(0).items()}
    agent = make_agent("search", seed=1, game="draw", rules=tables.rules, rollouts=16)
    ctx = BatchContext(tables=tables, table_index=np.array([0]), seats=np.array([1]))
    a = agent.act_batch(tables.observe_rows(np.array([0]), np.array([1])), tables.masks[:1], ctx)[0]
    assert tables.masks[0, a]
    after = tables.clone_table(0)
    for name, value in before.items():
        np.testing.assert_array_equal(value, np.asarray(after[name]), err_msg=name)
    assert agent.last_search["rollouts"] == 4  # 16 rollouts over 4 candidates (2 tiles x 2 arms)


def test_aec_players_play_a_family_game_alike_on_both_backends():
    # Search reads the environment's own table on the fast backend and a table replayed from
    # the game's record on the reference backend: the same game either way.
    import nos_env
    from agents import AECPlayer

    played = []
    for backend in ("fast", "reference"):
        env = nos_env.env("draw", num_players=3, backend=backend, target_score=None)
        rules = env.unwrapped.rules
        names = ["search", "greedy", "random"]
        players = {a: AECPlayer(name, seed=i, game="draw", rules=rules, **({"rollouts": 8} if name == "search" else {}))
                   for i, (a, name) in enumerate(zip(env.possible_agents, names))}
        env.reset(seed=3)
        actions = []
        for agent in env.agent_iter():
            _, _, termination, truncation, _ = env.last()
            action = None if termination or truncation else players[agent](env)
            actions.append(action)
            env.step(action)
        played.append(actions)
    assert played[0] == played[1] and len(played[0]) > 10


# ------------------------------------------------------------------ records: every hand can be replayed
def replay_family(record: dict):
    """The game a tournament's family record describes, on the reference engine (its actions checked
    legal), without the "tournament" facts (Blind's records are exact)."""
    from nos_env.family.blind import BlindGame
    from nos_env.family.record import replay

    plain = {k: v for k, v in record.items() if k != "tournament"}
    return BlindGame.from_record(plain) if record["game"] == "blind" else replay(plain)


@pytest.mark.parametrize("game, agents, options", [
    ("draw", ["greedy", "random", "random"], []),
    ("blind", ["greedy", "random"], []),
    ("all_fives", ["greedy", "random"], ["--option", "target_score=60"]),  # a match: several hands
])
def test_family_tournament_records_replay_to_the_reported_points(tmp_path, capsys, game, agents, options):
    """Issue 17 item 4 for the family: the CSV and JSON name each deal's seed and the agents at every
    seat, --save-records writes every deal's hands, each replays on the reference engine to the points
    the CSV reports for that seat, the first deal of a stream is FamilyGame(rules, seed=stream_seed)'s,
    and the printed command opens the hand that surprised most (the first agent's result furthest from
    its mean, computed here from the CSV)."""
    import csv

    from nos_env.family.blind import BlindGame, make_blind_rules
    from nos_env.family.engine import FamilyGame
    from nos_env.view import main as view_main

    main(["--game", game, "--agents", *agents, *options, "--deals", "4", "--seed", "7", "--tables", "4",
          "--quiet", "--no-leaderboard", "--csv", str(tmp_path / "h.csv"), "--json", str(tmp_path / "r.json"),
          "--save-records", str(tmp_path / "rec")])
    out = capsys.readouterr().out
    rows = list(csv.DictReader(open(tmp_path / "h.csv")))
    points = {(int(r["hand"]), int(r["seat"])): (int(r["points"]), r["agent"]) for r in rows}
    streams = {int(r["deal"]): (int(r["stream_seed"]), int(r["stream_index"])) for r in rows}
    deals_played = {d["deal"]: d for d in json.loads((tmp_path / "r.json").read_text())["deals_played"]}
    assert {d: (e["stream_seed"], e["stream_index"]) for d, e in deals_played.items()} == streams
    files = sorted((tmp_path / "rec").iterdir())
    assert sorted(f.name for f in files) == sorted(f"deal-{d}.json" for d in streams)
    n = len(agents)
    several_hands = False
    for f in files:
        deal = int(f.stem.split("-")[1])
        records = json.loads(f.read_text())
        assert len(records) == n  # one episode per rotation (duplicate)
        assert sorted(r["tournament"]["agents"][0].split("#")[0] for r in records) == sorted(agents)
        for record in records:
            facts = record["tournament"]
            assert facts["deal"] == deal and (facts["stream_seed"], facts["stream_index"]) == streams[deal]
            replayed = replay_family(record)
            assert replayed.done
            for seat in range(n):
                assert (replayed.scores[seat], facts["agents"][seat]) == points[(facts["hand"], seat)]
            if game != "blind":
                several_hands |= len(replayed.finished_hands) > 1
            if facts["stream_index"] == 0:  # a stream's first episode is the seed's own game
                if game == "blind":
                    fresh = BlindGame(make_blind_rules(n), seed=facts["stream_seed"], skip_decisionless=True)
                else:
                    fresh = FamilyGame(replayed.rules, seed=facts["stream_seed"])
                for a in record["actions"]:
                    fresh.step(a)
                assert list(fresh.scores) == list(replayed.scores) and fresh.done
    assert several_hands == (game == "all_fives")
    # The most surprising hand: the first agent's points furthest from its mean, first such hand.
    first = [(h, p) for (h, _), (p, agent) in sorted(points.items()) if agent == agents[0]]
    mean = np.mean([p for _, p in first])
    hand = max(first, key=lambda hp: (abs(hp[1] - mean), -hp[0]))[0]
    deal = int(rows[hand * n]["deal"])
    place = sorted({int(r["hand"]) for r in rows if int(r["deal"]) == deal}).index(hand) + 1
    command = out.strip().splitlines()[-1].strip()
    assert command == f"nos-view {tmp_path / 'rec' / f'deal-{deal}.json'} --hand {place} --open"
    page = tmp_path / "page.html"
    assert view_main([str(tmp_path / "rec" / f"deal-{deal}.json"), "--hand", str(place), "-o", str(page)]) == 0
    import re

    data = json.loads(re.search(r'type="application/json">(.*?)</script>', page.read_text(), re.S).group(1))
    assert data["start"] == sum(len(h["frames"]) for h in data["hands"][:place - 1])
    assert [h["agents"] for h in data["hands"]] == [r["tournament"]["agents"]
                                                   for r in json.loads((tmp_path / "rec" / f"deal-{deal}.json").read_text())]


@pytest.mark.parametrize("game", ["mexican_train", "chickenfoot"])
def test_records_of_mexican_train_and_chickenfoot_replay_to_the_reported_points(tmp_path, capsys, game):
    """--save-records for the games with engines of their own (issue 16): every rotation's record
    replays on its reference engine (``record.replay_any``) to the points the CSV reports at every
    seat (Chickenfoot's scores are penalties, its points minus them: ``match_points``), and the
    printed command's page is written."""
    import csv

    from nos_env.family.record import match_points, replay_any
    from nos_env.view import main as view_main

    agents = ["greedy", "random", "random"]
    main(["--game", game, "--agents", *agents, "--deals", "2", "--seed", "5", "--tables", "2", "--quiet",
          "--no-leaderboard", "--csv", str(tmp_path / "h.csv"), "--save-records", str(tmp_path / "rec")])
    command = capsys.readouterr().out.strip().splitlines()[-1].strip()
    rows = list(csv.DictReader(open(tmp_path / "h.csv")))
    points = {(int(r["hand"]), int(r["seat"])): (int(r["points"]), r["agent"]) for r in rows}
    files = sorted((tmp_path / "rec").iterdir())
    assert len(files) == 2
    for f in files:
        records = json.loads(f.read_text())
        assert len(records) == 3  # one episode per rotation
        for record in records:
            facts = record["tournament"]
            replayed = replay_any(record)
            assert replayed.done and replayed.rules.game == game
            assert [(match_points(replayed)[s], facts["agents"][s]) for s in range(3)] == \
                [points[(facts["hand"], s)] for s in range(3)]
            if game == "chickenfoot":
                assert all(p <= 0 for p in match_points(replayed)) and list(replayed.scores) == \
                    [-p for p in match_points(replayed)]
    assert command.startswith(f"nos-view {tmp_path / 'rec'}") and command.endswith(" --open")
    path, hand = command.split()[1], command.split("--hand ")[1].split()[0]
    assert view_main([path, "--hand", hand, "-o", str(tmp_path / "page.html")]) == 0


def test_family_records_for_chooses_deals_and_bad_choices_are_refused(tmp_path, capsys):
    r = run_tournament(["greedy", "random"], 5, seed=2, tables=4, progress=False, keep_hands=True, game="five_up")
    worst = r.choose_deals("worst:2")
    per_deal = {int(d): np.mean(r.agent_chips()[r.deal == d, 0]) for d in np.unique(r.deal)}
    assert [per_deal[d] for d in worst] == sorted(per_deal.values())[:2]
    written = r.save_records(tmp_path / "w", "worst:2")
    assert [p.name for p in written] == [f"deal-{d}.json" for d in worst]
    plain = run_tournament(["greedy", "random"], 5, seed=2, tables=4, progress=False, game="five_up")
    np.testing.assert_array_equal(plain.chips, r.chips)  # keeping the hands changes no game
    with pytest.raises(ValueError, match="were not kept"):
        plain.hand_record(0)
    with pytest.raises(SystemExit):
        main(["--game", "draw", "--agents", "greedy", "random", "--save-records", str(tmp_path),
              "--records-for", "worse", "--no-leaderboard"])
    assert "--records-for must be all, worst[:K], best[:K] or deal numbers" in capsys.readouterr().err


def test_a_deal_record_carries_the_stream_for_a_matchs_later_hands():
    """nos_env/family/record.py: a from_deal record's stream_state gives the later hands of a match
    as the table dealt them; a bad one is refused by name."""
    from nos_env.family.engine import FamilyGame
    from nos_env.family.record import replay

    rules = R.make_rules("draw", 2, target_score=40)
    seeded = FamilyGame(rules, seed=9)
    table = FamilyTables("draw", 1, num_players=2, seed=0, target_score=40)
    table.seed_tables([0], [9])
    start = table.reference_game(0)
    record = dict(start.record(), actions=[])
    record["deal"] = dict(record["deal"], stream_state=int(start.rng.state))
    game = replay(record)
    while not seeded.done:  # the seed's own match, step for step, hands after the first included
        a = seeded.legal_actions()[0]
        seeded.step(a)
        game.step(a)
        assert game.hand.hands == seeded.hand.hands and game.scores == seeded.scores
    assert len(seeded.finished_hands) > 1 and game.done
    assert replay(game.record()).scores == seeded.scores  # the stream state is kept in its record
    without = dict(record, deal={k: v for k, v in record["deal"].items() if k != "stream_state"})
    other = replay(without)
    for a in seeded.actions:
        if a not in other.legal_actions():
            break
        other.step(a)
    assert other.scores != seeded.scores or not other.done  # seed 0's stream deals other later hands
    with pytest.raises(ValueError, match="stream_state is an integer 0..2\\*\\*64-1"):
        replay(dict(record, deal=dict(record["deal"], stream_state="x")))


def test_a_run_without_records_says_how_to_open_its_most_surprising_hand(tmp_path, capsys):
    """Without --save-records the run names its most surprising hand and how to get it; doing so
    (the same command with the deal's records) writes that deal, whose hand K is the one named."""
    import re

    args = ["--game", "five_up", "--agents", "greedy", "random", "--deals", "6", "--seed", "5", "--tables", "4",
            "--quiet", "--no-leaderboard"]
    main(args + ["--csv", str(tmp_path / "h.csv")])
    line = capsys.readouterr().out.strip().splitlines()[-1]
    m = re.fullmatch(r"the most surprising hand is deal (\d+)'s hand (\d) \(greedy at seat (\d) got ([-+]\d+) points, "
                     r"its mean over the run [-+][\d.]+\); to open it, run again with --save-records DIR "
                     r"--records-for \1, then: nos-view DIR/deal-\1\.json --hand \2 --open", line)
    assert m, line
    main(args + ["--save-records", str(tmp_path / "rec"), "--records-for", m[1]])
    records = json.loads((tmp_path / "rec" / f"deal-{m[1]}.json").read_text())
    facts = records[int(m[2]) - 1]["tournament"]
    assert facts["agents"][int(m[3])] == "greedy" and facts["deal"] == int(m[1])
    assert records[int(m[2]) - 1]["scores"][int(m[3])] == int(m[4])
