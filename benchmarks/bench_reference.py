"""Speed of the reference engine: random hands per player count.

    python benchmarks/bench_reference.py [--hands 3000] [--seed 0]

Plays complete hands with uniformly random legal actions (the same policy
as the main job) and prints milliseconds per hand, decisions per second and
the share of time spent listing legal actions. The machine is shared, so
compare figures taken in the same run.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from nos_env.engine import new_hand


def bench(num_players: int, hands: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    decisions = 0
    legal_time = 0.0
    start = time.perf_counter()
    for _ in range(hands):
        hand = new_hand(num_players, rng)
        while not hand.over:
            t0 = time.perf_counter()
            legal = hand.legal_actions()
            legal_time += time.perf_counter() - t0
            hand.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
    elapsed = time.perf_counter() - start
    return {"ms_per_hand": 1000 * elapsed / hands, "decisions_per_s": decisions / elapsed,
            "legal_share": legal_time / elapsed, "decisions_per_hand": decisions / hands}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"reference engine, {args.hands} random hands per player count, seed {args.seed}, "
          f"Python {platform.python_version()}")
    print(f"{'players':>7} {'ms/hand':>8} {'decisions/s':>12} {'decisions/hand':>15} {'legal_actions share':>20}")
    for n in (3, 4, 5):
        r = bench(n, args.hands, args.seed)
        print(f"{n:>7} {r['ms_per_hand']:8.2f} {r['decisions_per_s']:12.0f} "
              f"{r['decisions_per_hand']:15.1f} {100 * r['legal_share']:19.0f}%")


if __name__ == "__main__":
    main()
