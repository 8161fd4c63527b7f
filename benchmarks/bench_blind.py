"""Speed of Blind's fast engine (BlindTables) beside its reference engine, in one run.

    python benchmarks/bench_blind.py [--seconds 3] [--batch 4096] [--players 4] [--threads auto]

Agent-steps (decisions) per second with uniformly random legal actions (drawn by the
numba ``sample_legal`` kernel), each step returning the observation of the seat to move
(compact uint8 and float32) and reading the mask; the median over 0.25-second blocks (the
machine is shared: bursts of other jobs slow single blocks). Blind asks an agent only for
real decisions (forced plays and tiles that fit nowhere are played by the engine, F12), so
one agent-step covers several turned-up tiles. Also the reference engine's rate, and the
share of deals skipped because they had no decision.
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from nos_env.blind_tables import BlindTables
from nos_env.family.blind import BlindGame, make_blind_rules
from nos_env.rng import seed_state

BLOCK_SECONDS = 0.25


def fast_rate(batch, players, dtype, seconds, threads, optional_play=False):
    tables = BlindTables("blind", batch, num_players=players, seed=1, observation_dtype=dtype, threads=threads,
                         optional_play=optional_play)
    policy = np.array([seed_state(10_000 + b) for b in range(batch)], np.uint64)
    actions = np.zeros(batch, np.int64)
    for _ in range(3):  # warm the kernels
        tables.step(tables.sample_legal(policy, actions))
    rates, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < BLOCK_SECONDS:
            obs, points, terminated, current = tables.step(tables.sample_legal(policy, actions))
            mask = tables.masks
            steps += batch
        rates.append(steps / (time.perf_counter() - t0))
    assert obs.dtype == np.dtype(dtype) and mask.shape == (batch, tables.num_actions)
    return float(np.median(rates))


def nos_rate(batch, dtype, seconds, threads):
    """Nos's FastTables in the same loop, for a ratio from the same run (the machine is shared)."""
    from nos_env.fast_engine import FastTables

    tables = FastTables(batch, 4, seed=1, observation_dtype=dtype, num_threads=threads)
    tables.reset_tables()
    policy = np.array([seed_state(10_000 + b) for b in range(batch)], np.uint64)
    actions = np.zeros(batch, np.int64)
    for _ in range(3):
        tables.step(tables.sample_legal(policy, actions))
    rates, end = [], time.perf_counter() + seconds
    while time.perf_counter() < end:
        steps, t0 = 0, time.perf_counter()
        while time.perf_counter() - t0 < BLOCK_SECONDS:
            tables.step(tables.sample_legal(policy, actions))
            tables.masks
            steps += batch
        rates.append(steps / (time.perf_counter() - t0))
    return float(np.median(rates))


def reference_rate(players, seconds, optional_play=False):
    rules = make_blind_rules(players, optional_play=optional_play)
    rnd = random.Random(0)
    steps, seed, t0 = 0, 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        game = BlindGame(rules, seed=seed, skip_decisionless=True)
        seed += 1
        while not game.done:
            game.observe(game.to_move, "uint8")
            game.legal_mask()
            game.step(rnd.choice(game.legal_actions()))
            steps += 1
    return steps / (time.perf_counter() - t0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--threads", default="auto")
    args = parser.parse_args()
    threads = args.threads if args.threads == "auto" else int(args.threads)
    print(f"Blind, {args.players} players, double-six, B={args.batch}, threads={args.threads}")
    for optional_play in (False, True):
        for dtype in ("uint8", "float32"):
            rate = fast_rate(args.batch, args.players, dtype, args.seconds, threads, optional_play)
            print(f"  fast  optional_play={optional_play!s:5} obs={dtype:7}  {rate:12,.0f} agent-steps/s")
        ref = reference_rate(args.players, args.seconds, optional_play)
        print(f"  reference engine optional_play={optional_play!s:5}   {ref:12,.0f} agent-steps/s "
              f"(fast/reference {rate / ref:,.0f}x, float32)")
    nos = nos_rate(args.batch, "uint8", args.seconds, threads)
    print(f"  Nos FastTables, same loop, obs=uint8       {nos:12,.0f} agent-steps/s (the same run, for scale)")


if __name__ == "__main__":
    main()
