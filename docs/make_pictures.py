"""Draw the pictures of docs/watching.md from a golden hand record (the code's own drawing).

    python docs/make_pictures.py            # rewrites docs/pictures/*.png
    python docs/make_pictures.py --out DIR  # writes them elsewhere (the tests compare)

Run it after a change to nos_env/draw/: tests/test_draw.py fails while the committed pictures
differ from what the code draws.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a clone without installing

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

from nos_env.draw.base import png_bytes  # noqa: E402
from nos_env.draw.nos import table_picture  # noqa: E402
from nos_env.record import load, start_from_record  # noqa: E402

#: picture name -> (golden record, decisions taken, viewer: a seat or None for every hand)
PICTURES = {
    "table.png": ("game16.json", 40, 0),
}


def palette_picture(picture: Image.Image) -> Image.Image:
    """The same pixels as a palette image: the picture has a few flat colours (no anti-aliasing),
    so an exact palette of them loses nothing and makes a small file."""
    pixels = np.asarray(picture.convert("RGB"))
    colours, index = np.unique(pixels.reshape(-1, 3), axis=0, return_inverse=True)
    if len(colours) > 256:
        raise ValueError(f"{len(colours)} colours do not fit a palette of 256")
    paletted = Image.fromarray(index.reshape(pixels.shape[:2]).astype(np.uint8), mode="P")
    paletted.putpalette(colours.astype(np.uint8).tobytes())
    return paletted


#: docs/family.md's pictures: name -> (game, environment options, seed, decisions, viewer). The
#: decisions are a seeded random policy's that prefers placing a tile (a fuller table).
FAMILY_PICTURES = {
    "family_five_up.png": ("five_up", {"num_players": 3, "target_score": None}, 3, 11, 0),
    "family_cross.png": ("cross", {"num_players": 4, "target_score": None}, 5, 18, "omniscient"),
}


def family_picture(game: str, options: dict, seed: int, decisions: int, viewer):
    """A family table after ``decisions`` decisions, drawn as the environment's rgb_array does."""
    import nos_env
    from nos_env.draw.family import table_picture as family_table_picture
    from nos_env.family_view import table_view

    env = nos_env.raw_env(game=game, backend="reference", render_viewer=viewer, **options)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(decisions):
        if all(env.terminations.values()):
            break
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        placing = [a for a in legal if env.action_to_text(int(a)).startswith(("play", "set"))]
        env.step(int(rng.choice(placing or legal)))
    view = None if viewer == "omniscient" else viewer
    return family_table_picture(table_view(env.game_state, game), view)


def make(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, spec in FAMILY_PICTURES.items():
        path = out / name
        path.write_bytes(png_bytes(palette_picture(family_picture(*spec))))
        written.append(path)
    for name, (record_name, steps, viewer) in PICTURES.items():
        record = load(ROOT / "tests" / "golden" / record_name)
        hand = start_from_record(record)
        for text in record["actions"][:steps]:
            hand.step(text)
        path = out / name
        path.write_bytes(png_bytes(palette_picture(table_picture(hand, viewer))))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "pictures",
                        help="folder to write into (default: docs/pictures)")
    args = parser.parse_args(argv)
    for path in make(args.out):
        print(f"wrote {path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
