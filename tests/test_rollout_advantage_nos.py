"""Nos's rollout-advantage labels (train/rollout_advantage_nos.py): each label is the chip change
the reference engine gives when the move is played and every seat continues with the Python
Tactics agent (tie-break noise off, the first best move); labelling leaves the real tables as
they were; ``FastTables.copy_rollout_starts`` equals ``rollout_snapshot`` row by row and refuses
what it cannot copy; the config accepts the teacher in Nos with the Tactics hint only; a tiny run
collects, fits, chooses a margin and plays."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from agents.tactics import TacticsAgent, kernel_params
from nos_env.encoding import encode_observation, index_to_action, legal_mask
from nos_env.fast_engine import FastTables
from train.config import ConfigError, from_dict
from train.distill import dense_labels
from train.rollout_advantage import advantages, collect_advantage_labels, make_labeler
from train.rollout_advantage_nos import DeterminizedTacticsLabeler, TacticsRolloutLabeler

from tiny_training import tiny_distill_run

PARAMS = kernel_params()


def quiet_tactics():
    """The Python Tactics with its tie-break noise off: the first best move, as the labeller's playouts."""
    agent = TacticsAgent(seed=0)
    agent._noise = lambda shape: np.zeros(shape)
    return agent


def chips_of(payments, seat: int) -> int:
    return sum(p.amount for p in payments if p.payee == seat) - sum(p.amount for p in payments if p.payer == seat)


def reference_playout(hand, move: int, seat: int) -> int:
    """``move`` on a copy of the reference hand, then the Python Tactics at every seat until the
    hand is over: ``seat``'s chips won or lost from the decision on."""
    h = copy.deepcopy(hand)
    tactics = quiet_tactics()
    gained = chips_of(h.step(index_to_action(move, h)), seat)
    while not h.over:
        s = h.to_move
        obs = encode_observation(h, s)[None, :]
        mask = legal_mask(h)[None, :].astype(np.int8)
        gained += chips_of(h.step(index_to_action(int(tactics.act_batch(obs, mask)[0]), h)), seat)
    return gained


def tables_at_decisions(n: int, seed: int, plays: int):
    """Tables (raise mode, no automatic forced moves: a training env's) stepped with the compiled
    Tactics until each is at a decision with three or more legal moves, after at least ``plays``
    decisions (0: the set or the announcement)."""
    tables = FastTables(8, n, seed=seed, hands_per_episode=1, observation_dtype="float32", num_threads=1)
    tables.reset_tables()
    steps = np.zeros(8, np.int64)
    for _ in range(200):
        masks = np.asarray(tables.masks)
        ready = (masks.sum(axis=1) >= 3) & (steps >= plays)
        if ready.all():
            return tables
        actions = np.where(ready, FastTables.IDLE, tables.tactics_actions(PARAMS))
        _, terminated, *_ = tables.step(actions, observe=False, autoreset=False, allow_idle=True)
        steps += ~ready
        if terminated.any():  # a hand over before such a decision: deal that table again
            tables.reset_tables(np.flatnonzero(terminated))
            steps[terminated] = 0
    raise AssertionError("no decision with three legal moves came")


@pytest.mark.parametrize("n,seed,plays", [(4, 3, 0), (4, 5, 6), (3, 7, 4), (5, 9, 8)])
def test_each_label_is_the_reference_engines_outcome_of_the_move_then_tactics(n, seed, plays):
    tables = tables_at_decisions(n, seed, plays)
    rows = np.arange(3)
    seats = np.asarray(tables.current_player)[rows]
    labeler = TacticsRolloutLabeler(n, capacity=5)  # fewer rows than moves: several passes
    values = labeler.values(tables, rows, seats)
    for i, b in enumerate(rows):
        legal = np.flatnonzero(np.asarray(tables.masks)[b])
        assert np.isnan(np.delete(values[i], legal)).all()
        hand = tables.reference_hand(int(b))
        by_hand = np.array([reference_playout(hand, int(a), int(seats[i])) for a in legal])
        np.testing.assert_array_equal(values[i, legal], by_hand)
    # The moves are worth different amounts somewhere (else the labels would teach nothing).
    assert any(len(set(values[i][~np.isnan(values[i])].tolist())) > 1 for i in range(len(rows)))


