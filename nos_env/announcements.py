"""The 17 games and the 76 announcements (docs/rules/nos.md §4).

An :class:`Announcement` is one item of the menu: a game id 1..17 with its
parameters. :data:`ALL_ANNOUNCEMENTS` lists the 76 of them in a fixed order;
an announcement's position in it is its index everywhere in the project.

:func:`game_spec` compiles an announcement into a :class:`GameSpec`, the
per-arm matching rules that the layout code (``layout.py``) applies.

Text forms (used by the action grammar, ``actions.py``)::

    1  ordinary                        10 matador cross then ordinary double cross
    2  ordinary cross                  11 <ordinary|matador> FHTT(Ls) [+switch]
    3  ordinary double cross              <ordinary|matador> FIRST(Ls,k) [+switch]
    4  matador                         12 volapuk ordinary=Ls [FIRST(Lt,k)]
    5  matador cross                      volapuk cross | volapuk double cross
    6  matador double cross            13 triangle
    7  ordinary cross then matador     14 triangle double cross
    8  ordinary cross then matador double cross
    9  matador cross then ordinary     15 triangle then ordinary
                                       16 triangle then ordinary cross
                                       17 game17 cross | game17 double cross
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .tiles import Tile, is_double

ORDINARY = "ordinary"
MATADOR = "matador"
RULES = (ORDINARY, MATADOR)


def other_rule(rule: str) -> str:
    return MATADOR if rule == ORDINARY else ORDINARY


@dataclass(frozen=True)
class Condition:
    """Game 11/12 side condition on a line.

    ``kind`` is ``"FHTT"`` ("first here then there", on arm ``side``) or
    ``"FIRST"`` (``k`` tiles on ``side`` before any on the other arm).
    """

    kind: str
    side: int  # 0 for L0, 1 for L1
    k: int = 0

    def __str__(self) -> str:
        if self.kind == "FHTT":
            return f"FHTT(L{self.side})"
        return f"FIRST(L{self.side},{self.k})"


@dataclass(frozen=True)
class Announcement:
    game: int
    base: str | None = None  # game 11: the rule before any switch
    condition: Condition | None = None  # games 11 and 12 (line)
    switch: bool = False  # game 11
    ordinary_arm: int | None = None  # game 12 line: which of L0/L1 is ordinary
    form: str | None = None  # games 12 and 17: "line", "cross" or "double cross"

    def __str__(self) -> str:
        return announcement_text(self)

    @property
    def index(self) -> int:
        return ANNOUNCEMENT_INDEX[self]


_FIXED_TEXT = {
    1: "ordinary",
    2: "ordinary cross",
    3: "ordinary double cross",
    4: "matador",
    5: "matador cross",
    6: "matador double cross",
    7: "ordinary cross then matador",
    8: "ordinary cross then matador double cross",
    9: "matador cross then ordinary",
    10: "matador cross then ordinary double cross",
    13: "triangle",
    14: "triangle double cross",
    15: "triangle then ordinary",
    16: "triangle then ordinary cross",
}
#: A short name for each of the 17 games.
GAME_NAMES: dict[int, str] = {
    **_FIXED_TEXT,
    11: "line with a condition",
    12: "volapuk",
    17: "matador FHTT, then ordinary (double) cross",
}


def announcement_text(a: Announcement) -> str:
    if a.game in _FIXED_TEXT:
        return _FIXED_TEXT[a.game]
    if a.game == 11:
        return f"{a.base} {a.condition}" + (" +switch" if a.switch else "")
    if a.game == 12:
        if a.form != "line":
            return f"volapuk {a.form}"
        text = f"volapuk ordinary=L{a.ordinary_arm}"
        return text + (f" {a.condition}" if a.condition else "")
    return f"game17 {a.form}"


def _build_menu() -> tuple[Announcement, ...]:
    menu: list[Announcement] = [Announcement(g) for g in range(1, 11)]
    conditions = [Condition("FHTT", s) for s in (0, 1)] + [
        Condition("FIRST", s, k) for s in (0, 1) for k in range(1, 5)
    ]
    for base in RULES:
        for cond in conditions:
            for switch in (False, True):
                menu.append(Announcement(11, base=base, condition=cond, switch=switch))
    for ordinary_arm in (0, 1):
        for cond in [None] + [Condition("FIRST", s, k) for s in (0, 1) for k in range(1, 5)]:
            menu.append(Announcement(12, condition=cond, ordinary_arm=ordinary_arm, form="line"))
    menu.append(Announcement(12, form="cross"))
    menu.append(Announcement(12, form="double cross"))
    menu.extend(Announcement(g) for g in (13, 14, 15, 16))
    menu.append(Announcement(17, form="cross"))
    menu.append(Announcement(17, form="double cross"))
    return tuple(menu)


ALL_ANNOUNCEMENTS: tuple[Announcement, ...] = _build_menu()
NUM_ANNOUNCEMENTS = len(ALL_ANNOUNCEMENTS)
ANNOUNCEMENT_INDEX: dict[Announcement, int] = {a: i for i, a in enumerate(ALL_ANNOUNCEMENTS)}
_BY_TEXT: dict[str, Announcement] = {announcement_text(a): a for a in ALL_ANNOUNCEMENTS}
assert NUM_ANNOUNCEMENTS == 76 and len(_BY_TEXT) == 76


def parse_announcement(text: str) -> Announcement:
    """Parse an announcement's text form (whitespace-insensitive, ``volapük`` accepted)."""
    norm = re.sub(r"\s+", " ", text.strip()).replace("volapük", "volapuk")
    norm = re.sub(r"\s*,\s*", ",", norm)
    norm = re.sub(r"\(\s*", "(", norm)
    norm = re.sub(r"\s*\)", ")", norm)
    try:
        return _BY_TEXT[norm]
    except KeyError:
        raise ValueError(
            f"unknown announcement {text!r}; examples: 'ordinary', 'matador cross', "
            "'ordinary FIRST(L0,3) +switch', 'volapuk ordinary=L1 FIRST(L1,2)', "
            "'triangle double cross', 'game17 cross' (see nos_env.announcements)"
        ) from None


