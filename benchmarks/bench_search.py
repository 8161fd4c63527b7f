"""SearchAgent against three GreedyAgents: chips per hand and decisions per second.

    python benchmarks/bench_search.py [--hands 2000] [--players 4] [--rollouts 64] [--compare]

With ``--compare`` the same hands are played twice in one run, by the Search with the compiled
Tactics (the default) and by the Search with the Python Tactics (``compiled=False``, the
agent before), and the ratio of their speeds is printed: figures from one run on a shared
machine compare; figures from two runs do not.

One-hand episodes on the vector env. At each table one seat is the search
agent, rotating by one seat every hand (table b, hand h: seat (b + h) % n),
the others greedy. Prints the search seat's mean chip change per hand (the
greedy seats' mean is minus that over n-1: chips are zero-sum) with its
standard error, and the search agent's speed: searched decisions (more than
one legal action) per second of its own time.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import nos_env  # noqa: E402
from agents.base import BatchContext  # noqa: E402
from agents.greedy import GreedyAgent  # noqa: E402
from agents.search import SearchAgent  # noqa: E402


def run(hands: int, players: int = 4, rollouts: int = 64, num_envs: int = 16, seed: int = 1,
        compiled: bool = True) -> dict:
    venv = nos_env.vector_env(num_envs=num_envs, num_players=players, seed=seed)
    obs, masks, current = venv.reset()
    search = SearchAgent(seed=seed, rollouts=rollouts, compiled=compiled)
    greedy = GreedyAgent(seed=seed + 1)
    episode = np.zeros(num_envs, np.int64)
    chips = np.zeros((num_envs, players))
    results, searched, search_time = [], 0, 0.0
    while len(results) < hands:
        seat_of = (np.arange(num_envs) + episode) % players
        actions = greedy.act_batch(obs, masks)
        rows = np.flatnonzero(current == seat_of)
        if len(rows):
            row_masks = np.array(masks[rows])
            start = time.perf_counter()
            actions[rows] = search.act_batch(obs[rows], row_masks, BatchContext(venv.tables, rows, current[rows]))
            search_time += time.perf_counter() - start
            searched += int((row_masks.sum(axis=1) > 1).sum())
        obs, masks, current, rewards, terminated, _ = venv.step(actions)
        chips += rewards
        for b in np.flatnonzero(terminated):
            results.append(chips[b, seat_of[b]])
            chips[b] = 0
            episode[b] += 1
    results = np.array(results[:hands])
    return {"hands": len(results), "mean": float(results.mean()),
            "se": float(results.std(ddof=1) / np.sqrt(len(results))),
            "searched_decisions": searched, "decisions_per_second": searched / max(search_time, 1e-9)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rollouts", type=int, default=64)
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare", action="store_true",
                        help="also play the same hands with the Python Tactics (compiled=False) and compare speeds")
    args = parser.parse_args()
    run(8, args.players, args.rollouts, args.envs, args.seed)  # compile (or load) the kernels first
    results = {}
    for compiled in ((True, False) if args.compare else (True,)):
        r = results[compiled] = run(args.hands, args.players, args.rollouts, args.envs, args.seed, compiled)
        print(f"{args.players} players, rollouts={args.rollouts}, {'compiled' if compiled else 'Python'} Tactics: "
              f"search {r['mean']:+.2f} +- {r['se']:.2f} chips/hand over {r['hands']} hands vs greedy; "
              f"{r['decisions_per_second']:.0f} searched decisions/s ({r['searched_decisions']} decisions)", flush=True)
    if args.compare:
        print(f"speed-up (compiled / Python, same run): "
              f"{results[True]['decisions_per_second'] / results[False]['decisions_per_second']:.1f}x")


if __name__ == "__main__":
    main()
