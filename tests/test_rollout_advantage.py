"""The rollout-advantage labels (train/rollout_advantage.py) and their fit (train/distill.py, target
"advantage"): each label is the outcome the reference engine gives when the move is played and
everyone continues with Greedy; labelling leaves the real tables and the real game as they were;
the fit departs from Greedy toward moves of positive advantage only; the config names what it
allows; a tiny run collects, fits, chooses a margin and plays."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest
import torch as th

from agents.family.games import make_rules, tables_class
from agents.family.greedy import FamilyGreedyAgent
from agents.tournament import family_options, run_tournament
from nos_env.family.engine import FamilyGame
from train.config import ConfigError, from_dict
from train.distill import (advantage_loss, behaviour_clone, choose_margin, collect_labels, dense_labels,
                           held_out_gain, margin_choices, raw_observation_size)
from nos_env.family_backends import new_engine, seed_and_reset
from train.rollout_advantage import (RolloutLabeler, advantages, collect_advantage_labels, continuation_greedy,
                                     greedy_moves)
from train.selfplay import OpponentPool, SelfPlayVecEnv

from tiny_training import tiny_distill_run


def rules_of(game):
    return make_rules(game, 4, **family_options(game, {}))


def reference_playout(game: FamilyGame, move: int, seat: int, greedy) -> float:
    """Play ``move`` on a copy of the reference game, then Greedy (first best-scored move) for
    every seat until the hand is over: ``seat``'s points minus the mean of the others'."""
    g = copy.deepcopy(game)
    n = g.rules.num_players
    gained = np.zeros(n)
    action = move
    while True:
        gained += np.asarray(g.step(action))[:n]
        if g.done or g.hand_over:
            break
        seat_to_move = g.to_move
        obs = np.asarray(g.observe(seat_to_move), np.float32)[None, :]
        mask = np.asarray(g.legal_mask(), bool)[None, :]
        scores = greedy.scores(obs, mask)[0]
        scores[~mask[0]] = -np.inf
        action = int(np.argmax(scores))
    return float(gained[seat] - (gained.sum() - gained[seat]) / (n - 1))


def decision_with_choices(game: str, seed: int, minimum: int = 3):
    """A seeded table and the reference game of the same seed, both stepped with Greedy's moves to
    the first decision with at least ``minimum`` legal moves (after a few plays, so the layout has
    open ends and, in draw, the boneyard is in use); the next seeds if a hand has none."""
    for s in range(seed, seed + 100):
        found = _decision(game, s, minimum)
        if found is not None:
            return found
    raise AssertionError(f"no {game} hand of seeds {seed}..{seed + 99} has such a decision")


def _decision(game: str, seed: int, minimum: int):
    rules = rules_of(game)
    tables = tables_class(game)(game, 1, num_players=4, seed=0, observation_dtype="float32", threads=1,
                                **family_options(game, {}))
    seed_and_reset(tables, [0], [seed])  # Blind's tables deal a new seed at the next deal
    reference = new_engine(game, rules, seed)  # Blind's own engine, the family's FamilyGame
    greedy = continuation_greedy(rules)
    steps = 0
    while True:
        seat = int(tables.current_player[0])
        assert seat == reference.to_move
        legal = tables.legal_actions(0)
        assert list(legal) == reference.legal_actions()
        if len(legal) >= minimum and steps >= 4:
            return rules, tables, reference, seat
        obs = tables.observe_rows([0], [seat])
        action = int(greedy_moves(greedy, obs, tables.masks[:1])[0])
        _, _, terminated, _ = tables.step(np.array([action]), observe=False, autoreset=False)
        reference.step(action)
        if terminated[0]:
            return None
        steps += 1


@pytest.mark.parametrize("game,seed,minimum", [("fours", 3, 3), ("draw", 8, 3), ("fives_and_threes", 5, 3),
                                               ("five_up", 4, 3), ("blind", 49, 2)])
def test_each_label_is_the_reference_engines_outcome_of_the_move_then_greedy(game, seed, minimum):
    # Blind's decisions are which end a turned-up tile goes on (two moves), played on its own
    # engine, every seat's continuation by Blind's own Greedy.
    rules, tables, reference, seat = decision_with_choices(game, seed, minimum)
    labeler = RolloutLabeler(rules, capacity=minimum)  # fewer rows than moves: several passes
    values = labeler.values(tables, np.array([0]), np.array([seat]))[0]
    legal = tables.legal_actions(0)
    assert np.isnan(np.delete(values, legal)).all()
    greedy = continuation_greedy(rules)
    assert type(greedy).__name__ == ("BlindGreedyAgent" if game == "blind" else "FamilyGreedyAgent")
    by_hand = {int(a): reference_playout(reference, int(a), seat, greedy) for a in legal}
    assert values[legal] == pytest.approx(np.array([by_hand[int(a)] for a in legal]), abs=1e-5)
    # The moves are worth different amounts (else the labels would teach nothing), and the
    # advantage of each is its outcome minus the outcome of Greedy's move, exactly.
    assert len(set(np.round(values[legal], 4))) > 1
    hint = int(greedy_moves(greedy, tables.observe_rows([0], [seat]), tables.masks[:1])[0])
    adv = advantages(values[None, :], np.array([hint]))[0]
    for a in legal:
        assert adv[a] == pytest.approx(by_hand[int(a)] - by_hand[hint], abs=1e-5)
    assert adv[hint] == 0.0


def test_labelling_leaves_the_tables_and_the_game_as_they_were():
    rules, tables, _, seat = decision_with_choices("draw", 8)
    before = tables.clone()
    RolloutLabeler(rules, capacity=64).values(tables, np.array([0]), np.array([seat]))
    after = tables.clone()
    assert all(np.array_equal(before[k], after[k]) for k in before)

    def env():
        pool = OpponentPool(seed=1)
        pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
        return SelfPlayVecEnv(12, pool, num_players=4, seed=5, game="draw", greedy_hint=True,
                              game_options=family_options("draw", {}), threads=1)

    labelled, plain = env(), env()
    data = collect_advantage_labels(labelled, RolloutLabeler(rules, capacity=256), 150)
    # The same game without labelling: the learner plays the hint (Greedy), the same decisions
    # are met in the same order, and the tables end in the same state.
    size = raw_observation_size(plain)
    obs, seen, count = plain.reset(), [], 0
    while count < 150:
        masks = plain.action_masks()
        take = np.flatnonzero(masks.sum(axis=1) > 1)[: 150 - count]
        seen.append(obs[take])
        count += len(take)
        plain.step_async(obs[:, size].astype(np.int64))
        obs, _, _, _ = plain.step_wait()
    assert np.array_equal(data["obs"], np.concatenate(seen))
    a, b = labelled.tables.clone(), plain.tables.clone()
    assert all(np.array_equal(a[k], b[k]) for k in a)
    # The learner played Greedy's move (the hint) at every decision, and every legal move has a label.
    assert np.array_equal(data["actions"], data["hint"])
    assert np.array_equal(~np.isnan(data["values"]), data["masks"])


def test_labels_need_the_seat_to_move_and_the_hint():
    rules, tables, _, seat = decision_with_choices("fours", 3)
    with pytest.raises(ValueError, match="is not to move at table 0"):
        RolloutLabeler(rules).values(tables, np.array([0]), np.array([(seat + 1) % 4]))
    with pytest.raises(ValueError, match="other rules"):
        RolloutLabeler(rules_of("draw")).values(tables, np.array([0]), np.array([seat]))
    with pytest.raises(ValueError, match="capacity must be a positive integer"):
        RolloutLabeler(rules, capacity=0)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    no_hint = SelfPlayVecEnv(4, pool, num_players=4, seed=5, game="fours", game_options=family_options("fours", {}),
                             threads=1)
    with pytest.raises(ValueError, match=r"need the hint \(env.greedy_hint: true; in Nos env.tactics_hint: true\)"):
        collect_advantage_labels(no_hint, RolloutLabeler(rules), 5)


def test_the_advantage_loss_is_the_squared_error_of_logit_differences_over_legal_moves():
    from test_distill import hinted_env, hinted_policy

    env = hinted_env(tables=16)
    policy = hinted_policy(env)
    data = dense_labels(collect_advantage_labels(env, RolloutLabeler(env.tables.rules), 64))
    masks = data["masks"]
    assert (masks.sum(axis=1) < masks.sum(axis=1).max()).any()  # rows with padding
    adv = np.where(masks, advantages(data["values"], data["hint"]), 0.0).astype(np.float32)
    obs = th.as_tensor(data["obs"])
    loss = advantage_loss(policy, obs, masks, th.as_tensor(adv), th.as_tensor(data["hint"]), 2.0)
    # By hand, from the full log-probabilities of each row's legal moves.
    with th.no_grad():
        log_p = policy.get_distribution(obs, action_masks=masks).log_p.numpy().astype(np.float64)
    w = float(policy.action_net.weight.detach())
    assert w == 1.5
    per_row = []
    for i in range(len(masks)):
        legal = np.flatnonzero(masks[i])
        # the logits without the hint's bonus w: f(a) - f(hint) = log_p(a) - log_p(hint) + w (a != hint)
        d = log_p[i, legal] - log_p[i, data["hint"][i]] + w * (legal != data["hint"][i]) - adv[i, legal] / 2.0
        per_row.append(np.mean(d * d))
    assert float(loss.detach()) == pytest.approx(float(np.mean(per_row)), rel=1e-4)


def synthetic(data, size: int, worth: float = 2.0) -> dict:
    """``data`` with synthetic values that depend on the position and the move only, as real ones
    do: playing any tile of a chosen number (an input the network must learn to read) is worth
    ``worth`` points, every other move 0. With ``worth`` 2 the advantage over Greedy's move is +2
    where such a play is legal and Greedy does not make it, 0 or -2 elsewhere; with -2, +2 where
    Greedy plays that number and another move is legal. ``good``: where a departure gains.
    ``size``: the observation floats."""
    from agents.family.view import view_of

    out = dict(data)
    masks, hint = data["masks"], data["hint"]
    view = view_of(rules_of("fours"))
    number = 5
    tile = np.maximum(view.TILE, 0)
    plays_it = (view.TILE >= 0) & ((view.LOW[tile] == number) | (view.HIGH[tile] == number))
    values = np.where(masks, np.where(plays_it[None, :], worth, 0.0), np.nan).astype(np.float32)
    out["values"] = values
    better = plays_it if worth > 0 else ~plays_it
    out["good"] = (masks & better[None, :]).any(axis=1) & ~better[hint]
    return out


@pytest.mark.parametrize("worth", [2.0, -2.0])
def test_the_fit_leaves_greedy_toward_positive_advantages_only(worth):
    from test_distill import hinted_env, hinted_policy

    env = hinted_env(tables=32)
    data = collect_advantage_labels(env, RolloutLabeler(env.tables.rules), 1600)
    hold = np.arange(1200, 1600)
    fake = synthetic(data, raw_observation_size(env), worth)
    good = fake["good"][hold]
    bound = 2.0 * np.mean(good)  # the held-out gain of departing exactly where it gains
    assert 0.1 < bound < 1.8
    policy = hinted_policy(env)
    rows = behaviour_clone(policy, fake, epochs=20, batch_size=64, learning_rate=3e-3, holdout=0.25, seed=1,
                           target="advantage", temperature=1.0)
    assert rows[0]["holdout_gain"] == 0.0 and rows[0]["holdout_departs"] == 0.0  # it starts as Greedy
    kept = [r for r in rows if r["kept"]][0]
    assert kept["holdout_loss"] == min(r["holdout_loss"] for r in rows) < rows[0]["holdout_loss"]
    assert kept["holdout_best_gain"] == pytest.approx(bound)
    chosen = choose_margin(policy, fake, [0.0, 1.0, 3.0], 0.25, 1.0)
    assert [m["margin"] for m in chosen["margins"]] == [0.0, 1.0, 3.0]
    # Margin 0 also leaves Greedy for moves of equal value (no gain): 1 point gains as much with
    # fewer departures, and the largest of equal gains is kept.
    assert chosen["margin"] == 1.0 and chosen["gain"] > 0.9 * bound
    assert chosen["margins"][2]["departs"] == 0.0  # a margin above 2 points keeps Greedy's moves
    # The policy itself now plays those choices (the margin is its hint weight): it leaves Greedy
    # where that gains, and (almost) only there.
    with th.no_grad():
        mode = policy.get_distribution(th.as_tensor(fake["obs"][hold]), action_masks=fake["masks"][hold]).mode()
    departs = mode.numpy() != fake["hint"][hold]
    assert np.mean(departs[good]) > 0.9 and np.mean(departs[~good]) < 0.05
    assert held_out_gain(advantages(fake["values"][hold], fake["hint"][hold]), mode.numpy()) == \
        pytest.approx(chosen["gain"])


def test_the_margin_tournament_keeps_the_best_played_margin_the_largest_of_equals():
    from test_distill import hinted_env, hinted_policy

    from train.distill import choose_margin_by_tournament, hint_weight_of

    env = hinted_env(tables=8)
    policy = hinted_policy(env)  # untrained: its own logits are near 0, its hint decides
    chosen = choose_margin_by_tournament(policy, [0.0, 60.0, 100.0], 1.0, deals=40, num_players=4, game="fours",
                                         game_options=family_options("fours", {}), seed=11)
    gains = {r["margin"]: r["gain"] for r in chosen["margins"]}
    # Margin 0: the untrained logits' argmax, a poor player, loses clearly to Greedy.
    assert gains[0.0] < -2.0 and chosen["margins"][0]["ci95"] > 0
    # A margin far above the logits makes the policy play its hint, Greedy (its hinter seeded as the
    # evaluation seeds the model): exactly what Greedy itself gains in that seat on those deals.
    seat = FamilyGreedyAgent(rules_of("fours"), seed=11)
    seat.name = "model"
    alone = run_tournament([seat, "greedy", "greedy", "greedy"], 40, seed=11, game="fours", progress=False,
                           num_threads=1).summary()["head_to_head_by_name"]["model vs greedy"]["mean_difference"]
    assert gains[60.0] == gains[100.0] == pytest.approx(alone, abs=1e-12)
    assert gains[100.0] > gains[0.0]
    # Equal gains: the larger margin (fewer departures); the policy keeps it as its hint weight.
    assert chosen["margin"] == 100.0 and chosen["gain"] == gains[100.0]
    assert float(hint_weight_of(policy).detach()) == 100.0 and chosen["hint_weight"] == 100.0
    with pytest.raises(ValueError, match="deals >= 1"):
        choose_margin_by_tournament(policy, [0.0], 1.0, deals=0, num_players=4, game="fours")


def test_margin_choices_and_held_out_gain():
    predicted = np.array([[0.0, 1.5, 0.7], [0.0, -1.0, 0.2], [3.0, 0.0, 9.0]])
    masks = np.array([[True, True, True], [True, True, False], [True, True, False]])
    hint = np.array([0, 0, 1])
    assert margin_choices(predicted, masks, hint, 0.0).tolist() == [1, 0, 0]
    assert margin_choices(predicted, masks, hint, 1.0).tolist() == [1, 0, 0]
    assert margin_choices(predicted, masks, hint, 2.0).tolist() == [0, 0, 0]
    assert margin_choices(predicted, masks, hint, 5.0).tolist() == [0, 0, 1]
    advantage = np.array([[0.0, 2.0, -1.0], [0.0, 4.0, 0.0], [-3.0, 0.0, 0.0]])
    assert held_out_gain(advantage, np.array([1, 1, 0])) == pytest.approx((2.0 + 4.0 - 3.0) / 3)


@pytest.mark.parametrize("distill,env,message", [
    ({"teacher": "rollout_advantage", "target": "values"}, {}, "the rollout_advantage teacher's labels are fitted "
                                                               "as 'advantage'"),
    ({"teacher": "rollout_advantage", "target": "advantage"}, {"greedy_hint": False},
     "'advantage' is measured against Greedy's move: it needs env.greedy_hint: true"),
    ({"teacher": "greedy", "target": "advantage"}, {}, "'advantage' needs a teacher that reports action values"),
    ({"teacher": "rollout_advantage", "target": "advantage", "margins": []}, {},
     "distill.margins: must be a non-empty list of numbers >= 0"),
    ({"teacher": "rollout_advantage", "target": "advantage", "margins": [0.5, -1]}, {},
     "distill.margins: must be a non-empty list of numbers >= 0"),
    ({"teacher": "rollout_advantage", "target": "advantage", "patience": -1}, {}, "distill.patience: must be >= 0"),
    ({"teacher": "rollout_advantage", "target": "advantage", "margin_by": "play"}, {},
     "distill.margin_by: must be 'holdout' (the labels' held-out gain) or 'tournament'"),
    ({"teacher": "rollout_advantage", "target": "advantage", "margin_by": "tournament", "margin_deals": 0}, {},
     "distill.margin_deals: must be positive"),
    ({"teacher": "search", "target": "values", "margin_by": "tournament"}, {},
     "distill.margin_by: 'tournament' chooses the margin of target 'advantage', not of 'values'"),
    ({"teacher": "rollout_advantage", "target": "advantage", "teacher_options": {"rollouts": 3}}, {},
     "rollout_advantage takes only capacity"),
    ({"teacher": "rollout_advantage", "target": "advantage", "teacher_options": {"capacity": 0}}, {},
     "capacity must be an integer >= 1, got 0"),
])
def test_rollout_advantage_config_errors_name_what_is_allowed(distill, env, message):
    with pytest.raises(ConfigError) as info:
        from_dict({"env": {"game": "fours", "greedy_hint": True, **env}, "distill": distill}, "cfg.yaml")
    assert message in str(info.value)


def test_rollout_advantage_is_measured_against_each_games_hint():
    # (Nos's labels are against Tactics, tests/test_rollout_advantage_nos.py)
    with pytest.raises(ConfigError, match="in Nos it needs env.tactics_hint: true"):
        from_dict({"distill": {"teacher": "rollout_advantage", "target": "advantage"}}, "cfg.yaml")
    c = from_dict({"env": {"game": "draw", "greedy_hint": True}, "run": {"total_timesteps": 0},
                   "distill": {"teacher": "rollout_advantage", "target": "advantage"}})
    assert c.distill.margins == [0.0, 0.25, 0.5, 1.0, 2.0, 4.0] and c.distill.patience == 3
    assert c.distill.margin_by == "holdout" and c.distill.margin_deals == 300  # the configs before it reproduce


def test_tiny_rollout_advantage_run_chooses_its_margin_by_tournament(tmp_path):
    run = tiny_distill_run(tmp_path, "{game: draw, num_envs: 16, greedy_hint: true, num_threads: 1}", "greedy",
                           "{teacher: rollout_advantage, target: advantage, temperature: 2.0, decisions: 200, "
                           "num_envs: 32, epochs: 2, batch_size: 64, margins: [0.0, 50.0], margin_by: tournament, "
                           "margin_deals: 6}")
    margin = json.loads((run / "distill" / "summary.json").read_text())["margin"]
    assert margin["by"] == "tournament" and margin["deals"] == 6 and [r["margin"] for r in margin["margins"]] == \
        [0.0, 50.0]
    assert margin["margin"] == max(margin["margins"], key=lambda r: (r["gain"], r["margin"]))["margin"]
    assert margin["holdout"]["margin"] in (0.0, 50.0)  # the held-out choice, kept beside it
    assert "chosen by a duplicate tournament against greedy (6 deals of seed 3000017" in (run / "report.md").read_text()


def test_tiny_rollout_advantage_run_collects_fits_chooses_a_margin_and_plays(tmp_path):
    run = tiny_distill_run(tmp_path, "{game: draw, num_envs: 16, greedy_hint: true, num_threads: 1}", "greedy",
                           "{teacher: rollout_advantage, target: advantage, temperature: 2.0, decisions: 300, "
                           "num_envs: 32, epochs: 3, batch_size: 64, margins: [0.0, 1.0]}")
    summary = json.loads((run / "distill" / "summary.json").read_text())
    assert summary["teacher"] == "rollout_advantage" and summary["labels"] == 300
    assert summary["margin"]["margin"] in (0.0, 1.0) and len(summary["margin"]["margins"]) == 2
    assert summary["kept"]["holdout_loss"] <= summary["first"]["holdout_loss"]
    assert "the advantages over Greedy's move" in (run / "report.md").read_text()
    with np.load(run / "distill" / "labels.npz") as f:  # compact: the values of the legal moves only
        assert int(f["format"]) == 2 and len(f["legal_indptr"]) == 301
        assert f["values"].shape == (f["legal_indptr"][-1],) == f["legal_actions"].shape
    r = run_tournament([f"model:{run / 'model.zip'}", "greedy", "greedy", "greedy"], 2, game="draw", progress=False)
    assert len(r.deal) == 8


@pytest.mark.parametrize("game", ["draw", "block", "fours", "cross", "matador", "chickenfoot", "all_fives",
                                  "fives_and_threes", "five_up", "bergen", "double_nine_cross"])
def test_greedy_on_the_legal_moves_only_is_greedys_best_move(game):
    # The playouts score Greedy on each row's legal moves only (Chickenfoot's and Five Up's action
    # spaces are wide); it must pick exactly what Greedy's full scores pick (the lowest id of
    # equals), the scoring games' points at once included.
    from agents.family.greedy import SCORING_GAMES
    from train.rollout_advantage import legal_greedy_moves, legal_immediate_points

    rules = rules_of(game)
    tables = tables_class(game)(game, 64, num_players=4, seed=3, observation_dtype="float32", threads=1,
                                **family_options(game, {}))
    greedy = FamilyGreedyAgent(rules, seed=0)
    rng = np.random.default_rng(7)
    compared = departed = scored = 0
    for _ in range(60):
        masks = tables.masks.copy()
        live = np.flatnonzero(masks.sum(axis=1) > 0)
        obs = tables.observe_rows(live, tables.current_player[live])
        full = greedy.scores(obs, masks[live])
        full[masks[live] == 0] = -np.inf
        expected = full.argmax(axis=1)
        assert np.array_equal(legal_greedy_moves(greedy, obs, masks[live]), expected)
        if game in SCORING_GAMES:  # the points at once, pair by pair, as the full scores have them
            row, action = np.nonzero(masks[live])
            outward = greedy.view.outward(obs)[row, action]
            points = legal_immediate_points(greedy, obs, row, action, outward)
            assert np.array_equal(points, greedy.immediate_points(obs)[row, action])
            scored += int((points > 0).sum())
        choices = masks[live].sum(axis=1) > 1
        compared += int(choices.sum())
        departed += int((expected[choices] != masks[live][choices].argmax(axis=1)).sum())  # not just the first legal
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in masks], np.int64)
        tables.step(actions, observe=False, autoreset=True)
    assert compared > 300 and departed > 50
    assert game not in SCORING_GAMES or scored > 50
