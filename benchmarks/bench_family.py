"""Agent-steps per second of every family game on the fast engine (issue 15, item 7).

B tables (default 4096) of each game at 4 players (Fours: its 4; the game's count where 4 is
not allowed), uniformly random legal actions (``FamilyTables.sample_legal``), the compact
observation of the seat to move and the mask read every step. Through ``FamilyTables`` and,
when the environments are there, through ``nos_env.vector_env(game=...)`` with its defaults.

    python benchmarks/bench_family.py [--tables 4096] [--steps 200] [--threads auto] [--games draw all_fives]
    python benchmarks/bench_family.py --games draw chickenfoot --vector   # issue 16's figure and its ratio

The machine is shared and noisy: compare figures of the same run.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from nos_env.family.rules import GAMES, player_counts
from nos_env.family_backends import tables_class
from nos_env.rng import seed_state


def players_of(game: str) -> int:
    return 4 if 4 in player_counts(game) else player_counts(game)[0]


def bench_tables(game: str, B: int, steps: int, threads, dtype: str = "uint8") -> tuple[float, float]:
    """(agent-steps per wall second, per CPU second of this process). Beside other busy jobs the
    second is the fairer figure of one thread's speed (with threads it counts spinning too)."""
    ft = tables_class(game)(game, B, num_players=players_of(game), seed=1, threads=threads, observation_dtype=dtype)
    state = np.array([seed_state(10_000 + b) for b in range(B)], np.uint64)
    actions = np.empty(B, np.int64)
    for _ in range(20):  # warm-up (compilation is cached; thread duels settle)
        ft.sample_legal(state, actions)
        ft.step(actions)
    start = time.perf_counter()
    cpu = time.process_time()
    checksum = 0
    for _ in range(steps):
        ft.sample_legal(state, actions)
        obs, points, terminated, current = ft.step(actions)
        masks = ft.masks
        checksum += int(masks[0, 0]) + int(obs[0, 0])
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu
    return B * steps / seconds, B * steps / cpu


def bench_vector(game: str, B: int, steps: int, threads) -> tuple[float, float]:
    """The same loop through ``nos_env.vector_env(B, game=...)`` with its defaults (compact
    observations, relative rewards); random legal actions drawn by its tables' sampler."""
    import nos_env

    env = nos_env.vector_env(B, game=game, num_players=players_of(game), seed=1, num_threads=threads)
    env.reset()
    state = np.array([seed_state(10_000 + b) for b in range(B)], np.uint64)
    actions = np.empty(B, np.int64)
    for _ in range(20):
        env.tables.sample_legal(state, actions)
        env.step(actions)
    start = time.perf_counter()
    cpu = time.process_time()
    for _ in range(steps):
        env.tables.sample_legal(state, actions)
        obs, masks, current, rewards, terminated, infos = env.step(actions)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return B * steps / seconds, B * steps / cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--threads", default="auto", help='"auto", or a number of threads')
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    parser.add_argument("--float32", action="store_true", help="float32 observations instead of compact")
    parser.add_argument("--vector", action="store_true", help="also through nos_env.vector_env(game=...)")
    args = parser.parse_args()
    threads = args.threads if args.threads == "auto" else int(args.threads)
    dtype = "float32" if args.float32 else "uint8"
    print(f"B={args.tables}, {args.steps} steps, threads={threads}, observations {dtype}, random legal actions")
    print(f"{'game':20s} {'players':>7s} {'M agent-steps/s':>16s} {'per CPU-s':>10s}"
          + (f" {'vector_env':>16s} {'per CPU-s':>10s}" if args.vector else ""))
    for game in args.games:
        rate, cpu_rate = bench_tables(game, args.tables, args.steps, threads, dtype)
        line = f"{game:20s} {players_of(game):7d} {rate / 1e6:16.2f} {cpu_rate / 1e6:10.2f}"
        if args.vector:
            v, v_cpu = bench_vector(game, args.tables, args.steps, threads)
            line += f" {v / 1e6:16.2f} {v_cpu / 1e6:10.2f}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