def is_legal_for_set_tile(a: Announcement, set_tile: Tile) -> bool:
    """Whether ``a`` may be announced after ``set_tile`` (section 4 table, D5, D7)."""
    double = is_double(set_tile)
    blank = set_tile == (0, 0)
    g = a.game
    if g in (1, 4):
        return True
    if g in (2, 3, 7, 8):
        return double
    if g in (5, 6, 9, 10):
        return double and not blank
    if g == 11:
        # D5: after a double the condition side is fixed to L0.
        return not double or a.condition.side == 0
    if g == 12:
        if a.form == "line":
            # D5: after a double the ordinary arm is L0 (FIRST may still name L0 or L1).
            return not double or a.ordinary_arm == 0
        return double  # D7: the cross forms may be set on [0-0] too.
    if g in (13, 14, 15, 16):
        return blank
    return double  # game 17


def legal_announcements(set_tile: Tile) -> list[Announcement]:
    return [a for a in ALL_ANNOUNCEMENTS if is_legal_for_set_tile(a, set_tile)]


# --------------------------------------------------------------------------
# Compiled per-arm rules


@dataclass(frozen=True)
class GameSpec:
    """What the layout code needs to know about the announced game.

    ``opening`` gives each arm's matching rule before the game's change
    point, ``later`` after it. The change point is the end of the cross
    phase (cross games), the end of the triangle phase (triangle games) or
    the fulfilment of a SWITCH condition (game 11). Where nothing changes,
    the two are equal.
    """

    layout: str  # "line", "cross" or "triangle"
    opening: tuple[str, ...]
    later: tuple[str, ...]
    compulsory: bool = False  # double-cross games: compulsory tile after the cross
    condition: Condition | None = None
    switch: bool = False
    order17: bool = False  # game 17: C0, then C2, then C1 and C3
    t3: bool = False  # game 16: a blank-ended tile on T3 after the triangle


O, M = ORDINARY, MATADOR

_CROSS_GAMES = {
    # game: (cross-phase rule, rule after the cross, compulsory tile)
    2: (O, O, False),
    3: (O, O, True),
    5: (M, M, False),
    6: (M, M, True),
    7: (O, M, False),
    8: (O, M, True),
    9: (M, O, False),
    10: (M, O, True),
}


def game_spec(a: Announcement) -> GameSpec:
    g = a.game
    if g == 1:
        return GameSpec("line", (O, O), (O, O))
    if g == 4:
        return GameSpec("line", (M, M), (M, M))
    if g in _CROSS_GAMES:
        first, then, compulsory = _CROSS_GAMES[g]
        return GameSpec("cross", (first,) * 4, (then,) * 4, compulsory)
    if g == 11:
        after = other_rule(a.base) if a.switch else a.base
        return GameSpec("line", (a.base,) * 2, (after,) * 2, condition=a.condition, switch=a.switch)
    if g == 12:
        if a.form == "line":
            rules = (O, M) if a.ordinary_arm == 0 else (M, O)
            return GameSpec("line", rules, rules, condition=a.condition)
        # Volapük cross: C0 and C2 ordinary, C1 and C3 matador, from the cross tiles on.
        rules = (O, M, O, M)
        return GameSpec("cross", rules, rules, compulsory=a.form == "double cross")
    if g in (13, 14, 15, 16):
        later = M if g in (13, 14) else O
        return GameSpec(
            "triangle", (M,) * 4, (later,) * 4, compulsory=g == 14, t3=g == 16
        )
    # Game 17 (D6): C0 then C2 by matador matching, C1 and C3 ordinary; then ordinary.
    return GameSpec(
        "cross", (M, O, M, O), (O,) * 4, compulsory=a.form == "double cross", order17=True
    )


def describe_announcement(a: Announcement) -> str:
    """The announced game in words, for people (rendering, reports)."""
    g = a.game
    if g == 11:
        cond = a.condition
        if cond.kind == "FHTT":
            how = f"first a tile on L{cond.side}, then on L{1 - cond.side}"
        else:
            how = f"{cond.k} tile{'s' if cond.k > 1 else ''} on L{cond.side} before any on L{1 - cond.side}"
        text = f"{a.base} line, {how}"
        return text + (f"; then both arms {other_rule(a.base)}" if a.switch else "")
    if g == 12:
        if a.form != "line":
            return f"volapuk {a.form}: C0 and C2 ordinary, C1 and C3 matador"
        text = f"volapuk: L{a.ordinary_arm} ordinary, L{1 - a.ordinary_arm} matador"
        cond = a.condition
        if cond is not None:
            text += f"; {cond.k} tile{'s' if cond.k > 1 else ''} on L{cond.side} before any on L{1 - cond.side}"
        return text
    if g == 16:
        return "triangle, then a blank on T3, then ordinary cross"
    if g == 17:
        return f"matador first on C0 then C2, then ordinary on C1 and C3; then ordinary {a.form}"
    return GAME_NAMES[g]