def test_the_advantage_of_tactics_own_move_is_zero_and_the_others_are_differences():
    tables = tables_at_decisions(4, 11, 3)
    seats = np.asarray(tables.current_player)
    values = TacticsRolloutLabeler(4).values(tables, np.arange(8), seats)
    hint = tables.tactics_actions(PARAMS)
    adv = advantages(values, hint)
    np.testing.assert_array_equal(adv[np.arange(8), hint], 0.0)
    legal = ~np.isnan(values)
    np.testing.assert_array_equal(adv[legal], (values - values[np.arange(8), hint][:, None])[legal])


def test_tactics_move_is_worth_what_the_table_itself_then_pays():
    """The label of Tactics' own move is what the real table pays the seat when every seat goes on
    with Tactics: the table stepped on, in raise mode, one decision at a time, without automatic
    forced moves (D12: the labeller's copies apply them; the outcome is the same)."""
    tables = tables_at_decisions(4, 13, 5)
    seats = np.asarray(tables.current_player)
    hint = tables.tactics_actions(PARAMS)
    values = TacticsRolloutLabeler(4).values(tables, np.arange(8), seats)
    before = tables.chips[np.arange(8), seats]
    done = np.zeros(8, bool)
    actions = hint
    for _ in range(300):
        _, terminated, *_ = tables.step(np.where(done, FastTables.IDLE, actions), observe=False, autoreset=False,
                                        allow_idle=True)
        done |= terminated.astype(bool)
        if done.all():
            break
        actions = tables.tactics_actions(PARAMS)
    assert done.all()
    np.testing.assert_array_equal(values[np.arange(8), hint], tables.chips[np.arange(8), seats] - before)


class RealDealLabeler(DeterminizedTacticsLabeler):
    """The determinized labeller given the real deal as its one sample: its plumbing (snapshot,
    hidden sets, one scratch batch for many decisions, the playout) must then give the real labels."""

    def _sample(self, sampler, tables, b, seat):
        from nos_env.games import nos as K

        n = tables.num_players
        hands = np.array([[int(tables.S[b, (seat + r) % n, K.S_HAND]) for r in range(n)]], np.int64)
        top, end = int(tables.T[b, K.T_BONE_TOP]), int(tables.T[b, K.T_BONE_END])
        return hands, tables.BONE[b, top:end][None, :].astype(np.int64)


@pytest.mark.parametrize("n,seed,plays", [(4, 3, 0), (4, 5, 6), (3, 7, 4), (5, 9, 8)])
def test_determinized_labels_on_the_real_deal_are_the_real_labels(n, seed, plays):
    tables = tables_at_decisions(n, seed, plays)
    seats = np.asarray(tables.current_player)
    real = TacticsRolloutLabeler(n).values(tables, np.arange(8), seats)
    # capacity 40: several scratch batches, a decision's rows never split
    got = RealDealLabeler(n, capacity=40, samples=1).values(tables, np.arange(8), seats)
    np.testing.assert_array_equal(got, real)


