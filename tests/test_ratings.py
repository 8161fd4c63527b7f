"""The leaderboard (agents/ratings.py): openskill ratings of every agent, kept in a file."""

import copy
import hashlib
import json
import math

import pytest

from agents import ratings
from agents.ratings import AgentIdentity, LeaderboardError, agent_identity, apply_games, ranks_from_chips, rate_game
from agents.tournament import main as tournament_main

PRIOR = (25.0, 25.0 / 3.0)


def weng_lin_plackett_luce(players, ranks, beta=25 / 6, kappa=1e-4, tau=25 / 300):
    """Weng & Lin (2011), Algorithm 4 (Plackett-Luce), one player per team, written out here from
    the paper with openskill's defaults (beta = 25/6, kappa = 1e-4, gamma = sigma/c, and the
    dynamics factor tau = 25/300 added to every sigma first), to check the library's use."""
    players = [(mu, math.sqrt(sigma * sigma + tau * tau)) for mu, sigma in players]
    c = math.sqrt(sum(sigma * sigma + beta * beta for _, sigma in players))
    strength = [math.exp(mu / c) for mu, _ in players]
    tied = [sum(1 for r in ranks if r == rank) for rank in ranks]
    below = [sum(strength[s] for s in range(len(players)) if ranks[s] >= ranks[q]) for q in range(len(players))]
    out = []
    for i, (mu, sigma) in enumerate(players):
        omega = delta = 0.0
        for q in range(len(players)):
            if ranks[q] <= ranks[i]:
                p = strength[i] / below[q]
                omega += ((1 - p) if q == i else -p) / tied[q]
                delta += p * (1 - p) / tied[q]
        gamma = sigma / c
        out.append((mu + sigma * sigma / c * omega,
                    sigma * math.sqrt(max(1 - gamma * sigma * sigma / (c * c) * delta, kappa))))
    return out


def builtin(*names):
    return [agent_identity(name) for name in names]


def test_ranks_come_from_chips_with_ties_sharing_a_rank():
    assert ranks_from_chips([10, -5, 10, -15]) == [1, 3, 1, 4]
    assert ranks_from_chips([0, 0, 0]) == [1, 1, 1]
    assert ranks_from_chips([-3, 7, 2, 2, -9]) == [4, 1, 2, 2, 5]


@pytest.mark.parametrize("players, ranks", [
    ([PRIOR] * 4, [1, 2, 3, 4]),
    ([PRIOR] * 4, [1, 2, 2, 4]),  # a tie in the middle
    ([(25.0, 25 / 3), (30.0, 5.0), (20.0, 7.0), (25.0, 2.0)], [2, 1, 3, 3]),
    ([(28.0, 6.0), (22.0, 8.0), (25.0, 3.0)], [1, 1, 1]),  # three players, all tied
    ([(24.0, 4.0), (31.0, 2.5), (19.0, 8.0), (26.0, 5.0), (25.0, 7.5)], [5, 1, 3, 2, 3]),  # five players
])
def test_one_game_is_the_plackett_luce_update(players, ranks):
    got = rate_game(players, ranks)
    want = weng_lin_plackett_luce(players, ranks)
    assert len(got) == len(want)
    assert [x for pair in got for x in pair] == pytest.approx([x for pair in want for x in pair], rel=1e-12, abs=1e-12)


def test_ties_move_equal_players_equally_and_a_full_tie_leaves_the_means():
    tied_top = rate_game([PRIOR] * 4, [1, 1, 3, 4])
    assert tied_top[0] == tied_top[1] and tied_top[0][0] > 25 > tied_top[3][0]
    # Everyone tied from the same prior: nobody learns who is better, only sigma shrinks.
    everyone = rate_game([PRIOR] * 4, [1, 1, 1, 1])
    for mu, sigma in everyone:
        assert mu == pytest.approx(25.0, abs=1e-12) and sigma < PRIOR[1]


