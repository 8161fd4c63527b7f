"""The long Mexican Train differential: MexicanTrainTables against the reference engine.

    python benchmarks/differential_mexican_train.py [--steps 2000] [--tables 16]

For every player count 2..8 on both sets, ``--tables`` tables play full matches with
random legal actions for ``--steps`` steps each, compared at every step with
``MexicanTrainGame`` (``nos_env/mexican_train_differential.py``: legal actions, masks, the seat
to move, both observation dtypes, points, the match's end and scores, ``reference_game``).
Prints the decisions, rounds and matches compared and the first difference, if any (exit 1).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time

from nos_env.mexican_train_differential import Mismatch, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=16)
    args = parser.parse_args()
    totals = {"steps": 0, "matches": 0, "rounds": 0}
    t0 = time.perf_counter()
    for i, (tileset, n) in enumerate(itertools.product(("double_twelve", "double_nine"), range(2, 9))):
        seeds = range(10_000 * (i + 1), 10_000 * (i + 1) + args.tables)
        try:
            counts = run(n, seeds=seeds, steps=args.steps, action_seed=i, tileset=tileset)
        except Mismatch as error:
            print(f"DIFFERENCE: {error}")
            return 1
        for k in totals:
            totals[k] += counts[k]
        print(f"{tileset}, {n} players: {counts['steps']:,} decisions, {counts['rounds']:,} rounds, "
              f"{counts['matches']:,} matches, no difference")
    print(f"all: {totals['steps']:,} decisions, {totals['rounds']:,} rounds, {totals['matches']:,} matches, "
          f"no difference ({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
