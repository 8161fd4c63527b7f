"""Bytes a rollout-advantage label holds, compact (train/label_store.py) against float32 rows, and
what a fit epoch costs on each.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/label_bytes.py \\
        configs/family/cross_advantage.yaml configs/family/double_nine_cross_advantage.yaml \\
        configs/family/draw_advantage.yaml configs/nos_openings.yaml --labels 5000 --fit

Each config's env (its game, hint and critic tail; ``distill.phases`` for Nos) is built with 64
tables, ``--labels`` labels are collected, and the bytes in memory are printed per label: dense
(float32 observations, bool masks, float32 values, int64 actions and hints, as before) and compact,
with the observation columns kept as float32 (``--every-phase``: Nos labels at every decision). With ``--fit``, one epoch of the advantage fit
(batch 2048) on each form, and whether the two fits' losses are the same.
"""

from __future__ import annotations

import argparse
import os
import time


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("configs", nargs="+")
    parser.add_argument("--labels", type=int, default=5000)
    parser.add_argument("--fit", action="store_true", help="time one fit epoch on each form")
    parser.add_argument("--every-phase", action="store_true", help="Nos: label every decision (no distill.phases)")
    args = parser.parse_args()
    import numpy as np

    from train.config import load_config
    from train.distill import behaviour_clone, dense_labels, labels_nbytes
    from train.rollout_advantage import collect_advantage_labels, make_labeler
    from train.trainer import make_env, make_model

    for path in args.configs:
        c = load_config(path)
        c.env.num_envs = 64
        if args.every_phase:
            c.distill.phases = []
        env, _ = make_env(c)
        data = collect_advantage_labels(env, make_labeler(env), args.labels, phases=c.distill.phases)
        dense = dense_labels(data)
        n = len(data["actions"])
        obs, masks = data["obs"], data["masks"]
        print(f"{c.env.game}{' ' + '/'.join(c.distill.phases) if c.distill.phases else ''}: observation "
              f"{obs.shape[1]:,} floats ({len(obs.wide_columns)} kept float32), {masks.shape[1]:,} actions, "
              f"{masks.legal_counts().mean():.1f} legal a label; bytes a label: dense "
              f"{labels_nbytes(dense) / n:,.0f}, compact {labels_nbytes(data) / n:,.0f} "
              f"(observation {obs.nbytes / n:,.0f}, masks {masks.nbytes / n:.0f}, values {data['values'].nbytes / n:.0f}); "
              f"{n:,} labels, load {os.getloadavg()[0]:.1f}", flush=True)
        if args.fit:
            losses = {}
            for name, d in (("dense", dense), ("compact", data)):
                policy = make_model(c, env).policy
                start = time.perf_counter()
                rows = behaviour_clone(policy, d, 1, 2048, 1e-3, 0.1, seed=0, target="advantage",
                                       temperature=c.distill.temperature)
                losses[name] = (rows[-1]["train_loss"], rows[-1]["holdout_loss"])
                print(f"  one fit epoch ({name}): {time.perf_counter() - start:.2f} s, load {os.getloadavg()[0]:.1f}",
                      flush=True)
            print(f"  the same losses: {losses['dense'] == losses['compact']}", flush=True)
        env.close()


if __name__ == "__main__":
    main()
