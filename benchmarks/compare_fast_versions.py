"""Two versions of the fast engine, side by side in one run (the machine is shared and noisy).

    git worktree add /tmp/nos-old 32496fb
    python benchmarks/compare_fast_versions.py /tmp/nos-old . [--rounds 2] [--seconds 4]

Each version runs in its own process, imported from its own checkout, and the
versions alternate round by round. Figures are agent-steps per second at B=4096,
4 players, random legal actions (the median over 0.25-second blocks, as in
``bench_fast.py``), with the observation of the seat to move and with the mask only.
The random actions come from ``FastTables.sample_legal`` (on the tables' threads setting);
a checkout from before that method samples with its own kernel.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

CHILD = r"""
import sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
from nos_env.fast_engine import FastTables
from nos_env.rng import seed_state

B, seconds = 4096, float(sys.argv[2])

def sampler(t, policy, actions):
    if hasattr(t, "sample_legal"):  # the public API
        return lambda: t.sample_legal(policy, actions)
    # An old checkout, from before FastTables.sample_legal: its kernel, as that version's benchmark called it.
    import importlib
    K = importlib.import_module("nos_env.fast_kernels")
    legal = getattr(t, "LEGAL", t.MASK)  # versions before the legal-action list sampled from the mask
    return lambda: K.sample_legal(t.T, legal, policy, actions)

def rate(observe):
    t = FastTables(B, 4, seed=1)
    t.reset_tables()
    policy = np.array([seed_state(10_000 + b) for b in range(B)], np.uint64)
    actions = np.zeros(B, np.int64)
    sample = sampler(t, policy, actions)
    for _ in range(20):
        sample()
        t.step(actions, observe=observe)
    rates, start = [], time.perf_counter()
    while time.perf_counter() - start < seconds:
        steps, block = 0, time.perf_counter()
        while time.perf_counter() - block < 0.25:
            sample()
            t.step(actions, observe=observe)
            steps += B
        rates.append(steps / (time.perf_counter() - block))
    return float(np.median(rates))

print(rate(True), rate(False))
"""


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=4.0)
    args = parser.parse_args()
    roots = [os.path.abspath(args.before), os.path.abspath(args.after)]
    print(f"{'round':>5s}  {'version':40s} {'obs + mask':>12s} {'mask only':>12s}")
    for r in range(1, args.rounds + 1):
        for root in roots:
            out = subprocess.run([sys.executable, "-c", CHILD, root, str(args.seconds)], cwd=root,
                                 capture_output=True, text=True, check=True)
            with_obs, mask_only = map(float, out.stdout.split()[-2:])
            print(f"{r:5d}  {root:40s} {with_obs / 1e6:11.2f}M {mask_only / 1e6:11.2f}M", flush=True)


if __name__ == "__main__":
    main()
