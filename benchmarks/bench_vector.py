"""The public vector API against the engine driven directly, in one run (issue 14's target).

    pip install -e ".[bench]"
    python benchmarks/bench_vector.py [--batch 4096] [--seconds 20] [--threads auto]

Every figure is agent-steps per second of 4-player tables stepped with uniformly random legal
actions, each step returning the observation and the legal mask of the seat to move:

- ``FastTables direct``: ``FastTables.step(actions)`` with its default compact observations;
- ``vector_env() defaults``: ``nos_env.vector_env(B)`` as a user gets it (compact uint8
  observations, no per-step copy, float32 rewards, infos);
- ``vector_env() float32 + copy``: the old defaults (decoded float32 rows, a fresh copy each
  step), for comparison;
- ``FastTables direct float32``: the engine writing float32 rows.

Actions come from ``FastTables.sample_legal`` (a numba kernel over the engine's legal list), so
the policy costs the same everywhere and little. The machine is shared and noisy: the ways are
timed in turn, in blocks of 0.25 s, round after round, and each figure is the median over its
blocks, so ratios compare like with like. The last lines check the targets: at least 3 million
agent-steps/s through ``vector_env()`` with its defaults, and at least 0.9 of ``FastTables``
driven directly.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

BLOCK_SECONDS = 0.25
TARGET_RATE = 3_000_000
TARGET_RATIO = 0.9


class Way:
    """One way of stepping B tables: ``step()`` advances every table once."""

    def __init__(self, name: str, tables, step):
        from nos_env.rng import seed_state

        self.name, self.tables, self._step = name, tables, step
        B = tables.num_envs
        self.policy = np.array([seed_state(10_000 + b) for b in range(B)], np.uint64)
        self.actions = np.zeros(B, np.int64)
        self.rates: list[float] = []

    def step(self) -> None:
        self.tables.sample_legal(self.policy, self.actions)
        self._step(self.actions)

    def block(self) -> None:
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < BLOCK_SECONDS:
            self.step()
            steps += self.tables.num_envs
        self.rates.append(steps / (time.perf_counter() - start))

    @property
    def rate(self) -> float:
        return float(np.median(self.rates))


def make_ways(batch: int, threads) -> list[Way]:
    import nos_env
    from nos_env.fast_engine import FastTables

    options = {} if threads is None else {"num_threads": threads}
    ways = []
    direct = FastTables(batch, 4, seed=1, **options)
    direct.reset_tables()
    ways.append(Way("FastTables direct", direct, direct.step))
    venv = nos_env.vector_env(batch, num_players=4, seed=1, **options)
    venv.reset()
    ways.append(Way("vector_env() defaults", venv.tables, venv.step))
    old = nos_env.vector_env(batch, num_players=4, seed=1, observation_dtype="float32", copy_observations=True,
                             **options)
    old.reset()
    ways.append(Way("vector_env() float32 + copy", old.tables, old.step))
    floats = FastTables(batch, 4, seed=1, observation_dtype="float32", **options)
    floats.reset_tables()
    ways.append(Way("FastTables direct float32", floats, floats.step))
    return ways


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--batch", type=int, default=4096, help="tables per batch (default 4096)")
    parser.add_argument("--seconds", type=float, default=20.0, help="total timed seconds (default 20)")
    parser.add_argument("--threads", default=None,
                        help="num_threads for every way (default: the engine's default, 'auto')")
    args = parser.parse_args()
    if args.batch < 1 or args.seconds <= 0:
        parser.error("--batch must be positive and --seconds above 0")
    threads = None if args.threads is None else (args.threads if args.threads == "auto" else int(args.threads))
    ways = make_ways(args.batch, threads)
    for way in ways:  # warm: kernels compiled, tables past the deals into mid-hand positions
        for _ in range(30):
            way.step()
    rounds = max(1, int(args.seconds / (BLOCK_SECONDS * len(ways))))
    for _ in range(rounds):
        for way in ways:
            way.block()
    direct, public = ways[0].rate, ways[1].rate
    print(f"4 players, B={args.batch}, observation + mask of the seat to move, random legal actions; "
          f"median of {rounds} blocks of {BLOCK_SECONDS:g} s each, taken in turn")
    print(f"{'way':32s} {'agent-steps/s':>14s} {'vs direct':>10s}")
    for way in ways:
        print(f"{way.name:32s} {way.rate:14,.0f} {way.rate / direct:10.2f}")
    print(f"\ntarget: vector_env() defaults >= {TARGET_RATE:,} agent-steps/s: "
          f"{'met' if public >= TARGET_RATE else 'NOT met'} ({public:,.0f})")
    print(f"target: vector_env() defaults >= {TARGET_RATIO} x FastTables direct: "
          f"{'met' if public >= TARGET_RATIO * direct else 'NOT met'} ({public / direct:.2f})")


if __name__ == "__main__":
    main()
