"""nos-play (agents/play.py, issue 17 deliverable 1): the numbered moves, and a person's hand
played end to end through a real terminal (tmux: keys sent, the screen read back)."""

import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np
import pytest

import nos_env
from agents.play import choices, main
from conftest import ROOT
from nos_env.encoding import index_to_action, legal_mask
from nos_env.record import replay


def test_every_legal_move_is_one_choice_and_a_close_is_asked_not_listed():
    """Over random hands: each legal action is reachable exactly once (a choice, or a choice's
    close), plays are not listed twice, and plays that may close come up."""
    rng = np.random.default_rng(0)
    closing_seen = 0
    for seed in range(12):
        env = nos_env.env(num_players=4, backend="reference")
        env.reset(seed=seed)
        hand = env.unwrapped.hand
        while not hand.over:
            legal = hand.legal_actions()
            listed = choices(legal)
            reachable = [c.action for c in listed] + [c.closing for c in listed if c.closing is not None]
            assert sorted(map(str, reachable)) == sorted(map(str, legal))
            for c in listed:
                if c.closing is not None:
                    closing_seen += 1
                    assert c.action.kind == "play" and not c.action.close and c.closing.close
                    assert c.label().endswith("(may close)") and " close" not in str(c.action)
                if c.action.kind == "announce":  # the list says what each game is
                    assert re.fullmatch(r"announce \S.* {3}\(.+\)", c.label()), c.label()
            mask = legal_mask(hand)
            env.step(int(rng.choice(np.flatnonzero(mask))))
    assert closing_seen > 0


def test_announcement_hints_value_every_legal_announcement_from_the_setters_tiles():
    from agents.play import Game

    for seed in range(40):  # a deal where seat 0 sets
        game = Game(0, ["random", "random", "random"], seed, hints="tactics", hint_samples=20)
        if game.hand.on_set == 0:
            break
    hand = game.hand
    while hand.phase != "announce":
        game.env.step(int(np.flatnonzero(legal_mask(hand))[0]))
    assert game.to_move() == 0
    values = game.announcement_values()
    legal = {str(a.announcement) for a in hand.legal_actions()}
    assert set(values) == legal and len(legal) > 1
    assert sum(v.endswith("  best") for v in values.values()) == 1
    assert all(re.fullmatch(r"expected [+-]\d+\.\d ± \d+\.\d(  best)?", v) for v in values.values())
    assert game.announcement_values() == values  # seeded: the same advice when asked again


def test_bad_arguments_are_refused(capsys):
    for argv, message in [(["--agents", "random"], "give 2 to 4 agents"),
                          (["--agents", "random", "random", "--seat", "3"], "--seat must be 0..2"),
                          (["--agents", "random", "nobody"], "unknown agent"),
                          (["--agents", "random", "random", "--hints", "oracle"], "unknown agent")]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err


TMUX = shutil.which("tmux")
PROMPT = re.compile(r"decision (\d+), your move \(number, action text, \? or q\)>")


class Terminal:
    """A program in a private tmux server (its own socket: no other tmux is touched)."""

    def __init__(self, tmp_path, command: str):
        # The process id too: id() repeats across processes, and pytest-xdist runs two at once.
        self.socket = f"nos-play-test-{os.getpid()}-{id(self)}"
        conf = tmp_path / "tmux.conf"
        conf.write_text("set -g history-limit 100000\n")
        self.tmux("-f", str(conf), "new-session", "-d", "-s", "play", "-x", "150", "-y", "50",
                  f"cd {ROOT} && {command}; echo EXITED $?; sleep 600")

    def tmux(self, *args) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], check=True, capture_output=True,
                              text=True).stdout

    def text(self) -> str:
        """Everything printed so far (the scrollback and the screen)."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "play")

    def send(self, keys: str) -> None:
        self.tmux("send-keys", "-t", "play", "-l", keys)
        self.tmux("send-keys", "-t", "play", "Enter")

    def wait_input(self, asked: int, timeout: float = 180) -> str:
        """Wait until the program asks its question number ``asked + 1`` (or exits); the text."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.text()
            lines = [line for line in text.splitlines() if line.strip()]
            questions = sum(1 for line in lines if PROMPT.search(line) or line.startswith("close? (y/n)>"))
            if "EXITED" in text or (questions > asked and lines[-1].rstrip().endswith(">")):
                return text
            time.sleep(0.2)
        raise AssertionError(f"nos-play did not ask question {asked + 1} in {timeout} s; screen:\n{self.text()}")

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def last_view(text: str) -> str:
    """The last 'seat 0's view' panel and the moves listed under it."""
    return text[text.rindex("seat 0's view"):]


