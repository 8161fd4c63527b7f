"""The shared base every game's table picture is drawn on.

A game describes its table as a :class:`Scene`: a list of drawing operations
(rectangles, texts, domino tiles with pips, the viewer's name) in pixel
coordinates, built once from the game state and independent of who looks.
Two painters turn a scene into a picture for one *viewer*:

- :func:`paint` here, with Pillow: the environments' ``rgb_array`` rendering
  and the PNG files of the docs;
- the replay page's JavaScript (``nos_env/view.py``), as SVG, from the
  scene's JSON (:meth:`Scene.to_json`), so a page holds one scene per step
  and still switches between viewers.

A tile held in a hand carries its owner: it is drawn face up only for that
seat and for the omniscient viewer (``None``), face down (no pips) for every
other seat (D17: a seat sees its own tiles and what lies on the table).

Pixels are deterministic for a given Pillow: the text is Pillow's built-in
bitmap font scaled by whole numbers (no anti-aliasing, no font file or
FreeType version involved), and every shape has integer coordinates.

A new game adds ``nos_env/draw/<game>.py`` building its scene from its state,
with the tiles, colours and text helpers here.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, field

import numpy as np
from PIL import Image, ImageDraw, ImageFont

#: The bitmap font's cell: every character is 6 pixels wide and 11 high (scale 1).
CHAR_W, CHAR_H = 6, 11

TABLE = "#2f6b45"  # the felt
TILE_FACE = "#f7f2e2"
TILE_BACK = "#274c77"
TILE_BACK_LINE = "#6c8ebf"
PIP = "#14142b"  # used for pips and the tile's divider only, so a test can count pips
INK = "#1f1f1f"
PAPER = "#eef1f4"
WHITE = "#ffffff"
#: One colour per seat: panels, and the border of every tile the seat placed.
SEAT_COLOURS = ("#d9480f", "#1864ab", "#5c940d", "#9c36b5", "#0c8599")

#: Where the pips of 1..9 sit on a 3 x 3 grid (column, row); larger numbers are written.
PIP_CELLS: dict[int, tuple[tuple[int, int], ...]] = {
    0: (),
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    7: ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)),
    8: ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)),
    9: tuple((c, r) for c in range(3) for r in range(3)),
}
#: A pip's centre on the grid, as a fraction of the half-tile's side (col/row 0, 1, 2).
PIP_GRID = (0.24, 0.5, 0.76)

PUBLIC = -1  # a tile's owner when everyone sees its face (on the table, or a declared double)


def viewer_label(viewer: int | None) -> str:
    return "view: every hand (omniscient)" if viewer is None else f"view: seat {viewer}"


def pip_centres(x0: int, y0: int, side: int, number: int) -> list[tuple[int, int]]:
    """Pixel centres of the pips of ``number`` in the square half-tile at (x0, y0)."""
    return [(x0 + round(PIP_GRID[c] * side), y0 + round(PIP_GRID[r] * side)) for c, r in PIP_CELLS[number]]


def pip_radius(side: int) -> int:
    return max(1, round(side * 0.1))


@dataclass
class Scene:
    """A table as drawing operations; every coordinate an integer, every colour ``#rrggbb``.

    Operations (lists, so they go to JSON as they are):

    - ``["rect", x0, y0, x1, y1, fill, outline, width]`` (fill or outline may be None);
    - ``["text", x, y, text, scale, colour]``: top-left corner, the bitmap font times ``scale``;
    - ``["tile", x0, y0, x1, y1, first, second, outline, width, owner]``: a domino across the
      box, split along its long side; ``first`` is the number in the half at (x0, y0);
      ``owner`` is :data:`PUBLIC` or the seat that alone sees its face;
    - ``["view", x, y, scale, colour]``: the viewer's name (:func:`viewer_label`).
    """

    width: int
    height: int
    background: str = TABLE
    ops: list[list] = field(default_factory=list)

    def rect(self, x0, y0, x1, y1, fill=None, outline=None, width=1) -> None:
        self.ops.append(["rect", int(x0), int(y0), int(x1), int(y1), fill, outline, int(width)])

    def text(self, x, y, text: str, scale: int = 2, colour: str = INK) -> None:
        self.ops.append(["text", int(x), int(y), str(text), int(scale), colour])

    def tile(self, x0, y0, x1, y1, first: int, second: int, outline: str = INK, width: int = 1,
             owner: int = PUBLIC) -> None:
        self.ops.append(["tile", int(x0), int(y0), int(x1), int(y1), int(first), int(second), outline,
                         int(width), int(owner)])

    def view(self, x, y, scale: int = 2, colour: str = INK) -> None:
        self.ops.append(["view", int(x), int(y), int(scale), colour])

    def to_json(self) -> dict:
        return {"width": self.width, "height": self.height, "background": self.background, "ops": self.ops}


def text_width(text: str, scale: int = 2) -> int:
    return len(text) * CHAR_W * scale


def fit_text(text: str, width: int, scale: int = 2) -> str:
    """``text`` cut (with "..") to at most ``width`` pixels."""
    most = width // (CHAR_W * scale)
    return text if len(text) <= most else text[: max(0, most - 2)] + ".."


def face_visible(owner: int, viewer: int | None) -> bool:
    return owner == PUBLIC or viewer is None or owner == viewer


_FONT = None


def _font() -> ImageFont.ImageFont:
    global _FONT
    if _FONT is None:
        _FONT = ImageFont.load_default_imagefont()  # Pillow's bitmap font: same pixels everywhere
    return _FONT


def _text(image: Image.Image, x: int, y: int, text: str, scale: int, colour: str) -> None:
    if not text:
        return
    text = text.encode("latin-1", "replace").decode("latin-1")  # the bitmap font's characters
    mask = Image.new("L", (CHAR_W * len(text), CHAR_H), 0)
    ImageDraw.Draw(mask).text((0, 0), text, font=_font(), fill=255)
    if scale != 1:
        mask = mask.resize((mask.width * scale, mask.height * scale), Image.NEAREST)
    image.paste(colour, (x, y, x + mask.width, y + mask.height), mask.point(lambda v: 255 if v >= 128 else 0))


def _tile(image: Image.Image, draw: ImageDraw.ImageDraw, op: list, viewer: int | None) -> None:
    _, x0, y0, x1, y1, first, second, outline, width, owner = op
    across = (x1 - x0) >= (y1 - y0)  # halves side by side, else one above the other
    if not face_visible(owner, viewer):
        draw.rectangle((x0, y0, x1, y1), fill=TILE_BACK, outline=outline, width=width)
        inset = max(2, min(x1 - x0, y1 - y0) // 4)
        draw.rectangle((x0 + inset, y0 + inset, x1 - inset, y1 - inset), outline=TILE_BACK_LINE, width=1)
        return
    draw.rectangle((x0, y0, x1, y1), fill=TILE_FACE, outline=outline, width=width)
    side = min(x1 - x0, y1 - y0)
    if across:
        mid = (x0 + x1) // 2
        draw.line((mid, y0 + 3, mid, y1 - 3), fill=PIP, width=1)
        halves = ((x0, y0, first), (mid, y0, second))
    else:
        mid = (y0 + y1) // 2
        draw.line((x0 + 3, mid, x1 - 3, mid), fill=PIP, width=1)
        halves = ((x0, y0, first), (x0, mid, second))
    r = pip_radius(side)
    for hx, hy, number in halves:
        if number in PIP_CELLS:
            for cx, cy in pip_centres(hx, hy, side, number):
                draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=PIP)
        else:  # double-nine and beyond: the number written
            label = str(number)
            _text(image, hx + (side - text_width(label, 1)) // 2, hy + (side - CHAR_H) // 2, label, 1, PIP)


def paint(scene: Scene, viewer: int | None) -> Image.Image:
    """The scene as an RGB picture, as ``viewer`` (a seat, or None for every hand) sees it."""
    image = Image.new("RGB", (scene.width, scene.height), scene.background)
    draw = ImageDraw.Draw(image)
    for op in scene.ops:
        kind = op[0]
        if kind == "rect":
            _, x0, y0, x1, y1, fill, outline, width = op
            draw.rectangle((x0, y0, x1, y1), fill=fill, outline=outline, width=width)
        elif kind == "text":
            _text(image, op[1], op[2], op[3], op[4], op[5])
        elif kind == "tile":
            _tile(image, draw, op, viewer)
        elif kind == "view":
            _text(image, op[1], op[2], viewer_label(viewer), op[3], op[4])
        else:
            raise ValueError(f"unknown scene operation {kind!r}; known: rect, text, tile, view")
    return image


def to_array(image: Image.Image) -> np.ndarray:
    """An H x W x 3 uint8 array, as Gymnasium's ``rgb_array`` renderings are."""
    return np.asarray(image.convert("RGB"), dtype=np.uint8).copy()


def png_bytes(image: Image.Image) -> bytes:
    """The picture as PNG bytes (no time stamp or other metadata: same picture, same bytes)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()
