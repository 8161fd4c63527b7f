"""Search against Tactics in duplicate deals, with Search's options on the command line.

    python benchmarks/search_strength.py --deals 2000 --seed 21 [--rollouts 64] [--margin 2.0]
        [--announce-top-k 8] [--key-rollouts 1024] [--no-halving] [--opponent tactics|search-python] [--python]

Seats alternate (search, tactics, search, tactics; 4 players), every deal is played once per
rotation (agents.tournament, duplicate mode), and the report is the head-to-head: Search's
chips per hand minus the opponent's, with its 95% interval (from the per-deal differences).
``--opponent search-python`` plays the new Search against the old one (``compiled=False``) at
the same options: equal strength shows as a difference whose interval holds 0.

    python benchmarks/search_strength.py --combine LOG [LOG ...]

pools the results printed by runs of equal deal counts (different seeds: independent deals).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from agents.search import SearchAgent  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402


def combine(paths: list[str]) -> None:
    """Pool the results of several runs of this script (their logs) with equal deal counts:
    the mean of the means, its interval from the runs' standard errors (independent deals)."""
    import re

    found = []
    for path in paths:
        with open(path) as f:
            text = f.read()
        deals = [int(d) for d in re.findall(r"; (\d+) deals, seed", text)]
        results = re.findall(r"([+-][0-9.]+) ± ([0-9.]+) chips per hand", text)
        found += [(float(m), float(c) / 1.96, d) for (m, c), d in zip(results, deals)]
    if not found or len({d for _, _, d in found}) != 1:
        raise SystemExit(f"need runs of equal deal counts, found {[(m, d) for m, _, d in found]}")
    means = np.array([m for m, _, _ in found])
    ses = np.array([se for _, se, _ in found])
    k = len(found)
    print(f"{k} runs of {found[0][2]} deals ({k * found[0][2]} deals): {means.mean():+.2f} ± "
          f"{1.96 * np.sqrt((ses ** 2).sum()) / k:.2f} chips per hand (95% CI); runs: "
          + ", ".join(f"{m:+.2f}" for m in means))


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--combine":
        combine(sys.argv[2:])
        return
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--rollouts", type=int, default=64)
    parser.add_argument("--min-rollouts", type=int, default=2)
    parser.add_argument("--margin", type=float, default=2.0)
    parser.add_argument("--opening-rollouts", type=int, default=None)
    parser.add_argument("--announce-top-k", type=int, default=None, help="default: every legal announcement")
    parser.add_argument("--key-rollouts", type=int, default=None, help="default: Search's (16 times --rollouts)")
    parser.add_argument("--no-halving", action="store_true", help="split opening budgets evenly")
    parser.add_argument("--opponent", default="tactics", choices=("tactics", "search-python"))
    parser.add_argument("--python", action="store_true", help="the Search under test uses the Python Tactics")
    parser.add_argument("--tables", type=int, default=256)
    args = parser.parse_args()
    options = dict(rollouts=args.rollouts, min_rollouts=args.min_rollouts, margin=args.margin,
                   announce_top_k=args.announce_top_k, halving=not args.no_halving)
    if args.key_rollouts is not None:  # else Search's default ("auto": 16 times --rollouts)
        options["key_rollouts"] = args.key_rollouts
    if args.opening_rollouts is not None:  # else Search's default ("auto": 64 times --rollouts)
        options["opening_rollouts"] = args.opening_rollouts
    search = SearchAgent(seed=args.seed * 7 + 1, compiled=not args.python, **options)
    search.name = "search-new" if args.opponent == "search-python" else "search"
    if args.opponent == "search-python":
        opponent = SearchAgent(seed=args.seed * 7 + 2, compiled=False, **options)
        opponent.name = "search-python"
    else:
        opponent = "tactics"
    start = time.perf_counter()
    result = run_tournament([search, opponent, search, opponent], args.deals, seed=args.seed, tables=args.tables,
                            progress=False)
    s = result.summary()
    pair = f"{search.name} vs {opponent if isinstance(opponent, str) else opponent.name}"
    h = s["head_to_head_by_name"][pair]
    print(f"options {options} compiled={not args.python}; {args.deals} deals, seed {args.seed}, "
          f"{time.perf_counter() - start:.0f} s")
    print(f"{pair}: {h['mean_difference']:+.2f} ± {h['ci95']:.2f} chips per hand (95% CI)", flush=True)


if __name__ == "__main__":
    main()