def listed_moves(view: str) -> dict[int, str]:
    return {int(m[1]): m[2] for m in re.finditer(r"^\s+(\d+)  (\S.*?)\s*$", view, flags=re.M)}


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux; .ci/run installs it)")
def test_a_person_plays_a_hand_in_a_real_terminal(tmp_path):
    record_path = tmp_path / "hand.json"
    term = Terminal(tmp_path, f"{sys.executable} -m agents.play --seat 0 --agents random random random "
                              f"--seed 11 --hints --save {record_path}")
    try:
        text = term.wait_input(0)
        view = last_view(text)
        # Only seat 0's tiles: its own line lists tiles, the others' lines give counts.
        assert re.search(r"seat 0: chips .*\[(\d-\d ?)+\]", view), view
        for s in (1, 2, 3):
            assert re.search(rf"seat {s}: chips .*\[\d+ tiles\]", view), view
        assert "hint: tactics would" in view
        typed = []
        asked = 1
        by_text = False
        for _ in range(200):
            if "EXITED" in text:
                break
            last = [line for line in text.splitlines() if line.strip()][-1]
            if last.startswith("close? (y/n)>"):
                term.send("n")
            else:
                moves = listed_moves(last_view(text))
                if not by_text and len(moves) > 1:  # one move typed as text, the rest by number
                    move = moves[2].split("   (")[0]  # "announce X   (what it is)", "play ...   (may close)"
                    typed.append(move)
                    term.send(move)
                    by_text = True
                else:
                    term.send("1")
            text = term.wait_input(asked)
            asked += 1
        assert "EXITED 0" in text, text[-3000:]
        assert by_text, "seat 0 never had two moves to choose from: pick another seed"
        assert "close? (y/n)> n" in text, "no play that may close came up: pick another seed"
        assert "Ledger" in text and "every hand face up" in text
        assert f"record saved: {record_path}" in text.replace("\n", "")
        record = json.loads(record_path.read_text())
        hand = replay(record)  # verified against the record's own chips and ledger
        assert hand.over and typed[0] in record["actions"]
        # The ledger's net per seat is what the screen reported.
        for s in range(4):
            change = hand.chips[s] - record["chips_start"][s]
            assert re.search(rf"seat {s} \(\w+\): " + re.escape(f"{change:+d} chips, now {hand.chips[s]}"), text), s
        # Seat 0's dealt tiles were on its first screen; no other seat's tile was shown before the end.
        during = text[:text.index("every hand face up")]
        first = last_view(text[:text.index("decision", text.index("seat 0's view"))])
        mine = re.search(r"seat 0: chips .*\[((?:\d-\d ?)+)\]", first)[1].split()
        assert set(mine) <= set(record["hands"][0])
        for s in (1, 2, 3):
            assert not re.search(rf"seat {s}: chips .*\[\d-\d", during)
    finally:
        term.close()


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux; .ci/run installs it)")
def test_q_quits_cleanly(tmp_path):
    term = Terminal(tmp_path, f"{sys.executable} -m agents.play --agents greedy random --seat 1 --seed 2")
    try:
        term.wait_input(0)
        term.send("play 9-9 L0")  # not even a tile: refused, asked again
        text = term.wait_input(1)
        assert "not understood" in text
        term.send("q")
        text = term.wait_input(2)
        assert "quit: the hand was left unfinished" in text and "EXITED 0" in text
        assert "Traceback" not in text
    finally:
        term.close()


# ------------------------------------------------------------------ a family game (nos-play --game)
FAMILY_PROMPT_VIEW = "seat 0's view"


def test_family_bad_arguments_are_refused(capsys):
    for argv, message in [(["--game", "draw", "--agents"] + ["random"] * 5, "draw is played by 2, 3, 4, 5 players: give 1 to 4 agents, got 5"),
                          (["--game", "blind", "--agents", "tactics", "random"], "unknown agent 'tactics' for blind"),
                          (["--game", "draw", "--agents", "tactics"], "unknown agent 'tactics' for draw"),
                          (["--game", "chess"], "unknown game 'chess'"),
                          (["--match"], "--match is for the family games")]:
        with pytest.raises(SystemExit):
            main(argv)
        assert message in capsys.readouterr().err, argv


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux; .ci/run installs it)")
def test_a_person_plays_a_family_hand_in_a_real_terminal(tmp_path):
    """Draw, 3 players: seat 0 sees only its own tiles, types one move as text and the rest by
    number; the screen's result is the saved record's, and the record replays."""
    from nos_env.family.record import replay as family_replay

    record_path = tmp_path / "draw.json"
    term = Terminal(tmp_path, f"{sys.executable} -m agents.play --game draw --agents greedy random "
                              f"--seed 5 --hints --save {record_path}")
    try:
        text = term.wait_input(0)
        view = last_view(text)
        assert "Draw, 3 players, single hand" in view
        assert re.search(r"seat 0: score +0  \[(\d-\d ?)+\]", view), view
        for s in (1, 2):
            assert re.search(rf"seat {s}: score +0  \[\d+ tiles\]", view), view
        assert re.search(r"Boneyard: \d+ tiles", view) and "hint: greedy would" in view
        typed, asked = [], 1
        for _ in range(100):
            if "EXITED" in text:
                break
            moves = listed_moves(last_view(text))
            if not typed and len(moves) > 1:
                typed.append(moves[2])  # "play 3-5 on L1": the family grammar, typed
                term.send(moves[2])
            else:
                term.send("1")
            text = term.wait_input(asked)
            asked += 1
        assert "EXITED 0" in text, text[-3000:]
        assert typed, "seat 0 never had two moves to choose from: pick another seed"
        assert "not understood" not in text and "Traceback" not in text
        assert f"seat 0 (you): {typed[0]}" in text  # the typed move was played as typed
        assert "every hand face up" in text and "result: " in text
        assert f"record saved: {record_path}" in text.replace("\n", "")
        record = json.loads(record_path.read_text())
        game = family_replay(record)  # every action legal, in order
        assert game.done and record["game"] == "draw" and record["options"]["target_score"] is None
        assert list(game.scores) == record["scores"]
        for s, name in enumerate(("you", "greedy", "random")):
            assert f"seat {s} ({name}): score {game.scores[s]}" in text
        winner = game.winner
        assert (f"result: won by seat {winner}" in text) if winner is not None else "no winner" in text
        # Nobody else's tiles were shown before the end; seat 0's dealt tiles were on its first screen.
        during = text[:text.index("every hand face up")]
        for s in (1, 2):
            assert not re.search(rf"seat {s}: score +\d+  \[\d-\d", during)
        first = re.search(r"seat 0: score +0  \[((?:\d-\d ?)+)\]", text)[1].split()
        from nos_env.family.engine import FamilyGame
        from nos_env.family.rules import make_rules
        start = FamilyGame(make_rules("draw", 3, target_score=None), seed=5)
        assert sorted(first) == sorted(f"{a}-{b}" for a, b in (start.hand.layout.ts.tiles[t] for t in start.hand.hands[0]))
    finally:
        term.close()


