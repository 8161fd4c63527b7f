"""RLlib for every registered game besides Nos (the ray extra; docs/ray.md): the family games and
Blind through their tables (``nos_env/rllib_books.py``'s GameBook over the Tables API).

The environment against RLlib's own checks and, action for action, against the game's own
``vector_env`` (observations, masks, every seat's rewards); batched tables against single-table
environments; bad input. Training, ``rllib:PATH`` agents at family tables and tournaments on Ray
share one small local Ray (conftest's ``ray_session``, started once for the session).
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from nos_env.extras import missing

pytestmark = pytest.mark.skipif(bool(missing("ray")) or bool(missing("train")),
                                reason="the ray and train extras are not installed (pip install -e '.[dev,train,ray]')")

from conftest import ROOT  # noqa: E402
from rllib_checks import assert_batch_plays_as_single_tables, legal_choice  # noqa: E402




# ------------------------------------------------------------------ environment
@pytest.mark.parametrize("game, players", [("draw", 2), ("all_fives", 3), ("blind", 4), ("fours", 4),
                                           ("matador", 2), ("double_nine_cross", 6), ("mexican_train", 3),
                                           ("chickenfoot", 5)])
def test_the_table_env_passes_rllibs_checks_for_family_games(game, players):
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from nos_env import registry
    from nos_env.rllib_env import NosTableEnv

    env = NosTableEnv({"game": game, "num_players": players, "seed": players})
    check_multiagent_environments(env)  # raises on any departure from the MultiAgentEnv API
    assert env.possible_agents == [f"seat_{s}" for s in range(players)]
    ref = registry.vector_env(1, game=game, num_players=players, observation_dtype="float32")
    space = env.observation_spaces["seat_0"]
    assert space["observations"].shape == ref.single_observation_space.shape
    assert space["action_mask"].shape == (ref.num_actions,) and env.action_spaces["seat_0"].n == ref.num_actions


# (game, players, reward mode, game options): one hand per episode, or a match (target_score).
CASES = [("draw", 3, "relative", {}), ("all_fives", 2, "points", {}), ("blind", 3, "relative", {}),
         ("fours", 4, "win", {}), ("block", 4, "relative", {"target_score": 50, "teams": True}),
         ("mexican_train", 3, "relative", {}), ("chickenfoot", 2, "win", {})]


@pytest.mark.parametrize("game, players, reward, options", CASES)
def test_obs_holds_exactly_the_seat_to_move_and_every_seats_rewards_add_up(game, players, reward, options):
    """Against the game's vector_env on the same seed and actions: the same observations and masks;
    each seat that decided gets rewards adding up to its vector-env reward over the episode (also
    while it is not to move); what seats that never decided were owed is counted apart."""
    from nos_env import vector_env
    from nos_env.family.rules import one_hand_options
    from nos_env.rllib_env import NosTableEnv

    scale = 0.5
    env = NosTableEnv({"game": game, "num_players": players, "seed": 11, "reward": reward,
                       "reward_scale": scale, "game_options": options})
    ref = vector_env(1, game=game, num_players=players, seed=11, observation_dtype="float32", reward=reward,
                     **{**one_hand_options(game), **options})
    obs, _ = env.reset()
    ref_obs, ref_masks, ref_current = ref.reset()
    rng = np.random.default_rng(players)
    returns, owed = np.zeros(players), np.zeros(players)
    acted = np.zeros(players, bool)
    episodes = others_paid = 0
    unpaid = 0.0
    while episodes < (4 if options.get("target_score") else 8 if game == "mexican_train" else 20):
        assert list(obs) == [f"seat_{ref_current[0]}"]  # exactly the seat to move
        (agent, o), = obs.items()
        np.testing.assert_array_equal(o["observations"], ref_obs[0])
        np.testing.assert_array_equal(o["action_mask"], ref_masks[0].astype(np.float32))
        action = legal_choice(rng, obs)
        acted[ref_current[0]] = True
        obs, rew, term, trunc, _ = env.step(action)
        ref_obs, ref_masks, ref_current, ref_rew, ref_term, _ = ref.step(np.array([action[agent]]))
        owed += ref_rew[0] * scale
        assert set(rew) == {f"seat_{s}" for s in np.flatnonzero(acted)}  # every seat that has decided
        for who, r in rew.items():
            returns[int(who[5:])] += r
            others_paid += who != agent and r != 0
        assert not trunc["__all__"]
        if ref_term[0]:
            assert term["__all__"] and obs == {} and all(term[f"seat_{s}"] for s in np.flatnonzero(acted))
            np.testing.assert_allclose(returns[acted], owed[acted], atol=1e-9)
            unpaid += owed[~acted].sum()
            episodes += 1
            returns[:], owed[:], acted[:] = 0, 0, False
            obs, _ = env.reset()  # the next episode, dealt already
        else:
            assert not term["__all__"]
    assert others_paid > 0  # rewards did reach seats that were not to move
    assert env.book.rewards_without_decision == pytest.approx(unpaid)
    assert env.book.episodes_finished == episodes


@pytest.mark.parametrize("game, players", [("draw", 4), ("blind", 3)])
def test_batched_family_tables_play_as_single_table_envs(game, players):
    """Table b of a batch seeded s plays as a NosTableEnv seeded s + b, action for action."""
    assert_batch_plays_as_single_tables({"game": game, "num_players": players}, steps=250)


def test_an_action_outside_the_mask_is_refused_with_a_penalty_or_raises():
    from nos_env.rllib_env import NosTableEnv

    env = NosTableEnv({"game": "draw", "seed": 2, "reward_scale": 0.5, "illegal_penalty": 3})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    before = env.book.engine.clone()
    after, rew, term, _, _ = env.step({agent: illegal})
    assert list(after) == [agent] and not term["__all__"]  # the same seat acts again
    np.testing.assert_array_equal(after[agent]["observations"], o["observations"])
    state = env.book.engine.clone()
    assert all(np.array_equal(before[k], state[k]) for k in before)  # nothing changed at the table
    assert rew == {agent: -1.5}  # 3 points × 0.5, only the offender (the only seat that has acted)
    strict = NosTableEnv({"game": "draw", "seed": 2, "illegal_action": "raise"})
    strict.reset()
    with pytest.raises(ValueError, match="illegal action"):
        strict.step({agent: illegal})
    state = strict.book.engine.clone()
    assert all(np.array_equal(before[k], state[k]) for k in before)
    with pytest.raises(ValueError, match="is not to move"):
        strict.step({"seat_9": 0})


def test_bad_env_config_names_what_is_allowed():
    from nos_env.rllib_env import NosTableEnv

    with pytest.raises(ValueError, match=r"\['auto_forced'\] are for Nos"):
        NosTableEnv({"game": "draw", "auto_forced": True})
    with pytest.raises(ValueError, match=r"\['reward'\] are for the other games"):
        NosTableEnv({"reward": "win"})
    with pytest.raises(ValueError, match=r"num_players must be one of \(4,\) for 'fours'"):
        NosTableEnv({"game": "fours", "num_players": 3})
    with pytest.raises(ValueError, match="reward must be one of"):
        NosTableEnv({"game": "draw", "reward": "chips"})
    with pytest.raises(ValueError, match="opening"):  # the rules page's option, checked by the rules
        NosTableEnv({"game": "draw", "game_options": {"opening": "sideways"}})
    with pytest.raises(ValueError, match="unknown game"):
        NosTableEnv({"game": "chess"})


# ------------------------------------------------------------------ training
def test_a_short_draw_self_play_run_checkpoints_resumes_and_plays_in_family_tournaments(ray_session, tmp_path):
    """nos-train with configs/rllib_draw_smoke.yaml: the league (family baselines and a snapshot),
    evaluations through Draw's duplicate tournaments, checkpoints and resume; then the module is an
    ``rllib:PATH`` agent of nos-tournament --game draw, locally and as Ray tasks."""
    from agents.tournament import main as tournament_main
    from agents.tournament import run_tournament
    from train.cli import main

    config = str(ROOT / "configs" / "rllib_draw_smoke.yaml")
    main(["--config", config, "--set", f"run.output_dir={tmp_path}", "--quiet"])
    run = tmp_path / "rllib_draw_smoke"
    for name in ("rllib_module", "report.md", "results.json", "curve.csv", "eval.csv", "learning_curve.png"):
        assert (run / name).exists(), name
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] >= 768 and state["league"]["snapshots"]  # a snapshot joined the league
    results = json.loads((run / "results.json").read_text())
    assert [row["opponent"] for row in results["final"][:2]] == ["random", "greedy"]
    assert all(row["hands"] == 4 * 3 for row in results["final"][:2])  # 4 duplicate deals × 3 seats of Draw
    report = (run / "report.md").read_text()
    assert "- game: draw" in report and "model points/hand" in report and "chips" not in report
    check_kept_rllib_evaluations(run)
    first = state["timesteps"]
    main(["--config", config, "--set", f"run.output_dir={tmp_path}", "--set", "run.total_timesteps=1200",
          "--resume", "--quiet"])
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] > first and state["timesteps"] >= 1200
    agent = f"rllib:{run / 'rllib_module'}"
    out = tmp_path / "t.json"
    tournament_main(["--game", "draw", "--agents", agent, "random", "greedy", "--deals", "6", "--tables", "6",
                     "--quiet", "--json", str(out), "--no-leaderboard"])
    summary = json.loads(out.read_text())
    assert summary["hands"] == 18
    local = run_tournament([agent, "random", "greedy"], 12, seed=3, tables=12, progress=False, game="draw", shards=2)
    remote = run_tournament([agent, "random", "greedy"], 12, seed=3, tables=12, progress=False, game="draw",
                            shards=2, ray=True)
    for name in ("deal", "seat_agent", "chips", "stream_seed", "stream_index"):
        np.testing.assert_array_equal(getattr(local, name), getattr(remote, name), err_msg=name)
    with pytest.raises(ValueError, match="trained on 'draw', not 'nos'"):  # Draw's module at a Nos table
        run_tournament([agent, "random", "random"], 3, seed=0, progress=False)
    with pytest.raises(ValueError, match="trained on 'draw', not 'block'"):  # Block has Draw's sizes
        run_tournament([agent, "random", "random"], 3, seed=0, progress=False, game="block")
    (run / "rllib_module" / "game.json").unlink()  # without it, the sizes still tell Nos from Draw
    with pytest.raises(ValueError, match=r"obs \[B, 1041\] and masks \[B, 557\]|obs \[B, 506\] and masks \[B, 86\]"):
        run_tournament([agent, "random", "random"], 3, seed=0, progress=False)


def check_kept_rllib_evaluations(run) -> None:
    """As the SB3 trainer (tests/test_train_records.py): every evaluation keeps its deals' seeds and
    agents, and the worst deal's records (configs/rllib_draw_smoke.yaml), which replay exactly."""
    import csv

    from test_train_records import replay_points

    kept = run / "evaluations"
    with (run / "eval.csv").open() as f:
        timesteps = [int(float(row["timesteps"])) for row in csv.DictReader(f)]
    names = sorted(p.name for p in kept.iterdir())
    assert [n for n in names if n.startswith("t")] == [f"t{t:012d}-vs-random" for t in timesteps]
    assert {"final-vs-random", "final-vs-greedy"} <= set(names)
    for name in names:
        summary = json.loads((kept / name / "tournament.json").read_text())
        assert summary["model"] and len(summary["deals_played"]) == 4
        hands = {h["hand"]: h for d in summary["deals_played"] for h in d["hands"]}
        assert len(hands) == 4 * 3 and all(h["agents"].count("model") == 1 for h in hands.values())
        assert all(isinstance(d["stream_seed"], int) for d in summary["deals_played"])
        files = sorted((kept / name / "records").iterdir())
        assert len(files) == 1  # worst:1
        for record in json.loads(files[0].read_text()):
            assert replay_points(record) == hands[record["tournament"]["hand"]]["chips"]
        assert (kept / name / "surprising.txt").read_text().startswith(f"nos-view {files[0]} --hand ")


