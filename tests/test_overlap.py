"""Overlapped PPO updates (train/overlap.py): each update runs in a thread beside the next
rollout, which the policy one update behind collects. Checked: which weights collect and
which are updated, in what order; the same seed gives the same run whatever the threads'
timing; a whole training run (evaluations, snapshots, checkpoints, resume) works with it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from train.cli import main as train_main  # noqa: E402
from train.config import from_dict  # noqa: E402
from tiny_training import flat_weights as _weights  # noqa: E402
from tiny_training import overlap_model as _model  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def test_each_rollout_after_the_first_is_collected_by_the_policy_one_update_behind():
    model = _model()
    learning = model.learn.__self__
    updates, collects = [], []
    train, collect = model.train, learning.collect

    def traced_train():
        start = _weights(model.policy)
        train()
        updates.append((start, _weights(model.policy)))

    def traced_collect(*args, **kwargs):
        # (the acting weights, whether an update was started and not yet waited for)
        collects.append((_weights(learning.acting), learning.thread is not None))
        return collect(*args, **kwargs)

    model.train, learning.collect = traced_train, traced_collect
    model.learn(4 * 64)  # 4 rollouts of 16 tables x 4 steps
    assert len(collects) == len(updates) == 4  # every rollout gets its update, the last one alone
    assert [beside for _, beside in collects] == [False, True, True, True]  # R1..R3 beside an update
    theta0 = collects[0][0]
    assert th.equal(updates[0][0], theta0)
    for k in range(1, 4):
        start, end = updates[k - 1]
        assert not th.equal(start, end)
        assert th.equal(collects[k][0], start)  # R(k) is collected by θ(k-1) while θ(k-1) -> θ(k) runs
        assert th.equal(updates[k][0], end)  # and updated from θ(k)


def _own_log_probs(policy, buffer) -> np.ndarray:
    """The policy's log-probabilities of the buffer's actions, computed independently."""
    obs = buffer.observations.reshape(-1, buffer.observations.shape[-1])
    actions = buffer.actions.reshape(-1)
    masks = buffer.action_masks.reshape(len(actions), -1)
    with th.no_grad():
        dist = policy.get_distribution(th.as_tensor(obs), action_masks=masks)
        return dist.log_prob(th.as_tensor(actions).long()).numpy().reshape(buffer.log_probs.shape)


@pytest.mark.parametrize("refresh", [True, False])
def test_the_update_starts_from_its_own_log_probabilities_when_refreshed(refresh):
    """With ppo.overlap_refresh the stored log-probabilities are the updated policy's own at the
    update's start (PPO's ratio starts at 1); without it they are the collecting policy's."""
    model = _model(overlap_refresh=refresh)
    train = model.train
    agree = []

    def traced_train():
        buffer = model.rollout_buffer
        agree.append(np.allclose(buffer.log_probs, _own_log_probs(model.policy, buffer), atol=1e-5))
        train()

    model.train = traced_train
    model.learn(4 * 64)
    # The first rollout is collected by the policy it is updated from: its log-probabilities agree.
    assert agree == [True, True, True, True] if refresh else agree == [True, False, False, False]


def test_an_overlapped_run_is_reproducible():
    runs = []
    for _ in range(2):
        model = _model()
        model.learn(4 * 64)
        runs.append(_weights(model.policy))
    assert th.equal(runs[0], runs[1])


def test_an_error_in_the_update_thread_reaches_the_caller():
    model = _model()

    def broken():
        raise ArithmeticError("the update failed")

    model.train = broken
    with pytest.raises(ArithmeticError, match="the update failed"):
        model.learn(4 * 64)


def test_a_training_run_with_overlap_evaluates_snapshots_checkpoints_and_resumes(tmp_path):
    """The smoke config with overlap: its evaluations, snapshots and checkpoints read the policy
    between updates, and the saved models load and play."""
    args = ["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}", "--quiet",
            "--set", "ppo.overlap=true", "--set", "run.total_timesteps=2048"]
    train_main(args)
    run = tmp_path / "smoke"
    assert (run / "model.zip").exists() and (run / "checkpoints" / "step_2048.zip").exists()
    train_main(args[:-1] + ["run.total_timesteps=4096", "--resume"])
    assert (run / "checkpoints" / "step_4096.zip").exists()
    from agents.registry import make_agent

    agent = make_agent(f"model:{run / 'model.zip'}")
    assert agent.policy is not None


def test_reweighting_multiplies_each_advantage_by_the_new_to_old_probability_ratio():
    """ppo.overlap_reweight: after the refresh, each decision's advantage is its old value times
    π_new / π_collecting (at most 2), both computed here independently of the refresh."""
    from train.overlap import MAX_WEIGHT, refresh_log_probs

    model = _model()
    model.learn.__self__.collect(model._setup_learn(64)[1], model.rollout_buffer, model.n_steps)
    buffer = model.rollout_buffer
    old_log_probs = buffer.swap_and_flatten(buffer.log_probs.copy())
    old_advantages = buffer.swap_and_flatten(buffer.advantages.copy())
    with th.no_grad():  # the update's policy differs from the collecting one
        for p in model.policy.parameters():
            p.add_(0.3 * th.randn_like(p))
    refresh_log_probs(model.policy, buffer, model.batch_size, reweight=True)
    new = _own_log_probs(model.policy, buffer).reshape(-1)
    assert np.allclose(buffer.log_probs.reshape(-1), new, atol=1e-5)
    weights = np.minimum(np.exp(new - old_log_probs.reshape(-1)), MAX_WEIGHT)
    assert weights.min() < 0.9 and weights.max() > 1.1  # the test sees real weights
    assert np.allclose(buffer.advantages.reshape(-1), old_advantages.reshape(-1) * weights, rtol=1e-4, atol=1e-6)


def test_reweighting_needs_the_refresh():
    from train.config import ConfigError

    with pytest.raises(ConfigError, match="ppo.overlap_reweight: weighs by the refreshed log-probabilities"):
        from_dict({"ppo": {"overlap": True, "overlap_refresh": False, "overlap_reweight": True}})
