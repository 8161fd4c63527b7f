"""The PPO update's cost with and without each of the policy's sparse paths, in one process.

    OMP_NUM_THREADS=1 python benchmarks/bench_update.py [--config configs/quick.yaml] [--repeats 3]
                                                       [--before-commit e87e8e7]

Builds the config's model, collects one rollout, then times ``model.train()`` (one update:
``n_epochs`` passes over the rollout) in four ways, in turn, ``--repeats`` times:

- ``before``: the dense first layer and the masked distribution over all actions as they
  were at ``--before-commit`` (its ``FastMaskedCategorical``, read with ``git show``);
- ``sparse first layer``: ``agents/sparse_linear.py`` on, the old distribution;
- ``legal logits``: the dense first layer, the legal-actions-only head and distribution
  (``agents/legal_logits.py``, ``agents/masked_categorical.py``);
- ``both``: both of the above, the minibatches dense (as the buffer gave them before);
- ``compressed rollout``: as the trainer runs now: both, and the rollout buffer hands out
  compressed observations and legal lists built once per rollout (``train/buffer.py``).

Printed: each way's CPU seconds per update (this process's CPU time, which a shared machine
inflates less than the wall clock) and µs per learner decision. The same rollout is used
throughout; the model learns a little at each update, which does not change the cost.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def old_distribution(commit: str):
    """``FastMaskedCategorical`` as agents/policy.py defined it at ``commit``."""
    source = subprocess.run(["git", "show", f"{commit}:agents/policy.py"], cwd=ROOT, check=True,
                            capture_output=True, text=True).stdout
    folder = Path(tempfile.mkdtemp())
    (folder / "policy_before.py").write_text(source)
    sys.path.insert(0, str(folder))
    import policy_before

    return policy_before.FastMaskedCategorical


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "configs/quick.yaml"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before-commit", default="e87e8e7")
    args = parser.parse_args()

    import torch as th
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    import agents.sparse_linear as sparse_linear
    from agents.masked_categorical import FastMaskedCategorical
    from train.config import load_config
    from train.trainer import quiet_model

    Before = old_distribution(args.before_commit)
    th.set_flush_denormal(True)
    config = load_config(args.config)
    env, model = quiet_model(config)
    model.learn(config.env.num_envs * config.ppo.n_steps)  # one rollout (and a first update: warm-up)
    policy = model.policy
    legal_get = policy._get_action_dist_from_latent
    full_get = MaskableActorCriticPolicy._get_action_dist_from_latent.__get__(policy)
    actions = int(policy.action_space.n)
    density = sparse_linear.MAX_DENSITY
    ways = [("before", False, False, False), ("sparse first layer", True, False, False),
            ("legal logits", False, True, False), ("both", True, True, False), ("compressed rollout", True, True, True)]
    seconds: dict[str, list[float]] = {name: [] for name, *_ in ways}
    buffer = model.rollout_buffer
    for _ in range(args.repeats):
        for name, sparse, legal, compressed in ways:
            buffer.compressed, buffer._packed = compressed, False  # packed again: its cost counts
            sparse_linear.MAX_DENSITY = density if sparse else -1.0  # -1: every input takes the dense code
            if legal:
                policy.action_dist, policy._get_action_dist_from_latent = FastMaskedCategorical(actions), legal_get
            else:
                policy.action_dist, policy._get_action_dist_from_latent = Before(actions), full_get
            start = time.process_time()
            model.train()
            seconds[name].append(time.process_time() - start)
    sparse_linear.MAX_DENSITY = density
    decisions = config.env.num_envs * config.ppo.n_steps
    print(f"{Path(args.config).name}: one update = {config.ppo.n_epochs} epochs over {decisions:,} decisions, "
          f"minibatch {config.ppo.batch_size:,}; torch threads {th.get_num_threads()}")
    base = np.median(seconds["before"])
    for name, values in seconds.items():
        median = float(np.median(values))
        print(f"{name:<20} CPU s per update: {' '.join(f'{v:.2f}' for v in values)}  median {median:.2f} "
              f"({median / decisions * 1e6:.1f} µs/decision, {base / median:.2f}x)")


if __name__ == "__main__":
    main()
