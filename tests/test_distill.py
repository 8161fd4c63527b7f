"""Distilling a teacher into the policy (train/distill.py, the config's ``distill`` section): the
labels are the teacher's choices at the learner's real decisions, cloning fits them, the config
refuses what it cannot do, and a tiny run distils Search, saves its labels and reuses them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from agents.base import Agent
from agents.family.games import make_rules
from agents.family.greedy import FamilyGreedyAgent
from agents.family.search import FamilySearchAgent
from agents.tournament import family_options, run_tournament
from train.config import ConfigError, from_dict
from train.distill import (behaviour_clone, collect_labels, dense_labels, load_labels, raw_observation_size, soft_loss,
                           soft_targets)
from train.selfplay import OpponentPool, SelfPlayVecEnv


def hinted_env(game="fours", tables=8, seed=5):
    rules = make_rules(game, 4, **family_options(game, {}))
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=4, seed=seed, game=game, greedy_hint=True,
                          game_options=family_options(game, {}), threads=1)


class Spy(Agent):
    """Passes every batch to ``inner`` and keeps what it was shown and what it answered."""

    name = "spy"

    def __init__(self, inner):
        super().__init__(0)
        self.inner, self.calls = inner, []

    def act_batch(self, obs, masks, context=None):
        actions = self.inner.act_batch(obs, masks, context)
        found = getattr(self.inner, "last_search", None)
        self.calls.append((obs.copy(), masks.copy(), np.asarray(actions).copy(), context.seats.copy(),
                           None if found is None else {k: np.copy(v) for k, v in found.items()}))
        return actions

    @property
    def last_search(self):
        return self.inner.last_search


def test_labels_are_searchs_choices_at_the_learners_real_decisions():
    env = hinted_env()
    size = raw_observation_size(env)
    assert size == env.tables.observation_size  # the hint follows the game's observation
    spy = Spy(FamilySearchAgent(env.tables.rules, seed=9, rollouts=8))
    data = collect_labels(env, spy, 60)
    assert len(data["actions"]) == 60
    # Search was asked for the learner's seat at every table, and every choice it made at a
    # decision with more than one legal action is a label, in order, with the position it saw.
    seen_obs, seen_masks, chosen = [], [], []
    for obs, masks, actions, seats, _ in spy.calls:
        choice = masks.sum(axis=1) > 1
        seen_obs.append(obs[choice]), seen_masks.append(masks[choice]), chosen.append(actions[choice])
    assert np.array_equal(data["actions"], np.concatenate(chosen)[:60])
    assert np.array_equal(data["obs"][:, :size], np.concatenate(seen_obs)[:60])
    assert np.array_equal(data["masks"], np.concatenate(seen_masks)[:60])
    assert data["masks"][np.arange(60), data["actions"]].all()
    # The hint column is a Greedy's choice on the same observation (what the policy reads): one of
    # its best-scored legal actions (Greedy breaks ties at random).
    scores = FamilyGreedyAgent(env.tables.rules, seed=0).scores(data["obs"][:, :size], data["masks"])
    best = np.where(data["masks"], scores, -np.inf).max(axis=1)
    assert np.array_equal(scores[np.arange(60), data["hint"]], best)
    # Search does not always play Greedy's move (else there would be nothing to learn).
    assert (data["hint"] != data["actions"]).any()


def test_value_labels_are_searchs_action_values_at_each_decision():
    env = hinted_env(game="bergen")
    spy = Spy(FamilySearchAgent(env.tables.rules, seed=4, rollouts=8))
    data = collect_labels(env, spy, 30, values=True)
    # Asked row by row: each kept decision is one call, whose search reported the values kept.
    asked = [call for call in spy.calls if call[1][0].sum() > 1][:30]
    assert len(asked) == 30
    for i, (obs, masks, actions, seats, found) in enumerate(asked):
        assert np.array_equal(data["obs"][i, : obs.shape[1]], obs[0]) and data["actions"][i] == actions[0]
        assert np.array_equal(np.flatnonzero(~np.isnan(data["values"][i])), found["candidates"])
        assert np.allclose(data["values"][i, found["candidates"]], found["values"])
        assert np.array_equal(np.flatnonzero(data["masks"][i]), found["candidates"])  # every legal action is valued
    with pytest.raises(ValueError, match="reports no action values"):
        collect_labels(env, FamilyGreedyAgent(env.tables.rules), 5, values=True)


def test_soft_targets_are_the_values_softmax_over_legal_actions():
    values = np.array([[1.0, np.nan, 3.0, 0.0], [np.nan, 2.0, 2.0, np.nan]])
    masks = np.array([[True, False, True, False], [False, True, True, False]])
    p = soft_targets(values, masks, temperature=2.0)
    e = np.exp(np.array([1.0, 3.0]) / 2)
    assert np.allclose(p[0], [e[0] / e.sum(), 0, e[1] / e.sum(), 0])
    assert np.allclose(p[1], [0, 0.5, 0.5, 0])


def hinted_policy(env):
    """A fresh fours policy with the Greedy hint (weight 1.5) for ``env``: it plays Greedy at first."""
    from train.trainer import make_model

    c = from_dict({"env": {"game": "fours", "greedy_hint": True, "num_envs": 16},
                   "ppo": {"n_steps": 8, "batch_size": 64}, "policy": {"hint_weight": 1.5}})
    return make_model(c, env).policy


def test_the_soft_loss_and_its_gradient_are_the_plain_masked_softmaxs():
    # The fast distribution pads each row's list of legal actions; the loss must not count the
    # padding (a first version did, through log_p, and its loss rose as it trained).
    import torch as th

    env = hinted_env(tables=16)
    data = dense_labels(collect_labels(env, ValuesHighestLegal(), 64, values=True))
    policy = hinted_policy(env)
    assert (data["masks"].sum(axis=1) < data["masks"].sum(axis=1).max()).any()  # rows with padding
    obs, masks = th.as_tensor(data["obs"]), data["masks"]
    soft = th.as_tensor(soft_targets(data["values"], masks, 0.5))
    grads = []
    for plain in (False, True):
        policy.zero_grad()
        if plain:
            logits = policy.get_distribution(obs, action_masks=masks).logits
            log_p = th.log_softmax(logits.masked_fill(~th.as_tensor(masks), -th.inf), dim=1)
            loss = -(soft * th.where(th.as_tensor(masks), log_p, 0.0)).sum(dim=1).mean()
        else:
            loss = soft_loss(policy, obs, masks, soft)
        loss.backward()
        grads.append((float(loss.detach()), th.cat([p.grad.flatten() for p in policy.parameters() if p.grad is not None])))
    assert grads[0][0] == pytest.approx(grads[1][0], rel=1e-5)
    assert th.allclose(grads[0][1], grads[1][1], atol=1e-6)


def test_a_teacher_that_never_departs_from_greedy_gives_greedys_labels():
    # Search's safeguard keeps Greedy's move unless another is better by `margin` standard errors:
    # with an unreachable margin every label must be the hint.
    env = hinted_env(game="bergen")
    data = collect_labels(env, FamilySearchAgent(env.tables.rules, seed=1, rollouts=8, margin=1e9), 40)
    size = raw_observation_size(env)
    scores = FamilyGreedyAgent(env.tables.rules, seed=0).scores(data["obs"][:, :size], data["masks"])
    best = np.where(data["masks"], scores, -np.inf).max(axis=1)
    assert np.array_equal(scores[np.arange(40), data["actions"]], best)  # Greedy's (ties broken its own way)
    assert (np.where(data["masks"], scores, -np.inf) < best[:, None]).any()  # there were worse moves to avoid


class HighestLegal(Agent):
    """A teacher Greedy disagrees with: the legal action of the highest index."""

    name = "highest"

    def act_batch(self, obs, masks, context=None):
        return masks.shape[1] - 1 - np.argmax(masks[:, ::-1], axis=1)


def test_cloning_fits_the_teachers_choices_on_held_out_decisions():
    env = hinted_env(tables=16)
    data = collect_labels(env, HighestLegal(), 1200)
    policy = hinted_policy(env)
    rows = behaviour_clone(policy, data, epochs=10, batch_size=64, learning_rate=3e-3, holdout=0.25, seed=1)
    first, last = rows[0], rows[-1]
    assert first["holdout"] == 300 and first["labels"] == 900
    # Before, the hinted network plays Greedy: where the teacher departs from it, it never agrees.
    assert first["holdout_departures"] >= 20 and first["holdout_agree_departures"] == 0.0
    assert last["holdout_agree"] > 0.88 and last["holdout_loss"] < first["holdout_loss"] / 3
    assert last["holdout_agree_departures"] > 0.75


class ValuesHighestLegal(HighestLegal):
    """The same teacher, reporting values: 1 for its choice, 0 for the other legal actions."""

    last_search = None

    def act_batch(self, obs, masks, context=None):
        choice = super().act_batch(obs, masks, context)
        candidates = np.flatnonzero(masks[0])
        self.last_search = {"candidates": candidates, "values": (candidates == choice[0]).astype(float)}
        return choice


def test_cloning_the_values_makes_the_best_valued_action_the_policys_choice():
    env = hinted_env(tables=16)
    data = collect_labels(env, ValuesHighestLegal(), 1200, values=True)
    policy = hinted_policy(env)
    rows = behaviour_clone(policy, data, epochs=15, batch_size=64, learning_rate=3e-3, holdout=0.25, seed=1,
                           target="values", temperature=0.25)
    # Before, the hinted network plays Greedy (the best-valued action by chance); after, mostly the teacher's.
    assert rows[0]["holdout_agree_best"] < 0.75 and rows[-1]["holdout_agree_best"] > 0.82
    assert rows[-1]["holdout_loss"] < rows[0]["holdout_loss"]
    with pytest.raises(ValueError, match="needs labels collected with the teacher's values"):
        behaviour_clone(policy, {k: v for k, v in data.items() if k != "values"}, 1, 64, 1e-3, target="values")


@pytest.mark.parametrize("distill,message", [
    ({"teacher": "serch"}, "distill.teacher: must be 'none' or an agent of fours (greedy, random, search, "
                           "rollout_advantage), got 'serch' (did you mean 'search'?)"),
    ({"teacher": "search", "teacher_options": {"rollout": 8}}, "distill.teacher_options: search does not take"),
    ({"teacher_options": {"rollouts": 8}}, "distill.teacher_options: are the teacher's"),
    ({"teacher": "search", "holdout": 1.0}, "distill.holdout: must be in [0, 1)"),
    ({"teacher": "search", "decisions": 0}, "distill.decisions: must be positive"),
    ({"teacher": "search", "labels_from": "nowhere.npz"}, "distill.labels_from: no labels file"),
    ({"teacher": "search", "target": "value"}, "distill.target: must be 'choice' (the teacher's choices), 'values' (its action values) "
                                                "or 'advantage'"),
    ({"teacher": "greedy", "target": "values"}, "distill.target: 'values' needs a teacher that reports action values"),
    ({"teacher": "search", "temperature": 0}, "distill.temperature: must be positive"),
])
def test_distill_config_errors_name_what_is_allowed(distill, message):
    with pytest.raises(ConfigError) as info:
        from_dict({"env": {"game": "fours"}, "distill": distill}, "cfg.yaml")
    assert message in str(info.value)


def test_no_ppo_steps_only_with_a_teacher():
    with pytest.raises(ConfigError, match="run.total_timesteps: must be positive"):
        from_dict({"run": {"total_timesteps": 0}, "env": {"game": "fours"}})
    assert from_dict({"run": {"total_timesteps": 0}, "env": {"game": "fours"},
                      "distill": {"teacher": "search"}}).run.total_timesteps == 0
    with pytest.raises(ConfigError, match="distill.teacher: distillation trains the SB3 policy"):
        from_dict({"run": {"engine": "rllib"}, "env": {"game": "fours"}, "ppo": {"batch_size": 512},
                   "distill": {"teacher": "search"}})


def test_tiny_distilled_run_saves_labels_reuses_them_and_plays(tmp_path):
    from train.cli import main as train_main

    def write(name, extra):
        path = tmp_path / f"{name}.yaml"
        path.write_text(
            f"run: {{name: {name}, total_timesteps: 64, output_dir: {tmp_path}}}\n"
            "env: {game: fours, num_envs: 16, greedy_hint: true, num_threads: 1}\n"
            "opponents: {baselines: {greedy: 1.0}}\n"
            "ppo: {n_steps: 4, batch_size: 32, n_epochs: 1}\n"
            f"distill: {{teacher: search, teacher_options: {{rollouts: 8}}, decisions: 40, num_envs: 8, "
            f"epochs: 2, batch_size: 16{extra}}}\n"
            "eval: {every: 0, final_deals: 2, final_opponents: [greedy]}\n"
            "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
        return path

    train_main(["--config", str(write("first", ""))])
    run = tmp_path / "first"
    summary = json.loads((run / "distill" / "summary.json").read_text())
    assert summary["labels"] == 40 and summary["last"]["epoch"] == 2
    results = json.loads((run / "results.json").read_text())
    assert results["distill"]["teacher"] == "search" and results["timesteps"] == 64
    assert "distilled from search" in (run / "report.md").read_text()
    # The labels are kept, and a second run clones the same ones without the teacher.
    labels = run / "distill" / "labels.npz"
    train_main(["--config", str(write("second", f", labels_from: {labels}"))])
    again = json.loads((tmp_path / "second" / "distill" / "summary.json").read_text())
    assert again["labels"] == 40 and again["first"]["train_loss"] == pytest.approx(summary["first"]["train_loss"])
    assert not (tmp_path / "second" / "distill" / "labels.npz").exists()
    # Labels of another game are refused by their sizes.
    with pytest.raises(ValueError, match="another game, hint or critic tail"):
        load_labels(labels, hinted_env(game="draw"))
    r = run_tournament([f"model:{run / 'model.zip'}", "greedy", "greedy", "greedy"], 2, game="fours", progress=False)
    assert len(r.deal) == 8


def test_a_search_teachers_advantage_labels_are_its_values_less_the_hinted_moves(tmp_path):
    """target: advantage with teacher: search (as configs/family/blind_search.yaml) keeps Search's
    values with the labels, and the fit regresses them less the Greedy hint's value."""
    from train.cli import main as train_main
    from train.rollout_advantage import advantages

    path = tmp_path / "adv.yaml"
    path.write_text(
        f"run: {{name: adv, total_timesteps: 0, output_dir: {tmp_path}}}\n"
        "env: {game: fours, num_envs: 8, greedy_hint: true, num_threads: 1}\n"
        "opponents: {baselines: {greedy: 1.0}}\n"
        "ppo: {n_steps: 4, batch_size: 32, n_epochs: 1}\n"
        "distill: {teacher: search, teacher_options: {rollouts: 8}, target: advantage, decisions: 40, num_envs: 8, "
        "epochs: 1, batch_size: 16, margins: [0.0, 1.0]}\n"
        "eval: {every: 0, final_deals: 2, final_opponents: [greedy]}\n"
        "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
    train_main(["--config", str(path)])
    run = tmp_path / "adv"
    data = dense_labels(load_labels(run / "distill" / "labels.npz", hinted_env()))
    assert len(data["actions"]) == 40 and "values" in data
    legal = data["masks"].astype(bool)
    assert np.isfinite(data["values"][legal]).all()  # Search values every legal move of fours
    # Search's own choice is a move of highest value, so no label's best advantage is negative.
    adv = np.where(legal, advantages(data["values"], data["hint"]), -np.inf)
    assert (adv.max(axis=1) >= 0).all()
    assert np.allclose(adv[np.arange(40), data["hint"]], 0.0)
    summary = json.loads((run / "distill" / "summary.json").read_text())
    assert summary["target"] == "advantage" and summary["margin"] is not None
