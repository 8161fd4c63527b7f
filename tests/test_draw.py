"""The picture of the table (render_mode="rgb_array", nos_env/draw/): size, determinism, what each
viewer sees (D17, D9), pips, and the layout's geometry on every golden hand."""

import hashlib

import numpy as np
import pytest
from PIL import ImageColor

import nos_env
from conftest import GOLDEN
from nos_env.draw import base
from nos_env.draw.base import PIP, PUBLIC, TILE_BACK, Scene, paint, to_array
from nos_env.draw.nos import AREA, HEIGHT, WIDTH, hand_box, table_array, table_scene
from nos_env.record import load, start_from_record

PIP_RGB = np.array(ImageColor.getrgb(PIP), dtype=np.uint8)
BACK_RGB = np.array(ImageColor.getrgb(TILE_BACK), dtype=np.uint8)
GOLDEN_NAMES = sorted(p.stem for p in GOLDEN.glob("*.json"))


def count(picture: np.ndarray, box, rgb) -> int:
    x0, y0, x1, y1 = box
    return int(np.all(picture[y0:y1 + 1, x0:x1 + 1] == rgb, axis=-1).sum())


def blobs(mask: np.ndarray) -> int:
    """Connected groups of True pixels (4-neighbours): the pips in a half tile."""
    seen = np.zeros_like(mask)
    groups = 0
    for start in zip(*np.nonzero(mask)):
        if seen[start]:
            continue
        groups += 1
        stack = [start]
        seen[start] = True
        while stack:
            y, x = stack.pop()
            for ny, nx in ((y + 1, x), (y - 1, x), (y, x + 1), (y, x - 1)):
                if 0 <= ny < mask.shape[0] and 0 <= nx < mask.shape[1] and mask[ny, nx] and not seen[ny, nx]:
                    seen[ny, nx] = True
                    stack.append((ny, nx))
    return groups


def hand_after(name: str, steps: int | None = None):
    record = load(GOLDEN / f"{name}.json")
    hand = start_from_record(record)
    for text in record["actions"][:steps]:
        hand.step(text)
    return hand


@pytest.mark.parametrize("n", [3, 4, 5])
def test_rgb_array_is_an_hxwx3_uint8_picture_of_fixed_size(n):
    e = nos_env.env(num_players=n, render_mode="rgb_array")
    e.reset(seed=n)
    picture = e.render()
    assert isinstance(picture, np.ndarray) and picture.dtype == np.uint8
    assert picture.shape == (HEIGHT, WIDTH, 3) == (840, 1400, 3)


def test_the_same_state_gives_the_same_pixels_on_both_backends():
    pictures = {}
    for backend in ("fast", "reference"):
        e = nos_env.env(num_players=4, render_mode="rgb_array", render_viewer="omniscient", backend=backend)
        e.reset(seed=21)
        rng = np.random.default_rng(0)
        shots = []
        for _ in range(40):
            obs, _, term, trunc, _ = e.last()
            if term or trunc:
                break
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            shots.append(e.render())
        assert np.array_equal(e.render(), shots[-1])  # rendering twice changes nothing
        pictures[backend] = shots
    assert len(pictures["fast"]) == len(pictures["reference"]) > 10
    for fast, reference in zip(pictures["fast"], pictures["reference"]):
        assert np.array_equal(fast, reference)


def test_pinned_digests():
    """Pillow draws the same pixels for the same state (a Pillow that rasterises differently
    changes these: look at the pictures, then update the digests)."""
    start = table_array(hand_after("game16", 0), 0)
    end = table_array(hand_after("game16"), None)
    assert hashlib.sha256(start.tobytes()).hexdigest()[:16] == "60918c9426c95a1c"
    assert hashlib.sha256(end.tobytes()).hexdigest()[:16] == "8d4ea06c44e85e0e"


def test_other_hands_are_face_down_without_pips_and_the_viewers_face_up():
    hand = hand_after("game03", 0)  # before the set: five players, three tiles each, nobody declared
    n = hand.num_players
    assert n == 5 and [len(h) for h in hand.hands] == [3] * 5 and not any(hand.declared)
    for viewer in range(n):
        picture = table_array(hand, viewer)
        for seat in range(n):
            pips, backs = count(picture, hand_box(seat), PIP_RGB), count(picture, hand_box(seat), BACK_RGB)
            if seat == viewer:
                assert pips > 0 and backs == 0
            else:
                assert pips == 0 and backs > 0, (viewer, seat)
    omniscient = table_array(hand, None)
    assert all(count(omniscient, hand_box(s), PIP_RGB) > 0 and count(omniscient, hand_box(s), BACK_RGB) == 0
               for s in range(n))


