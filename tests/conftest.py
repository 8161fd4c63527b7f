import json
from pathlib import Path

import pytest

from nos_env.deal import Deal
from nos_env.engine import Hand
from nos_env.options import Options
from nos_env.tiles import ALL_TILES

ROOT = Path(__file__).resolve().parent.parent
#: The worked examples of docs/rules/nos.md §13, played out as complete deals. The repository
#: carries them: tests never read anything outside it (test_vector_files.py alone compares
#: them with the copies they came from, when those sit beside the project).
VECTORS = Path(__file__).resolve().parent / "data" / "vectors"
#: Every vector file, by name. A fixed list rather than a glob, so a missing or renamed file
#: fails the tests that replay it instead of silently shrinking their parametrisation.
VECTOR_NAMES = (
    "example1_immediate_double_and_wait",
    "example2_first_condition_lock_and_late_wait",
    "example3_no_payment_on_a_tile_that_went_out",
    "example4_contrast_paid_without_the_pass",
    "example4_no_payment_after_a_pass",
    "example5_ordinary_double_cross",
    "example6_fhtt_then_switch",
    "example7_volapuk_first_three_on_the_six",
    "example8_game10_arm_begun_with_a_double_is_dead",
    "example9_game14_open_six_takes_only_one_one",
    "example10_triangle_forces_drawing",
)
GOLDEN = Path(__file__).resolve().parent / "golden"


def load_vector(name: str) -> dict:
    if name not in VECTOR_NAMES:
        raise ValueError(f"unknown worked example {name!r}; the vectors are {', '.join(VECTOR_NAMES)}")
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


def through_forced_windows(h: Hand, declare: bool = True, immediate: bool = True) -> None:
    """Walk the D25 windows where nobody has a choice, checking the rule as it goes.

    The declaration window must ask every seat in turn order from left of the
    setter, the setter last, each with ``no-declare`` as his only action (D25,
    D8, D9); the immediate-double window must ask every seat but the setter,
    from left of the setter, each with ``decline`` as his only action (D25, D10).
    Only for windows in which EVERY asked seat is forced; a test with a real
    choice in a window writes those steps out, and then passes ``declare=False``
    (the declarations were written out) or ``immediate=False`` (stop when the
    immediate window opens).
    """
    n, setter = h.num_players, h.on_set
    order = [(setter + i) % n for i in range(1, n + 1)]  # left of the setter, ..., the setter
    if declare:
        for seat in order:
            assert (h.phase, h.to_move) == ("declare", seat), (
                f"D25: the declaration window should ask seat {seat}; got {h.phase!r}, seat {h.to_move}")
            assert h.legal_action_texts() == ["no-declare"], (
                f"seat {seat} should be forced to no-declare; legal: {h.legal_action_texts()}")
            h.step("no-declare")
    assert (h.phase, h.to_move) == ("immediate", order[0]), (
        f"D25: the immediate window should open with seat {order[0]}; got {h.phase!r}, seat {h.to_move}")
    if immediate:
        for seat in order[:-1]:  # the setter is not asked (section 6)
            assert (h.phase, h.to_move) == ("immediate", seat), (
                f"D25: the immediate window should ask seat {seat}; got {h.phase!r}, seat {h.to_move}")
            assert h.legal_action_texts() == ["decline"], (
                f"seat {seat} should be forced to decline; legal: {h.legal_action_texts()}")
            h.step("decline")
        # Nobody placed a double, so nobody owes a wait: play starts left of the setter.
        assert (h.phase, h.to_move) == ("play", order[0])


@pytest.fixture
def vector():
    return load_vector


def kernels_cached(source: Path) -> bool:
    """Whether numba's cache beside ``source`` (the ``nos_env`` folder) holds what tests/kernel_warmup.py
    compiles: the compiled Tactics and every game's parallel step loop (numba names a cached
    function ``<module>.<function>-<line>.py<version>.nbi``, in the ``__pycache__`` beside its
    file). A sample, not a proof: a kernel still missing is compiled where a test first needs it."""
    games = [p.parent for p in source.glob("games/*/batch.py") if "def step_batch_parallel" in p.read_text()]
    patterns = ["games/nos/__pycache__/tactics.decide_rows-*.nbi"] + [
        f"{g.relative_to(source).as_posix()}/__pycache__/batch.step_batch_parallel-*.nbi" for g in games]
    return bool(games) and all(list(source.glob(pattern)) for pattern in patterns)


WARMUP = {"seconds": None, "failed": []}


def pytest_sessionstart(session):
    """Compile the kernels before the first test, both groups at once (tests/kernel_warmup.py says
    why): once per session, in the main process (under pytest-xdist: before the workers start)."""
    import os
    import subprocess
    import sys
    import time

    import nos_env
    import nos_env.games  # noqa: F401  (its import runs the cache guard: a stale cache is gone first)

    if hasattr(session.config, "workerinput"):  # a pytest-xdist worker: the main process warmed
        return
    source = Path(nos_env.__file__).resolve().parent
    if kernels_cached(source):
        return  # compiled already: loading is fast, nothing to gain
    # The processes must compile the very source tree the tests import, whatever the path says.
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(source.parent)] + [p for p in [os.environ.get("PYTHONPATH")] if p]))
    start = time.perf_counter()
    runs = {group: subprocess.Popen([sys.executable, str(ROOT / "tests" / "kernel_warmup.py"), group], cwd=ROOT, env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for group in ("nos", "family")}
    for group, run in runs.items():
        _, err = run.communicate()
        if run.returncode != 0:  # the tests that use these kernels will fail and say why
            WARMUP["failed"].append(f"{group}: {err.strip().splitlines()[-1] if err.strip() else run.returncode}")
    WARMUP["seconds"] = time.perf_counter() - start


def pytest_report_header(config):
    if WARMUP["seconds"] is not None:
        failed = f"; FAILED {', '.join(WARMUP['failed'])}" if WARMUP["failed"] else ""
        return f"numba kernels compiled in two processes at once (tests/kernel_warmup.py): {WARMUP['seconds']:.0f} s{failed}"


@pytest.fixture(scope="session", autouse=True)
def warm_fast_kernels():
    """Compile (or load from numba's cache) the fast engine's kernels once per session."""
    import numpy as np

    from nos_env.fast_engine import FastTables

    tables = FastTables(1, 4, seed=0)
    tables.reset_tables()
    tables.step(np.array([int(np.flatnonzero(tables.MASK[0])[0])]))
    tables.observe(np.zeros(1, np.int64))


@pytest.fixture(scope="session", autouse=True)
def leaderboard_in_a_temporary_folder(tmp_path_factory):
    """nos-tournament rates every run on a leaderboard (default runs/leaderboard.json): the tests'
    tournaments, subprocesses included (they inherit the variable), rate on a throwaway one instead."""
    import os

    before = os.environ.get("NOS_LEADERBOARD")
    os.environ["NOS_LEADERBOARD"] = str(tmp_path_factory.mktemp("leaderboard") / "leaderboard.json")
    yield
    if before is None:
        os.environ.pop("NOS_LEADERBOARD", None)
    else:
        os.environ["NOS_LEADERBOARD"] = before


@pytest.fixture(scope="session")
def ray_session():
    """One small local Ray (2 CPUs) for every test that asks for it (tests/test_rllib.py and
    tests/test_rllib_family.py), started at the first and shut down at the end of the session:
    starting Ray costs seconds, so it is started once."""
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        yield ray
    finally:
        ray.shutdown()
