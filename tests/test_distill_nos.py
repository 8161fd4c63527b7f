"""Search distillation for Nos (train/distill_nos.py): the labels are Search's own choices on the
positions recorded, the priors are Search's prior, the config refuses bad keys, and a tiny run
trains a student that plays as ``model:PATH``."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from agents import features as F  # noqa: E402
from agents.play_loop import PlayLoop  # noqa: E402
from agents.search import SearchAgent  # noqa: E402
from nos_env.encoding import NUM_ACTIONS  # noqa: E402
from nos_env.fast_engine import FastTables  # noqa: E402
from train.config import ConfigError  # noqa: E402
from train.distill_nos import (  # noqa: E402
    distill_config,
    load_distill_config,
    make_teacher,
    play_part,
    run,
    soft_targets,
    targets,
)

TINY = {"run": {"name": "tiny", "seed": 3}, "teacher": {"rollouts": 8},
        "labels": {"hands": 8, "tables": 4, "part_hands": 4},
        "fit": {"epochs": 3, "batch_size": 64, "holdout_parts": 1}}


def _replay_with_search(config, part):
    """The same part played by a plain SearchAgent of the same seed: every multi-choice row's
    observation, mask and choice, in the order the recorder keeps them."""
    c = config
    teacher = SearchAgent(seed=c.run.seed * 1_000_003 + part, rollouts=c.teacher.rollouts, margin=c.teacher.margin)
    n, B = c.labels.num_players, min(c.labels.tables, c.labels.part_hands)
    tables = FastTables(B, n, seed=c.run.seed * 100_003 + part, num_threads=1, observation_dtype="float32")
    tables.reset_tables()
    loop = PlayLoop(tables, [teacher], np.zeros(n, np.int64), rest="first_legal")
    quota = np.full(B, c.labels.part_hands // B) + (np.arange(B) < c.labels.part_hands % B)
    played = np.zeros(B, np.int64)
    obs, masks, choices = [], [], []
    while (played < quota).any():
        ask = played < quota
        before = loop.obs.copy()
        table_masks = tables.masks.copy()
        actions = loop.decide(ask).copy()
        many = ask & ((table_masks != 0).sum(axis=1) > 1)
        obs.append(before[many])
        masks.append(table_masks[many] != 0)
        choices.append(actions[many])
        played += loop.step().terminated & ask
    return np.concatenate(obs), np.concatenate(masks), np.concatenate(choices)


def test_labels_are_search_choices_on_the_recorded_positions():
    config = distill_config(TINY)
    data = play_part(config, 0)
    obs, masks, choices = _replay_with_search(config, 0)
    assert len(data["labels"]) == len(choices) > 40
    np.testing.assert_array_equal(data["labels"], choices)  # recording changes none of Search's choices
    np.testing.assert_array_equal(data["obs"], obs)
    np.testing.assert_array_equal(np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool), masks)
    assert masks[np.arange(len(choices)), choices].all()
    assert masks[np.arange(len(choices)), data["hints"]].all()  # the hint is a legal action
    assert (data["priors"] >= 0).mean() > 0.5
    has = data["priors"] >= 0
    assert masks[np.flatnonzero(has), data["priors"][has]].all()
    # Search departs from its prior somewhere (the announcement, mostly) but not everywhere.
    departed = has & (data["labels"] != data["priors"])
    assert 0 < departed.sum() < has.sum() / 2
    assert (F.KIND[data["labels"][departed]] == F.ANNOUNCE).any()
    # Search's values: finite at its candidates only (legal actions), and where it left its prior
    # on a play (an even split, no halving) its choice is the candidate of highest value.
    values = data["values"].astype(np.float32)
    finite = np.isfinite(values)
    assert not (finite & ~masks).any()
    assert (finite.sum(axis=1)[has] >= 2).all() and (finite.sum(axis=1)[~has] == 0).all()
    plays = np.flatnonzero(departed & (F.KIND[data["labels"]] == F.PLAY))
    assert len(plays) > 0
    best = np.where(finite, values, -np.inf)[plays].argmax(axis=1)
    np.testing.assert_array_equal(best, data["labels"][plays])


def test_a_teacher_that_never_departs_has_its_prior_as_label():
    # With an unreachable margin the safeguard keeps Tactics' choice: label == prior wherever a prior was asked.
    config = distill_config({**TINY, "teacher": {"rollouts": 8, "margin": 1e9}})
    data = play_part(config, 0)
    has = data["priors"] >= 0
    assert has.sum() > 40
    np.testing.assert_array_equal(data["labels"][has], data["priors"][has])


def test_targets():
    data = {"labels": np.array([5, 6, 7, 8], np.int16), "priors": np.array([5, 9, -1, 8], np.int16),
            "hints": np.array([1, 2, 3, 4], np.int16)}
    np.testing.assert_array_equal(targets(data, "choice"), [5, 6, 7, 8])
    # departures: the teacher's choice where it left its prior (6) or had none (7), else the hint
    np.testing.assert_array_equal(targets(data, "departures"), [1, 6, 7, 4])
    with pytest.raises(ValueError, match="departures, choice"):
        targets(data, "soft")


def test_soft_targets_are_a_softmax_of_search_values_at_openings():
    values = np.full((3, NUM_ACTIONS), np.nan, np.float16)
    announce = np.flatnonzero(F.KIND == F.ANNOUNCE)[:3]
    play = np.flatnonzero(F.KIND == F.PLAY)[:2]
    values[0, announce] = [10.0, 0.0, 5.0]
    values[1, play] = [1.0, 2.0]  # a play: hard target
    values[2, announce[0]] = 3.0  # one candidate: nothing to rank
    data = {"labels": np.array([announce[0], play[1], announce[0]], np.int16), "values": values}
    rows, q = soft_targets(data, temperature=5.0)
    np.testing.assert_array_equal(rows, [0])
    expected = np.exp(np.array([10.0, 0.0, 5.0]) / 5.0)
    np.testing.assert_allclose(q[0, announce], expected / expected.sum(), rtol=1e-6)
    assert q[0].sum() == pytest.approx(1.0) and (q[0][np.setdiff1d(np.arange(NUM_ACTIONS), announce)] == 0).all()


@pytest.mark.parametrize("data, message", [
    ({"teachr": {}}, "unknown section 'teachr' \\(did you mean 'teacher'\\?\\)"),
    ({"fit": {"epoch": 3}}, "unknown key 'epoch' \\(did you mean 'epochs'\\?\\)"),
    ({"fit": {"target": "soft"}}, "fit.target: must be one of departures, choice"),
    ({"fit": {"opening_values": "soft"}}, "fit.opening_values: must be 'none' or 'values'"),
    ({"fit": {"value_temperature": 0}}, "fit.value_temperature: must be positive"),
    ({"labels": {"num_players": 6}}, "labels.num_players: must be 3, 4 or 5"),
    ({"teacher": {"rollouts": 0}}, "teacher.rollouts: must be an integer >= 1"),
    ({"teacher": {"rollouts": "many"}}, "teacher.rollouts: must be an integer"),
    ({"student": {"pi": [0]}}, "student.pi: must be a list of positive layer widths"),
    ({"run": {"name": "a/b"}}, "run.name: must be a plain folder name"),
    ({"teacher": {"prior": "greedy"}}, "teacher.prior: must be 'tactics', 'model:PATH' or 'ensemble"),
    ({"teacher": {"prior": "model:m.zip"}}, "fit.target: must be 'choice' with a model as the teacher's prior"),
    ({"student": {"init_from": "no/such/model.zip"}}, "student.init_from: no saved model at 'no/such/model.zip'"),
])
def test_config_errors_name_what_is_allowed(data, message):
    with pytest.raises(ConfigError, match=message):
        distill_config(data)


def test_set_overrides(tmp_path):
    path = tmp_path / "d.yaml"
    path.write_text("teacher: {rollouts: 16}\n")
    config = load_distill_config(path, ["labels.hands=12", "fit.target=choice"])
    assert (config.teacher.rollouts, config.labels.hands, config.fit.target) == (16, 12, "choice")
    with pytest.raises(ConfigError, match="expected section.key=value"):
        load_distill_config(path, ["hands=12"])


def test_teacher_seed_depends_on_run_seed_and_part():
    config = distill_config(TINY)
    a, b = make_teacher(config, 0), make_teacher(config, 1)
    assert a.rng.integers(1 << 30) != b.rng.integers(1 << 30)


def test_tiny_run_end_to_end(tmp_path):
    from agents.registry import make_agent
    from agents.tournament import run_tournament

    config = distill_config({**TINY, "run": {"name": "tiny", "seed": 3, "output_dir": str(tmp_path)},
                             "fit": {"epochs": 8, "batch_size": 64, "holdout_parts": 1, "learning_rate": 0.003,
                                     "opening_values": "values"}})
    path = run(config, log=lambda *_: None)
    summary = json.loads((tmp_path / "tiny" / "distill.json").read_text())
    assert sorted(p.name for p in (tmp_path / "tiny" / "labels").iterdir()) == ["part_0000.npz", "part_0001.npz"]
    assert summary["labels"] > 40 and summary["held_labels"] > 40
    history = summary["history"]
    assert len(history) == 8 and history[-1]["loss"] < history[0]["loss"]
    # The student fits its training targets better than the hint alone does.
    data = np.load(tmp_path / "tiny" / "labels" / "part_0000.npz")
    hint_alone = float((targets(data, "departures") == data["hints"]).mean())
    assert history[-1]["train_agreement"] > hint_alone
    agent = make_agent(f"model:{path}")
    result = run_tournament([f"model:{path}", "tactics", "tactics", "tactics"], deals=2, seed=5, progress=False, num_threads=1)
    assert result.summary()["hands"] == 8
    assert agent is not None


# ------------------------------------------------------------------------------ expert iteration
@pytest.fixture(scope="module")
def closing_model(tmp_path_factory):
    """A tiny closing model (Tactics hint and the closing features behind it, their weights at
    their start: the closing's expected chips count) with random preferences and 3 logits on the
    hint's move besides: its moves depend on the closing features and on the hint, whose ties
    Tactics breaks by noise, so a student fed other inputs than the model saw would not play them."""
    from model_helpers import save_biased_model

    config = {"env": {"tactics_hint": True, "closing_features": True, "num_envs": 8, "num_threads": 1},
              "opponents": {"baselines": {"tactics": 1.0}}, "ppo": {"n_steps": 8, "batch_size": 64},
              "policy": {"width": 8}}
    bias = np.random.default_rng(4).normal(0.0, 2.0, NUM_ACTIONS)
    return save_biased_model(tmp_path_factory.mktemp("exit") / "closing.zip", bias, config, hint_weight=3.0)


def exit_config(tmp_path, model, epochs=4):
    return distill_config({"run": {"name": "exit", "seed": 2, "output_dir": str(tmp_path)},
                           "teacher": {"rollouts": 8, "prior": f"model:{model}"},
                           "labels": {"hands": 8, "tables": 4, "part_hands": 4},
                           "fit": {"epochs": epochs, "batch_size": 64, "holdout_parts": 1, "learning_rate": 0.003,
                                   "target": "choice"},
                           "student": {"init_from": str(model)}})


def test_a_model_prior_labels_the_models_moves_and_the_searchs_departures(tmp_path, closing_model):
    import torch as th

    from agents.model import PolicyAgent, load_policy
    from train.distill_nos import departures

    config = exit_config(tmp_path, closing_model)
    data = play_part(config, 0)
    obs, masks = data["obs"], np.unpackbits(data["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    asked = data["priors"] >= 0  # every searched row (one candidate left: no prior asked)
    assert asked.mean() > 0.8
    # The model's move on each label's inputs, with the hint the label recorded: the prior's move.
    model = PolicyAgent(load_policy(closing_model))
    inputs = th.as_tensor(model.inputs(obs, masks, hints=data["hints"]))
    with th.no_grad():
        moves = model.policy.get_distribution(inputs, action_masks=masks).get_actions(deterministic=True).numpy()
    np.testing.assert_array_equal(data["priors"][asked], moves[asked])
    moved = departures(data)
    assert 0 < len(moved["labels"]) < len(data["labels"])  # the search kept the model's move at most rows
    moved_masks = np.unpackbits(moved["masks"], axis=1, count=NUM_ACTIONS).astype(bool)
    assert moved_masks[np.arange(len(moved["labels"])), moved["labels"]].all()  # legal moves


def test_the_student_starts_as_the_model_and_learns_the_departures(tmp_path, closing_model):
    """Fine-tuning from the prior model: before the fit the student plays the model's moves (its
    inputs built as the model's own: the closing features, and the very hint the model saw, which
    the labels record), so it agrees with every label the search kept; after it, it agrees with
    more of the search's departures than at the start."""
    from agents.model import load_policy
    from train.distill_nos import agreement, departures, load_parts, make_student

    config = exit_config(tmp_path, closing_model, epochs=12)
    path = run(config, log=lambda *_: None)
    parts = sorted((tmp_path / "exit" / "labels").iterdir())
    train = load_parts(parts[:1])
    kept = {key: value[train["labels"] == train["priors"]] for key, value in train.items()}
    start = make_student(config).policy
    assert agreement(start, kept, "choice") == 1.0
    moved = departures(train)
    before = agreement(start, moved, "choice")
    summary = json.loads((tmp_path / "exit" / "distill.json").read_text())
    assert summary["history"][-1]["loss"] < summary["history"][0]["loss"]
    assert agreement(load_policy(path), moved, "choice") > before
    assert "held_departure_agreement" in summary["history"][0]
