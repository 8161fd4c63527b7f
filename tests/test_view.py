"""The replay page (nos-view, nos_env/view.py): what it holds, its refusals, and the page itself in a
real headless browser (Debian's chromium, driven over the DevTools protocol: tests/chromium.py)."""

import io
import json
import re
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from chromium import Browser, find_browser
from conftest import GOLDEN, ROOT
from nos_env.record import RecordError, RecordMismatch, load, start_from_record
from nos_env.view import load_records, main, page

GAME16 = GOLDEN / "game16.json"  # 4 players: triangle, then T3, then an ordinary cross
GAME03 = GOLDEN / "game03.json"  # 5 players: ordinary double cross
BROWSER = find_browser()
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no chromium on this machine: .ci/run installs it (apt-get install -y chromium); "
                            "it could not be installed here")


def page_data(text: str) -> dict:
    payload = re.search(r'<script id="replay-data" type="application/json">(.*?)</script>', text, re.S).group(1)
    return json.loads(payload)


def hand_after(record: dict, steps: int):
    hand = start_from_record(record)
    for action in record["actions"][:steps]:
        hand.step(action)
    return hand


def visible_pips(hand, viewer: int | None) -> int:
    """Pips the viewer sees, counted from the hand: the layout, his own tiles (every hand for None),
    and the doubles others declared face up (D9)."""
    total = sum(a + b for a, b in hand.layout.tiles()) if hand.layout else sum(hand.set_tile or ())
    for seat in range(hand.num_players):
        shown = hand.hands[seat] if viewer is None or viewer == seat else hand.public_doubles(seat)
        total += sum(a + b for a, b in shown)
    return total


# ------------------------------------------------------------------ the page's content, without a browser
def test_the_page_is_one_self_contained_file(tmp_path):
    out = tmp_path / "replay.html"
    assert main([str(GAME16), "-o", str(out)]) == 0
    text = out.read_text()
    # No server, no network: nothing is loaded from anywhere (the SVG namespace is a name, not a fetch).
    assert re.findall(r"https?://[^\s\"'`]*", text) == ["http://www.w3.org/2000/svg"]
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", text)
    data = page_data(text)
    record = load(GAME16)
    hand = data["hands"][0]
    assert len(hand["frames"]) == len(record["actions"]) + 1
    for k, frame in enumerate(hand["frames"][1:], start=1):
        before = hand_after(record, k - 1)
        assert frame["decision"] == {"seat": before.to_move, "legal": before.legal_action_texts(),
                                     "taken": record["actions"][k - 1]}
    assert hand["frames"][-1]["chips"] == record["chips"]
    paid = [p for f in hand["frames"] for e in f["events"] for p in e["payments"]]
    assert paid == record["ledger"]


def test_several_records_make_one_page_in_order_and_a_list_file_is_a_session(tmp_path):
    both = tmp_path / "two.json"
    both.write_text(json.dumps([load(GAME16), load(GAME03)]))
    from_list = page_data(page(load_records([both])))
    from_files = page_data(page(load_records([GAME16, GAME03])))
    assert [h["num_players"] for h in from_list["hands"]] == [4, 5]
    assert [h["frames"] for h in from_list["hands"]] == [h["frames"] for h in from_files["hands"]]
    assert from_list["hands"][1]["source"] == f"{both} [hand 1]"


@pytest.mark.parametrize("content, message", [
    ("{", "not JSON"),
    ("[]", "an empty list"),
    ("[3]", "hand 0 is a int"),
    ('{"hands": []}', "missing key"),
])
def test_bad_input_names_the_file_and_what_is_wrong(tmp_path, content, message):
    bad = tmp_path / "bad.json"
    bad.write_text(content)
    with pytest.raises(RecordError, match=message) as caught:
        load_records([bad])
    assert str(bad) in str(caught.value)
    with pytest.raises(RecordError, match="cannot be read"):
        load_records([tmp_path / "missing.json"])


def test_a_record_that_does_not_replay_to_its_outcome_is_refused(tmp_path, capsys):
    record = json.loads(GAME16.read_text())
    record["chips"][0] += 1
    bad = tmp_path / "edited.json"
    bad.write_text(json.dumps(record))
    with pytest.raises(RecordMismatch, match="replay differs in chips"):
        page(load_records([bad]))
    out = tmp_path / "never.html"
    assert main([str(bad), "-o", str(out)]) == 2
    assert "nos-view: error:" in capsys.readouterr().err and not out.exists()


