"""The self-play rollout's CPU time per learner decision (environment, opponents, the policy's
forward pass, the buffer), the PPO update switched off.

    OMP_NUM_THREADS=1 python benchmarks/bench_rollout.py [--config configs/quick.yaml] [--rollouts 3]
                                                        [--profile 25]

Builds the config's model, collects one rollout (warm-up), then ``--rollouts`` more without
updates, and prints this process's CPU µs per learner decision (all threads; a shared machine
inflates it less than the wall clock) and the wall µs. ``--profile N`` also prints cProfile's N
costliest functions (by own time). To compare two versions of the code, run them in turns.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs/quick.yaml"))
    parser.add_argument("--rollouts", type=int, default=3)
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions (0: none)")
    args = parser.parse_args()

    import torch as th

    from train.config import load_config
    from train.trainer import quiet_model

    th.set_flush_denormal(True)
    config = load_config(args.config)
    env, model = quiet_model(config)
    per_rollout = config.env.num_envs * config.ppo.n_steps
    model.learn(per_rollout)  # warm-up
    model.train = lambda: None  # rollouts only
    profile = cProfile.Profile() if args.profile else None
    start, cpu = time.perf_counter(), time.process_time()
    if profile:
        profile.enable()
    model.learn(args.rollouts * per_rollout, reset_num_timesteps=False)
    if profile:
        profile.disable()
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    decisions = args.rollouts * per_rollout
    print(f"{Path(args.config).name}: {decisions:,} learner decisions, rollouts only: "
          f"{cpu / decisions * 1e6:.1f} µs CPU, {seconds / decisions * 1e6:.1f} µs wall per decision")
    if profile:
        pstats.Stats(profile).sort_stats("tottime").print_stats(args.profile)


if __name__ == "__main__":
    main()
