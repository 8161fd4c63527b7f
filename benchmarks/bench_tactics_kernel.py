"""The compiled Tactics against the Python agent: microseconds per decision.

    python benchmarks/bench_tactics_kernel.py [--tables 1024] [--players 4] [--reps 20]

Plays ``--tables`` tables a few turns into the play phase with Tactics, then times (best of
``--reps`` calls): observing every table's seat to move (the observation kernel alone), the
compiled Tactics observing and deciding (``FastTables.tactics_actions``), the Python agent on
the same observation rows (``TacticsAgent.act_batch``), and a play-out of every table to the
end of its hand with the compiled Tactics at every seat, per decision taken.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from agents.tactics import TacticsAgent, kernel_params  # noqa: E402
from nos_env.fast_engine import FastTables  # noqa: E402


def best_of(reps, f) -> float:
    best = np.inf
    for _ in range(reps):
        start = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=1024)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--reps", type=int, default=20)
    args = parser.parse_args()
    B, params = args.tables, kernel_params()
    tables = FastTables(B, args.players, seed=3, hands_per_episode=1, illegal_action="penalty", auto_forced=True,
                        observation_dtype="float32")
    tables.reset_tables()
    for _ in range(12):  # a few turns in: most tables in the play phase
        actions = tables.tactics_actions(params)
        tables.step(np.maximum(actions, 0), observe=False, autoreset=False)
    live = tables.current_player >= 0
    seats = np.maximum(tables.current_player, 0)
    obs = tables.observe(seats)
    masks = np.array(tables.masks)
    python = TacticsAgent(seed=1)
    start = {name: getattr(tables, name).copy() for name in ("T", "S", "A", "L", "BONE", "R", "MASK", "LEGAL")}
    decisions = []

    def playout():
        for name, value in start.items():
            getattr(tables, name)[...] = value
        decisions.append(tables.tactics_playout(params))

    t_obs = best_of(args.reps, lambda: tables.observe(seats))
    t_kernel = best_of(args.reps, lambda: tables.tactics_actions(params))
    t_python = best_of(max(3, args.reps // 4), lambda: python.act_batch(obs[live], masks[live]))
    t_play = best_of(args.reps, playout)
    print(f"{B} tables, {args.players} players, {int(live.sum())} to move; per table: observe {1e6 * t_obs / B:.2f} us, "
          f"compiled Tactics (observe + decide) {1e6 * t_kernel / B:.2f} us, Python Tactics (decide) "
          f"{1e6 * t_python / live.sum():.2f} us; play-out {1e6 * t_play / decisions[-1]:.2f} us a decision "
          f"({decisions[-1]} decisions)")


if __name__ == "__main__":
    main()
