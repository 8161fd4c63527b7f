"""Tournament throughput: a 100,000-hand duplicate tournament of the heuristic agents,
and the Search agent's decisions per second at its default budget.

    python benchmarks/bench_tournament.py [--hands 100000]

The issue's target: the heuristic tournament finishes within 5 minutes here.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nos_env
from agents import AGENTS, make_agent
from agents.base import BatchContext
from agents.tournament import run_tournament


def search_decisions_per_second(seconds: float = 20.0) -> float | None:
    if "search" not in AGENTS:
        return None
    search = make_agent("search", seed=0)
    greedy = make_agent("greedy", seed=1)
    venv = nos_env.vector_env(8, num_players=4, seed=0)
    obs, masks, current = venv.reset()
    decisions = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        rows = np.flatnonzero(current == 0)  # the searcher plays seat 0 at every table
        m = np.array(masks)
        actions = greedy.act_batch(obs, m)
        if len(rows):
            ctx = BatchContext(venv.tables, rows, current[rows])
            actions[rows] = search.act_batch(obs[rows], m[rows], ctx)
            decisions += len(rows)
        obs, masks, current, *_ = venv.step(actions)
    return decisions / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--hands", type=int, default=100_000)
    args = parser.parse_args()
    heuristic = [name for name in ("random", "greedy", "tactics") if name in AGENTS]
    seats = (heuristic + heuristic)[:4]
    start = time.perf_counter()
    result = run_tournament(seats, deals=args.hands // 4, seed=0, tables=1024, progress=False)
    elapsed = time.perf_counter() - start
    print(f"duplicate tournament {seats}: {len(result.deal):,} hands in {elapsed:.1f} s "
          f"({len(result.deal) / elapsed:,.0f} hands/s; target: 100,000 hands within 300 s)")
    rate = search_decisions_per_second()
    if rate is not None:
        print(f"search agent at its default budget: {rate:.1f} decisions/s (4 players, one searcher per table)")


if __name__ == "__main__":
    main()
