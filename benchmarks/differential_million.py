"""Run the fast-vs-reference differential check over many hands (a million by default).

    python benchmarks/differential_million.py [--hands 1000000] [--workers 2] [--seed 0]

Work is split into chunks of 2,000 hands that rotate over 3, 4 and 5 players;
every fifth chunk forces all 76 announcements through scripted deals and
every third plays with D12 automatic forced decisions. Each chunk compares
masks, observations (the seat to move at every step, every seat every tenth
step), rewards and terminations at every step, and stops at the first
difference with the hand record. Prints progress and a summary.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

CHUNK = 2000


def chunk(index: int, seed: int) -> tuple[int, int, int]:
    from nos_env.differential import run

    n = (3, 4, 5)[index % 3]
    result = run(n, CHUNK, seed=seed * 1_000_003 + index, auto_forced=index % 3 == 1,
                 force_announcements=index % 5 == 4)
    return index, result["hands"], result["steps"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    chunks = (args.hands + CHUNK - 1) // CHUNK
    start = time.perf_counter()
    hands = steps = 0
    with ProcessPoolExecutor(args.workers) as pool:
        futures = [pool.submit(chunk, i, args.seed) for i in range(chunks)]
        for done, future in enumerate(as_completed(futures), 1):
            _, h, s = future.result()  # raises EngineMismatch with the record on any difference
            hands += h
            steps += s
            if done % 10 == 0 or done == chunks:
                elapsed = time.perf_counter() - start
                print(f"{hands:,} hands checked ({done}/{chunks} chunks), {elapsed / 60:.1f} min", flush=True)
    print(f"OK: {hands:,} hands, {steps:,} batch steps, no difference between the engines "
          f"({(time.perf_counter() - start) / 60:.1f} min, {args.workers} workers)")


if __name__ == "__main__":
    main()
