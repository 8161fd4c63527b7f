"""The picture of a Nos table (``render_mode="rgb_array"``, the replay page).

What it shows, from the public state plus the hands (the painter hides every
hand but the viewer's, D17):

- the set tile and the arms of the announced layout (line: L0 west, L1 east;
  cross and triangle: arm 0 west, 1 north, 2 east, 3 south), every tile
  with its pips, inner number against the arm, bordered in its placer's
  colour (thicker for a double placed at once, section 6). Doubles lie
  lengthwise like every other tile (§3: "Doubles are laid lengthwise in the
  arm, never across it"). An arm that reaches the edge of the table turns,
  as a real line of dominoes does;
- each arm's open end marked with its name and open number, and the legend
  below: open number, rule in force, what the arm needs next (the
  observation's ``arm_needs``), locked (D4) or dead;
- the announced game, the phase and who is to move, the boneyard;
- one panel per seat: chips and this hand's payments, the hand (face down
  for other viewers, except doubles declared face up, D9), hand size, on
  set, to move, out (nos), waits owed;
- the last actions with their payments.
"""

from __future__ import annotations

from ..announcements import describe_announcement
from ..layout import Layout
from ..tiles import tile_str
from .base import (INK, PAPER, PUBLIC, SEAT_COLOURS, TABLE, WHITE, Scene, fit_text, paint, text_width,
                   to_array, viewer_label)

WIDTH, HEIGHT = 1400, 840
LINE = 26  # text line height at scale 2
U = 26  # a layout tile is U x 2U
AREA = (10, 100, 870, 612)  # the layout's part of the table (x0, y0, x1, y1)
PANELS_X0, PANELS_X1 = 884, 1390
HAND_TILE = (16, 32)  # a tile in a seat panel: width, height (standing up)
LAST_EVENTS_LINES = 7

#: Outward direction of each arm on the picture (dx, dy; y grows downwards).
ARM_DIRECTIONS = {
    "line": ((-1, 0), (1, 0)),
    "cross": ((-1, 0), (0, -1), (1, 0), (0, 1)),
    "triangle": ((-1, 0), (0, -1), (1, 0), (0, 1)),
}
NEEDS_TEXT = {
    "matching": "a matching tile",
    "cross_tile": "its first tile",
    "compulsory_double": "the compulsory double",
    "double_or_matador": "the compulsory double or a matador",
    "matador": "a matador",
    "blank": "a tile with a blank end",
    "nothing_yet": "nothing yet",
}
OPEN_MARK = "#ffd43b"
LOCKED_MARK = "#adb5bd"
DEAD_MARK = "#fa5252"


def table_picture(hand, viewer: int | None):
    """The table as a Pillow image, as ``viewer`` (a seat, or None: every hand) sees it."""
    return paint(table_scene(hand), viewer)


def table_array(hand, viewer: int | None):
    """The table as an H x W x 3 uint8 array (``render_mode="rgb_array"``)."""
    return to_array(table_picture(hand, viewer))


def table_scene(hand) -> Scene:
    """The scene of ``hand`` (a reference-engine ``Hand``): see the module docstring."""
    scene = Scene(WIDTH, HEIGHT, TABLE)
    _header(scene, hand)
    scene.rect(*AREA, fill=None, outline="#3f7f56", width=1)
    if hand.set_tile is None:
        drawn = " (a tile was drawn to set)" if hand.set_drawn is not None else ""
        message = f"seat {hand.on_set} is on set{drawn}"
        scene.text((AREA[0] + AREA[2] - text_width(message)) // 2, (AREA[1] + AREA[3]) // 2 - 11, message,
                   2, WHITE)
    else:
        _layout(scene, hand)
    _legend(scene, hand)
    _panels(scene, hand)
    _last_events(scene, hand)
    return scene


# ------------------------------------------------------------------ header
def _header(scene: Scene, hand) -> None:
    n = hand.num_players
    if hand.to_move is not None:
        who = f"seat {hand.to_move} to move"
    else:
        who = f"hand over ({hand.end_reason})"
    scene.text(12, 10, f"Nos, {n} players | phase: {hand.phase} | {who}", 2, WHITE)
    scene.view(WIDTH - 12 - text_width(viewer_label(None)), 10, 2, OPEN_MARK)
    a = hand.announcement
    if a is None:
        scene.text(12, 10 + LINE, "No game announced yet", 2, WHITE)
    else:
        scene.text(12, 10 + LINE, fit_text(f"Game {a.game}: {a}", WIDTH - 24), 2, WHITE)
        scene.text(12, 10 + 2 * LINE, fit_text(describe_announcement(a), WIDTH - 24), 2, "#d3f9d8")


