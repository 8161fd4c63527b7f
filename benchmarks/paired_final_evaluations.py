"""Two training runs' final evaluations compared deal by deal: (run A − run B), chips per hand.

    python benchmarks/paired_final_evaluations.py RUN_A RUN_B [RUN_A2 RUN_B2 ...]

Every run's final evaluation plays the same duplicate deals (the same stream seeds,
``train/report.py``), so the model of run A and that of run B met the same hands in the same
seats. Per deal, a model's result is the mean over the deal's hands of its chips minus the mean
of the other seats' chips (the report's "model − opponent"); the difference of two runs' results
per deal has a mean and a 95% interval (1.96 standard errors over the deals). With more than
one pair of runs (seeds), the pairs' deals are pooled as well.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def per_deal(run: Path, opponent: str) -> dict[tuple, float]:
    """Each deal's model − opponents difference, chips per hand, in ``run``'s final evaluation."""
    data = json.loads((run / "evaluations" / f"final-vs-{opponent}" / "tournament.json").read_text())
    result = {}
    for deal in data["deals_played"]:
        differences = []
        for hand in deal["hands"]:
            seat = hand["agents"].index("model")
            chips = np.asarray(hand["chips"], float)
            differences.append(chips[seat] - np.delete(chips, seat).mean())
        result[(deal["deal"], deal["stream_seed"], deal["stream_index"])] = float(np.mean(differences))
    return result


def paired(a: Path, b: Path, opponent: str) -> np.ndarray:
    da, db = per_deal(a, opponent), per_deal(b, opponent)
    if set(da) != set(db):
        raise SystemExit(f"{a} and {b} did not play the same deals against {opponent}")
    return np.array([da[k] - db[k] for k in sorted(da)])


def interval(values: np.ndarray) -> str:
    return f"{values.mean():+.1f} ± {1.96 * values.std(ddof=1) / np.sqrt(len(values)):.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", type=Path, help="pairs of run folders: A B [A2 B2 ...]")
    parser.add_argument("--opponents", nargs="+", default=["random", "greedy", "tactics"])
    args = parser.parse_args()
    if len(args.runs) % 2:
        parser.error("give the runs in pairs: A B [A2 B2 ...]")
    pairs = list(zip(args.runs[::2], args.runs[1::2]))
    print(f"{'A − B':<60} " + " ".join(f"{o:>14}" for o in args.opponents))
    pooled = {o: [] for o in args.opponents}
    for a, b in pairs:
        cells = []
        for opponent in args.opponents:
            values = paired(a, b, opponent)
            pooled[opponent].append(values)
            cells.append(f"{interval(values):>14}")
        print(f"{a.name + ' − ' + b.name:<60} " + " ".join(cells))
    if len(pairs) > 1:
        print(f"{'pooled':<60} " + " ".join(f"{interval(np.concatenate(pooled[o])):>14}" for o in args.opponents))


if __name__ == "__main__":
    main()
