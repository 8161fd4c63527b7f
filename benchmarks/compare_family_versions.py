"""Two checkouts of the family engines side by side, block by block (the machine is shared and noisy).

    git archive <commit> nos_env | tar -x -C /tmp/nos-old     # or: git worktree add /tmp/nos-old <commit>
    python benchmarks/compare_family_versions.py /tmp/nos-old . [--games draw all_fives] [--blocks 12]

For each game, one process per checkout (imported from its own directory) holds B tables
(default 4096) at 4 players (the game's count where 4 is not allowed) on
``nos_env.vector_env(game=...)`` with its defaults (compact observations, relative rewards,
threads "auto"), and the same loop on its raw tables (``env.tables.step``). The processes
take turns: one block of ``--seconds`` each, before, after, before, after..., so a neighbour's
job slows both alike. Each step draws a uniformly random legal action per table (the tables'
``sample_legal``) and reads the observation and the mask, as ``bench_family.py`` does.
Printed: the median agent-steps/s over the blocks of each version and their ratio, wall clock
and per CPU-second of the process (the fairer figure of one core's work beside busy jobs).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys

import numpy as np

CHILD = r"""
import sys, time, warnings
import numpy as np
warnings.filterwarnings("ignore")
sys.path.insert(0, sys.argv[1])
import nos_env
from nos_env.registry import game_info
from nos_env.rng import seed_state

game, B, threads = sys.argv[2], int(sys.argv[3]), sys.argv[4]
threads = threads if threads == "auto" else int(threads)
counts = game_info(game).player_counts
env = nos_env.vector_env(B, game=game, num_players=4 if 4 in counts else counts[0], seed=1, num_threads=threads)
env.reset()
tables = env.tables
state = np.array([seed_state(10_000 + b) for b in range(B)], np.uint64)
actions = np.empty(B, np.int64)
for _ in range(20):
    tables.sample_legal(state, actions)
    env.step(actions)

def vector():
    tables.sample_legal(state, actions)
    obs, masks, current, rewards, terminated, infos = env.step(actions)

def raw():
    tables.sample_legal(state, actions)
    obs, points, terminated, current = tables.step(actions)
    masks = tables.masks

print("ready", flush=True)
for line in sys.stdin:
    way, seconds = line.split()
    loop = vector if way == "vector" else raw
    steps, start, cpu = 0, time.perf_counter(), time.process_time()
    while time.perf_counter() - start < float(seconds):
        loop()
        steps += B
    print(steps / (time.perf_counter() - start), steps / (time.process_time() - cpu), flush=True)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--games", nargs="*", default=["draw", "all_fives", "mexican_train", "chickenfoot"])
    parser.add_argument("--tables", type=int, default=4096)
    parser.add_argument("--threads", default="auto")
    parser.add_argument("--blocks", type=int, default=12, help="blocks per version and way")
    parser.add_argument("--seconds", type=float, default=0.5, help="length of one block")
    args = parser.parse_args()
    roots = [os.path.abspath(args.before), os.path.abspath(args.after)]
    print(f"B={args.tables}, threads={args.threads}, {args.blocks} blocks of {args.seconds} s per version and way; "
          f"median M agent-steps/s (per CPU-s)")
    print(f"{'game':14s} {'way':10s} {'before':>14s} {'after':>14s} {'after/before':>13s}")
    for game in args.games:
        children = [subprocess.Popen([sys.executable, "-c", CHILD, root, game, str(args.tables), args.threads],
                                     cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                    for root in roots]
        for child in children:
            assert child.stdout.readline().strip() == "ready"
        for way in ("tables", "vector"):
            rates = [[], []]
            for _ in range(args.blocks):
                for i, child in enumerate(children):
                    child.stdin.write(f"{way} {args.seconds}\n")
                    child.stdin.flush()
                    rates[i].append([float(x) for x in child.stdout.readline().split()])
            (w0, c0), (w1, c1) = (np.median(np.array(r), axis=0) / 1e6 for r in rates)
            print(f"{game:14s} {way:10s} {w0:6.2f} ({c0:5.2f}) {w1:6.2f} ({c1:5.2f}) {w1 / w0:7.2f} ({c1 / c0:4.2f})",
                  flush=True)
        for child in children:
            child.stdin.close()
            child.wait()


if __name__ == "__main__":
    main()