def test_viewer_option(tmp_path, capsys):
    assert page_data(page(load_records([GAME16]), viewer=3))["viewer"] == 3
    with pytest.raises(ValueError, match="seat 0..3 of these hands or 'omniscient'"):
        page(load_records([GAME16]), viewer=4)
    assert main([str(GAME16), "-o", str(tmp_path / "p.html"), "--viewer", "4"]) == 2
    with pytest.raises(SystemExit):
        main([str(GAME16), "--viewer", "north"])
    assert "--viewer must be 'omniscient' or a seat number" in capsys.readouterr().err


def test_the_command_runs_as_a_module(tmp_path):
    out = tmp_path / "game16.html"
    done = subprocess.run([sys.executable, "-m", "nos_env.view", str(GAME16), "-o", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out} (1 hand(s), 45 decisions" in done.stdout and out.stat().st_size > 10_000


# ------------------------------------------------------------------ in a real browser
STATUS = "document.getElementById('status').textContent"
RIGHT, LEFT, HOME, END, V = (("ArrowRight", "ArrowRight", 39), ("ArrowLeft", "ArrowLeft", 37), ("Home", "Home", 36),
                             ("End", "End", 35), ("v", "KeyV", 86))


@pytest.fixture(scope="module")
def browser():
    if BROWSER is None:
        pytest.skip("no chromium on this machine: .ci/run installs it (apt-get install -y chromium)")
    with Browser() as b:
        yield b


@pytest.fixture(scope="module")
def replay_page(tmp_path_factory):
    out = tmp_path_factory.mktemp("view") / "replay.html"
    assert main([str(GAME16), str(GAME03), "-o", str(out)]) == 0
    return out


def pips_on_screen(browser) -> int:
    return browser.evaluate("document.querySelectorAll('#table circle.pip').length")


@needs_browser
def test_stepping_with_the_keyboard_shows_each_decision(browser, replay_page):
    record16, record03 = load(GAME16), load(GAME03)
    browser.open(replay_page.as_uri())
    assert browser.evaluate(STATUS) == ("hand 1 of 2, the start | phase set | seat 1 to move | "
                                        "view: every hand (omniscient)")
    assert pips_on_screen(browser) == visible_pips(hand_after(record16, 0), None)
    for k in range(1, 4):
        browser.press(*RIGHT)
        assert browser.evaluate(STATUS).startswith(f"hand 1 of 2, decision {k} of 45 | ")
    hand = hand_after(record16, 3)
    assert browser.evaluate("document.getElementById('decision').textContent") == (
        f"seat {hand_after(record16, 2).to_move} chose: {record16['actions'][2]}")
    legal = browser.evaluate("[...document.querySelectorAll('#legal li')].map(li => li.textContent)")
    assert legal == hand_after(record16, 2).legal_action_texts()
    assert browser.evaluate("document.querySelector('#legal li.taken').textContent") == record16["actions"][2]
    assert pips_on_screen(browser) == visible_pips(hand, None)
    browser.press(*LEFT)
    assert browser.evaluate(STATUS).startswith("hand 1 of 2, decision 2 of 45 | ")
    browser.press(*END)
    last = hand_after(record03, len(record03["actions"]))
    assert browser.evaluate(STATUS) == (f"hand 2 of 2, decision {len(record03['actions'])} of "
                                        f"{len(record03['actions'])} | phase over | hand over ({last.end_reason}) | "
                                        "view: every hand (omniscient)")
    payments = browser.evaluate("[...document.querySelectorAll('#events li.payment')].map(li => li.textContent)")
    before = hand_after(record03, len(record03["actions"]) - 1)
    start = len(before.events)
    before.step(record03["actions"][-1])  # the last decision and what it set off (the close, the count)
    expected = [f"seat {p.payer} pays seat {p.payee} {p.amount} ({p.reason})"
                for e in before.events[start:] for p in e.payments]
    assert payments == expected and len(expected) > 1
    chips = browser.evaluate("[...document.querySelectorAll('#chips td:nth-child(2)')].map(td => +td.textContent)")
    assert chips == record03["chips"]
    browser.press(*HOME)
    assert browser.evaluate(STATUS).startswith("hand 1 of 2, the start | ")
    assert browser.evaluate("location.hash") == "#step=0&view=omniscient"


@pytest.mark.parametrize("viewer", [0, 2])
@needs_browser
def test_a_seat_view_shows_that_seats_tiles_only(browser, replay_page, viewer):
    record = load(GAME16)
    browser.open(f"{replay_page.as_uri()}#step=9&view={viewer}")
    hand = hand_after(record, 9)
    assert browser.evaluate(STATUS).endswith(f"| view: seat {viewer}")
    assert pips_on_screen(browser) == visible_pips(hand, viewer) < visible_pips(hand, None)
    decider = hand_after(record, 8).to_move
    legal_shown = browser.evaluate("document.querySelectorAll('#legal li').length")
    assert (legal_shown > 0) == (decider == viewer)  # others' legal actions would show their tiles
    browser.press(*V)  # V cycles: seat 0 -> 1 -> ... -> omniscient
    expected = viewer + 1
    assert browser.evaluate(STATUS).endswith(f"| view: seat {expected}")
    assert pips_on_screen(browser) == visible_pips(hand, expected)


@needs_browser
def test_the_slider_and_the_screenshot(browser, replay_page):
    browser.open(replay_page.as_uri())
    browser.evaluate("(() => { const s = document.getElementById('slider'); s.value = 20;"
                     " s.dispatchEvent(new Event('input')); })()")
    assert browser.evaluate(STATUS).startswith("hand 1 of 2, decision 20 of 45 | ")
    shot = Image.open(io.BytesIO(browser.screenshot())).convert("RGB")
    assert shot.size == (1500, 1000)
    pixels = np.asarray(shot).reshape(-1, 3)
    felt = np.all(pixels == (0x2f, 0x6b, 0x45), axis=1).mean()
    assert felt > 0.2  # the table is there, large
    assert len(np.unique(pixels, axis=0)) > 50  # tiles, pips, text: far from a blank page
    ivory = np.all(pixels == (0xf7, 0xf2, 0xe2), axis=1).sum()
    assert ivory > 1000  # tile faces (about 20 on the table at this step, scaled to the window)


@needs_browser
def test_dump_dom_from_the_command_line(replay_page, tmp_path):
    """The page also works for `chromium --headless --dump-dom`: the address picks the step and view."""
    # A profile of its own: two browsers on one profile (pytest-xdist's workers) would share its lock.
    done = subprocess.run([BROWSER, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={tmp_path}", "--dump-dom",
                           f"{replay_page.as_uri()}#step=5&view=2"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    status = re.search(r'<div id="status">(.*?)</div>', done.stdout).group(1)
    hand = hand_after(load(GAME16), 5)
    assert status == f"hand 1 of 2, decision 5 of 45 | phase {hand.phase} | seat {hand.to_move} to move | view: seat 2"


# ------------------------------------------------------------------ family records (issue 17)
def family_record(game: str, seed: int, players: int = 3) -> dict:
    """A finished single game of ``game`` from ``seed``, its decisions drawn at random (seeded)."""
    import random

    rnd = random.Random(seed)
    if game == "blind":
        from nos_env.family.blind import BlindGame, make_blind_rules

        g = BlindGame(make_blind_rules(players), seed)
    else:
        from nos_env.family.engine import FamilyGame
        from nos_env.family.rules import make_rules

        g = FamilyGame(make_rules(game, players, target_score=None), seed=seed)
    while not g.done:
        g.step(rnd.choice(g.legal_actions()))
    return g.record()


def family_after(record: dict, steps: int):
    from nos_env.view_family import _start

    g = _start(record)
    for a in record["actions"][:steps]:
        g.step(a)
    return g


@pytest.fixture(scope="module")
def family_page(tmp_path_factory):
    folder = tmp_path_factory.mktemp("family-view")
    path = folder / "cross.json"
    path.write_text(json.dumps(family_record("cross", 4)))
    out = folder / "cross.html"
    assert main([str(path), "-o", str(out)]) == 0
    return path, out


@pytest.mark.parametrize("game", ["draw", "matador", "five_up", "blind"])
def test_a_family_record_becomes_a_page_of_its_decisions(tmp_path, game):
    from nos_env.family_backends import encoding_module

    record = family_record(game, 3)
    path = tmp_path / f"{game}.json"
    path.write_text(json.dumps(record))
    out = tmp_path / f"{game}.html"
    assert main([str(path), "-o", str(out)]) == 0
    hand = page_data(out.read_text())["hands"][0]
    assert hand["kind"] == "family" and hand["game"] == game
    assert len(hand["frames"]) == len(record["actions"]) + 1
    enc = encoding_module(game)
    for k in (1, len(record["actions"])):
        before = family_after(record, k - 1)
        decision = hand["frames"][k]["decision"]
        assert decision["seat"] == before.to_move
        assert decision["legal"] == [enc.describe(a, before.rules) for a in before.legal_actions()]
        assert decision["taken"] == enc.describe(record["actions"][k - 1], before.rules)
    end = family_after(record, len(record["actions"]))
    assert hand["frames"][-1]["chips"] == list(end.scores) == hand["chips"]
    assert hand["frames"][-1]["to_move"] is None and hand["end_reason"].startswith(("winner", "no winner"))
    # Every tile of the deal is on the last scene once (face up or down: its owner decides).
    tiles = [op for op in hand["frames"][-1]["scene"] if op[0] == "tile"]
    assert len(tiles) == end.rules.num_tiles - (len(end.aside) if game == "blind" else 0)


def test_a_family_record_that_does_not_replay_to_its_scores_is_refused(tmp_path, capsys):
    record = family_record("draw", 3)
    record["scores"] = [s + 1 for s in record["scores"]]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    assert main([str(path), "-o", str(tmp_path / "bad.html")]) == 2
    assert "the record says the scores are" in capsys.readouterr().err
    record = family_record("draw", 3)
    record["actions"][2] = record["actions"][2] + 1000  # not an action of the game
    path.write_text(json.dumps(record))
    assert main([str(path), "-o", str(tmp_path / "bad.html")]) == 2
    assert "decision 2: action" in capsys.readouterr().err and not (tmp_path / "bad.html").exists()


def family_visible_tiles(game, viewer) -> int:
    """Tile faces a viewer sees: the layout, and his own hand (every hand and the boneyard for None)."""
    hand = game.hand
    shown = len(hand.layout.tile_arm)  # every tile on the table, the set tile included
    held = sum(len(h) for s, h in enumerate(hand.hands) if viewer is None or s == viewer)
    return shown + held + (len(hand.boneyard) if viewer is None else 0)


@needs_browser
def test_a_family_page_in_the_browser(browser, family_page):
    path, out = family_page
    record = json.loads(path.read_text())
    browser.open(out.as_uri())
    start = family_after(record, 0)
    assert browser.evaluate(STATUS) == (f"cross, the start | phase hand 1 | seat {start.to_move} to move | "
                                        "view: every hand (omniscient)")
    for k in range(1, 4):
        browser.press(*RIGHT)
        assert browser.evaluate(STATUS).startswith(f"cross, decision {k} of {len(record['actions'])} | ")
    before = family_after(record, 2)
    assert browser.evaluate("document.getElementById('decision').textContent") == (
        f"seat {before.to_move} chose: {browser.evaluate('DATA.hands[0].frames[3].decision.taken')}")
    legal = browser.evaluate("[...document.querySelectorAll('#legal li')].map(li => li.textContent)")
    from nos_env.family.encoding import describe
    assert legal == [describe(a, before.rules) for a in before.legal_actions()]
    assert browser.evaluate("document.querySelector('#legal li.taken').textContent") == describe(
        record["actions"][2], before.rules)
    assert browser.evaluate("document.getElementById('chips-title').textContent") == "Scores"
    # The one-seat view: only that seat's tiles face up (faces are ivory rectangles with pips).
    faces = "[...document.querySelectorAll('#table rect')].filter(r => r.getAttribute('fill') === '%s').length"
    face = browser.evaluate("DATA.style.face")
    omniscient = browser.evaluate(faces % face)
    after = family_after(record, 3)
    assert omniscient == family_visible_tiles(after, None)
    browser.press(*V)  # omniscient -> seat 0
    assert browser.evaluate(STATUS).endswith("| view: seat 0")
    assert browser.evaluate(faces % face) == family_visible_tiles(after, 0) < omniscient
    decider = before.to_move
    assert (browser.evaluate("document.querySelectorAll('#legal li').length") > 0) == (decider == 0)
    browser.press(*END)
    end = family_after(record, len(record["actions"]))
    assert "hand over (" in browser.evaluate(STATUS)
    scores = browser.evaluate("[...document.querySelectorAll('#chips td:nth-child(2)')].map(td => +td.textContent)")
    assert scores == list(end.scores) == record["scores"]
    shot = Image.open(io.BytesIO(browser.screenshot())).convert("RGB")
    (out.parent / "family.png").write_bytes(browser.screenshot())
    pixels = np.asarray(shot).reshape(-1, 3)
    assert np.all(pixels == (0x2f, 0x6b, 0x45), axis=1).mean() > 0.2  # the felt
    assert np.all(pixels == (0xf7, 0xf2, 0xe2), axis=1).sum() > 1000  # tile faces


# ------------------------------------------------------------------ a whole match on one page (issue 17)
def match_record(seed: int = 3):
    """A finished All Fives match to 60 (2 players, decisions drawn at random, seeded), and what the
    engine says of each hand: the scores when it ended (the step that ended it, as the engine reports)
    and its number of decisions."""
    import random

    from nos_env.family.engine import FamilyGame
    from nos_env.family.rules import make_rules

    rnd = random.Random(seed)
    g = FamilyGame(make_rules("all_fives", 2, target_score=60), seed=seed)
    ends, decisions, count = [], [], 0
    while not g.done:
        g.step(rnd.choice(g.legal_actions()))
        count += 1
        if g.hand_over:
            ends.append(list(g.scores))
            decisions.append(count)
            count = 0
    return g.record(), ends, decisions


def test_a_match_record_shows_each_hand_apart(tmp_path):
    record, ends, decisions = match_record()
    assert len(ends) >= 3  # the seed gives a match of several hands
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "match.html"
    assert main([str(path), "-o", str(out)]) == 0
    hand = page_data(out.read_text())["hands"][0]
    # One frame per decision, plus the deal of every hand after the first.
    assert len(hand["frames"]) == 1 + len(record["actions"]) + len(ends) - 1
    parts = hand["hands"]
    assert [p["number"] for p in parts] == list(range(len(ends)))
    before = [0, 0]
    for p, end, count in zip(parts, ends, decisions):
        assert p["points"] == [a - b for a, b in zip(end, before)]
        frames = hand["frames"][p["first"]:p["last"] + 1]
        assert sum(f["decision"] is not None for f in frames) == count
        assert frames[-1]["chips"] == end
        before = end
    for p in parts[:-1]:  # the hand's last frame shows it ended (its tiles still on the table); then the deal
        assert hand["frames"][p["last"]]["phase"] == f"hand {p['number'] + 1} over"
        assert hand["frames"][p["last"] + 1]["decision"] is None
    assert hand["frames"][-1]["phase"] == "over"


@needs_browser
def test_a_match_page_lists_its_hands_in_the_browser(browser, tmp_path):
    record, ends, decisions = match_record()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record))
    out = tmp_path / "match.html"
    assert main([str(path), "-o", str(out)]) == 0
    browser.open(out.as_uri())
    items = browser.evaluate("[...document.querySelectorAll('#hands li')].map(li => li.textContent)")
    before = [0, 0]
    expected = []
    for k, end in enumerate(ends):
        expected.append(f"hand {k + 1} of {len(ends)}: " + " ".join(
            f"{s}:{'+' if e - b >= 0 else ''}{e - b}" for s, (e, b) in enumerate(zip(end, before))))
        before = end
    assert items == expected
    total = sum(decisions[:1])
    assert browser.evaluate(STATUS).startswith(f"all_fives, match hand 1 of {len(ends)}, the start | phase hand 1 |")
    assert browser.evaluate("document.querySelector('#hands li.current').textContent") == expected[0]
    # Clicking the second hand goes to its deal; the slider marks every hand's start.
    browser.evaluate("document.querySelectorAll('#hands li')[1].click()")
    assert browser.evaluate(STATUS).startswith(f"all_fives, match hand 2 of {len(ends)}, the deal | phase hand 2 |")
    assert browser.evaluate("document.querySelector('#hands li.current').textContent") == expected[1]
    browser.press(*LEFT)  # back: the first hand's end, its last decision
    assert browser.evaluate(STATUS).startswith(
        f"all_fives, match hand 1 of {len(ends)}, decision {total} of {len(record['actions'])} | phase hand 1 over | "
        "hand over, the next is dealt")
    scores = browser.evaluate("[...document.querySelectorAll('#chips td:nth-child(2)')].map(td => +td.textContent)")
    assert scores == ends[0]
    marks = browser.evaluate("[...document.querySelectorAll('#bounds option')].map(o => +o.value)")
    assert len(marks) == len(ends) and marks[0] == 0
    browser.press(*END)
    assert browser.evaluate("document.querySelector('#hands li.current').textContent") == expected[-1]
    assert "hand over (winner: seat" in browser.evaluate(STATUS)


def test_hand_and_open_options(tmp_path, capsys, monkeypatch):
    """--hand K opens the page on the K-th record (a tournament prints that command); --open hands
    the page to the web browser, or says where it is when there is none."""
    import webbrowser

    out = tmp_path / "two.html"
    opened = []
    monkeypatch.setattr(webbrowser, "open", lambda address: opened.append(address) or False)
    assert main([str(GAME16), str(GAME03), "--hand", "2", "-o", str(out), "--open"]) == 0
    data = page_data(out.read_text())
    assert data["start"] == len(load(GAME16)["actions"]) + 1  # the second hand's start
    assert opened == [out.resolve().as_uri()]
    assert f"no web browser found; open {out.resolve().as_uri()}" in capsys.readouterr().out
    assert main([str(GAME16), "--hand", "2", "-o", str(tmp_path / "bad.html")]) == 2
    assert "the hand to open on must be 1..1" in capsys.readouterr().err
    assert not (tmp_path / "bad.html").exists()


@needs_browser
def test_blinds_choices_show_in_every_seats_view(browser, tmp_path):
    """Blind's legal actions name only the tile turned up for everyone (BD3), so another seat's view
    lists them; a Draw page keeps them hidden from other seats (they would show the decider's tiles)."""
    for game, shown in (("blind", True), ("draw", False)):
        record = family_record(game, 3)
        path = tmp_path / f"{game}.json"
        path.write_text(json.dumps(record))
        out = tmp_path / f"{game}.html"
        assert main([str(path), "-o", str(out)]) == 0
        decider = family_after(record, 0).to_move
        other = (decider + 1) % 3
        browser.open(f"{out.as_uri()}#step=1&view={other}")
        legal = browser.evaluate("[...document.querySelectorAll('#legal li')].map(li => li.textContent)")
        from nos_env.family_backends import encoding_module

        start = family_after(record, 0)
        expected = [encoding_module(game).describe(a, start.rules) for a in start.legal_actions()]
        assert legal == (expected if shown else []), game
        assert ("hidden in seat" in browser.evaluate("document.getElementById('legal-note').textContent")) != shown


@needs_browser
def test_a_page_of_a_match_and_a_single_hand_calls_records_games(browser, tmp_path):
    record, ends, _ = match_record()
    path = tmp_path / "two.json"
    path.write_text(json.dumps([family_record("draw", 3, players=2), record]))
    out = tmp_path / "two.html"
    assert main([str(path), "-o", str(out)]) == 0
    browser.open(out.as_uri())
    items = browser.evaluate("[...document.querySelectorAll('#hands li')].map(li => li.textContent.split(':')[0])")
    assert items == ["game 1"] + [f"game 2, hand {k + 1}" for k in range(len(ends))]
    assert browser.evaluate(STATUS).startswith("game 1 of 2, draw, the start |")
    browser.press(*END)
    assert browser.evaluate(STATUS).startswith(f"game 2 of 2, all_fives, match hand {len(ends)} of {len(ends)}, ")
