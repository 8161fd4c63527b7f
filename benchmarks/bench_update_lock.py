"""How much of Python's interpreter lock a PPO update thread leaves to the main thread.

    OMP_NUM_THREADS=1 python benchmarks/bench_update_lock.py [--config configs/quick.yaml] [--seconds 3]

Counts the iterations of a pure Python loop in ``--seconds`` alone, then beside a thread that
runs the config's PPO update over and over (as ``ppo.overlap`` does, train/overlap.py), twice.
The ratio is what the rollout's Python-driven work keeps of its speed beside an update; on a
machine with a free core and a lock-free update it would stay near 1.
"""

from __future__ import annotations

import argparse
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def spin(seconds: float) -> int:
    end, count = time.perf_counter() + seconds, 0
    while time.perf_counter() < end:
        count += 1
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs/quick.yaml"))
    parser.add_argument("--seconds", type=float, default=3.0)
    args = parser.parse_args()

    import torch as th

    from train.config import load_config
    from train.trainer import quiet_model

    th.set_flush_denormal(True)
    config = load_config(args.config)
    env, model = quiet_model(config)
    model.learn(config.env.num_envs * config.ppo.n_steps)  # one rollout to update on (and a warm-up)

    def updates(stop: threading.Event) -> None:
        while not stop.is_set():
            model.train()

    for _ in range(2):
        alone = spin(args.seconds)
        stop = threading.Event()
        thread = threading.Thread(target=updates, args=(stop,))
        thread.start()
        time.sleep(0.5)
        beside = spin(args.seconds)
        stop.set()
        thread.join()
        print(f"Python loop iterations in {args.seconds:g} s: alone {alone:,}, beside an update thread {beside:,} "
              f"({beside / alone:.2f})")


if __name__ == "__main__":
    main()
