"""Training on a family game: the config's env.game and env.game_options, a tiny run, the
self-play environment's relative points, and the shipped per-game configs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from agents.family.games import make_rules
from agents.family.greedy import FamilyGreedyAgent
from agents.tournament import run_tournament
from train.cli import main as train_main
from train.config import ConfigError, from_dict, load_config

from tiny_training import tiny_family_run
from train.selfplay import OpponentPool, SelfPlayVecEnv

ROOT = Path(__file__).resolve().parent.parent
FAMILY_CONFIGS = sorted((ROOT / "configs" / "family").glob("*.yaml"))


@pytest.mark.parametrize("data,message", [
    ({"env": {"game": "drw"}}, "env.game: unknown game 'drw' (did you mean 'draw'?)"),
    ({"env": {"game": "fours", "num_players": 3}}, "env.num_players: fours is played by 4 players, got 3"),
    ({"env": {"game": "draw", "game_options": {"tileset": "double_twelve"}}}, "env.game_options"),
    ({"env": {"game": "draw", "game_options": {"colour": 1}}}, "env.game_options"),
    ({"env": {"game": "draw", "tactics_hint": True}}, "env.tactics_hint: is Nos's"),
    ({"env": {"game": "draw", "tactics_hint": True}}, "a family game's hint is env.greedy_hint"),
    ({"env": {"greedy_hint": True}}, "env.greedy_hint: is a family game's"),
    ({"env": {"game": "draw"}, "opponents": {"baselines": {"tactics": 1.0}}}, "unknown agent"),
    ({"env": {"game_options": {"tileset": "double_nine"}}}, "env.game_options: are for the family games"),
])
def test_family_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError, match=None) as info:
        from_dict(data, "cfg.yaml")
    assert message in str(info.value)


def test_a_family_game_gets_family_agents_by_default():
    c = from_dict({"env": {"game": "all_fives", "num_players": 2}})
    assert c.opponents.baselines == {"greedy": 0.7, "random": 0.3}
    assert c.eval.opponent == "greedy" and c.eval.final_opponents == ["random", "greedy"]
    assert from_dict({}).eval.opponent == "tactics"  # Nos keeps its own


@pytest.mark.parametrize("path", FAMILY_CONFIGS, ids=[p.stem for p in FAMILY_CONFIGS])
def test_shipped_family_configs_load(path):
    c = load_config(path)
    assert c.env.game in path.stem and c.run.name == path.stem


@pytest.mark.parametrize("path", FAMILY_CONFIGS, ids=[p.stem for p in FAMILY_CONFIGS])
def test_shipped_family_configs_state_their_train_command(path):
    header = [line for line in path.read_text().splitlines() if line.startswith("#")]
    assert any(f"-m train --config configs/family/{path.name}" in line for line in header), path.name


@pytest.mark.parametrize("stem", ["chickenfoot_quick", "mexican_train_quick"])
def test_issue_16_configs_state_their_result_and_evaluation_command(stem):
    """Issue 16's configs say what their model measured and the tournament that measured it
    (docs/family.md, "Mexican Train and Chickenfoot")."""
    path = ROOT / "configs" / "family" / f"{stem}.yaml"
    game = load_config(path).env.game
    header = "\n".join(line for line in path.read_text().splitlines() if line.startswith("#"))
    assert "Result" in header and "Greedy" in header
    assert f"nos-tournament --game {game}" in header and "greedy greedy greedy" in header


ADVANTAGE_CONFIGS = sorted((ROOT / "configs" / "family").glob("*_advantage.yaml"))


@pytest.mark.parametrize("path", ADVANTAGE_CONFIGS, ids=[p.stem for p in ADVANTAGE_CONFIGS])
def test_advantage_configs_state_their_result_and_evaluation(path):
    """The rollout_advantage configs (docs/family.md, "Exact advantages over Greedy") say what
    their model measured against Greedy, and those that beat it name the tournament on fresh deals."""
    c = load_config(path)
    assert c.distill.teacher == "rollout_advantage" and c.distill.target == "advantage" and c.env.greedy_hint
    header = "\n".join(line for line in path.read_text().splitlines() if line.startswith("#"))
    assert "Result" in header and "Greedy" in header
    if "BEATS Greedy" in header:
        assert f"nos-tournament --game {c.env.game}" in header and "greedy greedy greedy" in header
        # The fresh-deal figure: its 95% interval clear of zero.
        # (2,000 deals of seed 77 as a rule; Cross names a larger test declared before it was run.)
        found = re.search(r"([+-]\d+\.\d+) \+- (\d+\.\d+) on (\d+),000 fresh deals", header)
        assert found, "a config that beats Greedy states its result on N,000 fresh deals as '+x +- y'"
        assert float(found.group(1)) - float(found.group(2)) > 0 and int(found.group(3)) >= 2
    else:
        assert "NOT beat Greedy" in header
    assert path.stem == f"{c.env.game}_advantage"  # one config a game, named by it


#: Issue 15 item 6: every family game but Mexican Train (its own Greedy, match play: not among them
#: yet) has an advantage config, whether it beats Greedy or says it does not.
ADVANTAGE_GAMES = ("block", "draw", "cross", "double_nine_cross", "matador", "all_fives", "fives_and_threes",
                   "five_up", "bergen", "fours", "blind", "chickenfoot")


def test_every_family_game_has_an_advantage_config():
    have = {p.stem.removesuffix("_advantage") for p in ADVANTAGE_CONFIGS}
    assert set(ADVANTAGE_GAMES) <= have, f"no advantage config for {sorted(set(ADVANTAGE_GAMES) - have)}"


def test_self_play_rewards_are_relative_points():
    # Every finished episode's rewards add up to the learner's points minus the mean of the
    # others' (those the steps reported), for every table.
    rules = make_rules("draw", 3, target_score=None)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    env = SelfPlayVecEnv(8, pool, num_players=3, seed=4, reward_scale=1.0, game="draw")
    assert env.observation_space.shape == (env.tables.observation_size,)
    env.reset()
    totals = np.zeros(8)
    checked = 0
    rng = np.random.default_rng(0)
    for _ in range(60):
        masks = env.action_masks()
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        _, reward, done, infos = env.step(actions)
        totals += reward
        for b in np.flatnonzero(done):
            points, seat = infos[b]["points"], infos[b]["learner_seat"]
            relative = points[seat] - (points.sum() - points[seat]) / 2
            assert totals[b] == pytest.approx(relative)
            assert infos[b]["episode"]["r"] == pytest.approx(relative)
            totals[b] = 0
            checked += 1
    assert checked > 8


def test_tiny_family_training_run(tmp_path, capsys):
    config = tmp_path / "tiny.yaml"
    config.write_text(
        "run: {name: tiny, total_timesteps: 256, output_dir: " + str(tmp_path) + "}\n"
        "env: {game: bergen, num_players: 3, num_envs: 16}\n"
        "ppo: {n_steps: 8, batch_size: 64, n_epochs: 1}\n"
        "eval: {every: 0, final_deals: 2, final_opponents: [random]}\n"
        "output: {checkpoint_every: 0, tensorboard: false, progress_bar: false}\n")
    train_main(["--config", str(config)])
    run = tmp_path / "tiny"
    results = json.loads((run / "results.json").read_text())
    assert results["timesteps"] == 256
    assert [r["opponent"] for r in results["final"]] == ["random"]
    assert "points/hand" in (run / "report.md").read_text()
    # The saved model plays a bergen tournament as an agent.
    r = run_tournament([f"model:{run / 'model.zip'}", "random", "greedy"], 2, game="bergen", progress=False)
    assert len(r.deal) == 6


def hinted_env(game="draw", num_players=4, tables=16, seed=3):
    rules = make_rules(game, num_players, target_score=None)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=num_players, seed=seed, game=game, greedy_hint=True)


def test_greedy_hint_is_greedys_choice_after_the_observation():
    env = hinted_env()
    plain = env.tables.observation_size
    assert env.observation_space.shape == (plain + 1,)
    assert env.hint_source == {"game": "draw", "num_players": 4, "options": env.tables.rules.options()}
    obs = env.reset()
    masks = env.action_masks()
    # The same seed's Greedy, on the observation without the hint column, chooses the hinted actions.
    greedy = FamilyGreedyAgent(env.tables.rules, seed=3 + 7919)
    assert np.array_equal(obs[:, plain].astype(np.int64), greedy.act_batch(obs[:, :plain], masks))
    assert masks[np.arange(len(masks)), obs[:, plain].astype(np.int64)].all()


def test_greedy_hint_refused_for_nos():
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(make_rules("draw", 4), seed=2), 1.0)
    with pytest.raises(ValueError, match="greedy_hint is a family game's"):
        SelfPlayVecEnv(4, pool, greedy_hint=True)


def test_an_untrained_hinted_policy_plays_as_greedy():
    # The hint's logit bonus (policy.hint_weight 3) outweighs the untrained head's small logits,
    # so before training the model's deterministic choices are its Greedy's, row by row.
    from agents.model import PolicyAgent
    from agents.policy import hint_agent
    from train.trainer import make_model

    env = hinted_env(game="all_fives", tables=64)
    c = from_dict({"env": {"game": "all_fives", "greedy_hint": True, "num_envs": 64},
                   "ppo": {"n_steps": 8, "batch_size": 64}})
    model = make_model(c, env)
    assert model.policy.hint == 1 and model.policy.hint_source == env.hint_source
    plain = env.tables.observation_size
    agent = PolicyAgent(model.policy, seed=11)
    greedy = hint_agent(env.hint_source, seed=11)
    obs = env.reset()
    compared = 0
    for _ in range(5):
        masks = env.action_masks()
        chosen = agent.act_batch(obs[:, :plain], masks)
        assert np.array_equal(chosen, greedy.act_batch(obs[:, :plain], masks))
        compared += int((masks.sum(axis=1) > 1).sum())
        obs, _, _, _ = env.step(chosen)
    assert compared > 50  # real choices, not only forced moves


def test_tiny_hinted_family_run_saves_a_model_that_computes_its_hint(tmp_path):
    tiny_family_run(tmp_path, "{game: fives_and_threes, num_players: 2, num_envs: 16, greedy_hint: true}")
    from agents.model import ModelAgent
    from agents.tournament import family_options

    agent = ModelAgent(tmp_path / "tiny" / "model.zip")
    assert agent.hint == 1
    # The rules the training tables had (one hand: family_options' target_score None).
    options = make_rules("fives_and_threes", 2, **family_options("fives_and_threes", {})).options()
    assert options["target_score"] is None
    assert agent.policy.hint_source == {"game": "fives_and_threes", "num_players": 2, "options": options}
    r = run_tournament([f"model:{tmp_path / 'tiny' / 'model.zip'}", "greedy"], 2, game="fives_and_threes",
                       progress=False)
    assert len(r.deal) == 4


@pytest.mark.parametrize("bad", [{"game": "draw"}, "draw", {"game": "draw", "num_players": 4, "options": {},
                                                            "extra": 1}])
def test_hint_source_must_name_game_players_and_options(bad):
    from agents.policy import check_hint_source

    with pytest.raises(ValueError, match="hint_source must be None or a mapping"):
        check_hint_source(bad)