def test_an_agent_that_always_wins_a_4_player_game_rises_above_the_others():
    agents = builtin("random", "greedy", "tactics", "search")
    games = []
    for g in range(24):
        seats = [(g + s) % 4 for s in range(4)]  # every agent in every seat
        # Agent 2 (tactics) always wins; the others' chips differ so their order changes game to game.
        chips = [30 if a == 2 else -10 - ((a + g) % 3) * 5 for a in seats]
        games.append((seats, chips))
    data = ratings._empty()
    assert apply_games(data, agents, games, when="2026-11-25T10:00:00Z")
    rows = ratings.standings(data, "nos")
    assert rows[0]["key"] == "tactics"
    best = data["games"]["nos"]["players"]["tactics"]
    for other in ("random", "greedy", "search"):
        player = data["games"]["nos"]["players"][other]
        assert best["mu"] - 3 * best["sigma"] > player["mu"] - 3 * player["sigma"]
        assert best["mu"] > player["mu"] + 10
        assert player["games"] == 24 and player["last_updated"] == "2026-11-25T10:00:00Z"
    assert best["games"] == 24 and len(best["history"]) == 1


def test_games_are_rated_in_order_from_the_stored_ratings():
    agents = builtin("random", "greedy", "tactics")
    games = [([0, 1, 2], [5, 0, -5]), ([2, 0, 1], [3, 3, -6])]
    data = ratings._empty()
    apply_games(data, agents, games)
    # By hand: the first game from the prior, the second from the first's results.
    first = weng_lin_plackett_luce([PRIOR] * 3, [1, 2, 3])
    second = weng_lin_plackett_luce([first[2], first[0], first[1]], [1, 1, 3])
    want = {"tactics": second[0], "random": second[1], "greedy": second[2]}
    players = data["games"]["nos"]["players"]
    for key, (mu, sigma) in want.items():
        assert (players[key]["mu"], players[key]["sigma"]) == pytest.approx((mu, sigma), rel=1e-12)
    # A later tournament starts from the stored ratings.
    apply_games(data, agents, [([1, 2, 0], [9, -4, -5])])
    third = weng_lin_plackett_luce([want["greedy"], want["tactics"], want["random"]], [1, 2, 3])
    assert (players["greedy"]["mu"], players["greedy"]["sigma"]) == pytest.approx(third[0], rel=1e-12)
    assert players["greedy"]["games"] == 3 and len(players["greedy"]["history"]) == 2


def test_an_agent_in_several_seats_takes_the_mean_of_its_seats():
    agents = builtin("greedy", "random")
    data = ratings._empty()
    apply_games(data, agents, [([1, 0, 1, 1], [-20, 40, -5, -15])])
    seats = weng_lin_plackett_luce([PRIOR] * 4, [4, 1, 2, 3])
    players = data["games"]["nos"]["players"]
    assert (players["greedy"]["mu"], players["greedy"]["sigma"]) == pytest.approx(seats[1], rel=1e-12)
    mean_mu = (seats[0][0] + seats[2][0] + seats[3][0]) / 3
    mean_sigma = (seats[0][1] + seats[2][1] + seats[3][1]) / 3
    assert (players["random"]["mu"], players["random"]["sigma"]) == pytest.approx((mean_mu, mean_sigma), rel=1e-12)
    assert players["random"]["games"] == 1  # one game, however many seats


