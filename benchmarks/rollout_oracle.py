"""The rollout-advantage labels' sanity check (train/rollout_advantage.py): a *cheating* agent
that plays, at each of its decisions, the move of best label (every legal move played out on the
real table, the true hidden tiles, everyone on Greedy after it) against three Greedy players, in
a duplicate tournament. If the labels are right it beats Greedy by far more than Search does
(Search must guess the hidden tiles); if not, the labels are wrong. A diagnostic only: the agent
reads the real table, which no fair player may.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/rollout_oracle.py --game fours --deals 300

prints the oracle's margin over Greedy (points a hand, 95% interval), the labels a second, and
(with --greedy-check) Greedy's own margin on the same deals as a control (0 up to noise).
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from agents.base import Agent
from agents.family.games import make_rules
from agents.tournament import family_options, run_tournament
from train.rollout_advantage import RolloutLabeler


class RolloutOracle(Agent):
    """Plays the move of best rollout label (ties: Greedy's order, the first best id)."""

    name = "oracle"

    def __init__(self, rules, capacity=4096):
        super().__init__(0)
        self.labeler = RolloutLabeler(rules, capacity=capacity)
        self.decisions = 0
        self.seconds = 0.0

    def act_batch(self, obs, masks, context=None):
        start = time.perf_counter()
        rows = np.asarray(context.table_index, np.int64)
        values = self.labeler.values(context.tables, rows, np.asarray(context.seats, np.int64))
        self.decisions += int((np.asarray(masks).sum(axis=1) > 1).sum())
        self.seconds += time.perf_counter() - start
        return np.where(np.asarray(masks) > 0, np.nan_to_num(values, nan=-np.inf), -np.inf).argmax(axis=1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="fours")
    parser.add_argument("--deals", type=int, default=300)
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--tables", type=int, default=256)
    args = parser.parse_args()
    rules = make_rules(args.game, 4, **family_options(args.game, {}))
    oracle = RolloutOracle(rules)
    start = time.perf_counter()
    result = run_tournament([oracle, "greedy", "greedy", "greedy"], args.deals, seed=args.seed, tables=args.tables,
                            progress=False, num_threads=1, game=args.game)
    seconds = time.perf_counter() - start
    h2h = result.summary()["head_to_head_by_name"]["oracle vs greedy"]
    print(f"oracle - greedy: {h2h['mean_difference']:+.2f} +- {h2h['ci95']:.2f} points a hand" )
    print(f"{args.game}: {args.deals} deals in {seconds:.0f} s; oracle decisions {oracle.decisions:,} labelled in "
          f"{oracle.seconds:.0f} s ({oracle.decisions / max(oracle.seconds, 1e-9):.0f}/s); load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
