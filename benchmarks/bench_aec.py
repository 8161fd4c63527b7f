"""Speed of the AEC loop, as users write it, beside PettingZoo's own classic games.

    pip install -e ".[bench]"
    python benchmarks/bench_aec.py [--seconds 5]

Every environment runs the same loop: ``env.last()``, a uniformly random
legal action from the mask (``None`` for a finished agent), ``env.step()``.
Prints agent-steps per second for Nos with 3, 4 and 5 players (with and
without D12 automatic forced decisions) and for ``tictactoe_v3`` and
``connect_four_v3`` measured in the same run, with the ratio to each. The
machine is shared, so read the ratios rather than the absolute numbers.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

import nos_env


def run(make_env, seconds: float, seed: int = 0) -> tuple[float, int]:
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=int(rng.integers(1 << 30)))
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
        episodes += 1
    return steps / (time.perf_counter() - start), episodes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=5.0, help="seconds per environment")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    from pettingzoo.classic import connect_four_v3, tictactoe_v3

    rows = [
        ("tictactoe_v3", tictactoe_v3.env),
        ("connect_four_v3", connect_four_v3.env),
    ]
    for n in (3, 4, 5):
        rows.append((f"nos_v0 {n}p", lambda n=n: nos_env.env(num_players=n)))
    rows.append(("nos_v0 4p auto_forced", lambda: nos_env.env(num_players=4, auto_forced=True)))

    results = {}
    print(f"AEC loop, random legal actions, {args.seconds:g} s per environment")
    print(f"{'environment':24s} {'agent-steps/s':>14s} {'episodes':>9s} {'vs tictactoe':>13s} {'vs connect4':>12s}")
    for name, make in rows:
        rate, episodes = run(make, args.seconds)
        results[name] = rate
        ttt = results.get("tictactoe_v3", rate)
        c4 = results.get("connect_four_v3", rate)
        print(f"{name:24s} {rate:14.0f} {episodes:9d} {rate / ttt:13.2f} {rate / c4:12.2f}")


if __name__ == "__main__":
    main()