def test_a_family_tournament_on_ray_equals_the_local_run(ray_session):
    from agents.tournament import run_tournament

    for game, agents in (("all_fives", ["random", "greedy", "greedy"]), ("blind", ["greedy", "random"])):
        local = run_tournament(agents, 20, seed=4, tables=30, progress=False, game=game, shards=3)
        remote = run_tournament(agents, 20, seed=4, tables=30, progress=False, game=game, shards=3, ray=True)
        for name in ("deal", "seat_agent", "chips", "stream_seed", "stream_index"):
            np.testing.assert_array_equal(getattr(local, name), getattr(remote, name), err_msg=f"{game} {name}")
        assert local.summary()["agents"] == remote.summary()["agents"]
        assert len(local.chips) == 20 * len(agents)


def test_rllib_configs_of_family_games():
    from train.config import ConfigError, from_dict, load_config
    from train.rllib_trainer import env_config_of

    config = load_config(ROOT / "configs" / "rllib_draw_quick.yaml")
    assert (config.run.engine, config.env.game, config.eval.opponent) == ("rllib", "draw", "greedy")
    assert env_config_of(config, tables=8, seed=3) == {
        "game": "draw", "num_players": 4, "tables": 8, "seed": 3, "reward_scale": 0.05, "num_threads": 1,
        "game_options": {}, "reward": "relative"}
    assert "auto_forced" in env_config_of(load_config(ROOT / "configs" / "rllib_quick.yaml"))
    base = {"run": {"engine": "rllib"}, "ppo": {"batch_size": 512}}
    with pytest.raises(ConfigError, match="opponents.baselines.search: Search needs the fast engine's tables"):
        from_dict({**base, "env": {"game": "draw"}, "opponents": {"baselines": {"search": 1.0}}})
    with pytest.raises(ConfigError, match="env.game_options"):
        from_dict({**base, "env": {"game": "draw", "game_options": {"opening": "sideways"}}})
    from_dict({**base, "env": {"game": "blind", "num_players": 3}})  # Blind trains too


def test_the_league_mapping_seats_one_learner_per_episode_and_draws_by_weight():
    from types import SimpleNamespace

    from train.rllib_trainer import LEARNER, league_mapping

    league = [("baseline_greedy", 3.0), ("baseline_random", 1.0), ("snapshot_5", 0.0)]
    mapping, again = league_mapping(3, league), league_mapping(3, league)
    counts = {}
    for e in range(400):
        episode = SimpleNamespace(id_=f"episode-{e}")
        seats = [mapping(f"seat_{s}", episode) for s in range(3)]
        assert seats == [mapping(f"seat_{s}", episode) for s in range(3)]  # asked again: the same answer
        assert seats == [again(f"seat_{s}", episode) for s in range(3)]  # drawn from the episode's id alone
        assert seats.count(LEARNER) == 1
        for m in seats:
            counts[m] = counts.get(m, 0) + 1
    assert "snapshot_5" not in counts  # weight 0: never drawn
    assert 2.0 < counts["baseline_greedy"] / counts["baseline_random"] < 4.5  # 3 : 1 (800 draws)
