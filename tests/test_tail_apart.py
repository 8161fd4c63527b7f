"""The PPO update keeps the tail apart (agents/policy.py ``CarriedLatent``, ``NosPolicy._evaluate_apart``):
a hinted policy's update no longer concatenates the encoded observation with the columns carried
behind it (the hint, the action points, the action and closing features, the endgame gate). Checked
against sb3-contrib's own ``evaluate_actions``, which goes through the concatenations: the same
values, log-probabilities, entropies and parameter gradients, on dense rows and on the buffer's
compressed rows, for every kind of tail; and whole runs the same to the bit."""

from __future__ import annotations

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402

from agents.policy import CarriedLatent, HintHead, NosEncoder  # noqa: E402
from agents.sparse_linear import SparseRows  # noqa: E402
from nos_env.encoding import NUM_ACTIONS, PASS, PLAY0  # noqa: E402
from tiny_training import flat_weights, small_model  # noqa: E402

BASE = {"env": {"num_envs": 32, "num_threads": 1, "tactics_hint": True},
        "policy": {"width": 32, "pi": [16], "vf": [16]},
        "opponents": {"baselines": {"random": 1, "greedy": 1}},
        "ppo": {"n_steps": 4, "batch_size": 64, "n_epochs": 2}}

#: One config per kind of tail: (env changes, policy changes).
TAILS = {
    "nos hint": ({}, {}),
    "nos closing and settlement features": ({"closing_features": True, "settlement_features": True}, {}),
    "nos endgame gate, closing features": ({"closing_features": True},
                                           {"hint_kept": ["set", "announce", "play"], "hint_freed_in_endgame": ["play"]}),
    "five_up action points": ({"game": "five_up", "tactics_hint": False, "greedy_hint": True, "action_points": True}, {}),
    "blind action features, hidden layer": ({"game": "blind", "tactics_hint": False, "greedy_hint": True,
                                             "action_features": True}, {"features_hidden": [8]}),
}


def _model(name: str):
    env, policy = TAILS[name]
    return small_model({**BASE, "env": {**BASE["env"], **env}, "policy": {**BASE["policy"], **policy}})


def _batch(model):
    """A collected rollout's observations, actions and masks (one rollout and its update first, so
    the weights are not the initial ones)."""
    steps = BASE["env"]["num_envs"] * BASE["ppo"]["n_steps"]
    model.learn(steps)
    train, model.train = model.train, lambda: None
    model.learn(steps, reset_num_timesteps=False)
    model.train = train
    buffer = model.rollout_buffer
    obs = buffer.observations.reshape(-1, buffer.observations.shape[-1])
    actions = th.as_tensor(buffer.actions.reshape(-1)).long()
    return obs, actions, buffer.action_masks.reshape(len(actions), -1)


def _evaluated(policy, evaluate, obs, actions, masks):
    """evaluate's outputs and every parameter's gradient of a loss that reads all three outputs."""
    policy.zero_grad()
    values, log_prob, entropy = evaluate(obs, actions, action_masks=masks)
    (values.sum() * 0.5 - log_prob.mean() - 0.01 * entropy.mean()).backward()
    grads = {n: p.grad.clone() for n, p in policy.named_parameters() if p.grad is not None}
    return (values.detach(), log_prob.detach(), entropy.detach()), grads


@pytest.mark.parametrize("name", list(TAILS))
@pytest.mark.parametrize("rows", ["dense", "compressed"])
def test_the_update_apart_equals_sb3_contribs_through_the_concatenation(name, rows, monkeypatch):
    model = _model(name)
    policy = model.policy
    obs, actions, masks = _batch(model)
    data = th.as_tensor(obs) if rows == "dense" else SparseRows.of_dense(obs, max_density=1.0)
    assert isinstance(policy.action_net, HintHead) and policy.action_net.latent_dim == 16
    seen = []
    split = HintHead._split
    monkeypatch.setattr(HintHead, "_split", lambda self, latent: (seen.append(type(latent)), split(self, latent))[1])
    concatenations = []
    encoder_forward = NosEncoder.forward
    monkeypatch.setattr(NosEncoder, "forward", lambda self, o: (concatenations.append(1), encoder_forward(self, o))[1])

    apart, apart_grads = _evaluated(policy, policy.evaluate_actions, data, actions, masks)
    assert set(seen) == {CarriedLatent} and concatenations == []  # the update never built the wide tensors
    sb3 = MaskableActorCriticPolicy.evaluate_actions.__get__(policy)
    through, through_grads = _evaluated(policy, sb3, data, actions, masks)
    assert concatenations == [1] and seen[-1] is th.Tensor  # sb3-contrib's path concatenates

    for a, b in zip(apart, through):
        assert th.equal(a, b)
    assert apart_grads.keys() == through_grads.keys() and len(apart_grads) >= 8
    for key in apart_grads:
        assert th.allclose(apart_grads[key], through_grads[key], rtol=1e-6, atol=1e-7), key
    assert float(apart_grads["action_net.linear.weight"].abs().sum()) > 0  # the loss reaches the head


def test_the_tails_columns_are_read_where_they_are():
    """The head reads the same columns from a CarriedLatent as from the concatenation: the hint's
    bonus lands on the hinted action, the closing features' first row (fit_unseen) on every play."""
    head = HintHead(4, hint_weight=2.0, closing=896)
    own = th.zeros(2, 4)
    tail = th.zeros(2, 1 + 896)
    tail[:, 0] = th.tensor([7.0, float(PASS)])  # the hinted actions
    tail[1, 1 : 1 + 224] = 1.0  # row 1: fit_unseen 1 for every play
    with th.no_grad():
        head.closing_weight.copy_(th.tensor([0.5, 0.0, 0.0, 0.0]))
        head.linear.weight.zero_()
        head.linear.bias.zero_()
    apart = head(CarriedLatent(own, tail))
    assert th.equal(apart, head(th.cat([own, tail], dim=1)))
    expected = th.zeros(2, NUM_ACTIONS)
    expected[0, 7] = 2.0
    expected[1, PLAY0:PASS] = 0.5  # both variants of each of the 224 plays
    expected[1, PASS] = 2.0
    assert th.equal(apart, expected)
    assert CarriedLatent(own, tail).shape == (2, 901)


def test_a_whole_run_is_the_same_to_the_bit():
    runs = []
    for own in (True, False):
        model = _model("nos closing and settlement features")
        if not own:
            model.policy.evaluate_actions = MaskableActorCriticPolicy.evaluate_actions.__get__(model.policy)
        model.learn(3 * BASE["env"]["num_envs"] * BASE["ppo"]["n_steps"])
        runs.append(flat_weights(model.policy))
    assert th.equal(runs[0], runs[1])
    assert not th.equal(runs[0], flat_weights(_model("nos closing and settlement features").policy))  # it trained
