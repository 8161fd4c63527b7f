"""Tiny saved Nos models for tests: an action layer set by hand, so what the model plays is known
without the code under test."""

from __future__ import annotations

import numpy as np
import torch as th

from train.config import from_dict


def save_biased_model(path, bias: np.ndarray, config: dict | None = None, hint_weight: float = 0.0):
    """A tiny Nos model (Tactics hint, width 8) that plays ``bias`` alone (and ``hint_weight`` logits
    on the hint's action, if given), saved at ``path``."""
    from train.trainer import make_env, make_model

    c = from_dict(config or {"env": {"tactics_hint": True, "num_envs": 8, "num_threads": 1},
                             "opponents": {"baselines": {"tactics": 1.0}},
                             "ppo": {"n_steps": 8, "batch_size": 64}, "policy": {"width": 8}})
    env, _ = make_env(c)
    model = make_model(c, env)
    head = model.policy.action_net
    with th.no_grad():
        head.linear.weight.zero_()
        head.linear.bias.copy_(th.as_tensor(bias, dtype=th.float32))
        head.weight.fill_(hint_weight)
    model.save(path)
    env.close()
    return path
