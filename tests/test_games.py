"""Rule tests for the 17 games of Nos (docs/rules/nos.md §4, with D3-D7, D11, D22, D24).

Every expected value in this file (legal announcements, legal actions, chips,
whose turn it is) was derived by hand from docs/rules/nos.md, never copied from the
engine's output. Deals are 4 players, 4 tiles each, 12 in the boneyard; seat
0 (A) is on set, so normal play starts with seat 1 (B), then C=2, D=3, A=0.

D25 (every decision presented, D12 off, the default): after the announcement
the declaration window asks every seat (B, C, D, then A), and the
immediate-double window asks B, C and D (not the setter), B again after each
double he places. Nobody here holds 3+ doubles, so each declaration question
has the single action ``no-declare`` (section 5, D8). Unless noted, no seat
other than the setter holds a double that fits an empty arm, so each immediate
question has the single action ``decline`` (section 6), and
:func:`through_forced_windows` walks both windows, checking that order and
that single action. Where someone has a double to place, the immediate window
is written out with :func:`expect_immediate` (an empty set means: decline only).

Legal plays are listed once in the expected sets; every play is also legal
with " close" (section 9), which :func:`expect_turn` adds.
"""

from __future__ import annotations

import pytest

from conftest import through_forced_windows

from nos_env.deal import Deal
from nos_env.engine import Hand, IllegalActionError
from nos_env.announcements import game_spec, parse_announcement
from nos_env.layout import Layout, Placed

TILES = [f"{a}-{b}" for a in range(7) for b in range(a, 7)]


def _canon(t: str) -> str:
    a, b = sorted(int(x) for x in t.split("-"))
    return f"{a}-{b}"


def _tile(t: str) -> tuple[int, int]:
    a, b = sorted(int(x) for x in t.split("-"))
    return (a, b)


def make_hand(hands, top=(), on_set=0) -> Hand:
    """A hand from the given seats' tiles; the boneyard is ``top`` then every
    other tile in index order (so it holds all 28 exactly once)."""
    hands = [[_canon(t) for t in h] for h in hands]
    top = [_canon(t) for t in top]
    used = [t for h in hands for t in h] + top
    assert len(used) == len(set(used)), "test deal uses a tile twice"
    rest = [t for t in TILES if t not in used]
    return Hand(Deal.from_tiles(hands=hands, boneyard=top + rest), on_set=on_set)


def legal(h: Hand) -> set[str]:
    texts = h.legal_action_texts()
    assert len(texts) == len(set(texts)), "an action is listed twice"
    return set(texts)


def expect_turn(h: Hand, seat: int, plays: set[str], draw: bool = True) -> None:
    """Normal play: ``seat`` is to move and may do exactly these plays (each
    also with close), plus draw while the boneyard holds more than 2 (section 7)."""
    assert h.phase == "play"
    assert h.to_move == seat
    expected = set(plays) | {p + " close" for p in plays}
    if draw:
        expected.add("draw")
    assert legal(h) == expected


def expect_immediate(h: Hand, seat: int, options: set[str]) -> None:
    """The immediate-double window (section 6, D10): ``seat`` is asked."""
    assert h.phase == "immediate"
    assert h.to_move == seat
    assert legal(h) == set(options) | {"decline"}


def announcements(h: Hand) -> set[str]:
    assert h.phase == "announce"
    return {t[len("announce "):] for t in legal(h)}


def layout_tiles(h: Hand) -> set[str]:
    return {f"{a}-{b}" for a, b in h.layout.tiles()}


def fitting(h: Hand, arm: int) -> dict[str, list[int]]:
    """Every tile not on the layout that ``arm`` accepts now, with its outward numbers."""
    on = layout_tiles(h)
    out = {}
    for t in TILES:
        if t in on:
            continue
        outs = h.layout.outs(arm, _tile(t))
        if outs:
            out[t] = sorted(outs)
    return out


def last_event_is_wait(h: Hand, seat: int) -> None:
    ev = h.events[-1]
    assert (ev.seat, ev.action, ev.automatic) == (seat, "wait", True)


# ---------------------------------------------------------------------------
# Section 4 menu, D5, D7: which announcements follow which set tile.

BASES = ("ordinary", "matador")
FIRST_L0 = [f"FIRST(L0,{k})" for k in range(1, 5)]
FIRST_L1 = [f"FIRST(L1,{k})" for k in range(1, 5)]
COND_L0 = ["FHTT(L0)"] + FIRST_L0
COND_L1 = ["FHTT(L1)"] + FIRST_L1


def _game11(conds):
    return {f"{b} {c}{s}" for b in BASES for c in conds for s in ("", " +switch")}


def _volapuk_line(ordinary_arms):
    return {
        f"volapuk ordinary=L{o}" + (f" {c}" if c else "")
        for o in ordinary_arms
        for c in [None] + FIRST_L0 + FIRST_L1
    }


LINE_GAMES = {"ordinary", "matador"}  # games 1 and 4: any set tile
CROSS_ANY_DOUBLE = {  # games 2, 3, 7, 8: any double
    "ordinary cross",
    "ordinary double cross",
    "ordinary cross then matador",
    "ordinary cross then matador double cross",
}
CROSS_NOT_BLANK = {  # games 5, 6, 9, 10: a double, not 0-0
    "matador cross",
    "matador double cross",
    "matador cross then ordinary",
    "matador cross then ordinary double cross",
}
TRIANGLES = {  # games 13-16: 0-0 only
    "triangle",
    "triangle double cross",
    "triangle then ordinary",
    "triangle then ordinary cross",
}
DOUBLE_ONLY_OTHER = {"volapuk cross", "volapuk double cross", "game17 cross", "game17 double cross"}

# A non-double: games 1, 4, 11 (both sides), 12 line (either ordinary arm).
AFTER_NON_DOUBLE = LINE_GAMES | _game11(COND_L0 + COND_L1) | _volapuk_line((0, 1))
# D5: after a double game 11's side is L0 and line volapuk's ordinary arm is L0.
AFTER_DOUBLE = (
    LINE_GAMES | CROSS_ANY_DOUBLE | CROSS_NOT_BLANK | _game11(COND_L0) | _volapuk_line((0,))
    | DOUBLE_ONLY_OTHER
)
# 0-0: no 5, 6, 9, 10; D7: the volapuk cross forms are allowed; 13-16 are.
AFTER_BLANK = (
    LINE_GAMES | CROSS_ANY_DOUBLE | _game11(COND_L0) | _volapuk_line((0,)) | DOUBLE_ONLY_OTHER
    | TRIANGLES
)

NO_DOUBLES = [["0-1", "0-2", "0-3", "0-4"], ["1-2", "1-3", "1-4", "1-5"],
              ["2-3", "2-4", "2-5", "2-6"], ["3-4", "3-5", "3-6", "4-5"]]


def test_menu_sizes_section4():
    # Section 4: 76 distinct announcements; 60 after a non-double, 43 after a double.
    assert len(AFTER_NON_DOUBLE) == 60
    assert len(AFTER_DOUBLE) == 43
    assert len(AFTER_BLANK) == 43
    assert len(AFTER_NON_DOUBLE | AFTER_DOUBLE | AFTER_BLANK) == 76


def test_announcements_after_drawn_non_double_section2_section4():
    # Setter holds no double: draws [1-6], sets it, pays 7 to each (section 2).
    h = make_hand(NO_DOUBLES, top=["1-6"])
    assert legal(h) == {"draw"}
    h.step("draw")
    assert legal(h) == {"set 1-6"}
    h.step("set 1-6")
    assert h.chips == [479, 507, 507, 507]
    assert h.to_move == 0
    got = announcements(h)
    assert len(got) == 60
    assert got == AFTER_NON_DOUBLE
    for bad in ("ordinary cross", "matador cross", "volapuk cross", "game17 cross", "triangle"):
        assert bad not in got