def test_reapplying_the_same_tournament_changes_nothing(tmp_path):
    path = tmp_path / "board.json"
    agents = builtin("random", "greedy", "tactics")
    games = [([0, 1, 2], [5, 0, -5]), ([1, 2, 0], [2, -1, -1])]
    assert ratings.update(path, agents, games)
    assert path.stat().st_mode & 0o777 == 0o644  # readable like any file, not mkstemp's 0600
    before = path.read_bytes()
    assert not ratings.update(path, agents, games)
    assert path.read_bytes() == before
    # Different results are a different tournament.
    assert ratings.update(path, agents, [([0, 1, 2], [-5, 0, 5])])
    data = json.loads(path.read_text())
    assert len(data["games"]["nos"]["tournaments"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["board.json", "board.json.lock"]  # no temporary files
    assert data["games"]["nos"]["players"]["random"]["games"] == 3


def test_identities_name_builtins_by_options_and_models_by_content(tmp_path):
    assert agent_identity("search").key == "search"
    assert agent_identity("search", {"rollouts": 8}).key == 'search{"rollouts":8}'
    assert agent_identity("search", {"rollouts": 8}).info == {"kind": "builtin", "name": "search",
                                                              "options": {"rollouts": 8}}
    with pytest.raises(ValueError, match="unknown agent 'nobody'"):
        agent_identity("nobody")
    with pytest.raises(ValueError, match="no trained model at"):
        agent_identity(f"model:{tmp_path / 'missing.zip'}")
    # A saved model with options: the key and label end with a space and the options' JSON.
    model = tmp_path / "m.zip"
    model.write_bytes(b"weights")
    sha = hashlib.sha256(b"weights").hexdigest()
    played = agent_identity(f"model:{model}", {"deterministic": False})
    assert played.key == f'model:{model.resolve()}@sha256:{sha} {{"deterministic": false}}'
    assert played.label == f'model:m.zip@{sha[:8]} {{"deterministic": false}}'
    assert played.info == {"kind": "model", "path": str(model.resolve()), "sha256": sha,
                           "options": {"deterministic": False}}
    both = agent_identity(f"ensemble:{model},{model}", {"deterministic": False})
    assert both.key == (f"ensemble:{model.resolve()}@sha256:{sha},{model.resolve()}@sha256:{sha}"
                        ' {"deterministic": false}')
    assert both.info["options"] == {"deterministic": False}


def test_a_model_file_changed_on_disk_is_a_new_entry(tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(b"first training run")
    first = agent_identity(f"model:{model}")
    assert first.info["sha256"] == hashlib.sha256(b"first training run").hexdigest()
    assert first.key == f"model:{model.resolve()}@sha256:{first.info['sha256']}"
    board = tmp_path / "board.json"
    games = [([0, 1, 2], [10, -5, -5])]
    assert ratings.update(board, [first] + builtin("random", "greedy"), games)
    model.write_bytes(b"retrained at the same path")
    second = agent_identity(f"model:{model}")
    assert second.key != first.key and second.label != first.label
    # The same results under the new model are a new tournament and a new player.
    assert ratings.update(board, [second] + builtin("random", "greedy"), games)
    players = json.loads(board.read_text())["games"]["nos"]["players"]
    assert {first.key, second.key} <= set(players)
    assert players[first.key]["games"] == 1 and players[second.key]["games"] == 1
    assert players["random"]["games"] == 2


@pytest.mark.parametrize("content", [b"{not json", b'{"format": "something else"}', b"[1, 2]",
                                     b'{"format": "nos-env leaderboard", "version": 1, "games": '
                                     b'{"nos": {"players": {"greedy": {"mu": 25}}, "tournaments": {}}}}',
                                     b"\xff\xfe binary"])
def test_a_corrupt_leaderboard_is_named_and_left_untouched(tmp_path, content, capsys):
    path = tmp_path / "board.json"
    path.write_bytes(content)
    with pytest.raises(LeaderboardError, match=str(path)):
        ratings.update(path, builtin("random", "greedy", "tactics"), [([0, 1, 2], [1, 0, -1])])
    assert path.read_bytes() == content
    with pytest.raises(SystemExit) as exit_info:
        ratings.main(["--leaderboard", str(path)])
    assert exit_info.value.code == 2 and str(path) in capsys.readouterr().err
    # The tournament refuses it before playing a hand.
    with pytest.raises(SystemExit):
        tournament_main(["--agents", "greedy", "random", "random", "--deals", "1", "--quiet",
                         "--leaderboard", str(path)])
    captured = capsys.readouterr()
    assert str(path) in captured.err and "hands" not in captured.out
    assert path.read_bytes() == content
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_bad_games_are_refused_before_anything_changes():
    data = ratings._empty()
    apply_games(data, builtin("random", "greedy"), [([0, 1], [1, -1])])
    before = copy.deepcopy(data)
    agents = builtin("random", "greedy")
    for games, message in [([([0, 1], [1, -1]), ([0, 2], [1, -1])], "agent index out of range"),
                           ([([0, 1, 1], [1, -1])], "every seat's agent and chips"),
                           ([([0, 1], [1, float("nan")])], "finite"),
                           ([], "no games")]:
        with pytest.raises(ValueError, match=message):
            apply_games(data, agents, games)
        assert data == before
    with pytest.raises(ValueError, match="distinct"):
        apply_games(data, builtin("random", "random"), [([0, 1], [1, -1])])
    assert data == before


def test_environment_variable_names_the_default(tmp_path, monkeypatch):
    monkeypatch.setenv("NOS_LEADERBOARD", str(tmp_path / "elsewhere.json"))
    assert ratings.default_path() == tmp_path / "elsewhere.json"
    monkeypatch.delenv("NOS_LEADERBOARD")
    assert str(ratings.default_path()) == "runs/leaderboard.json"


def test_a_real_tournament_updates_the_leaderboard(tmp_path, capsys):
    board = tmp_path / "runs" / "board.json"
    command = ["--agents", "greedy", "random", "random", "--deals", "3", "--tables", "9", "--quiet",
               "--leaderboard", str(board)]
    tournament_main(command)
    assert f"leaderboard {board}: rated 9 hands" in capsys.readouterr().out
    data = json.loads(board.read_text())
    nos = data["games"]["nos"]
    assert set(nos["players"]) == {"greedy", "random"}
    # 3 deals x 3 rotations, every one a game; random sat twice in each but played 9 games.
    assert nos["players"]["greedy"]["games"] == 9 and nos["players"]["random"]["games"] == 9
    (record,) = nos["tournaments"].values()
    assert record["games"] == 9 and record["deals"] == 3 and record["seats"] == ["greedy", "random", "random"]
    assert record["duplicate"] is True and record["seed"] == 0
    # Greedy beats Random by hundreds of chips a hand (docs/agents.md): it must lead.
    assert nos["players"]["greedy"]["mu"] > 25 > nos["players"]["random"]["mu"]
    before = board.read_bytes()
    tournament_main(command)  # the same seed replays the same hands: rated once
    assert "rated before, unchanged" in capsys.readouterr().out
    assert board.read_bytes() == before

    png = tmp_path / "ratings.png"
    ratings.main(["--leaderboard", str(board), "--plot", str(png)])
    out = capsys.readouterr().out.splitlines()
    assert out[1].startswith("game nos: 2 agents, 1 tournaments")
    assert out[3].split()[:2] == ["1", "greedy"] and out[4].split()[:2] == ["2", "random"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_no_leaderboard_leaves_it_alone(tmp_path):
    board = tmp_path / "board.json"
    tournament_main(["--agents", "greedy", "random", "random", "--deals", "1", "--quiet",
                     "--leaderboard", str(board), "--no-leaderboard"])
    assert not board.exists()


def test_ratings_command_on_an_empty_or_missing_board(tmp_path, capsys):
    ratings.main(["--leaderboard", str(tmp_path / "none.json")])
    assert "the leaderboard is empty" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        ratings.main(["--leaderboard", str(tmp_path / "none.json"), "--game", "bergen"])
    assert "no game 'bergen'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        ratings.main(["--leaderboard", str(tmp_path / "none.json"), "--plot", str(tmp_path / "x.png")])
    assert "no rated agents" in capsys.readouterr().err


def test_agent_objects_have_an_identity():
    from agents.greedy import GreedyAgent

    identity = agent_identity(GreedyAgent(seed=1))
    assert isinstance(identity, AgentIdentity)
    assert identity.key == "object:agents.greedy.GreedyAgent:" + GreedyAgent.name


def test_parallel_updates_all_land(tmp_path):
    """Four processes rate four different tournaments on one file at once: the lock keeps every one."""
    import subprocess
    import sys

    from conftest import ROOT

    path = tmp_path / "board.json"
    code = ("import sys; from agents import ratings; k = int(sys.argv[1]); "
            "ratings.update(sys.argv[2], [ratings.agent_identity(n) for n in ('random', 'greedy', 'tactics')], "
            "[([0, 1, 2], [k, -k, 0])] * 50)")
    runs = [subprocess.Popen([sys.executable, "-c", code, str(k), str(path)], cwd=ROOT) for k in range(1, 5)]
    assert [run.wait(timeout=120) for run in runs] == [0, 0, 0, 0]
    board = json.loads(path.read_text())["games"]["nos"]
    assert len(board["tournaments"]) == 4
    assert {key: p["games"] for key, p in board["players"].items()} == {"random": 200, "greedy": 200, "tactics": 200}


def test_each_game_has_its_own_board():
    data = ratings._empty()
    apply_games(data, builtin("random", "greedy"), [([0, 1], [1, -1])], game="nos")
    apply_games(data, builtin("random", "greedy"), [([0, 1], [1, -1])], game="bergen")
    assert sorted(data["games"]) == ["bergen", "nos"]
    # The same results on two boards: each rated from the prior, neither sees the other's game.
    for key in ("random", "greedy"):
        assert data["games"]["bergen"]["players"][key]["mu"] == data["games"]["nos"]["players"][key]["mu"]
        assert data["games"]["nos"]["players"][key]["games"] == 1
    text = ratings.table(data)
    assert text.index("game bergen:") < text.index("game nos:")
    assert "game nos:" not in ratings.table(data, "bergen")
