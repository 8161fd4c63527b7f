"""The PPO update's cost with the tail kept apart (``agents/policy.py`` ``CarriedLatent``, since the
commit after 37f68ea) against sb3-contrib's ``evaluate_actions``, which concatenates the encoded
observation with the columns carried behind it (the hint, the closing and settlement features)
and slices them apart again.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_update_closing.py \
        [--config configs/nos_openings_ppo_settle.yaml] [--repeats 3] [--compare path|legal]

``--compare legal`` compares instead the closing features' logits of the legal actions only
(``closing_logits_at``, what ``HintHead.chosen`` computes) with all 448 plays' then gathered.

Builds the config's model (no distillation), collects one rollout, then times ``model.train()``
(one update: ``n_epochs`` passes over the rollout) both ways in turn, ``--repeats`` times. Why:
each slice of a tensor that needs a gradient makes the backward pass write a zero-filled gradient
as wide as the whole tensor (about 1,150 columns with the closing features, 1,600 with the
settlement features), and every concatenation allocates one; torch's profiler put more than half
of the closing config's update there. Both ways give the same values and gradients
(tests/test_tail_apart.py). (Before this, the benchmark compared the closing features read through
the latent with their detached read, commit cb005bc: docs/benchmarks.md.)

Printed: each way's CPU seconds per update (this process's CPU time, which a shared machine
inflates less than the wall clock), µs a decision, and the ratio, taken in the same run.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(ROOT / "configs" / "nos_openings_ppo_settle.yaml"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare", choices=["path", "legal"], default="path",
                        help="path: sb3-contrib's concatenating update against the tail kept apart; legal: the "
                             "closing logits of all plays then gathered against the legal actions' only")
    args = parser.parse_args()
    import numpy as np
    import torch as th

    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from train.config import load_config
    from train.trainer import quiet_model

    config = load_config(args.config)
    if not config.env.closing_features:
        raise SystemExit(f"{args.config} has no closing features (env.closing_features: false): nothing to compare")
    th.set_flush_denormal(True)
    env, model = quiet_model(config)
    model.learn(config.env.num_envs * config.ppo.n_steps)  # one rollout (and a first update: warm-up)
    import agents.policy as module

    policy = model.policy
    legal_only = module.closing_logits_at
    if args.compare == "path":
        ways = {"concatenated (sb3)": MaskableActorCriticPolicy.evaluate_actions.__get__(policy),
                "apart (now)": policy.evaluate_actions}
    else:
        ways = {"all plays, gathered": lambda f, w, index: module.closing_logits(f, w).gather(1, index),
                "legal only (now)": legal_only}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    try:
        for _ in range(args.repeats):
            for name, way in ways.items():
                if args.compare == "path":
                    policy.evaluate_actions = way
                else:
                    module.closing_logits_at = way
                start = time.process_time()
                model.train()
                seconds[name].append(time.process_time() - start)
    finally:
        policy.__dict__.pop("evaluate_actions", None)  # the class's method again
        module.closing_logits_at = legal_only
    decisions = config.env.num_envs * config.ppo.n_steps
    print(f"{Path(args.config).name}: one update = {config.ppo.n_epochs} epochs over {decisions:,} decisions, "
          f"minibatch {config.ppo.batch_size:,}; torch threads {th.get_num_threads()}; "
          f"closing floats {model.policy.closing:,}; load {os.getloadavg()[0]:.1f}")
    base = float(np.median(next(iter(seconds.values()))))
    for name, values in seconds.items():
        median = float(np.median(values))
        print(f"{name:<20} CPU s per update: {' '.join(f'{v:.2f}' for v in values)}  median {median:.2f} "
              f"({median / decisions * 1e6:.1f} µs/decision, {base / median:.2f}x)")
    env.close()


if __name__ == "__main__":
    main()
