"""bf16 updates (``ppo.bf16``, agents/policy.py ``NosPolicy.evaluate_actions``): the PPO update's
MLPs under bfloat16 autocast. Checked: off, the update is sb3-contrib's to the bit; on, its
forward pass and its losses stay within a stated distance of float32's while really differing
(so autocast is on), the weights and Adam's state stay float32, and a model trained with it saves,
loads and plays in float32."""

from __future__ import annotations

import copy

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from train.config import ConfigError, from_dict  # noqa: E402
from train.trainer import fast_update  # noqa: E402
from tiny_training import flat_weights, small_model  # noqa: E402

SMALL = {"env": {"num_envs": 32, "num_threads": 1}, "policy": {"width": 64, "pi": [32], "vf": [32]},
         "opponents": {"baselines": {"random": 1, "greedy": 1}},
         "ppo": {"n_steps": 4, "batch_size": 64, "n_epochs": 2}}


def _model(**ppo):
    return small_model(SMALL, **ppo)


_weights = flat_weights


def _collected(**ppo):
    """A model with one rollout collected and not yet trained on."""
    model = _model(**ppo)
    model.learn(SMALL["env"]["num_envs"] * SMALL["ppo"]["n_steps"])  # a rollout and its update
    # another rollout, without its update: train() is called by the tests
    train, model.train = model.train, lambda: None
    model.learn(SMALL["env"]["num_envs"] * SMALL["ppo"]["n_steps"], reset_num_timesteps=False)
    model.train = train
    return model


def _batch(model):
    buffer = model.rollout_buffer
    obs = th.as_tensor(buffer.observations.reshape(-1, buffer.observations.shape[-1]))
    actions = th.as_tensor(buffer.actions.reshape(-1)).long()
    masks = buffer.action_masks.reshape(len(actions), -1)
    return obs, actions, masks


def test_the_flag_is_set_per_run_and_checked():
    assert _model().policy.bf16_update is False
    assert _model(bf16=True).policy.bf16_update is True
    with pytest.raises(ConfigError, match="ppo.bf16: must be true or false"):
        from_dict({"ppo": {"bf16": "yes"}})


def test_off_the_update_is_sb3_contribs_to_the_bit():
    """bf16 off: the policy's evaluate_actions is sb3-contrib's, so whole runs are unchanged."""
    runs = []
    for own in (True, False):
        model = _model()
        if not own:
            model.policy.evaluate_actions = MaskableActorCriticPolicy.evaluate_actions.__get__(model.policy)
        model.learn(3 * 128)
        runs.append(_weights(model.policy))
    assert th.equal(runs[0], runs[1])


def test_on_the_forward_pass_is_float32_within_bf16_rounding():
    model = _collected()
    obs, actions, masks = _batch(model)
    policy = model.policy
    with th.no_grad():
        values32, log_prob32, entropy32 = policy.evaluate_actions(obs, actions, action_masks=masks)
        policy.bf16_update = True
        values16, log_prob16, entropy16 = policy.evaluate_actions(obs, actions, action_masks=masks)
    for a, b in ((values32, values16), (log_prob32, log_prob16), (entropy32, entropy16)):
        assert a.dtype == b.dtype == th.float32
        assert not th.equal(a, b)  # autocast really ran the MLPs in bfloat16
    # bfloat16 keeps 8 significant bits (relative error 2^-9 per rounding)
    assert (values16 - values32).abs().max() < 0.02
    assert (log_prob16 - log_prob32).abs().max() < 0.02
    assert (entropy16 - entropy32).abs().max() < 0.02