@pytest.mark.parametrize("double", ["5-5", "6-6", "1-1"])
def test_announcements_after_double_from_hand_d5(double):
    hands = [list(h) for h in NO_DOUBLES]
    # Give seat 0 the double in place of 0-4 (put 0-4 nowhere else: it goes to the boneyard).
    hands[0] = [double, "0-1", "0-2", "0-3"]
    h = make_hand(hands)
    assert legal(h) == {f"set {double}"}
    h.step(f"set {double}")
    v = int(double[0])
    assert h.chips == [500 + 3 * v, 500 - v, 500 - v, 500 - v]  # v from each (section 2)
    got = announcements(h)
    assert len(got) == 43
    assert got == AFTER_DOUBLE
    # D5: the condition side is fixed to L0, line volapuk's ordinary arm is L0 ...
    assert "ordinary FHTT(L1)" not in got and "matador FIRST(L1,2) +switch" not in got
    assert "volapuk ordinary=L1" not in got
    # ... but its FIRST condition may still name L1.
    assert "volapuk ordinary=L0 FIRST(L1,2)" in got
    assert not (got & TRIANGLES)  # 13-16 only on 0-0


def test_announcements_after_blank_double_d7():
    hands = [list(h) for h in NO_DOUBLES]
    hands[0] = ["0-0", "0-1", "0-2", "0-3"]
    h = make_hand(hands)
    h.step("set 0-0")
    assert h.chips == [521, 493, 493, 493]  # [0-0] earns 7 from each (section 2)
    got = announcements(h)
    assert len(got) == 43
    assert got == AFTER_BLANK
    assert not (got & CROSS_NOT_BLANK)  # games 5, 6, 9, 10 not on 0-0
    assert {"volapuk cross", "volapuk double cross"} <= got  # D7
    assert TRIANGLES <= got


def test_announcements_after_drawn_blank_double_d19():
    # A setter without a double draws [0-0]: 14 from each (D19); menu as for 0-0.
    h = make_hand(NO_DOUBLES, top=["0-0"])
    h.step("draw")
    h.step("set 0-0")
    assert h.chips == [542, 486, 486, 486]
    assert announcements(h) == AFTER_BLANK


def test_announcements_after_drawn_double():
    h = make_hand(NO_DOUBLES, top=["4-4"])
    h.step("draw")
    h.step("set 4-4")
    assert h.chips == [524, 492, 492, 492]  # a drawn double: 2v from each
    assert announcements(h) == AFTER_DOUBLE


@pytest.mark.parametrize(
    "setter_tiles, top, set_tile, bad",
    [
        (["0-0", "0-1", "0-2", "0-3"], None, "0-0", "matador cross"),
        (["0-0", "0-1", "0-2", "0-3"], None, "0-0", "matador cross then ordinary double cross"),
        (["5-5", "0-1", "0-2", "0-3"], None, "5-5", "triangle"),
        (["5-5", "0-1", "0-2", "0-3"], None, "5-5", "ordinary FHTT(L1) +switch"),
        (["5-5", "0-1", "0-2", "0-3"], None, "5-5", "volapuk ordinary=L1 FIRST(L0,2)"),
        (["0-1", "0-2", "0-3", "0-4"], "5-6", "5-6", "ordinary cross"),
        (["0-1", "0-2", "0-3", "0-4"], "5-6", "5-6", "volapuk double cross"),
        (["0-1", "0-2", "0-3", "0-4"], "5-6", "5-6", "game17 cross"),
    ],
)
def test_illegal_announcements_are_refused_d16(setter_tiles, top, set_tile, bad):
    hands = [list(h) for h in NO_DOUBLES]
    hands[0] = setter_tiles
    h = make_hand(hands, top=[top] if top else [])
    if top:
        h.step("draw")
    h.step(f"set {set_tile}")
    chips = list(h.chips)
    with pytest.raises(IllegalActionError):
        h.step(f"announce {bad}")
    assert h.phase == "announce" and h.to_move == 0 and h.chips == chips


# ---------------------------------------------------------------------------
# Game 1: ordinary line.

def test_game1_ordinary_worked_example_1_section13():
    # Example 1: A draws [2-3] (pays 5 to each), announces ordinary; C places
    # [3-3] at once (3 from A); B plays [2-6]; C waits; D plays on the 6 or the 3.
    h = make_hand(
        [["1-4", "1-5", "0-4", "4-5"], ["2-6", "0-1", "1-3", "4-6"],
         ["3-3", "0-6", "0-5", "5-6"], ["3-4", "6-6", "0-3", "2-5"]],
        top=["2-3"],
    )
    h.step("draw")
    h.step("set 2-3")
    assert h.chips == [485, 505, 505, 505]
    h.step("announce ordinary")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # L0 is the 2 side, L1 the 3 side (section 3). D25: B is asked first, with no
    # fitting double: decline only.
    expect_immediate(h, 1, set())
    h.step("decline")
    expect_immediate(h, 2, {"immediate 3-3 L1 out 3"})
    h.step("immediate 3-3 L1 out 3")
    assert h.chips == [482, 505, 508, 505]
    # C is asked again (nothing left to place); D's [6-6] fits neither 2 nor 3.
    expect_immediate(h, 2, set())
    h.step("decline")
    expect_immediate(h, 3, set())
    h.step("decline")
    # The setter is not asked. Play starts at B.
    expect_turn(h, 1, {"play 2-6 L0 out 6", "play 1-3 L1 out 1"})
    h.step("play 2-6 L0 out 6")
    # C's turn is the automatic wait (section 6); D is next.
    last_event_is_wait(h, 2)
    expect_turn(h, 3, {"play 6-6 L0 out 6", "play 3-4 L1 out 4", "play 0-3 L1 out 0"})
    h.step("play 6-6 L0 out 6")
    # Section 8: a wait came between B's [2-6] and D's [6-6]: nobody pays.
    assert h.chips == [482, 505, 508, 505]
    assert h.to_move == 0


def test_game1_line_on_double_arms_distinct_no_cross_phase_d24():
    h = make_hand(
        [["6-6", "0-1", "0-2", "0-3"], ["3-6", "1-2", "1-3", "2-3"],
         ["3-4", "5-6", "1-4", "2-4"], ["0-4", "0-5", "1-5", "2-5"]]
    )
    h.step("set 6-6")
    assert h.chips == [518, 494, 494, 494]
    h.step("announce ordinary")
    through_forced_windows(h)
    # D24: L0 and L1 of a double are distinct actions.
    expect_turn(h, 1, {"play 3-6 L0 out 3", "play 3-6 L1 out 3"})
    h.step("play 3-6 L0 out 3")
    # A line has no cross phase: L0 may take a second tile while L1 is empty.
    expect_turn(h, 2, {"play 3-4 L0 out 4", "play 5-6 L1 out 5"})


# ---------------------------------------------------------------------------
# Game 2: ordinary cross.

def test_game2_ordinary_cross_phase_forbids_second_tile():
    h = make_hand(
        [["5-5", "4-5", "1-1", "2-4"], ["0-5", "0-1", "3-6", "2-2"],
         ["3-5", "0-2", "1-4", "1-3"], ["5-6", "0-3", "0-6", "1-2"]]
    )
    h.step("set 5-5")
    assert h.chips == [515, 495, 495, 495]
    h.step("announce ordinary cross")
    # Only [5-5] could be an immediate double: every window question is forced (D25).
    through_forced_windows(h)
    expect_turn(h, 1, {"play 0-5 C0 out 0", "play 0-5 C1 out 0", "play 0-5 C2 out 0",
                       "play 0-5 C3 out 0"})  # D24
    h.step("play 0-5 C0 out 0")
    # Cross phase: [0-2] matches C0's 0 but C0 may not take a second tile yet.
    expect_turn(h, 2, {"play 3-5 C1 out 3", "play 3-5 C2 out 3", "play 3-5 C3 out 3"})
    h.step("play 3-5 C1 out 3")
    expect_turn(h, 3, {"play 5-6 C2 out 6", "play 5-6 C3 out 6"})  # not [0-3] on C0/C1
    h.step("play 5-6 C2 out 6")
    expect_turn(h, 0, {"play 4-5 C3 out 4"})
    h.step("play 4-5 C3 out 4")
    # Cross complete: ordinary, any arm, no compulsory tile.
    expect_turn(h, 1, {"play 0-1 C0 out 1", "play 3-6 C1 out 6", "play 3-6 C2 out 3"})
    assert h.chips == [515, 495, 495, 495]