@pytest.mark.skipif(TMUX is None, reason="tmux is not installed (apt-get install tmux; .ci/run installs it)")
def test_a_person_plays_blind_in_a_real_terminal(tmp_path):
    """Blind, 3 players (seed 1: two decisions for seat 0): nobody's row is shown face up, not even
    the player's own (BD3), the tile just turned up is named, one move is typed as text, and the
    result on the screen is the saved record's, which replays."""
    from nos_env.family.blind import BlindGame

    record_path = tmp_path / "blind.json"
    term = Terminal(tmp_path, f"{sys.executable} -m agents.play --game blind --agents greedy random "
                              f"--seed 1 --hints --save {record_path}")
    try:
        text = term.wait_input(0)
        view = last_view(text)
        assert "Blind, 3 players, single hand" in view and "hint: greedy would" in view
        for s in range(3):
            assert re.search(rf"seat {s}: score +0  \[\d+ tiles\]", view), view
        turned = re.search(r"seat 0 turned up \[(\d)-(\d)\]: it fits both ends", view)
        assert turned, view
        typed, asked = [], 1
        for _ in range(50):
            if "EXITED" in text:
                break
            moves = listed_moves(last_view(text))
            assert all(re.fullmatch(r"play \d-\d on L[01]", m) for m in moves.values()), moves
            if not typed and len(moves) > 1:
                typed.append(moves[2])
                term.send(moves[2])
            else:
                term.send("1")
            text = term.wait_input(asked)
            asked += 1
        assert "EXITED 0" in text, text[-3000:]
        assert typed and asked - 1 == 2, "seed 1 gives seat 0 two decisions, the first with two moves"
        assert "not understood" not in text and "Traceback" not in text
        assert f"seat 0 (you): {typed[0]}" in text
        during = text[:text.index("every hand face up")]
        for s in range(3):  # no row face up before the end
            assert not re.search(rf"seat {s}: score +\d+  \[\d-\d", during)
        record = json.loads(record_path.read_text())
        game = BlindGame.from_record(record)  # every action legal, in order
        assert game.done and record["game"] == "blind" and record["seed"] == 1
        for s, name in enumerate(("you", "greedy", "random")):
            assert f"seat {s} ({name}): score {game.scores[s]}" in text
        assert (f"result: won by seat {game.winner}" in text) if game.winner is not None else "no winner" in text
        start = BlindGame.from_record(dict(record, actions=[]))
        assert start.to_move == 0 and start.rules.tiles.tiles[start.turned] == (int(turned[1]), int(turned[2]))
    finally:
        term.close()


@pytest.mark.parametrize("game", [g for g in nos_env.list_games() if g != "nos"])  # every registered game
def test_nos_play_plays_every_family_game_to_its_end(tmp_path, capsys, monkeypatch, game):
    """nos-play --game G for every registered family game, its default table against Greedy, every
    move chosen as "1" on stdin: the game ends, and the saved record replays to the scores shown."""
    import io

    from nos_env.family.record import replay_any

    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 300))
    path = tmp_path / f"{game}.json"
    assert main(["--game", game, "--seed", "2", "--save", str(path)]) == 0
    out = capsys.readouterr().out
    assert "every hand face up" in out and "result: " in out
    record = json.loads(path.read_text())
    played = replay_any(record)  # its own engine's from_record (Blind, Chickenfoot, Mexican Train)
    assert played.done and record["game"] == game
    for s in range(played.rules.num_players):
        assert re.search(rf"seat {s} \((you|greedy)\): score {played.scores[s]}\b", out), out[-1500:]
