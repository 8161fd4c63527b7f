"""Speed of the fast engine, in one run beside the AEC loops and the reference engine.

    pip install -e ".[bench]"
    python benchmarks/bench_fast.py [--seconds 3]

All figures are agent-steps per second with uniformly random legal actions,
4 players. Random actions for the fast engine come from a numba kernel
(``FastTables.sample_legal``, which reads the engine's legal-action list) so
the policy does not dominate; each fast-engine figure is the median over
0.25-second blocks, and includes the action checks of ``FastTables.step``. Also
prints the kernels' compile time (cold: an empty numba cache in a fresh
process; cached: a fresh process with the cache filled) and the memory of a
4096-table batch.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))

WARM = ("import time; t = time.perf_counter(); import numpy as np; from nos_env.fast_engine import FastTables; "
        "f = FastTables(2, 4, seed=0); f.reset_tables(); "
        "f.step(np.array([np.flatnonzero(m)[0] for m in f.masks])); f.observe(np.zeros(2, np.int64)); "
        "print(time.perf_counter() - t)")


def compile_seconds(cold: bool) -> float:
    env = dict(os.environ)
    if cold:
        env["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="nos-numba-cold-")
    out = subprocess.run([sys.executable, "-c", WARM], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


#: The machine is shared: other tenants' bursts slow single blocks, so the fast engine's
#: figure is the median rate over blocks of this length (the mean over the whole run is
#: pulled down by those bursts).
BLOCK_SECONDS = 0.25


def fast_rate(batch: int, observe: bool, seconds: float, ready=None, **table_options) -> float:
    """Agent-steps per second of ``batch`` tables; ``ready(tables)`` (if given) is called once the
    kernels are warm, just before the timed blocks; ``table_options`` go to ``FastTables``."""
    from nos_env.fast_engine import FastTables
    from nos_env.rng import seed_state

    tables = FastTables(batch, 4, seed=1, **table_options)
    tables.reset_tables()
    policy = np.array([seed_state(10_000 + b) for b in range(batch)], np.uint64)
    actions = np.zeros(batch, np.int64)
    def sample():  # the policy on the tables' own threads setting
        tables.sample_legal(policy, actions)
    for _ in range(20):  # past the deals, into mid-hand positions, and the kernels warm
        sample()
        tables.step(actions, observe=observe)
    if ready is not None:
        ready(tables)
    rates = []
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps = 0
        block = time.perf_counter()
        while time.perf_counter() - block < BLOCK_SECONDS:
            sample()
            tables.step(actions, observe=observe)
            steps += batch
        rates.append(steps / (time.perf_counter() - block))
    return float(np.median(rates))


def reference_rate(seconds: float) -> float:
    from nos_env.engine import new_hand

    rng = np.random.default_rng(0)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        hand = new_hand(4, rng)
        while not hand.over:
            legal = hand.legal_actions()
            hand.step(legal[int(rng.integers(len(legal)))])
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import nos_env
    from bench_aec import run as aec_run
    from nos_env.fast_engine import FastTables
    from pettingzoo.classic import tictactoe_v3

    cold = compile_seconds(cold=True)
    cached = compile_seconds(cold=False)
    rows = []
    for batch in (1, 64, 1024, 4096):
        rows.append((f"fast engine B={batch}, obs + mask", fast_rate(batch, True, args.seconds)))
        rows.append((f"fast engine B={batch}, mask only", fast_rate(batch, False, args.seconds)))
    rows.append(("AEC env, fast backend", aec_run(lambda: nos_env.env(num_players=4), args.seconds)[0]))
    rows.append(("AEC env, reference backend",
                 aec_run(lambda: nos_env.env(num_players=4, backend="reference"), args.seconds)[0]))
    rows.append(("reference engine (no observations)", reference_rate(args.seconds)))
    rows.append(("PettingZoo tictactoe_v3 AEC loop", aec_run(tictactoe_v3.env, args.seconds)[0]))
    ttt = rows[-1][1]
    print(f"fast engine, 4 players, random legal actions, {args.seconds:g} s each")
    print(f"{'what':38s} {'agent-steps/s':>14s} {'vs tictactoe':>13s}")
    for name, rate in rows:
        print(f"{name:38s} {rate:14,.0f} {rate / ttt:13.2f}")
    tables = FastTables(4096, 4, seed=0)
    obs_bytes = 4096 * tables.observation_size * tables.observation_dtype.itemsize
    print(f"\ncompile time: cold {cold:.1f} s, cached {cached:.2f} s (fresh process, import and first calls)")
    print(f"memory of a B=4096 batch: state {tables.nbytes / 2**20:.1f} MiB, "
          f"plus {obs_bytes / 2**20:.1f} MiB for one batch of observations")


if __name__ == "__main__":
    main()