# ---------------------------------------------------------------------------
# Game 3: ordinary double cross (worked example 5).

def test_game3_ordinary_double_cross_worked_example_5():
    h = make_hand(
        [["5-5", "4-5", "1-5", "3-6"], ["0-5", "2-2", "0-1", "4-4"],
         ["2-5", "1-2", "0-3", "3-4"], ["5-6", "6-6", "1-3", "0-4"]]
    )
    h.step("set 5-5")
    h.step("announce ordinary double cross")
    through_forced_windows(h)
    expect_turn(h, 1, {"play 0-5 C0 out 0", "play 0-5 C1 out 0", "play 0-5 C2 out 0",
                       "play 0-5 C3 out 0"})
    h.step("play 0-5 C0 out 0")
    expect_turn(h, 2, {"play 2-5 C1 out 2", "play 2-5 C2 out 2", "play 2-5 C3 out 2"})
    h.step("play 2-5 C1 out 2")
    expect_turn(h, 3, {"play 5-6 C2 out 6", "play 5-6 C3 out 6"})
    h.step("play 5-6 C2 out 6")
    expect_turn(h, 0, {"play 4-5 C3 out 4", "play 1-5 C3 out 1"})
    h.step("play 4-5 C3 out 4")
    # Cross complete: each arm's next tile is the equal double. B's [0-1] fits C0's
    # 0 by number but C0 needs [0-0].
    expect_turn(h, 1, {"play 2-2 C1 out 2", "play 4-4 C3 out 4"})
    # Section 8 aside: [4-4] on A's [4-5] of the preceding turn would earn 4 from A.
    alt = h.copy()
    alt.step("play 4-4 C3 out 4")
    assert alt.chips == [511, 499, 495, 495]
    h.step("play 2-2 C1 out 2")
    # C1 has its compulsory tile and extends at once; [3-4] on C3 is not [4-4].
    expect_turn(h, 2, {"play 1-2 C1 out 1"})
    h.step("play 1-2 C1 out 1")
    expect_turn(h, 3, {"play 6-6 C2 out 6", "play 1-3 C1 out 3"})
    h.step("play 6-6 C2 out 6")
    expect_turn(h, 0, {"play 1-5 C1 out 5", "play 3-6 C2 out 3"})
    h.step("play 1-5 C1 out 5")
    # The example's position: 0 arm only [0-0], 4 arm only [4-4], the arm ending
    # in 5 only [5-3] (the last five), the 6 arm any six.
    assert fitting(h, 0) == {"0-0": [0]}
    assert fitting(h, 1) == {"3-5": [3]}
    assert fitting(h, 2) == {"0-6": [0], "1-6": [1], "2-6": [2], "3-6": [3], "4-6": [4]}
    assert fitting(h, 3) == {"4-4": [4]}
    expect_turn(h, 1, {"play 4-4 C3 out 4"})
    # No double lay on the preceding turn's tile of another player: nobody paid.
    assert h.chips == [515, 495, 495, 495]


# ---------------------------------------------------------------------------
# Game 4: matador line.

def test_game4_matador_line_matching_and_immediate_doubles():
    h = make_hand(
        [["0-1", "1-3", "4-5", "5-6"], ["0-0", "5-5", "2-5", "0-4"],
         ["3-4", "1-5", "2-4", "1-1"], ["6-6", "0-6", "1-2", "3-3"]],
        top=["2-3"],
    )
    h.step("draw")
    h.step("set 2-3")
    assert h.chips == [485, 505, 505, 505]
    h.step("announce matador")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # Section 3: [0-0] is a matador and goes on any open end; [5-5] fits 2 (5+2=7).
    expect_immediate(h, 1, {"immediate 0-0 L0 out 0", "immediate 0-0 L1 out 0",
                            "immediate 5-5 L0 out 5"})
    h.step("immediate 0-0 L1 out 0")
    assert h.chips == [478, 512, 505, 505]  # 7 for [0-0] from the setter
    # D10: B is asked again while a double still fits a free arm.
    expect_immediate(h, 1, {"immediate 5-5 L0 out 5"})
    h.step("decline")
    # C's [1-1] and D's [6-6], [3-3] fit nothing (1+2, 6+2, 3+2 are not 7; L1 is taken):
    # D25 asks them all the same, decline only. Then play: B's first turn is his wait.
    expect_immediate(h, 2, set())
    h.step("decline")
    expect_immediate(h, 3, set())
    h.step("decline")
    last_event_is_wait(h, 1)
    # L0 open 2: a five (out the other number) or a matador either way round;
    # L1 open 0: only a matador.
    expect_turn(h, 2, {"play 3-4 L0 out 3", "play 3-4 L0 out 4", "play 3-4 L1 out 3",
                       "play 3-4 L1 out 4", "play 1-5 L0 out 1"})
    h.step("play 1-5 L0 out 1")
    # L0 open 1 takes sixes and [6-6]; [0-6] is no matador, so not on L1's 0.
    expect_turn(h, 3, {"play 6-6 L0 out 6", "play 0-6 L0 out 0"})
    h.step("play 6-6 L0 out 6")
    assert h.chips == [478, 512, 499, 511]  # section 8: C pays 6 to D
    assert h.to_move == 0


# ---------------------------------------------------------------------------
# Game 5: matador cross.

def test_game5_matador_cross():
    h = make_hand(
        [["4-4", "1-3", "6-6", "0-1"], ["3-3", "4-6", "2-5", "0-2"],
         ["0-0", "3-5", "1-4", "4-5"], ["1-6", "3-6", "0-5", "2-2"]]
    )
    assert legal(h) == {"set 4-4", "set 6-6"}  # his choice of doubles (section 2)
    h.step("set 4-4")
    assert h.chips == [512, 496, 496, 496]
    h.step("announce matador cross")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    expect_immediate(h, 1, {"immediate 3-3 C0 out 3", "immediate 3-3 C1 out 3",
                            "immediate 3-3 C2 out 3", "immediate 3-3 C3 out 3"})
    h.step("immediate 3-3 C0 out 3")
    assert h.chips == [509, 499, 496, 496]
    expect_immediate(h, 1, set())  # D25: asked again; no other double
    h.step("decline")
    expect_immediate(h, 2, {"immediate 0-0 C1 out 0", "immediate 0-0 C2 out 0",
                            "immediate 0-0 C3 out 0"})
    h.step("decline")
    # D's [2-2] does not fit 4 (2+4=6): decline only (D25).
    expect_immediate(h, 3, set())
    h.step("decline")
    # B waits (the cross phase never defers a wait, D11).
    last_event_is_wait(h, 1)
    # C0 (open 3) would take C's [1-4], [4-5] but the cross phase forbids a second tile.
    expect_turn(h, 2, {"play 0-0 C1 out 0", "play 0-0 C2 out 0", "play 0-0 C3 out 0",
                       "play 3-5 C1 out 5", "play 3-5 C2 out 5", "play 3-5 C3 out 5"})
    h.step("play 0-0 C1 out 0")
    assert h.chips == [509, 499, 496, 496]  # after a wait: no payment
    expect_turn(h, 3, {"play 1-6 C2 out 1", "play 1-6 C2 out 6", "play 1-6 C3 out 1",
                       "play 1-6 C3 out 6", "play 3-6 C2 out 6", "play 3-6 C3 out 6"})
    h.step("play 3-6 C2 out 6")
    expect_turn(h, 0, {"play 1-3 C3 out 1"})
    h.step("play 1-3 C3 out 1")
    # Cross complete, matador on every arm: C0 3->4, C1 0->matadors, C2 6->1, C3 1->6.
    expect_turn(h, 1, {"play 4-6 C0 out 6", "play 4-6 C3 out 4",
                       "play 2-5 C0 out 2", "play 2-5 C0 out 5", "play 2-5 C1 out 2",
                       "play 2-5 C1 out 5", "play 2-5 C2 out 2", "play 2-5 C2 out 5",
                       "play 2-5 C3 out 2", "play 2-5 C3 out 5"})


