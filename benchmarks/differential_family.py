"""The long fast-vs-reference differential of the family games (issue 15, item 2).

Every game, every player count and the option sets of ``tests/test_family_fast.py``, many
seeds, random legal actions; at every step legal actions, masks, observations in both
dtypes, points, scores and terminations are compared (``nos_env.family_differential.run``).
Prints progress and, at the end, how many games (episodes) and steps were compared.

    python benchmarks/differential_family.py [--rounds 5] [--tables 8] [--steps 600]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_family_fast import OPTION_CASES, PLAYER_CASES  # noqa: E402

from nos_env.family_differential import Mismatch, run  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5, help="passes over every case, new seeds each")
    parser.add_argument("--tables", type=int, default=8, help="tables (seeds) per case and round")
    parser.add_argument("--steps", type=int, default=600, help="steps per case and round")
    args = parser.parse_args()
    cases = [(g, n, {}) for g, n in PLAYER_CASES] + [(g, None, dict(o)) for g, o in OPTION_CASES]
    steps = episodes = failures = 0
    start = time.perf_counter()
    for r in range(args.rounds):
        for i, (game, n, options) in enumerate(cases):
            first = 10_000 * (r + 1) + 100 * i
            try:
                counts = run(game, n, seeds=range(first, first + args.tables), steps=args.steps, action_seed=r,
                             **options)
            except Mismatch as error:
                failures += 1
                print(f"MISMATCH {error}", flush=True)
                continue
            steps += counts["steps"]
            episodes += counts["episodes"]
        print(f"round {r + 1}/{args.rounds}: {steps:,} steps, {episodes:,} finished episodes compared, "
              f"{failures} mismatches, {time.perf_counter() - start:.0f} s", flush=True)
    print(f"compared {steps:,} steps and {episodes:,} finished episodes (matches or single hands) over "
          f"{len(cases)} game/option cases: {failures} mismatches")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