def test_declared_doubles_lie_face_up_for_every_viewer():
    """D9: a declarer's doubles still in hand are public; his other tiles stay face down."""
    record = load(GOLDEN / "game05.json")
    hand = start_from_record(record)
    for text in record["actions"]:
        hand.step(text)
        if hand.phase == "play":
            break
    declarers = [s for s in range(hand.num_players) if hand.public_doubles(s)]
    assert declarers
    seat = declarers[0]
    viewer = (seat + 1) % hand.num_players
    tiles = table_scene(hand).ops
    owners = {(op[5], op[6]): op[9] for op in tiles if op[0] == "tile" and hand_box(seat)[1] <= op[2]
              and op[4] <= hand_box(seat)[3]}
    assert {t for t, owner in owners.items() if owner == PUBLIC} == set(hand.public_doubles(seat))
    assert set(owners) == set(hand.hands[seat])
    picture = table_array(hand, viewer)
    assert count(picture, hand_box(seat), PIP_RGB) > 0  # the doubles' pips
    hidden = len(hand.hands[seat]) - len(hand.public_doubles(seat))
    assert (count(picture, hand_box(seat), BACK_RGB) > 0) == (hidden > 0)


@pytest.mark.parametrize("number", range(10))
def test_a_half_tile_shows_as_many_pips_as_its_number(number):
    scene = Scene(120, 60, "#ffffff")
    scene.tile(10, 10, 90, 50, number, number, "#000000", 1, PUBLIC)
    picture = to_array(paint(scene, 0))
    pip = np.all(picture == PIP_RGB, axis=-1)
    assert blobs(pip[12:49, 12:48]) == number  # the left half, inside the border, short of the divider
    assert blobs(pip[12:49, 52:89]) == number


def test_a_hidden_tile_has_no_pips_and_the_owner_sees_it():
    scene = Scene(60, 100, "#ffffff")
    scene.tile(10, 10, 42, 74, 6, 5, "#000000", 1, 2)
    assert not np.any(np.all(to_array(paint(scene, 1)) == PIP_RGB, axis=-1))
    assert np.all(to_array(paint(scene, 1))[40, 26] == BACK_RGB)
    for viewer in (2, None):
        assert np.any(np.all(to_array(paint(scene, viewer)) == PIP_RGB, axis=-1))
    with pytest.raises(ValueError, match="unknown scene operation 'circle'"):
        paint(Scene(10, 10, "#ffffff", [["circle", 1, 1, 1]]), None)


@pytest.mark.parametrize("name", GOLDEN_NAMES)
def test_layout_tiles_stay_on_the_table_and_never_overlap(name):
    """Every step of every golden hand: one tile drawn per tile on the layout, inside the table's
    layout area, no two overlapping (arms turn at the edges instead)."""
    record = load(GOLDEN / f"{name}.json")
    hand = start_from_record(record)
    for text in [None] + record["actions"]:
        if text is not None:
            hand.step(text)
        if hand.set_tile is None:
            continue
        boxes = [op[1:5] for op in table_scene(hand).ops
                 if op[0] == "tile" and AREA[0] <= op[1] and op[3] <= AREA[2]]
        assert len(boxes) == len(hand.layout.tiles()) if hand.layout else len(boxes) == 1
        for k, (x0, y0, x1, y1) in enumerate(boxes):
            assert AREA[0] < x0 < x1 < AREA[2] and AREA[1] < y0 < y1 < AREA[3]
            for (a0, b0, a1, b1) in boxes[:k]:
                assert not (x0 < a1 and a0 < x1 and y0 < b1 and b0 < y1), (name, text)


def test_the_viewer_is_named_on_the_picture():
    scene = table_scene(hand_after("game01", 3))
    assert ["view"] == [op[0] for op in scene.ops if op[0] == "view"]
    assert base.viewer_label(None) == "view: every hand (omniscient)" and base.viewer_label(3) == "view: seat 3"
    assert not np.array_equal(to_array(paint(scene, 0)), to_array(paint(scene, 1)))


def test_the_docs_picture_is_what_the_code_draws(tmp_path):
    """docs/watching.md shows docs/pictures/table.png: redraw with `python docs/make_pictures.py`."""
    import subprocess
    import sys

    from conftest import ROOT

    done = subprocess.run([sys.executable, "docs/make_pictures.py", "--out", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    fresh = tmp_path / "table.png"
    committed = ROOT / "docs" / "pictures" / "table.png"
    assert fresh.read_bytes() == committed.read_bytes(), "run python docs/make_pictures.py and commit the picture"
    assert to_array(paint(table_scene(hand_after("game16", 40)), 0)).shape == (HEIGHT, WIDTH, 3)