# ---------------------------------------------------------------------------
# Game 6: matador double cross.

def test_game6_matador_double_cross_compulsory_double_or_matador():
    h = make_hand(
        [["6-6", "2-5", "0-6", "4-5"], ["1-3", "4-4", "3-4", "0-4"],
         ["1-4", "3-3", "0-3", "5-6"], ["1-5", "2-6", "0-5", "2-3"]]
    )
    h.step("set 6-6")
    assert h.chips == [518, 494, 494, 494]
    h.step("announce matador double cross")
    # Only [1-1] and [0-0] could go at once on 6; both are in the boneyard.
    through_forced_windows(h)
    expect_turn(h, 1, {f"play 1-3 C{i} out 3" for i in range(4)}
                | {f"play 3-4 C{i} out {o}" for i in range(4) for o in (3, 4)})
    h.step("play 1-3 C0 out 3")
    expect_turn(h, 2, {"play 1-4 C1 out 4", "play 1-4 C2 out 4", "play 1-4 C3 out 4"})
    h.step("play 1-4 C1 out 4")
    expect_turn(h, 3, {"play 1-5 C2 out 5", "play 1-5 C3 out 5"})
    h.step("play 1-5 C2 out 5")
    expect_turn(h, 0, {"play 2-5 C3 out 2", "play 2-5 C3 out 5"})
    h.step("play 2-5 C3 out 2")
    # Compulsory: C0 (3) [4-4] or a matador; C1 (4) [3-3]; C2 (5) [2-2]; C3 (2) [5-5].
    # B's [0-4] matches C0's 3 (4+3=7) but is not the compulsory tile.
    expect_turn(h, 1, {"play 4-4 C0 out 4"}
                | {f"play 3-4 C{i} out {o}" for i in range(4) for o in (3, 4)})
    h.step("play 4-4 C0 out 4")
    # C0 extends at once by matador matching; C1 still wants [3-3] or a matador,
    # so [0-3] goes on C0 only.
    expect_turn(h, 2, {"play 3-3 C0 out 3", "play 3-3 C1 out 3", "play 0-3 C0 out 0"})
    alt = h.copy()
    alt.step("play 3-3 C0 out 3")  # on B's [4-4] of the preceding turn: B pays 3
    assert alt.chips == [518, 491, 497, 494]
    assert h.chips == [518, 494, 494, 494]


def test_game6_dead_matador_arms_section4():
    # Built directly (section 4, "dead"): game 6 on [5-5] with all four matadors
    # and [2-2] on the layout.
    lay = Layout(game_spec(parse_announcement("matador double cross")), (5, 5))
    lay.arms[0] = [Placed((2, 5), 1, 5)]  # open 5: needs [2-2] (on the layout) or a matador
    lay.arms[1] = [Placed((0, 0), 2, 0)]  # open 0: no [7-7], no matador left
    lay.arms[2] = [Placed((1, 6), 3, 6), Placed((1, 1), 0, 1)]  # compulsory done, open 1
    lay.arms[3] = [Placed((3, 4), 1, 4), Placed((3, 3), 2, 3), Placed((4, 5), 3, 5),
                   Placed((2, 2), 0, 2)]  # open 2
    on = {f"{a}-{b}" for a, b in lay.tiles()}
    free = [t for t in TILES if t not in on]
    for t in free:
        assert lay.outs(0, _tile(t)) == []
        assert lay.outs(1, _tile(t)) == []
    assert {t: sorted(lay.outs(2, _tile(t))) for t in free if lay.outs(2, _tile(t))} == {
        "0-6": [0], "2-6": [2], "3-6": [3], "4-6": [4], "5-6": [5], "6-6": [6]}
    assert {t: sorted(lay.outs(3, _tile(t))) for t in free if lay.outs(3, _tile(t))} == {
        "0-5": [0], "1-5": [1], "3-5": [3], "5-6": [6]}
    assert [lay.is_dead(i) for i in range(4)] == [True, True, False, False]


# ---------------------------------------------------------------------------
# Games 7-10: switching games (section 4: the new rule applies from the tile
# after the cross; the compulsory tile already follows the new rule).

def test_game7_ordinary_cross_then_matador():
    h = make_hand(
        [["3-3", "1-3", "4-4", "2-5"], ["3-5", "2-4", "5-6", "0-4"],
         ["3-6", "0-5", "1-2", "4-6"], ["0-3", "1-1", "6-6", "0-2"]]
    )
    h.step("set 3-3")
    assert h.chips == [509, 497, 497, 497]
    h.step("announce ordinary cross then matador")
    through_forced_windows(h)
    expect_turn(h, 1, {f"play 3-5 C{i} out 5" for i in range(4)})
    h.step("play 3-5 C0 out 5")
    expect_turn(h, 2, {"play 3-6 C1 out 6", "play 3-6 C2 out 6", "play 3-6 C3 out 6"})
    h.step("play 3-6 C1 out 6")
    expect_turn(h, 3, {"play 0-3 C2 out 0", "play 0-3 C3 out 0"})
    h.step("play 0-3 C2 out 0")
    # The fourth cross tile is still ordinary: [4-4] (4+3=7) and the matador [2-5] do not fit.
    expect_turn(h, 0, {"play 1-3 C3 out 1"})
    h.step("play 1-3 C3 out 1")
    # Now matador: C0 5->2, C1 6->1, C2 0->matadors only, C3 1->6.
    # B's [5-6] would fit C0 and C1 by ordinary matching; now only C3.
    expect_turn(h, 1, {"play 2-4 C0 out 4", "play 5-6 C3 out 5"})
    h.step("play 2-4 C0 out 4")
    # [0-5] no longer goes on C2's 0.
    expect_turn(h, 2, {"play 1-2 C1 out 2", "play 4-6 C3 out 4"})
    assert h.chips == [509, 497, 497, 497]


def test_game8_ordinary_cross_then_matador_double_cross():
    h = make_hand(
        [["2-2", "2-4", "3-3", "0-1"], ["2-6", "1-1", "6-6", "0-5"],
         ["2-3", "0-0", "5-6", "1-4"], ["0-2", "3-5", "4-6", "1-5"]]
    )
    assert legal(h) == {"set 2-2", "set 3-3"}
    h.step("set 2-2")
    assert h.chips == [506, 498, 498, 498]
    h.step("announce ordinary cross then matador double cross")
    # Ordinary cross on 2: only [2-2] could go at once; C's [0-0] is an ordinary tile.
    through_forced_windows(h)
    expect_turn(h, 1, {f"play 2-6 C{i} out 6" for i in range(4)})
    h.step("play 2-6 C0 out 6")
    expect_turn(h, 2, {"play 2-3 C1 out 3", "play 2-3 C2 out 3", "play 2-3 C3 out 3"})
    h.step("play 2-3 C1 out 3")
    expect_turn(h, 3, {"play 0-2 C2 out 0", "play 0-2 C3 out 0"})
    h.step("play 0-2 C2 out 0")
    expect_turn(h, 0, {"play 2-4 C3 out 4"})  # [3-3] not on C3: still ordinary
    h.step("play 2-4 C3 out 4")
    # The compulsory tile follows the new (matador) rule: C0 open 6 takes [1-1]
    # (or a matador), not [6-6].
    expect_turn(h, 1, {"play 1-1 C0 out 1"})
    h.step("play 1-1 C0 out 1")
    # C0 extends by matador (6 on 1); C's [0-0] is a matador: compulsory on C1
    # (3), C2 (0), C3 (4), and a plain matador on C0.
    expect_turn(h, 2, {"play 5-6 C0 out 5", "play 0-0 C0 out 0", "play 0-0 C1 out 0",
                       "play 0-0 C2 out 0", "play 0-0 C3 out 0"})
    h.step("play 5-6 C0 out 5")
    # C0 open 5 wants a two; C1 [4-4]/matador; C2 matador; C3 [3-3]/matador. D has none.
    expect_turn(h, 3, set())
    assert h.chips == [506, 498, 498, 498]


