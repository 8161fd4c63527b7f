"""The picture of a family table (``render_mode="rgb_array"`` of every family game).

Drawn from a :class:`nos_env.family_view.TableView` on the shared scene of
``base.py``, so the painter hides every tile the viewer may not see (F24):

- the header: the game, the hand, the match target, who is to move or who won;
- the layout: the set tile, then one strip per arm from its root outwards (line
  games L0 and L1, Cross's C0..C3, later spinners' arms with the double they grow
  from), every tile with its pips, inner number first, bordered in its placer's
  colour; doubles stand across the line as they lie on a table. The strip ends in
  the arm's open number (yellow: a tile may be played there now; grey: not yet);
- one panel per seat: score, hand (face up for the viewer, face down for the
  others), hand size, to move, team;
- the boneyard face down (face up only in the omniscient view), and the last actions.
"""

from __future__ import annotations

from .base import (INK, PAPER, SEAT_COLOURS, TABLE, WHITE, Scene, fit_text, paint, text_width, to_array)

WIDTH, HEIGHT = 1280, 800
AREA = (10, 96, 870, 600)  # the layout's part of the table (x0, y0, x1, y1)
PANELS_X0, PANELS_X1 = 884, 1270
LABEL_W = 150  # the strip's name and root, left of its tiles
OPEN_MARK = "#ffd43b"
CLOSED_MARK = "#adb5bd"
#: The owner given to boneyard tiles (and Blind's rows): no seat sees them, only the omniscient viewer.
NOBODY = 99
#: Double-Nine Cross seats up to eight: the shared five colours and three more.
COLOURS = SEAT_COLOURS + ("#e67700", "#495057", "#c2255c")


def table_picture(view, viewer: int | None):
    """The table as a Pillow image, as ``viewer`` (a seat, or None: every tile) sees it."""
    return paint(table_scene(view), viewer)


def table_array(view, viewer: int | None):
    """The table as an H x W x 3 uint8 array (``render_mode="rgb_array"``)."""
    return to_array(table_picture(view, viewer))


def table_scene(view) -> Scene:
    from ..family_view import status_line

    scene = Scene(WIDTH, HEIGHT, TABLE)
    scene.text(12, 10, fit_text(status_line(view), WIDTH - 24, 2), 2, WHITE)
    scene.view(12, 40, 2, WHITE)
    target = "a single hand" if view.target is None else f"first to {view.target}"
    bone = "" if view.game == "blind" else \
        f"  Boneyard: {len(view.boneyard)} tiles ({view.boneyard_drawable} drawable)"
    scene.text(12, 66, f"Scores count toward {target}.{bone}", 1, WHITE)
    scene.text(12, 80, fit_text("  ".join(view.notes), WIDTH - 24, 1), 1, "#ffe8a1")
    scene.rect(*AREA, fill=None, outline="#3f7f56", width=1)
    _layout(scene, view)
    _panels(scene, view)
    _boneyard_and_actions(scene, view)
    return scene


