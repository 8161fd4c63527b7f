"""Actions and their text grammar.

Every decision in a hand is an :class:`Action`. Its text form is one line::

    draw                          take the top boneyard tile (set phase or a turn)
    set a-b                       set this tile
    announce <announcement>       e.g. "announce ordinary FIRST(L0,3) +switch" (announcements.py)
    declare | no-declare          declared doubles (section 5, D9)
    immediate d-d ARM out d       a double placed at once on the set tile (section 6)
    decline                       end one's part in the immediate-double window (D10)
    play a-b ARM out N [close]    place a tile; "close" announces a closing (section 9)
    pass

Tiles are written low number first (``2-6``); either order parses. ARM is
``L0``/``L1`` (line), ``C0``..``C3`` (cross) or ``T0``..``T3`` (triangle).
``out N`` is the number left facing outward (D3). The printed form always
carries it; when parsing, it may be left out wherever the position implies
it (``play 2-6 L1``): :meth:`nos_env.engine.Hand.resolve` fills it in.

``format_action(parse_action(s)) == s`` for every printed action, and
``parse_action(format_action(a)) == a`` for every action.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .announcements import Announcement, parse_announcement
from .tiles import Tile, parse_tile, tile_str

KINDS = ("draw", "set", "announce", "declare", "no-declare", "immediate", "decline", "play", "pass")
_SIMPLE = {"draw", "declare", "no-declare", "decline", "pass"}


@dataclass(frozen=True)
class Action:
    kind: str
    tile: Tile | None = None
    arm: str | None = None
    out: int | None = None  # None only in a parsed text that left it implied
    close: bool = False
    announcement: Announcement | None = None

    def __str__(self) -> str:
        return format_action(self)


def format_action(action: Action) -> str:
    kind = action.kind
    if kind in _SIMPLE:
        return kind
    if kind == "set":
        return f"set {tile_str(action.tile)}"
    if kind == "announce":
        return f"announce {action.announcement}"
    text = f"{kind} {tile_str(action.tile)} {action.arm}"
    if action.out is not None:
        text += f" out {action.out}"
    if action.close:
        text += " close"
    return text


_PLACE = re.compile(
    r"^(?P<kind>play|immediate)\s+(?P<tile>\S+)\s+(?P<arm>[LCT][0-3])"
    r"(?:\s+out\s+(?P<out>[0-6]))?(?P<close>\s+close)?$"
)


def parse_action(text: str) -> Action:
    """Parse one action's text form; raises ``ValueError`` naming the problem."""
    if not isinstance(text, str):
        raise TypeError(f"an action text must be a str, got {type(text).__name__}")
    s = " ".join(text.strip().split())
    word = s.split(" ", 1)[0] if s else ""
    if s in _SIMPLE:
        return Action(s)
    if word == "set":
        return Action("set", tile=parse_tile(s[4:]))
    if word == "announce":
        return Action("announce", announcement=parse_announcement(s[9:]))
    m = _PLACE.match(s)
    if m:
        if m["kind"] == "immediate" and m["close"]:
            raise ValueError(f"an immediate double cannot close: {text!r}")
        return Action(
            m["kind"],
            tile=parse_tile(m["tile"]),
            arm=m["arm"],
            out=int(m["out"]) if m["out"] is not None else None,
            close=bool(m["close"]),
        )
    raise ValueError(
        f"unknown action {text!r}; the forms are: draw | set a-b | announce <game> | declare | "
        "no-declare | immediate d-d ARM out d | decline | play a-b ARM out N [close] | pass"
    )