def test_game9_matador_cross_then_ordinary():
    h = make_hand(
        [["5-5", "2-3", "0-3", "4-5"], ["2-6", "1-6", "3-3", "1-2"],
         ["2-4", "0-1", "1-3", "4-6"], ["3-4", "0-4", "5-6", "0-6"]]
    )
    h.step("set 5-5")
    h.step("announce matador cross then ordinary")
    through_forced_windows(h)
    # Matador cross on 5: twos (out the other number), matadors either way.
    expect_turn(h, 1, {f"play 2-6 C{i} out 6" for i in range(4)}
                | {f"play 1-2 C{i} out 1" for i in range(4)}
                | {f"play 1-6 C{i} out {o}" for i in range(4) for o in (1, 6)})
    h.step("play 2-6 C0 out 6")
    # C's [0-1], [1-3] match C0's 6 (1+6=7) but C0 is full for the cross phase.
    expect_turn(h, 2, {"play 2-4 C1 out 4", "play 2-4 C2 out 4", "play 2-4 C3 out 4"})
    h.step("play 2-4 C1 out 4")
    expect_turn(h, 3, {"play 3-4 C2 out 3", "play 3-4 C2 out 4", "play 3-4 C3 out 3",
                       "play 3-4 C3 out 4"})
    h.step("play 3-4 C2 out 3")
    expect_turn(h, 0, {"play 2-3 C3 out 3"})
    h.step("play 2-3 C3 out 3")
    # Now ordinary: C0 6, C1 4, C2 3, C3 3. The matador [1-6] is an ordinary tile;
    # [1-2] would have fitted C0 by matador matching, not now.
    expect_turn(h, 1, {"play 1-6 C0 out 1", "play 3-3 C2 out 3", "play 3-3 C3 out 3"})
    alt = h.copy()
    alt.step("play 3-3 C3 out 3")  # on A's [2-3] of the preceding turn: A pays 3
    assert alt.chips == [512, 498, 495, 495]
    h.step("play 3-3 C2 out 3")  # on D's [3-4], two turns back: nothing
    assert h.chips == [515, 495, 495, 495]
    expect_turn(h, 2, {"play 4-6 C0 out 4", "play 4-6 C1 out 6", "play 1-3 C2 out 1",
                       "play 1-3 C3 out 1"})


