"""Decisions per second of the family environments: the AEC environment on both engines, and
the vector environment's reward modes (``"win"`` rebuilds each finished table's game in the
reference engine to name its winner, so it costs more per finished episode).

    python benchmarks/bench_family_env.py [--decisions 3000] [--tables 1024] [--games draw five_up]

AEC: one table, a uniformly random legal action per decision, ``env.last()`` (the observation of
the agent to move and its mask) every decision, single hands. Vector: B tables at their default
players, random legal actions from the masks. The machine is shared and noisy: compare figures
of the same run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import nos_env
from nos_env.family_env import FAMILY_GAMES


def single_hand(game: str) -> dict:
    return {} if game == "blind" else {"target_score": None}


def bench_aec(game: str, backend: str, decisions: int) -> float:
    env = nos_env.env(game=game, backend=backend, **single_hand(game))
    rng = np.random.default_rng(0)
    env.reset(seed=0)
    done = 0
    start = time.perf_counter()
    while done < decisions:
        for agent in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            if terminated or truncated:
                env.step(None)
                continue
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            done += 1
        env.reset()
    return done / (time.perf_counter() - start)


def bench_vector(game: str, tables: int, steps: int, reward: str) -> float:
    venv = nos_env.vector_env(tables, game=game, seed=0, reward=reward)
    _, masks, _ = venv.reset()
    rng = np.random.default_rng(0)
    # random legal actions: a random score per action, the best legal one per table
    for _ in range(20):  # warm-up: compilation (cached) and the thread choice settle
        _, masks, _, _, _, _ = venv.step(np.argmax(rng.random(masks.shape) * masks, axis=1))
    start = time.perf_counter()
    for _ in range(steps):
        actions = np.argmax(rng.random(masks.shape) * masks, axis=1)
        _, masks, _, _, _, _ = venv.step(actions)
    return tables * steps / (time.perf_counter() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decisions", type=int, default=3000)
    parser.add_argument("--tables", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--games", nargs="*", default=list(FAMILY_GAMES))
    args = parser.parse_args(argv)
    print(f"{'game':<18} {'AEC reference':>14} {'AEC fast':>10} {'vector relative':>16} {'vector win':>11}"
          "   (decisions/s)")
    for game in args.games:
        bench_aec(game, "fast", 50)  # compile (cached) before timing
        ref = bench_aec(game, "reference", args.decisions)
        fast = bench_aec(game, "fast", args.decisions)
        rel = bench_vector(game, args.tables, args.steps, "relative")
        win = bench_vector(game, args.tables, args.steps, "win")
        print(f"{game:<18} {ref:14,.0f} {fast:10,.0f} {rel:16,.0f} {win:11,.0f}")


if __name__ == "__main__":
    main()