def _tile_size(view) -> int:
    """The half-tile side U: as large as lets every strip fit the layout area."""
    for u in (24, 20, 16, 13, 10):
        per_line = max(1, (AREA[2] - AREA[0] - LABEL_W - 40) // (2 * u + 4))
        lines = 1 + sum(max(1, -(-len(arm.tiles) // per_line)) for arm in view.arms)
        if lines * (2 * u + 12) <= AREA[3] - AREA[1] - 10:
            return u
    return 10


def _draw_tile(scene: Scene, x: int, y: int, u: int, first: int, second: int, outline: str, width: int,
               owner: int, standing: bool) -> int:
    """A tile with its left or top edge at x, centred on the row at y; returns its width."""
    if standing:
        scene.tile(x, y - u, x + u, y + u, first, second, outline, width, owner)
        return u
    scene.tile(x, y - u // 2, x + 2 * u, y + u // 2, first, second, outline, width, owner)
    return 2 * u


def _layout(scene: Scene, view) -> None:
    x0, y0, x1, _ = AREA
    if view.set_tile is None:
        message = "no tile set yet" + ("" if view.setter is None else f": seat {view.setter} sets")
        scene.text((x0 + x1 - text_width(message)) // 2, y0 + 30, message, 2, WHITE)
        return
    u = _tile_size(view)
    row_h = 2 * u + 12
    y = y0 + 8 + u
    a, b = view.tiles[view.set_tile]
    scene.text(x0 + 8, y - 5, f"set by seat {view.setter}", 1, WHITE)
    colour = COLOURS[view.setter % len(COLOURS)] if view.setter is not None else INK
    _draw_tile(scene, x0 + LABEL_W, y, u, a, b, colour, 2, -1, standing=a == b)
    per_line = max(1, (x1 - x0 - LABEL_W - 40) // (2 * u + 4))
    for arm in view.arms:
        y += row_h
        scene.text(x0 + 8, y - 10, fit_text(arm.name, LABEL_W - 12, 2), 2, WHITE)
        scene.text(x0 + 8, y + 8, fit_text(f"from {arm.root}", LABEL_W - 12, 1), 1, "#cfe3d6")
        x = x0 + LABEL_W
        for k, placed in enumerate(arm.tiles):
            if k and k % per_line == 0:
                y += row_h
                x = x0 + LABEL_W
            colour = COLOURS[placed.placer % len(COLOURS)]
            x += _draw_tile(scene, x, y, u, placed.inner, placed.outer, colour, 2, -1, standing=placed.double) + 4
        mark = OPEN_MARK if arm.playable else CLOSED_MARK
        label = "-" if arm.open is None else str(arm.open)
        scene.rect(x + 2, y - 11, x + 28, y + 11, fill=mark, outline=INK, width=1)
        scene.text(x + 15 - text_width(label, 2) // 2, y - 10, label, 2, INK)


def _panels(scene: Scene, view) -> None:
    n = view.num_players
    top, bottom = AREA[1], 690
    height = (bottom - top) // n
    for s in range(n):
        y0 = top + s * height
        y1 = y0 + height - 6
        colour = COLOURS[s % len(COLOURS)]
        moving = s == view.to_move and not view.done
        scene.rect(PANELS_X0, y0, PANELS_X1, y1, fill=PAPER, outline=colour, width=4 if moving else 2)
        scene.text(PANELS_X0 + 8, y0 + 6, f"seat {s}  score {view.scores[s]}", 2, colour)
        marks = [f"{len(view.hands[s])} tile{'s' if len(view.hands[s]) != 1 else ''}"]
        if view.teams:
            marks.append(f"team {'AB'[s % 2]}")
        if moving:
            marks.append("to move")
        scene.text(PANELS_X1 - 8 - text_width(", ".join(marks), 1), y0 + 12, ", ".join(marks), 1, INK)
        held = len(view.hands[s])
        u = 16 if held <= 9 and height >= 90 else 12 if held <= 14 else 8
        x, y = PANELS_X0 + 8, y0 + 30 + u
        for t in (sorted(view.hands[s]) if view.own_tiles_visible else view.hands[s]):
            if x + u > PANELS_X1 - 6:
                x, y = PANELS_X0 + 8, y + 2 * u + 4
                if y + u > y1:
                    break
            a, b = view.tiles[t]
            owner = s if view.own_tiles_visible else NOBODY  # Blind: nobody sees his own row (BD3)
            x += _draw_tile(scene, x, y, u, a, b, INK, 1, owner, standing=True) + 3


def _boneyard_and_actions(scene: Scene, view) -> None:
    x, y = 12, 612
    if view.game != "blind":
        scene.text(x, y, "Boneyard (top first):", 1, WHITE)
    x = 12 + text_width("Boneyard (top first): ", 1)
    u = 9
    for t in view.boneyard:
        if x + u > AREA[2]:
            break
        a, b = view.tiles[t]
        x += _draw_tile(scene, x, y + 5, u, a, b, INK, 1, NOBODY, standing=True) + 2
    y = 640
    scene.text(12, y, "Last actions:", 2, WHITE)
    for k, line in enumerate(view.last_actions[-6:]):
        scene.text(12, y + 24 + k * 22, fit_text(line, AREA[2] - 24, 2), 2, WHITE)