def test_game10_dead_arm_worked_example_8():
    # Example 8: game 10 on [4-4]: an arm begun with [3-3] can never be extended.
    h = make_hand(
        [["4-4", "2-5", "1-3", "2-6"], ["3-3", "0-3", "2-2", "4-6"],
         ["3-5", "5-5", "1-2", "0-6"], ["3-6", "6-6", "0-5", "1-4"]]
    )
    h.step("set 4-4")
    assert h.chips == [512, 496, 496, 496]
    h.step("announce matador cross then ordinary double cross")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # Matador cross on 4: [3-3] (3+4=7) fits; B's [2-2] does not (2+4=6).
    expect_immediate(h, 1, {f"immediate 3-3 C{i} out 3" for i in range(4)})
    h.step("immediate 3-3 C0 out 3")
    assert h.chips == [509, 499, 496, 496]
    # D25: B asked again, then C ([5-5]) and D ([6-6]): nothing fits 4, decline only.
    for seat in (1, 2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    last_event_is_wait(h, 1)  # B's first turn is the wait
    expect_turn(h, 2, {"play 3-5 C1 out 5", "play 3-5 C2 out 5", "play 3-5 C3 out 5"})
    h.step("play 3-5 C1 out 5")
    expect_turn(h, 3, {"play 3-6 C2 out 6", "play 3-6 C3 out 6"})
    h.step("play 3-6 C2 out 6")
    expect_turn(h, 0, {"play 2-5 C3 out 2", "play 2-5 C3 out 5", "play 1-3 C3 out 1"})
    h.step("play 2-5 C3 out 2")
    # Ordinary double cross now: C0 needs [3-3] (on the layout: dead), C1 [5-5],
    # C2 [6-6], C3 [2-2]. B's [0-3] fits C0's 3 by number only.
    assert fitting(h, 0) == {}
    assert h.layout.is_dead(0)
    expect_turn(h, 1, {"play 2-2 C3 out 2"})
    h.step("play 2-2 C3 out 2")
    assert h.chips == [507, 501, 496, 496]  # on A's [2-5] of the preceding turn
    expect_turn(h, 2, {"play 5-5 C1 out 5", "play 1-2 C3 out 1"})


# ---------------------------------------------------------------------------
# Game 11: line with a condition (FHTT, FIRST, SWITCH; D4, D11, D22).

def test_game11_first_worked_example_2_d4_d11():
    # Example 2: A draws [4-2] (6 to each), ordinary FIRST(2 side, 3) = FIRST(L0,3).
    h = make_hand(
        [["4-6", "1-3", "0-1", "5-6"], ["2-6", "0-0", "1-5", "1-4"],
         ["4-4", "3-6", "4-5", "1-2"], ["0-3", "1-6", "0-2", "2-5"]],
        top=["2-4"],
    )
    h.step("draw")
    h.step("set 2-4")
    assert h.chips == [482, 506, 506, 506]
    h.step("announce ordinary FIRST(L0,3)")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # D25: B's [0-0] fits neither the open 2 nor the open 4: decline only.
    expect_immediate(h, 1, set())
    h.step("decline")
    # Side conditions do not stop immediate doubles: [4-4] on the locked L1.
    expect_immediate(h, 2, {"immediate 4-4 L1 out 4"})
    h.step("immediate 4-4 L1 out 4")
    assert h.chips == [478, 506, 510, 506]
    # C asked again, then D (no double): decline only.
    for seat in (2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    # L1 is locked until L0 holds 3: B's [1-4] may not go on the 4.
    expect_turn(h, 1, {"play 2-6 L0 out 6"})
    h.step("play 2-6 L0 out 6")
    # C owes a wait for L1, which is locked: he plays normally (D11).
    expect_turn(h, 2, {"play 3-6 L0 out 3"})
    h.step("play 3-6 L0 out 3")
    expect_turn(h, 3, {"play 0-3 L0 out 0"})
    h.step("play 0-3 L0 out 0")
    # L0 holds 3: the 4 side opens.
    expect_turn(h, 0, {"play 0-1 L0 out 1", "play 4-6 L1 out 6"})
    h.step("play 4-6 L1 out 6")
    expect_turn(h, 1, {"play 0-0 L0 out 0"})
    h.step("play 0-0 L0 out 0")
    # B's [0-0] lies on D's tile, A had the turn before: no payment. Now C waits.
    assert h.chips == [478, 506, 510, 506]
    last_event_is_wait(h, 2)
    assert h.to_move == 3


def test_game11_fhtt_switch_worked_example_6():
    # Example 6: [5-3] drawn (8 to each), ordinary FHTT(5 side) = FHTT(L1), SWITCH.
    h = make_hand(
        [["0-1", "0-2", "1-3", "4-6"], ["2-5", "3-4", "0-3", "1-2"],
         ["3-6", "2-6", "0-4", "1-1"], ["1-4", "4-5", "2-4", "6-6"]],
        top=["3-5"],
    )
    h.step("draw")
    h.step("set 3-5")
    assert h.chips == [476, 508, 508, 508]
    h.step("announce ordinary FHTT(L1) +switch")
    through_forced_windows(h)
    # First tile on the 5 (L1), ordinary; L0 is locked ([0-3], [3-4] excluded).
    expect_turn(h, 1, {"play 2-5 L1 out 2"})
    h.step("play 2-5 L1 out 2")
    # Then the 3 side must answer before L1 takes a second ([2-6] excluded).
    expect_turn(h, 2, {"play 3-6 L0 out 6"})
    h.step("play 3-6 L0 out 6")
    # Fulfilled: both arms now match by matador. L0 open 6 wants a one, L1 open 2 a
    # five. [2-4] on 2 and [6-6] on 6 would be ordinary fits: no longer.
    expect_turn(h, 3, {"play 1-4 L0 out 4", "play 4-5 L1 out 4"})


def test_game11_fhtt_other_side_immediate_double_defers_wait_d11():
    # Ordinary FHTT(L0) on drawn [2-5]; B places [5-5] at once on L1 (locks do not
    # stop it). L1 stays locked until L0 has a tile, so B's wait is deferred (D11).
    h = make_hand(
        [["0-1", "0-3", "1-3", "3-4"], ["5-5", "2-6", "1-5", "0-4"],
         ["5-6", "1-4", "0-2", "2-3"], ["4-6", "0-5", "2-4", "1-1"]],
        top=["2-5"],
    )
    h.step("draw")
    h.step("set 2-5")
    assert h.chips == [479, 507, 507, 507]
    h.step("announce ordinary FHTT(L0)")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    expect_immediate(h, 1, {"immediate 5-5 L1 out 5"})
    h.step("immediate 5-5 L1 out 5")
    assert h.chips == [474, 512, 507, 507]
    # D25: B asked again, C (no double), D ([1-1] fits neither 2 nor 5): decline only.
    for seat in (1, 2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    expect_turn(h, 1, {"play 2-6 L0 out 6"})  # no wait yet; [1-5] on L1 locked
    h.step("play 2-6 L0 out 6")
    expect_turn(h, 2, {"play 5-6 L0 out 5", "play 5-6 L1 out 6"})
    h.step("play 5-6 L1 out 6")
    expect_turn(h, 3, {"play 4-6 L0 out 4", "play 4-6 L1 out 4"})
    h.step("play 4-6 L0 out 4")
    expect_turn(h, 0, {"play 3-4 L0 out 3"})  # fulfilled: L0 takes more freely
    h.step("play 3-4 L0 out 3")
    last_event_is_wait(h, 1)  # B's owed wait, now that L1 is unlocked
    assert h.to_move == 2
    assert h.chips == [474, 512, 507, 507]


def test_game11_matador_fhtt_locks():
    # Matador FHTT(L1) on drawn [1-3]: L0 open 1, L1 open 3.
    h = make_hand(
        [["0-1", "0-4", "1-2", "4-6"], ["3-4", "2-6", "0-6", "1-1"],
         ["5-6", "0-3", "1-5", "2-4"], ["2-3", "0-2", "1-4", "5-5"]],
        top=["1-3"],
    )
    h.step("draw")
    h.step("set 1-3")
    assert h.chips == [488, 504, 504, 504]
    h.step("announce matador FHTT(L1)")
    through_forced_windows(h)
    # L0 locked: B's [2-6], [0-6] (6+1=7) excluded; the matador either way on L1.
    expect_turn(h, 1, {"play 3-4 L1 out 3", "play 3-4 L1 out 4"})
    h.step("play 3-4 L1 out 4")
    # L1 (open 4) locked until L0 has a tile: C's [0-3] excluded.
    expect_turn(h, 2, {"play 5-6 L0 out 5"})
    h.step("play 5-6 L0 out 5")
    # Fulfilled: L0 open 5 wants a two, L1 open 4 a three.
    expect_turn(h, 3, {"play 2-3 L0 out 3", "play 2-3 L1 out 2", "play 0-2 L0 out 0"})


def test_game11_immediate_double_counts_for_first_d4():
    # Matador FIRST(L0,2) on drawn [1-2]: B's [6-6] at once on L0 is L0's first tile (D4).
    h = make_hand(
        [["0-1", "0-2", "2-3", "2-4"], ["6-6", "0-3", "1-4", "2-6"],
         ["1-3", "2-5", "4-6", "0-5"], ["4-5", "0-4", "1-1", "3-6"]],
        top=["1-2"],
    )
    h.step("draw")
    h.step("set 1-2")
    assert h.chips == [491, 503, 503, 503]
    h.step("announce matador FIRST(L0,2)")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    expect_immediate(h, 1, {"immediate 6-6 L0 out 6"})  # 6+1=7; L1's 2 wants [5-5]
    h.step("immediate 6-6 L0 out 6")
    assert h.chips == [485, 509, 503, 503]
    # D25: B asked again, C (no double), D ([1-1]: 1+2 is not 7): decline only.
    for seat in (1, 2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    last_event_is_wait(h, 1)  # L0 is never locked under FIRST(L0,k)
    # L1 locked (L0 holds 1 of 2): C's [0-5] (5+2=7) excluded.
    expect_turn(h, 2, {"play 1-3 L0 out 3", "play 2-5 L0 out 2", "play 2-5 L0 out 5"})
    h.step("play 1-3 L0 out 3")
    # L0 holds 2 (the immediate double counted): L1 is open.
    expect_turn(h, 3, {"play 4-5 L0 out 5", "play 4-5 L1 out 4", "play 0-4 L0 out 0"})


def test_game11_switch_during_immediate_window_d22():
    # Ordinary FIRST(L0,1) +switch on drawn [1-4].
    h = make_hand(
        [["0-2", "0-3", "2-3", "2-5"], ["1-1", "4-4", "0-1", "2-6"],
         ["3-3", "5-6", "0-5", "1-2"], ["4-6", "1-6", "1-3", "0-4"]],
        top=["1-4"],
    )
    h.step("draw")
    h.step("set 1-4")
    assert h.chips == [485, 505, 505, 505]
    h.step("announce ordinary FIRST(L0,1) +switch")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    expect_immediate(h, 1, {"immediate 1-1 L0 out 1", "immediate 4-4 L1 out 4"})
    h.step("immediate 1-1 L0 out 1")
    assert h.chips == [484, 506, 505, 505]
    # D4 + D22: L0 holds 1, the switch is on: L1 (open 4) is matador now. B, asked
    # again (D25), finds his [4-4] no longer fits: decline only.
    expect_immediate(h, 1, set())
    h.step("decline")
    # C's [3-3] does fit (3+4=7).
    expect_immediate(h, 2, {"immediate 3-3 L1 out 3"})
    h.step("immediate 3-3 L1 out 3")
    assert h.chips == [481, 506, 508, 505]
    # C asked again, then D (no double): decline only.
    for seat in (2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    # B and C wait; D plays by matador matching: L0 open 1 wants a six, L1 open 3 a four.
    assert [(e.seat, e.action) for e in h.events[-2:]] == [(1, "wait"), (2, "wait")]
    expect_turn(h, 3, {"play 4-6 L0 out 4", "play 4-6 L1 out 6", "play 0-4 L1 out 0",
                       "play 1-6 L0 out 1", "play 1-6 L0 out 6", "play 1-6 L1 out 1",
                       "play 1-6 L1 out 6"})


# ---------------------------------------------------------------------------
# Game 12: volapuk.

def test_game12_volapuk_line_first_worked_example_7():
    # Example 7: [6-1] drawn (7 to each), ordinary on the 6 (L1), FIRST(L1,3);
    # the 1 side (L0) takes matador matching.
    h = make_hand(
        [["5-6", "2-6", "1-3", "0-2"], ["3-6", "2-5", "0-1", "1-4"],
         ["6-6", "3-4", "0-6", "2-2"], ["4-5", "0-5", "1-2", "0-3"]],
        top=["1-6"],
    )
    h.step("draw")
    h.step("set 1-6")
    assert h.chips == [479, 507, 507, 507]
    h.step("announce volapuk ordinary=L1 FIRST(L1,3)")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles (C holds two)
    # D25: B holds no double: decline only.
    expect_immediate(h, 1, set())
    h.step("decline")
    # [6-6] fits both arms at once: equal to L1's 6 (ordinary), 6+1=7 on L0 (matador);
    # [2-2] fits neither (2+1 is not 7, 2 is not 6).
    expect_immediate(h, 2, {"immediate 6-6 L0 out 6", "immediate 6-6 L1 out 6"})
    h.step("decline")
    expect_immediate(h, 3, set())  # D holds no double
    h.step("decline")
    expect_turn(h, 1, {"play 3-6 L1 out 3"})
    h.step("play 3-6 L1 out 3")
    expect_turn(h, 2, {"play 3-4 L1 out 4"})  # the matador is an ordinary tile on L1
    h.step("play 3-4 L1 out 4")
    expect_turn(h, 3, {"play 4-5 L1 out 5"})
    h.step("play 4-5 L1 out 5")
    # Three on L1: L0 opens, by matador matching on its 1.
    expect_turn(h, 0, {"play 5-6 L1 out 6", "play 5-6 L0 out 5", "play 2-6 L0 out 2"})
    assert h.chips == [479, 507, 507, 507]


def test_game12_volapuk_double_cross():
    # Volapuk double cross on [3-3]: C0/C2 ordinary (3), C1/C3 matador (3 -> 4).
    h = make_hand(
        [["3-3", "0-4", "2-3", "5-5"], ["4-4", "1-1", "1-6", "0-3"],
         ["3-5", "1-4", "0-6", "2-6"], ["1-3", "2-5", "0-5", "6-6"]]
    )
    h.step("set 3-3")
    assert h.chips == [509, 497, 497, 497]
    h.step("announce volapuk double cross")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # B's [1-1] fits no arm (not 3; 1+3 is not 7).
    expect_immediate(h, 1, {"immediate 4-4 C1 out 4", "immediate 4-4 C3 out 4"})
    h.step("immediate 4-4 C1 out 4")
    assert h.chips == [505, 501, 497, 497]
    # D25: B asked again, C (no double), D ([6-6]: not 3, 6+3 is not 7): decline only.
    for seat in (1, 2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    last_event_is_wait(h, 1)
    expect_turn(h, 2, {"play 3-5 C0 out 5", "play 3-5 C2 out 5", "play 1-4 C3 out 1"})
    h.step("play 3-5 C0 out 5")
    expect_turn(h, 3, {"play 1-3 C2 out 1", "play 2-5 C3 out 2", "play 2-5 C3 out 5"})
    h.step("play 1-3 C2 out 1")
    expect_turn(h, 0, {"play 0-4 C3 out 0"})
    h.step("play 0-4 C3 out 0")
    # Compulsory: C0 (ord, 5) [5-5]; C1 (mat, 4) [3-3] (the set tile) or a matador;
    # C2 (ord, 1) [1-1]; C3 (mat, 0) a matador. B's [0-3] (3+4=7) is no compulsory tile.
    expect_turn(h, 1, {"play 1-1 C2 out 1", "play 1-6 C1 out 1", "play 1-6 C1 out 6",
                       "play 1-6 C3 out 1", "play 1-6 C3 out 6"})
    h.step("play 1-1 C2 out 1")
    expect_turn(h, 2, {"play 1-4 C2 out 4"})
    assert h.chips == [505, 501, 497, 497]


def test_game12_volapuk_cross_on_blank_d7():
    # D7: volapuk cross on [0-0]; the matador arms C1/C3 take only matadors.
    h = make_hand(
        [["0-0", "1-3", "4-5", "2-6"], ["0-3", "2-5", "3-3", "1-2"],
         ["0-5", "1-6", "4-4", "2-3"], ["3-4", "0-1", "5-6", "2-4"]]
    )
    h.step("set 0-0")
    h.step("announce volapuk cross")
    through_forced_windows(h)
    expect_turn(h, 1, {"play 0-3 C0 out 3", "play 0-3 C2 out 3", "play 2-5 C1 out 2",
                       "play 2-5 C1 out 5", "play 2-5 C3 out 2", "play 2-5 C3 out 5"})
    h.step("play 2-5 C1 out 2")
    # [0-5] only on the ordinary arms; [1-6] only on the empty matador arm C3.
    expect_turn(h, 2, {"play 0-5 C0 out 5", "play 0-5 C2 out 5", "play 1-6 C3 out 1",
                       "play 1-6 C3 out 6"})
    assert h.chips == [521, 493, 493, 493]


# ---------------------------------------------------------------------------
# Games 13-16: the triangle.

def test_game13_triangle_worked_example_10():
    h = make_hand(
        [["0-0", "2-3", "0-6", "1-4"], ["1-6", "0-2", "3-3", "5-5"],
         ["0-1", "1-1", "2-6", "0-4"], ["3-4", "4-4", "1-5", "0-3"]],
        top=["2-5"],
    )
    h.step("set 0-0")
    h.step("announce triangle")
    through_forced_windows(h)
    # Only [6-1], [5-2], [4-3] on T0..T2, either number outward.
    expect_turn(h, 1, {f"play 1-6 T{i} out {o}" for i in range(3) for o in (1, 6)})
    h.step("play 1-6 T0 out 6")
    # Example 10: a player without one of them must draw ([1-1] fits 6 by matador: not yet).
    expect_turn(h, 2, set())
    h.step("draw")  # [2-5]
    expect_turn(h, 2, {"play 2-5 T1 out 2", "play 2-5 T1 out 5", "play 2-5 T2 out 2",
                       "play 2-5 T2 out 5"})
    h.step("play 2-5 T1 out 5")
    expect_turn(h, 3, {"play 3-4 T2 out 3", "play 3-4 T2 out 4"})
    h.step("play 3-4 T2 out 4")
    # Matador on T0 (6->1), T1 (5->2), T2 (4->3); T3 is not used in game 13.
    expect_turn(h, 0, {"play 2-3 T1 out 3", "play 2-3 T2 out 2", "play 1-4 T0 out 4"})
    assert h.chips == [521, 493, 493, 493]


def test_game14_triangle_double_cross_worked_example_9():
    h = make_hand(
        [["0-0", "1-1", "1-3", "5-6"], ["1-6", "4-4", "2-6", "0-5"],
         ["2-5", "0-1", "2-2", "3-5"], ["3-4", "0-2", "4-6", "1-2"]]
    )
    h.step("set 0-0")
    h.step("announce triangle double cross")
    through_forced_windows(h)
    expect_turn(h, 1, {f"play 1-6 T{i} out {o}" for i in range(3) for o in (1, 6)})
    h.step("play 1-6 T0 out 6")
    expect_turn(h, 2, {"play 2-5 T1 out 2", "play 2-5 T1 out 5", "play 2-5 T2 out 2",
                       "play 2-5 T2 out 5"})
    h.step("play 2-5 T1 out 2")
    expect_turn(h, 3, {"play 3-4 T2 out 3", "play 3-4 T2 out 4"})
    h.step("play 3-4 T2 out 3")
    # Example 9: the arm open on 6 takes only [1-1] (every matador is out);
    # [1-3] (1+6=7) and [5-6] (on T1's 2) are not compulsory tiles.
    assert fitting(h, 0) == {"1-1": [1]}
    assert fitting(h, 1) == {"5-5": [5]}
    assert fitting(h, 2) == {"4-4": [4]}
    assert fitting(h, 3) == {}
    expect_turn(h, 0, {"play 1-1 T0 out 1"})
    h.step("play 1-1 T0 out 1")
    # T0 extends by matador (6 on 1); T2 still wants [4-4]; [0-5] not on T1.
    expect_turn(h, 1, {"play 2-6 T0 out 2", "play 4-4 T2 out 4"})
    assert h.chips == [521, 493, 493, 493]


def test_game15_triangle_then_ordinary():
    h = make_hand(
        [["0-0", "1-2", "4-6", "0-6"], ["1-6", "0-1", "2-2", "5-6"],
         ["2-5", "3-3", "0-3", "1-4"], ["3-4", "2-4", "0-5", "1-1"]]
    )
    h.step("set 0-0")
    h.step("announce triangle then ordinary")
    through_forced_windows(h)
    expect_turn(h, 1, {f"play 1-6 T{i} out {o}" for i in range(3) for o in (1, 6)})
    h.step("play 1-6 T0 out 1")
    expect_turn(h, 2, {"play 2-5 T1 out 2", "play 2-5 T1 out 5", "play 2-5 T2 out 2",
                       "play 2-5 T2 out 5"})
    h.step("play 2-5 T1 out 5")
    expect_turn(h, 3, {"play 3-4 T2 out 3", "play 3-4 T2 out 4"})
    h.step("play 3-4 T2 out 4")
    # Ordinary on T0 (1), T1 (5), T2 (4); no T3, so [0-6] has no place.
    expect_turn(h, 0, {"play 1-2 T0 out 2", "play 4-6 T2 out 6"})


def test_game16_triangle_then_ordinary_cross_t3():
    h = make_hand(
        [["0-0", "0-3", "0-6", "3-6"], ["1-6", "2-6", "3-5", "0-2"],
         ["2-5", "1-1", "0-4", "4-5"], ["3-4", "5-5", "1-3", "2-3"]]
    )
    h.step("set 0-0")
    h.step("announce triangle then ordinary cross")
    through_forced_windows(h)
    # Triangle phase: B's blank-ended [0-2] may not go on T3 yet.
    expect_turn(h, 1, {f"play 1-6 T{i} out {o}" for i in range(3) for o in (1, 6)})
    h.step("play 1-6 T0 out 6")
    expect_turn(h, 2, {"play 2-5 T1 out 2", "play 2-5 T1 out 5", "play 2-5 T2 out 2",
                       "play 2-5 T2 out 5"})
    h.step("play 2-5 T1 out 2")
    expect_turn(h, 3, {"play 3-4 T2 out 3", "play 3-4 T2 out 4"})
    h.step("play 3-4 T2 out 3")
    # T3 takes its blank-ended tile (blank inward) before anything else: A's [3-6]
    # would fit T0's 6 and T2's 3 by ordinary matching, but not yet.
    expect_turn(h, 0, {"play 0-3 T3 out 3", "play 0-6 T3 out 6"})
    h.step("play 0-3 T3 out 3")
    # Ordinary on all four arms: T0 6, T1 2, T2 3, T3 3.
    expect_turn(h, 1, {"play 2-6 T0 out 2", "play 2-6 T1 out 6", "play 3-5 T2 out 5",
                       "play 3-5 T3 out 5", "play 0-2 T1 out 0"})
    assert h.chips == [521, 493, 493, 493]


# ---------------------------------------------------------------------------
# Game 17 (D6): C0 then C2 by matador matching, then C1 and C3 ordinary.

def test_game17_cross_order_d6():
    h = make_hand(
        [["2-2", "1-2", "3-4", "5-6"], ["3-5", "2-6", "1-6", "0-4"],
         ["0-5", "2-3", "4-6", "1-1"], ["2-4", "2-5", "0-3", "6-6"]]
    )
    h.step("set 2-2")
    assert h.chips == [506, 498, 498, 498]
    h.step("announce game17 cross")
    through_forced_windows(h)
    # Only C0 is open: a five (5+2=7) or a matador. B's [2-6] (C1/C3) must wait.
    expect_turn(h, 1, {"play 3-5 C0 out 3", "play 1-6 C0 out 1", "play 1-6 C0 out 6"})
    h.step("play 3-5 C0 out 3")
    # Then C2, by matador matching; C's [4-6] fits C0's 3 but C0 is full for the cross phase.
    expect_turn(h, 2, {"play 0-5 C2 out 0"})
    h.step("play 0-5 C2 out 0")
    # Then C1 and C3, ordinary: the matador [2-5] is an ordinary two here.
    expect_turn(h, 3, {"play 2-4 C1 out 4", "play 2-4 C3 out 4", "play 2-5 C1 out 5",
                       "play 2-5 C3 out 5"})
    h.step("play 2-4 C1 out 4")
    expect_turn(h, 0, {"play 1-2 C3 out 1"})  # [3-4] is an ordinary tile on C3's 2
    h.step("play 1-2 C3 out 1")
    # Cross complete: ordinary everywhere (C0 3, C1 4, C2 0, C3 1).
    expect_turn(h, 1, {"play 1-6 C3 out 6", "play 0-4 C1 out 0", "play 0-4 C2 out 4"})


def test_game17_double_cross_immediate_on_c2_and_dead_arm():
    h = make_hand(
        [["5-5", "1-5", "4-4", "0-6"], ["2-2", "6-6", "0-2", "1-6"],
         ["2-6", "3-4", "5-6", "0-1"], ["4-5", "0-3", "1-4", "3-6"]]
    )
    assert legal(h) == {"set 4-4", "set 5-5"}
    h.step("set 5-5")
    assert h.chips == [515, 495, 495, 495]
    h.step("announce game17 double cross")
    through_forced_windows(h, immediate=False)  # nobody holds 3 doubles
    # Game 17's order does not stop immediate doubles; only matador arms fit [2-2].
    expect_immediate(h, 1, {"immediate 2-2 C0 out 2", "immediate 2-2 C2 out 2"})
    h.step("immediate 2-2 C2 out 2")
    assert h.chips == [513, 497, 495, 495]
    # D25: B asked again ([6-6] fits no arm), then C and D (no double): decline only;
    # the setter is not asked.
    for seat in (1, 2, 3):
        expect_immediate(h, seat, set())
        h.step("decline")
    # C2 holds a tile, so it is not locked: B's wait comes at once (D11).
    last_event_is_wait(h, 1)
    expect_turn(h, 2, {"play 2-6 C0 out 6", "play 3-4 C0 out 3", "play 3-4 C0 out 4"})
    h.step("play 2-6 C0 out 6")
    expect_turn(h, 3, {"play 4-5 C1 out 4", "play 4-5 C3 out 4"})
    h.step("play 4-5 C1 out 4")
    expect_turn(h, 0, {"play 1-5 C3 out 1"})
    h.step("play 1-5 C3 out 1")
    # Compulsory ordinary doubles: C0 [6-6], C1 [4-4], C2 [2-2] (on the layout:
    # dead), C3 [1-1]. B's [1-6] and [0-2] fit by number only.
    assert fitting(h, 2) == {}
    assert h.layout.is_dead(2)
    expect_turn(h, 1, {"play 6-6 C0 out 6"})
    h.step("play 6-6 C0 out 6")
    assert h.chips == [513, 497, 495, 495]  # on C's tile, A's turn between: nothing
    expect_turn(h, 2, {"play 5-6 C0 out 5"})


def test_game17_on_blank_only_matadors_on_c0_d6():
    h = make_hand(
        [["0-0", "1-2", "3-5", "4-6"], ["1-6", "0-3", "0-4", "2-2"],
         ["0-1", "0-2", "5-6", "3-3"], ["0-5", "0-6", "1-3", "2-4"]]
    )
    h.step("set 0-0")
    h.step("announce game17 cross")
    through_forced_windows(h)
    # C0 open 0 by matador matching: only a matador; C1/C3 (where [0-3] would fit) locked.
    expect_turn(h, 1, {"play 1-6 C0 out 1", "play 1-6 C0 out 6"})
