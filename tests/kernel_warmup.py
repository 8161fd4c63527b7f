"""Compile the fast engines' numba kernels into numba's on-disk cache, two groups at once.

On a fresh clone the cache is empty, and compiling the kernels costs about half the suite's CPU
(docs/testing.md). Compiled one after the other, on first use inside the tests, that time runs
on one core; and pytest-xdist's two workers would each compile the same kernels for themselves.
``tests/conftest.py`` therefore runs this file once per session, before any test or worker
starts, as two processes at once (one per core): ``nos`` (the Nos engine and the compiled
Tactics) and ``family`` (the engines of every other registered game: the family's, Blind's, ...). Each plays a few steps through
the public Tables API in the variants the tests use (both observation dtypes, one and two
threads, penalties, sessions, loaded deals, Tactics on tables and on rows), so that the kernels
are compiled and cached with the argument types the tests pass. Anything left out is still
compiled where a test first needs it: this saves time, it changes no result.

``python tests/kernel_warmup.py nos|family`` runs one group.
"""

from __future__ import annotations

import sys

import numpy as np

GROUPS = ("nos", "family")


def _play(tables, steps: int, seed: int = 0) -> None:
    """A few random legal steps on every table, observing as the environments do."""
    rng = np.random.default_rng(seed)
    tables.reset_tables()
    state = np.array([rng.integers(1, 2**63)], np.uint64).repeat(tables.num_envs)
    for _ in range(steps):
        tables.step(tables.sample_legal(state))
    tables.observe(np.zeros(tables.num_envs, np.int64))
    tables.observe_rows(np.array([0]), np.array([1]))


def warm_nos() -> None:
    from agents.tactics import TacticsAgent, kernel_params
    from nos_env.deal import Deal
    from nos_env.fast_engine import FastTables, accepted_after_plays, tactics_rows

    for dtype in ("uint8", "float32"):
        for threads in (1, 2):
            _play(FastTables(4, 4, seed=0, observation_dtype=dtype, num_threads=threads), 40)
    _play(FastTables(2, 3, seed=1, hands_per_episode=3, auto_forced=True, illegal_action="penalty"), 80)
    tables = FastTables(2, 4, seed=2)
    tables.reset_tables()
    tables.load_deal(0, Deal.random(4, np.random.default_rng(3)), on_set=1)
    params = kernel_params()
    tables.tactics_actions(params)
    tables.tactics_playout(params, noise=np.arange(2, dtype=np.uint64))
    floats = FastTables(4, 4, seed=3, observation_dtype="float32")
    floats.reset_tables()
    obs = floats.observe(floats.current_player)
    masks = np.array(floats.MASK[:4])
    tactics_rows(obs, masks, params)
    TacticsAgent(seed=0).act_batch(obs, masks)
    for _ in range(30):  # on to the play phase, where accepted_after_plays has plays to read
        floats.step(floats.tactics_actions(params))
    obs = floats.observe(floats.current_player)
    plays = [np.flatnonzero(m[108:556]) for m in floats.MASK[:4]]
    rows = [r for r, p in enumerate(plays) if len(p)]
    if rows:
        accepted_after_plays(obs[rows], np.array([108 + plays[r][0] for r in rows]))


def warm_family() -> None:
    from nos_env.family_backends import tables_class
    from nos_env.registry import list_games

    games = [g for g in list_games() if g != "nos"]  # every other registered game: the family, Blind, ...
    warmed = set()
    for game in games:
        cls = tables_class(game)
        if cls not in warmed:  # each tables class's kernels in every variant, once
            warmed.add(cls)
            for dtype in ("uint8", "float32"):
                for threads in (1, 2):
                    _play(cls(game, 4, seed=0, observation_dtype=dtype, threads=threads), 40)
        else:  # the same kernels: the game's own branches of them
            _play(cls(game, 2, seed=1), 60)


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Compile one group of the fast engines' numba kernels into "
                                     "numba's on-disk cache (tests/conftest.py runs both groups at once).")
    parser.add_argument("group", choices=GROUPS, help="nos: the Nos engine and the compiled Tactics; "
                        "family: every other registered game's engine")
    args = parser.parse_args(argv)
    {"nos": warm_nos, "family": warm_family}[args.group]()
    return 0


if __name__ == "__main__":
    sys.exit(main())
