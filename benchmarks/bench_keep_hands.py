"""What keeping every hand costs a tournament (``keep_hands``, ``--save-records``): the same
duplicate tournament with and without it, in one process, alternating, after a warm-up run
(the kernels compile once).

    python benchmarks/bench_keep_hands.py --game draw --agents greedy random random --deals 2000
    python benchmarks/bench_keep_hands.py --game nos --agents greedy random random

Prints each run's seconds and the cost per hand (the mean of the kept runs minus the mean of
the plain ones). The machine is shared: compare the two rows of one run, not runs of two days.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from agents.tournament import run_tournament


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="draw")
    parser.add_argument("--agents", nargs="+", default=["greedy", "random", "random"])
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    kwargs = dict(seed=1, progress=False, game=args.game, tables=args.tables)
    run_tournament(args.agents, 50, keep_hands=True, **kwargs)  # warm-up: compile
    run_tournament(args.agents, 50, keep_hands=False, **kwargs)
    seconds = {False: [], True: []}
    hands = 0
    for _ in range(args.repeats):
        for keep in (False, True):
            start = time.perf_counter()
            result = run_tournament(args.agents, args.deals, keep_hands=keep, **kwargs)
            seconds[keep].append(time.perf_counter() - start)
            hands = len(result.deal)
            print(f"{args.game} {'kept ' if keep else 'plain'} {hands} hands: {seconds[keep][-1]:.2f} s", flush=True)
    plain, kept = np.mean(seconds[False]), np.mean(seconds[True])
    print(f"{args.game}: plain {plain:.2f} s, kept {kept:.2f} s, +{1000 * (kept - plain) / hands:.3f} ms per hand")


if __name__ == "__main__":
    main()