def test_on_an_update_gives_float32s_losses_and_gradient_and_keeps_float32_state():
    """One minibatch (the whole rollout, one epoch) from the same weights, in float32 then in
    bf16: the losses agree within 1% (the policy loss, about 0 at a ratio of 1, within 0.001) and
    the gradient points the same way (cosine > 0.99); weights and Adam's moments stay float32.
    (After Adam's steps the two runs part further: its first steps move each weight by about the
    learning rate whatever the gradient's size, so a rounding flip of a tiny gradient's sign counts
    in full.)"""
    model = _collected(n_epochs=1, batch_size=SMALL["env"]["num_envs"] * SMALL["ppo"]["n_steps"])
    start = copy.deepcopy(model.policy.state_dict())
    optimizer = copy.deepcopy(model.policy.optimizer.state_dict())
    buffer = model.rollout_buffer
    saved = {k: getattr(buffer, k).copy() for k in ("observations", "actions", "values", "log_probs",
                                                    "advantages", "returns", "action_masks")}
    step = model.policy.optimizer.step
    results = []
    for bf16 in (False, True):
        model.policy.load_state_dict(start)
        model.policy.optimizer.load_state_dict(optimizer)
        for k, v in saved.items():
            setattr(buffer, k, v.copy())
        buffer.generator_ready, buffer._packed = False, False
        model.policy.bf16_update = bf16
        grads = []

        def traced_step(*args, **kwargs):
            grads.append(th.cat([p.grad.flatten().clone() for p in model.policy.parameters() if p.grad is not None]))
            return step(*args, **kwargs)

        model.policy.optimizer.step = traced_step
        model.train()
        assert len(grads) == 1
        results.append((dict(model.logger.name_to_value), grads[0]))
    (loss32, grad32), (loss16, grad16) = results
    for key in ("train/value_loss", "train/entropy_loss"):
        assert loss16[key] == pytest.approx(loss32[key], rel=0.01), key
        assert loss16[key] != loss32[key], key  # rounded in bf16: not the float32 numbers
    assert loss16["train/policy_gradient_loss"] == pytest.approx(loss32["train/policy_gradient_loss"], abs=0.001)
    assert th.nn.functional.cosine_similarity(grad32, grad16, dim=0) > 0.99
    assert all(p.dtype == th.float32 for p in model.policy.parameters())
    for state in model.policy.optimizer.state.values():
        assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == th.float32


def test_a_model_trained_in_bf16_saves_loads_and_plays_in_float32(tmp_path):
    from agents.model import load_model, load_policy
    from train.trainer import CHECKPOINT_EXCLUDE

    model = _model(bf16=True)
    model.learn(2 * 128)
    path = tmp_path / "model.zip"
    model.save(path, exclude=CHECKPOINT_EXCLUDE)
    obs, actions, masks = _batch(model)
    for loaded in (load_policy(path), load_model(path, device="cpu").policy):
        assert loaded.bf16_update is False
        assert all(p.dtype == th.float32 for p in loaded.parameters())
        assert th.equal(_weights(loaded), _weights(model.policy))
        chosen, _ = loaded.predict(obs.numpy()[:8], deterministic=True, action_masks=masks[:8])
        assert all(masks[i, a] for i, a in enumerate(chosen))
    # resumed through the trainer, it trains in bf16 again only if the config says so
    resumed = load_model(path, env=model.get_env(), device="cpu")
    assert fast_update(from_dict(SMALL), resumed).policy.bf16_update is False


@pytest.mark.parametrize("env", [{"tactics_hint": True},
                                 {"game": "draw", "privileged_critic": True}])
def test_bf16_updates_the_hint_and_privileged_critic_policies(env):
    """The policies with the Tactics hint (HintExtractor: the hint joins the bf16 latent) and with a
    privileged critic (PrivilegedExtractor) train in bf16: finite losses, within 1% of float32's."""
    model = small_model({**SMALL, "env": {**SMALL["env"], "num_envs": 16, **env},
                         "opponents": {"baselines": {"random": 1}},
                         "eval": {"opponent": "random", "final_opponents": ["random"]},
                         "ppo": {"n_steps": 4, "batch_size": 64, "n_epochs": 1}})
    train, model.train = model.train, lambda: None
    model.learn(64)  # one rollout, no update
    obs, actions, masks = _batch(model)
    with th.no_grad():
        float32 = model.policy.evaluate_actions(obs, actions, action_masks=masks)
        model.policy.bf16_update = True
        bf16 = model.policy.evaluate_actions(obs, actions, action_masks=masks)
    for a, b in zip(float32, bf16):
        assert th.isfinite(b).all() and not th.equal(a, b)
        assert (a - b).abs().max() < 0.02
    model.train = train
    model.train()
    assert np.isfinite(model.logger.name_to_value["train/value_loss"])
