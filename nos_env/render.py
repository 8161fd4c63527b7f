"""A text picture of a hand, for people: the environment's ``ansi``/``human`` modes.

``viewer`` is the seat whose tiles are shown; ``None`` shows every hand
(omniscient mode, for debugging and teaching only: agents must never see it).
The environments' ``render_viewer`` option is checked by :func:`check_viewer`
here for the text and the pictures alike (``nos_env/draw/``).
"""

from __future__ import annotations

from .announcements import describe_announcement
from .options import is_integer
from .tiles import tile_str

LAST_EVENTS = 8
#: The ``render_viewer`` value that shows every hand.
OMNISCIENT = "omniscient"
#: The viewer when none is named: a fixed seat, never "whoever is to move" (a person watching
#: would otherwise see every hand in turn, D17).
DEFAULT_VIEWER = 0


def check_viewer(viewer: object, num_players: int) -> int | None:
    """A ``render_viewer`` value as a seat, or None for ``"omniscient"``; a clear error otherwise."""
    if isinstance(viewer, str) and viewer == OMNISCIENT:
        return None
    if not is_integer(viewer) or not 0 <= int(viewer) < num_players:
        raise ValueError(f"render_viewer must be a seat 0..{num_players - 1} (an integer) or {OMNISCIENT!r}, "
                         f"got {viewer!r}")
    return int(viewer)


def _arm_picture(placed_tiles) -> str:
    # Each tile written inner number first, outward number last: 2|6 then 6|3.
    return "  ".join(f"{p.tile[0] + p.tile[1] - p.out}|{p.out}" + ("*" if p.immediate else "")
                     for p in placed_tiles)


def render_text(hand, viewer: int | None = None) -> str:
    from .encoding import arm_needs  # the same "needs" the observation reports

    n = hand.num_players
    lines = []
    who = f"seat {hand.to_move} to move" if hand.to_move is not None else f"hand over ({hand.end_reason})"
    lines.append(f"Nos, {n} players | phase: {hand.phase} | {who}")
    if hand.announcement is not None:
        a = hand.announcement
        lines.append(f"Game {a.game}: {a}  ({describe_announcement(a)})")
    if hand.set_tile is not None:
        how = "drawn" if hand.set_drawn is not None else "from the hand"
        lines.append(f"Set tile [{tile_str(hand.set_tile)}] by seat {hand.on_set} ({how})")
    elif hand.set_drawn is not None:
        lines.append(f"Seat {hand.on_set} drew a tile to set")
    layout = hand.layout
    if layout is not None:
        lines.append("Layout (inner|outer, * = placed at once):")
        for arm in range(len(layout.arms)):
            flags = [layout.rule_in_force(arm), f"needs {arm_needs(hand, arm).replace('_', ' ')}"]
            if layout.locked(arm):
                flags.append("LOCKED")
            if layout.is_dead(arm):
                flags.append("DEAD")
            lines.append(f"  {layout.arm_name(arm)} open {layout.open_end(arm)} ({', '.join(flags)}): "
                         f"{_arm_picture(layout.arms[arm]) or '-'}")
    drawable = max(0, len(hand.boneyard) - 2)
    lines.append(f"Boneyard: {len(hand.boneyard)} tiles ({drawable} drawable)")
    net = [0] * n
    for p in hand.ledger:
        net[p.payer] -= p.amount
        net[p.payee] += p.amount
    lines.append("Seats:")
    for s in range(n):
        marks = []
        if s == hand.on_set:
            marks.append("on set")
        if s == hand.to_move:
            marks.append("to move")
        if hand.out[s]:
            marks.append("out" + (" (nos)" if hand.nos_seat == s else ""))
        if hand.waits_owed[s]:
            marks.append(f"owes {len(hand.waits_owed[s])} wait(s)")
        face_up = hand.public_doubles(s)
        if face_up:
            marks.append("face up: " + " ".join(tile_str(t) for t in face_up))
        if viewer is None or viewer == s:
            tiles = " ".join(tile_str(t) for t in sorted(hand.hands[s])) or "-"
        else:
            tiles = f"{len(hand.hands[s])} tiles"
        lines.append(f"  seat {s}: chips {hand.chips[s]:6d} ({net[s]:+d} this hand)  [{tiles}]"
                     + (f"  {', '.join(marks)}" if marks else ""))
    if hand.events:
        lines.append("Last actions:")
        for e in hand.events[-LAST_EVENTS:]:
            pays = "; ".join(f"{p.payer}->{p.payee} {p.amount} {p.reason}" for p in e.payments)
            auto = " (automatic)" if e.automatic else ""
            lines.append(f"  seat {e.seat}: {e.action}{auto}" + (f"   [{pays}]" if pays else ""))
    if hand.over:
        lines.append(f"Counts: {hand.counts}; loser(s): {hand.losers}")
    return "\n".join(lines)
