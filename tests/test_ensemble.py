"""Several saved models as one agent (``ensemble:A.zip,B.zip``, agents.model.EnsembleAgent).

The members here are tiny models whose action layer is set by hand: weights 0, hint weight 0,
and a bias per action. Each member then plays ``log_softmax`` of its bias over the legal actions,
whatever the table, and the ensemble, the mean of the members' log-probabilities, is
``log_softmax`` of the mean bias: a rule this test states without the code under test.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra

import nos_env  # noqa: E402
from agents.ratings import agent_identity  # noqa: E402
from agents.registry import agent_label, check_agent_spec, make_agent  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402
from nos_env import encoding as E  # noqa: E402
from model_helpers import save_biased_model  # noqa: E402
from train.config import from_dict  # noqa: E402


def legal_log_softmax(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    z = np.where(masks, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return np.where(masks, z - np.log(np.exp(z).sum(axis=1, keepdims=True)), -np.inf)


@pytest.fixture(scope="module")
def members(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ensemble")
    rng = np.random.default_rng(5)
    biases = [rng.normal(0.0, 2.0, E.NUM_ACTIONS), rng.normal(0.0, 2.0, E.NUM_ACTIONS)]
    paths = [save_biased_model(folder / f"m{k}.zip", b) for k, b in enumerate(biases)]
    return paths, biases


def positions(count: int = 64, steps: int = 30, seed: int = 3):
    """Observations and masks met in play (Random's moves), for every phase of a hand."""
    venv = nos_env.vector_env(count, num_players=4, seed=seed)
    obs, masks, _ = venv.reset()
    rng = np.random.default_rng(seed)
    seen_obs, seen_masks = [], []
    for _ in range(steps):
        masks = np.asarray(masks) != 0
        seen_obs.append(np.array(obs))  # compact uint8, as the harness gives agents
        seen_masks.append(masks)
        noise = np.where(masks, rng.random(masks.shape), -1.0)
        obs, masks, *_ = venv.step(noise.argmax(axis=1))
    return np.concatenate(seen_obs), np.concatenate(seen_masks)


def test_the_ensemble_plays_the_mean_of_its_members_log_probabilities(members):
    paths, biases = members
    spec = "ensemble:" + ",".join(str(p) for p in paths)
    agent = make_agent(spec, seed=0)
    assert type(agent).__name__ == "EnsembleAgent" and agent_label(spec) == "ensemble"
    obs, masks = positions()
    want = legal_log_softmax((biases[0] + biases[1]) / 2, masks)
    got = agent.log_probabilities(obs, masks)
    assert np.array_equal(np.isfinite(got), masks)
    assert np.allclose(got[masks], want[masks], atol=1e-5)
    chosen = agent.act_batch(obs, masks)
    np.testing.assert_array_equal(chosen, want.argmax(axis=1))
    # Not a member's choice in disguise: on some positions each member alone plays otherwise.
    for bias in biases:
        alone = legal_log_softmax(bias, masks).argmax(axis=1)
        assert (alone != chosen).sum() > 10
    # A member alone (model:PATH) plays its own bias: the harness and the rule agree.
    single = make_agent(f"model:{paths[0]}", seed=0)
    np.testing.assert_array_equal(single.act_batch(obs, masks), legal_log_softmax(biases[0], masks).argmax(axis=1))


def test_a_sampling_ensemble_draws_from_its_distribution(members):
    paths, biases = members
    agent = make_agent("ensemble:" + ",".join(str(p) for p in paths), seed=7, deterministic=False)
    obs, masks = positions(count=16, steps=20)
    row = int(np.argmax(masks.sum(axis=1)))  # the position with the most legal moves
    draws = 20_000
    chosen = agent.act_batch(np.repeat(obs[row : row + 1], draws, 0), np.repeat(masks[row : row + 1], draws, 0))
    p = np.exp(legal_log_softmax((biases[0] + biases[1]) / 2, masks[row : row + 1])[0])
    counts = np.bincount(chosen, minlength=E.NUM_ACTIONS)
    assert counts[~masks[row]].sum() == 0
    # Each legal action's share within 5 standard errors of its probability.
    se = np.sqrt(p * (1 - p) / draws)
    assert np.all(np.abs(counts / draws - p) <= 5 * se + 1e-9)
    assert (counts > 0).sum() >= 3  # more than the argmax is drawn
    # Seeded: the same seed draws the same moves.
    again = make_agent("ensemble:" + ",".join(str(p) for p in paths), seed=7, deterministic=False)
    np.testing.assert_array_equal(
        again.act_batch(np.repeat(obs[row : row + 1], draws, 0), np.repeat(masks[row : row + 1], draws, 0)), chosen)


def test_an_ensemble_plays_a_tournament_and_is_rated_by_its_members_files(members):
    paths, _ = members
    spec = "ensemble:" + ",".join(str(p) for p in paths)
    result = run_tournament([spec, "random", "random", "random"], deals=4, seed=1, progress=False)
    assert "ensemble" in result.summary()["agents"]
    identity = agent_identity(spec)
    assert identity.info["kind"] == "ensemble" and len(identity.info["sha256"]) == 2
    assert all(sha in identity.key for sha in identity.info["sha256"])
    assert identity.key != agent_identity(f"model:{paths[0]}").key


@pytest.mark.parametrize("spec,message", [
    ("ensemble:", "at least 2 model paths"),
    ("ensemble:{a}", "at least 2 model paths"),
    ("ensemble:{a},", "at least 2 model paths"),
    ("ensemble:{a},no/such/model.zip", "no trained model at 'no/such/model.zip'"),
])
def test_bad_ensemble_specs_name_what_is_wrong(members, spec, message):
    spec = spec.format(a=members[0][0])
    with pytest.raises(ValueError, match=message):
        check_agent_spec(spec)
    with pytest.raises(ValueError, match=message):
        make_agent(spec)


def test_members_of_different_games_are_refused(members, tmp_path):
    from agents.model import EnsembleAgent
    from train.trainer import make_env

    config = {"env": {"game": "all_fives", "greedy_hint": True, "num_envs": 8},
              "ppo": {"n_steps": 8, "batch_size": 64}, "policy": {"width": 8}}
    env, _ = make_env(from_dict(config))
    actions = env.action_space.n
    env.close()
    family = save_biased_model(tmp_path / "all_fives.zip", np.zeros(actions), config)
    with pytest.raises(ValueError, match="must play one game") as info:
        EnsembleAgent([members[0][0], family])
    assert "all_fives.zip" in str(info.value) and f"actions {E.NUM_ACTIONS}" in str(info.value)