def test_determinized_labels_see_only_the_observation():
    """D17: shuffling the real hidden tiles (the seat's view unchanged) changes no label, and the
    labels are not the real table's."""
    from test_search import permute_hidden

    from nos_env.games import nos as K

    tables = tables_at_decisions(4, 15, 6)
    seats = np.asarray(tables.current_player)
    rows = np.arange(4)
    first = DeterminizedTacticsLabeler(4, samples=6, seed=3).values(tables, rows, seats[rows])
    views = tables.observe_rows(rows, seats[rows]).copy()
    rng = np.random.default_rng(0)
    for b in rows:
        permute_hidden(tables, int(b), int(seats[b]), rng)
        K.compute_mask(tables.T, tables.S, tables.A, tables.MASK, tables.LEGAL, int(b), 4)
    np.testing.assert_array_equal(tables.observe_rows(rows, seats[rows]), views)
    again = DeterminizedTacticsLabeler(4, samples=6, seed=3).values(tables, rows, seats[rows])
    np.testing.assert_array_equal(again, first)
    legal = ~np.isnan(first)
    np.testing.assert_array_equal(legal, np.asarray(tables.masks)[rows] != 0)
    real = TacticsRolloutLabeler(4).values(tables, rows, seats[rows])
    assert not np.array_equal(first[legal], real[legal])
    # A value is a mean over 6 deals of whole chips: a multiple of 1/6.
    np.testing.assert_allclose(first[legal] * 6, np.round(first[legal] * 6), atol=1e-3)


@pytest.mark.parametrize("labeler", [TacticsRolloutLabeler(4, capacity=7),
                                     DeterminizedTacticsLabeler(4, capacity=7, samples=3)])
def test_labelling_leaves_the_tables_as_they_were(labeler):
    tables = tables_at_decisions(4, 17, 2)
    before = tables.clone()
    labeler.values(tables, np.arange(8), np.asarray(tables.current_player))
    after = tables.clone()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_determinized_labeler_refuses_bad_samples_and_family_games_refuse_samples():
    with pytest.raises(ValueError, match="samples must be a positive integer, got 0"):
        DeterminizedTacticsLabeler(4, samples=0)
    config = copy.deepcopy(BASE)
    config["distill"]["teacher_options"] = {"samples": -1}
    with pytest.raises(ConfigError, match="samples must be an integer >= 0, got -1"):
        from_dict(config, "cfg.yaml")
    config["distill"]["teacher_options"] = {"rollouts": 4}
    with pytest.raises(ConfigError, match=r"rollout_advantage takes capacity \(playout rows at once\), samples"):
        from_dict(config, "cfg.yaml")
    from train.trainer import make_env

    env, _ = make_env(from_dict({"env": {"game": "fours", "greedy_hint": True, "num_envs": 4},
                                 "ppo": {"n_steps": 8, "batch_size": 32}}))
    with pytest.raises(ValueError, match="samples .* are Nos's"):
        make_labeler(env, samples=2)


def test_copy_rollout_starts_is_rollout_snapshot_for_many_rows_at_once():
    source = tables_at_decisions(4, 19, 4)
    rows = np.array([5, 0, 5, 2])
    many = FastTables(4, 4, seed=0, hands_per_episode=1, illegal_action="penalty", observation_dtype="float32")
    many.copy_rollout_starts(source, rows, np.arange(4))
    one = FastTables(1, 4, seed=0, hands_per_episode=1, illegal_action="penalty", observation_dtype="float32")
    for i, b in enumerate(rows):
        one.restore_table(0, {**source.rollout_snapshot(int(b)), "PEN": np.zeros(one.PEN.shape[1:], np.int64)})
        got, want = many.clone_table(i), one.clone_table(0)
        for name in want:
            np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def test_copy_rollout_starts_refuses_what_it_cannot_copy_and_changes_nothing():
    source = tables_at_decisions(4, 23, 1)
    target = FastTables(4, 4, seed=0, hands_per_episode=1, illegal_action="penalty", observation_dtype="float32")
    target.reset_tables()
    before = target.clone()
    three = FastTables(2, 3, seed=0, hands_per_episode=1)
    three.reset_tables()
    with pytest.raises(ValueError, match="FastTables of 4 players"):
        target.copy_rollout_starts(three, [0], [0])
    with pytest.raises(ValueError, match="same length"):
        target.copy_rollout_starts(source, [0, 1], [0])
    with pytest.raises(ValueError):
        target.copy_rollout_starts(source, [8], [0])  # no such source table
    with pytest.raises(ValueError):
        target.copy_rollout_starts(source, [0], [4])  # no such target table
    penalised = FastTables(2, 4, seed=0, hands_per_episode=1, illegal_action="penalty")
    penalised.reset_tables()
    wrong = np.flatnonzero(np.asarray(penalised.masks)[0] == 0)[0]
    penalised.step(np.array([wrong, penalised.tactics_actions(PARAMS)[1]]), observe=False, autoreset=False)
    raising = FastTables(2, 4, seed=0, hands_per_episode=1)  # raise mode: no penalty record of its own
    with pytest.raises(ValueError, match="D16 penalty"):
        raising.copy_rollout_starts(penalised, [0], [0])
    after = target.clone()
    assert all(np.array_equal(before[k], after[k]) for k in before)


