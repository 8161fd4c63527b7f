"""SearchAgent against three GreedyAgents: chips per hand and decisions per second.

    python benchmarks/bench_search.py [--hands 2000] [--players 4] [--rollouts 64] [--budget old|new] [--compare]

With ``--compare`` the Search with the Python Tactics (``compiled=False``, the agent before)
is also asked every decision the Search with the compiled Tactics (the default) is asked,
right after it (its answer is not played), and the ratio of their speeds is printed: timed
turn by turn on the same positions, the two see the same load on a shared machine.

By default both play at the budget Search had before the compiled Tactics
(``agents.search.OLD_BUDGET``: 64 rollouts for every decision, 8 announcements searched);
``--budget new`` gives both today's default budget. One-hand episodes on the vector env. At each table one seat is the search
agent, rotating by one seat every hand (table b, hand h: seat (b + h) % n),
the others greedy. Prints the search seat's mean chip change per hand (the
greedy seats' mean is minus that over n-1: chips are zero-sum) with its
standard error, and the search agent's speed: searched decisions (more than
one legal action) per second of its own time.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import nos_env  # noqa: E402
from agents.base import BatchContext  # noqa: E402
from agents.greedy import GreedyAgent  # noqa: E402
from agents.search import OLD_BUDGET, SearchAgent  # noqa: E402


def load_before(path: str):
    """The SearchAgent class of an older agents/search.py (``git show REV:agents/search.py > FILE``),
    imported as a module of the agents package so its relative imports resolve."""
    spec = importlib.util.spec_from_file_location("agents._search_before", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.SearchAgent


def run(hands: int, players: int = 4, rollouts: int = 64, num_envs: int = 16, seed: int = 1,
        compare: bool = False, budget: str = "old", before: str | None = None) -> dict:
    venv = nos_env.vector_env(num_envs=num_envs, num_players=players, seed=seed)
    obs, masks, current = venv.reset()
    # One budget for both (the same work): the one before the compiled Tactics (OLD_BUDGET) or today's.
    options = OLD_BUDGET if budget == "old" else {}
    search = SearchAgent(seed=seed, rollouts=rollouts, **options)
    old = SearchAgent(seed=seed, rollouts=rollouts, compiled=False, **options) if compare else None
    old_time, same = 0.0, 0
    # (an older Search knows only the options it had; its defaults were OLD_BUDGET)
    first = load_before(before)(seed=seed, rollouts=rollouts) if before else None
    first_time = 0.0
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
            context = BatchContext(venv.tables, rows, current[rows])
            actions[rows] = search.act_batch(obs[rows], row_masks, context)
            search_time += time.perf_counter() - start
            if old is not None:
                start = time.perf_counter()
                same += int((old.act_batch(obs[rows], row_masks, context) == actions[rows])[row_masks.sum(axis=1) > 1].sum())
                old_time += time.perf_counter() - start
            if first is not None:
                start = time.perf_counter()
                first.act_batch(obs[rows], row_masks, context)
                first_time += time.perf_counter() - start
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
            "searched_decisions": searched, "decisions_per_second": searched / max(search_time, 1e-9),
            "old_decisions_per_second": searched / max(old_time, 1e-9) if compare else None,
            "same_choices": same,
            "before_decisions_per_second": searched / max(first_time, 1e-9) if before else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rollouts", type=int, default=64)
    parser.add_argument("--envs", type=int, default=16)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--budget", choices=("old", "new"), default="old",
                        help="old: 64 rollouts for every decision, 8 announcements (agents.search.OLD_BUDGET); "
                             "new: the default budget (4096 rollouts for set and announcement decisions, every legal "
                             "announcement by sequential halving; 1024 for declare and closing decisions)")
    parser.add_argument("--before", metavar="FILE",  # with the old budget only
                        help="also time the Search of an older agents/search.py on the same decisions "
                             "(git show 8d4be42:agents/search.py > FILE: the one before the compiled Tactics)")
    parser.add_argument("--compare", action="store_true",
                        help="also play the same hands with the Python Tactics (compiled=False) and compare speeds")
    args = parser.parse_args()
    run(8, args.players, args.rollouts, args.envs, args.seed)  # compile (or load) the kernels first
    r = run(args.hands, args.players, args.rollouts, args.envs, args.seed, args.compare, args.budget, args.before)
    print(f"{args.players} players, rollouts={args.rollouts}, {args.budget} budget: search {r['mean']:+.2f} +- {r['se']:.2f} chips/hand "
          f"over {r['hands']} hands vs greedy; {r['decisions_per_second']:.0f} searched decisions/s "
          f"({r['searched_decisions']} decisions)")
    if args.compare:
        old = r["old_decisions_per_second"]
        print(f"Search with the Python Tactics on the same decisions: {old:.1f} searched decisions/s; "
              f"speed-up {r['decisions_per_second'] / old:.1f}x; same choice in {r['same_choices']} of "
              f"{r['searched_decisions']} decisions")
    if args.before:
        first = r["before_decisions_per_second"]
        print(f"Search of {args.before} on the same decisions: {first:.1f} searched decisions/s; "
              f"speed-up {r['decisions_per_second'] / first:.1f}x")


if __name__ == "__main__":
    main()