# ------------------------------------------------------------------ layout
def _overlaps(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _tile_box(px: int, py: int, d: tuple[int, int]):
    """The U x 2U box of a tile whose inner edge is centred at (px, py), going in direction d."""
    dx, dy = d
    if dx:
        xs = sorted((px, px + 2 * U * dx))
        return (xs[0], py - U // 2, xs[1], py + U // 2)
    ys = sorted((py, py + 2 * U * dy))
    return (px - U // 2, ys[0], px + U // 2, ys[1])


def _inside(box) -> bool:
    return AREA[0] + 4 <= box[0] and box[2] <= AREA[2] - 4 and AREA[1] + 4 <= box[1] and box[3] <= AREA[3] - 4


def arm_paths(layout: Layout, cx: int, cy: int, set_box):
    """Each arm's tiles as (box, direction), walked out from the set tile, and each arm's
    open end ((x, y), direction) where its next tile would go.

    An arm runs straight until the next tile would leave the table or touch another
    tile; it then turns left (the arms of a cross wind the same way, like a pinwheel),
    or right when left is blocked too. Arms advance in turn, one tile each, so every
    arm gets its straight run first.
    """
    dirs = ARM_DIRECTIONS[layout.kind]
    heads = []
    for d in dirs[: len(layout.arms)]:
        dx, dy = d
        heads.append([(cx + dx * U, cy) if dx else (cx, cy + dy * (U // 2)), d])
    occupied = [set_box]
    paths: list[list[tuple[tuple, tuple]]] = [[] for _ in layout.arms]
    longest = max((len(arm) for arm in layout.arms), default=0)
    for k in range(longest):
        for arm, cells in enumerate(layout.arms):
            if k >= len(cells):
                continue
            (px, py), d = heads[arm]
            box = _tile_box(px, py, d)
            if not (_inside(box) and not any(_overlaps(box, o) for o in occupied)) and k > 0:
                for turn in ((d[1], -d[0]), (-d[1], d[0])):  # left, then right (y grows downwards)
                    tx, ty = px - (U // 2) * d[0] + (U // 2) * turn[0], py - (U // 2) * d[1] + (U // 2) * turn[1]
                    turned = _tile_box(tx, ty, turn)
                    if _inside(turned) and not any(_overlaps(turned, o) for o in occupied):
                        px, py, d, box = tx, ty, turn, turned
                        break
            occupied.append(box)
            paths[arm].append((box, d))
            heads[arm] = [(px + 2 * U * d[0], py + 2 * U * d[1]), d]
    return paths, heads


def _layout(scene: Scene, hand) -> None:
    from ..encoding import arm_needs  # the same "needs" the observation reports

    cx, cy = (AREA[0] + AREA[2]) // 2, (AREA[1] + AREA[3]) // 2
    a, b = hand.set_tile
    set_box = (cx - U, cy - U // 2, cx + U, cy + U // 2)
    # A line's L0 is the side of the set tile's lower number (§3): west, so it is written first.
    scene.tile(*set_box, a, b, SEAT_COLOURS[hand.on_set], 3, PUBLIC)
    layout = hand.layout
    if layout is None:
        return
    paths, heads = arm_paths(layout, cx, cy, set_box)
    for arm, cells in enumerate(layout.arms):
        for placed, (box, d) in zip(cells, paths[arm]):
            inner = placed.tile[0] + placed.tile[1] - placed.out
            # "first" is the half at the box's top-left: the inner half going east or south.
            first, second = (inner, placed.out) if d[0] > 0 or d[1] > 0 else (placed.out, inner)
            scene.tile(*box, first, second, SEAT_COLOURS[placed.seat], 4 if placed.immediate else 2, PUBLIC)
    for arm in range(len(layout.arms)):
        (px, py), d = heads[arm]
        label = f"{layout.arm_name(arm)}:{layout.open_end(arm)}"
        w, h = text_width(label, 1) + 6, 15
        # The marker sits just beyond the open end, clamped to the table.
        mx = px + d[0] * (w // 2 + 3) - w // 2
        my = py + d[1] * (h // 2 + 3) - h // 2
        mx = min(max(mx, AREA[0] + 2), AREA[2] - 2 - w)
        my = min(max(my, AREA[1] + 2), AREA[3] - 2 - h)
        # Grey: takes nothing now (a lock, D4, or waiting for the cross or triangle to complete).
        waiting = layout.locked(arm) or arm_needs(hand, arm) == "nothing_yet"
        colour = DEAD_MARK if layout.is_dead(arm) else LOCKED_MARK if waiting else OPEN_MARK
        scene.rect(mx, my, mx + w, my + h, colour, INK, 1)
        scene.text(mx + 3, my + 2, label, 1, INK)


def _legend(scene: Scene, hand) -> None:
    from ..encoding import arm_needs

    y = AREA[3] + 8
    layout = hand.layout
    if layout is not None:
        for arm in range(len(layout.arms)):
            flags = [f"{layout.arm_name(arm)} open {layout.open_end(arm)}", layout.rule_in_force(arm),
                     f"needs {NEEDS_TEXT[arm_needs(hand, arm)]}"]
            if layout.locked(arm):
                flags.append("LOCKED")
            if layout.is_dead(arm):
                flags.append("DEAD")
            scene.text(AREA[0] + 2, y, fit_text(", ".join(flags), AREA[2] - AREA[0]), 2, WHITE)
            y += LINE
    y = max(y, AREA[3] + 8 + 4 * LINE) + 4
    drawable = max(0, len(hand.boneyard) - 2)
    set_from = ""
    if hand.set_tile is not None:
        set_from = f" | set [{tile_str(hand.set_tile)}] by seat {hand.on_set}" + (
            " (drawn)" if hand.set_drawn is not None else "")
    scene.text(AREA[0] + 2, y, f"Boneyard: {len(hand.boneyard)} tiles ({drawable} drawable){set_from}", 2, WHITE)
    if hand.over:
        losers = ", ".join(str(s) for s in hand.losers)
        scene.text(AREA[0] + 2, y + LINE, fit_text(f"Counts {hand.counts}; highest count: seat {losers}",
                                                   AREA[2] - AREA[0]), 2, OPEN_MARK)


# ------------------------------------------------------------------ seats
PANEL_HEIGHT = 100


def panel_box(seat: int) -> tuple[int, int, int, int]:
    """The box of ``seat``'s panel on the picture (x0, y0, x1, y1)."""
    y0 = AREA[1] + seat * (PANEL_HEIGHT + 4)
    return (PANELS_X0, y0, PANELS_X1, y0 + PANEL_HEIGHT)


def hand_box(seat: int) -> tuple[int, int, int, int]:
    """The box holding ``seat``'s tiles on the picture (x0, y0, x1, y1)."""
    x0, y0, x1, _ = panel_box(seat)
    return (x0 + 10, y0 + 10 + 2 * LINE, x1 - 10, y0 + 10 + 2 * LINE + HAND_TILE[1])


def _panels(scene: Scene, hand) -> None:
    n = hand.num_players
    net = [0] * n
    for p in hand.ledger:
        net[p.payer] -= p.amount
        net[p.payee] += p.amount
    for s in range(n):
        y0 = panel_box(s)[1]
        height = PANEL_HEIGHT
        to_move = s == hand.to_move
        scene.rect(PANELS_X0, y0, PANELS_X1, y0 + height, PAPER, SEAT_COLOURS[s], 5 if to_move else 2)
        marks = []
        if s == hand.on_set:
            marks.append("on set")
        if hand.out[s]:
            marks.append("out" + (" (nos)" if hand.nos_seat == s else ""))
        if hand.waits_owed[s]:
            waits = len(hand.waits_owed[s])
            marks.append(f"owes {waits} wait" + ("s" if waits > 1 else ""))
        if hand.declared[s]:
            marks.append("declared")
        size = len(hand.hands[s])
        title = f"seat {s}: {size} tile{'' if size == 1 else 's'}" + (f", {', '.join(marks)}" if marks else "")
        scene.rect(PANELS_X0 + 8, y0 + 9, PANELS_X0 + 22, y0 + 23, SEAT_COLOURS[s], None, 1)
        room = PANELS_X1 - PANELS_X0 - (150 if to_move else 40)  # the TO MOVE tag's place
        scene.text(PANELS_X0 + 30, y0 + 7, fit_text(title, room), 2, INK)
        if to_move:
            scene.rect(PANELS_X1 - 108, y0 + 5, PANELS_X1 - 6, y0 + 29, SEAT_COLOURS[s], None, 1)
            scene.text(PANELS_X1 - 102, y0 + 7, "TO MOVE", 2, WHITE)
        scene.text(PANELS_X0 + 10, y0 + 7 + LINE, f"chips {hand.chips[s]}   this hand {net[s]:+d}", 2, INK)
        x0, ty0, x1, _ = hand_box(s)
        _hand_tiles(scene, hand, s, x0, ty0, x1 - x0)


def _hand_tiles(scene: Scene, hand, seat: int, x: int, y: int, width: int) -> None:
    tiles = sorted(hand.hands[seat])
    face_up = set(hand.public_doubles(seat))  # D9: declared doubles lie face up for everyone
    w, h = HAND_TILE
    step = w + 3 if len(tiles) * (w + 3) <= width else max(4, width // max(1, len(tiles)))
    for k, t in enumerate(tiles):
        owner = PUBLIC if t in face_up else seat
        scene.tile(x + k * step, y, x + k * step + w, y + h, t[0], t[1], INK, 1, owner)


def _last_events(scene: Scene, hand) -> None:
    y = panel_box(4)[3] + 2  # below the fifth seat's panel, whatever the number of players
    scene.text(PANELS_X0, y, "Last actions:", 2, WHITE)
    lines: list[tuple[str, str]] = []
    for e in reversed(hand.events):
        entry = [(f"seat {e.seat}: {e.action}" + (" (auto)" if e.automatic else ""), WHITE)]
        entry += [(f"   {p.payer} pays {p.payee} {p.amount} ({p.reason})", OPEN_MARK) for p in e.payments]
        room = LAST_EVENTS_LINES - len(lines)
        if len(entry) > room:
            if room >= 2:  # the action and what fits of its payments, the rest counted
                more = len(entry) - room + 1
                lines = entry[: room - 1] + [(f"   ... and {more} more payments", OPEN_MARK)] + lines
            break
        lines = entry + lines
    for k, (text, colour) in enumerate(lines):
        scene.text(PANELS_X0, y + (k + 1) * LINE, fit_text(text, PANELS_X1 - PANELS_X0), 2, colour)