def test_the_labeller_refuses_bad_input():
    tables = tables_at_decisions(4, 29, 2)
    seats = np.asarray(tables.current_player)
    with pytest.raises(ValueError, match="capacity"):
        TacticsRolloutLabeler(4, capacity=0)
    with pytest.raises(ValueError, match="3 to 5 players"):
        TacticsRolloutLabeler(6)
    with pytest.raises(ValueError, match="is not to move"):
        TacticsRolloutLabeler(4).values(tables, np.array([0]), np.array([(seats[0] + 1) % 4]))
    with pytest.raises(ValueError, match="FastTables of 3 players"):
        TacticsRolloutLabeler(3).values(tables, np.array([0]), seats[:1])


BASE = {"run": {"total_timesteps": 0}, "env": {"num_envs": 8, "tactics_hint": True},
        "ppo": {"n_steps": 8, "batch_size": 64}, "opponents": {"baselines": {"tactics": 1.0}, "snapshot_weight": 0.0},
        "distill": {"teacher": "rollout_advantage", "target": "advantage", "decisions": 300, "num_envs": 8,
                    "epochs": 2, "temperature": 10.0, "margins": [0.0, 4.0]},
        "eval": {"every": 0, "deals": 16, "final_deals": 16, "final_opponents": ["tactics"]},
        "output": {"checkpoint_every": 0, "progress_bar": False, "tensorboard": False}}


def test_the_config_takes_the_teacher_in_nos_with_the_tactics_hint_only():
    assert from_dict(copy.deepcopy(BASE)).distill.teacher == "rollout_advantage"
    no_hint = copy.deepcopy(BASE)
    no_hint["env"]["tactics_hint"] = False
    with pytest.raises(ConfigError, match="in Nos it needs env.tactics_hint: true"):
        from_dict(no_hint)


def test_collecting_in_nos_labels_the_learners_decisions_against_tactics():
    from train.trainer import make_env

    env, _ = make_env(from_dict(copy.deepcopy(BASE)))
    labeler = make_labeler(env)
    assert isinstance(labeler, TacticsRolloutLabeler)
    data = dense_labels(collect_advantage_labels(env, labeler, 200))
    rows = np.arange(len(data["hint"]))
    assert len(rows) == 200 and (data["masks"].sum(axis=1) > 1).all()
    # Each label's hinted (Tactics') move is legal and has a value; every legal move has one.
    assert np.isfinite(data["values"][rows, data["hint"]]).all()
    assert np.array_equal(np.isfinite(data["values"]), data["masks"] != 0)
    assert (data["actions"] == data["hint"]).all()  # the learner plays the hint by default


def test_a_tiny_nos_run_collects_fits_chooses_a_margin_and_plays(tmp_path):
    from agents.tournament import run_tournament

    run = tiny_distill_run(tmp_path, "{num_envs: 16, tactics_hint: true, num_threads: 1}", "tactics",
                           "{teacher: rollout_advantage, target: advantage, temperature: 10.0, decisions: 300, "
                           "num_envs: 32, epochs: 3, batch_size: 64, margins: [0.0, 4.0]}")
    summary = json.loads((run / "distill" / "summary.json").read_text())
    assert summary["teacher"] == "rollout_advantage" and summary["labels"] == 300
    assert summary["margin"]["margin"] in (0.0, 4.0) and len(summary["margin"]["margins"]) == 2
    assert "the advantages over Tactics' move" in (run / "report.md").read_text()
    with np.load(run / "distill" / "labels.npz") as f:  # compact: the values of the legal moves only
        assert int(f["format"]) == 2 and len(f["legal_indptr"]) == 301
        assert f["values"].shape == (f["legal_indptr"][-1],) == f["legal_actions"].shape
    r = run_tournament([f"model:{run / 'model.zip'}", "tactics", "tactics", "tactics"], 2, progress=False)
    assert len(r.deal) == 8


