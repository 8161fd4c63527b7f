import json
import os
from pathlib import Path

import pytest

from nos_env.deal import Deal
from nos_env.engine import Hand, Options
from nos_env.tiles import ALL_TILES

ROOT = Path(__file__).resolve().parent.parent
#: The shared specification sits beside the project (../shared), in CI too;
#: NOS_SHARED points elsewhere if needed.
SHARED = Path(os.environ.get("NOS_SHARED", ROOT.parent / "shared"))
VECTORS = SHARED / "vectors"
GOLDEN = Path(__file__).resolve().parent / "golden"


def load_vector(name: str) -> dict:
    return json.loads((VECTORS / f"{name}.json").read_text())


def vector_hand(vector: dict, options: Options | None = None) -> Hand:
    return Hand(
        Deal.from_tiles(vector["hands"], vector["boneyard_top_first"]),
        on_set=vector["on_set"],
        chips=vector["chips_start"],
        first_hand=vector["first_hand"],
        options=options,
    )


def accepted_tiles(hand: Hand, arm_name: str) -> set[str]:
    """Every tile not on the layout that the arm accepts now, as 'a-b' text."""
    layout = hand.layout
    arm = layout.arm_index(arm_name)
    on_layout = set(layout.tiles())
    return {f"{a}-{b}" for (a, b) in ALL_TILES if (a, b) not in on_layout and layout.outs(arm, (a, b))}


@pytest.fixture
def vector():
    return load_vector


@pytest.fixture(scope="session", autouse=True)
def warm_fast_kernels():
    """Compile (or load from numba's cache) the fast engine's kernels once per session."""
    import numpy as np

    from nos_env.fast_engine import FastTables

    tables = FastTables(1, 4, seed=0)
    tables.reset_tables()
    tables.step(np.array([int(np.flatnonzero(tables.MASK[0])[0])]))
    tables.observe(np.zeros(1, np.int64))