def test_phases_label_only_the_openings():
    from nos_env.encoding import OBSERVATION_LAYOUT
    from nos_env.engine import PHASES
    from train.trainer import make_env

    env, _ = make_env(from_dict(copy.deepcopy(BASE)))
    data = dense_labels(collect_advantage_labels(env, make_labeler(env), 60, phases=["set", "announce"]))
    start, stop, _ = OBSERVATION_LAYOUT["phase"]
    phase = np.array(PHASES)[data["obs"][:, start:stop].argmax(axis=1)]
    assert set(phase) == {"set", "announce"}  # both kinds come, nothing else
    legal = data["masks"].sum(axis=1)
    assert (legal[phase == "announce"] >= 43).all()  # every legal announcement is labelled (43 to 60)
    only = collect_advantage_labels(env, make_labeler(env), 20, phases=["announce"])
    assert (only["obs"][:, start:stop].argmax(axis=1) == PHASES.index("announce")).all()


def test_the_endgame_phase_labels_the_plays_once_nothing_can_be_drawn():
    from nos_env.encoding import ENDGAME_COLUMN, OBSERVATION_LAYOUT, PASS, PLAY0
    from nos_env.engine import PHASES
    from train.trainer import make_env

    env, _ = make_env(from_dict(copy.deepcopy(BASE)))
    data = collect_advantage_labels(env, make_labeler(env), 80, phases=["endgame"])
    start, stop, _ = OBSERVATION_LAYOUT["phase"]
    assert (data["obs"][:, start:stop].argmax(axis=1) == PHASES.index("play")).all()
    # only the last two tiles are left in the boneyard (section 7: they are never drawn)
    boneyard = OBSERVATION_LAYOUT["boneyard_size"][0]
    assert (data["obs"][:, ENDGAME_COLUMN] == 0).all() and (data["obs"][:, boneyard] <= 2).all()
    legal = data["masks"]
    assert not legal[:, :PLAY0].any() and (legal[:, PLAY0:PASS].sum(axis=1) >= 2).all()  # plays only
    assert ((data["hint"] - PLAY0) % 2 == 0).all()  # never where Tactics closes (its closings are proved)
    # with the openings: both kinds, and nothing of the play phase before the endgame
    both = collect_advantage_labels(env, make_labeler(env), 60, phases=["announce", "endgame"])
    phase = both["obs"][:, start:stop].argmax(axis=1)
    assert set(phase) == {PHASES.index("announce"), PHASES.index("play")}
    assert (both["obs"][phase == PHASES.index("play"), ENDGAME_COLUMN] == 0).all()


@pytest.mark.parametrize("change,message", [
    ({"distill": {"phases": ["opening"]}}, "distill.phases: must be a list of Nos phases (set, announce, declare, "
                                           "immediate, play, endgame), got ['opening']"),
    ({"distill": {"phases": ["set"], "teacher": "search", "target": "choice"}},
     "distill.phases: choose Nos decisions for the rollout_advantage teacher"),
])
def test_phases_name_what_is_allowed(change, message):
    config = copy.deepcopy(BASE)
    config["distill"].update(change["distill"])
    with pytest.raises(ConfigError) as info:
        from_dict(config, "cfg.yaml")
    assert message in str(info.value)
    from train.rollout_advantage_nos import phase_filter

    with pytest.raises(ValueError, match="phases must be a non-empty list of set, announce"):
        phase_filter(["over"])
