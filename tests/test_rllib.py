"""Ray and RLlib (the ray extra; docs/ray.md): the multi-agent environment against RLlib's own
checks and against the vector API, the action-masking module, a short self-play run with resume,
and tournaments and announcement research as Ray tasks equal to the local runs.

One small local Ray (2 CPUs, conftest's ``ray_session``) serves the whole session; every Ray call
here is bounded (small runs, ``ray.get`` with timeouts in the helpers), so CI cannot hang on it.
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
def test_the_table_env_passes_rllibs_checks():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from nos_env.rllib_env import NosTableEnv

    for players in (3, 4, 5):
        env = NosTableEnv({"num_players": players, "seed": players})
        check_multiagent_environments(env)  # raises on any departure from the MultiAgentEnv API
        assert env.possible_agents == [f"seat_{s}" for s in range(players)]


@pytest.mark.parametrize("players", [3, 4, 5])
def test_obs_holds_exactly_the_seat_to_move_and_every_seats_rewards_add_up_to_its_chips(players):
    """Against the vector API on the same seed and actions: each seat that decided in a hand gets
    rewards adding up to its chip change there (while not to move too); the chips of seats that
    never decided are counted apart, so the hand stays zero-sum."""
    from nos_env import vector_env
    from nos_env.rllib_env import NosTableEnv

    env = NosTableEnv({"num_players": players, "seed": 11, "reward_scale": 1.0})
    # The RLlib env's defaults: D12 forced moves applied, D16 penalties for actions outside the mask.
    ref = vector_env(1, players, seed=11, observation_dtype="float32", auto_forced=True, illegal_action="penalty")
    obs, _ = env.reset()
    ref_obs, ref_masks, ref_current = ref.reset()
    rng = np.random.default_rng(players)
    returns, chips = np.zeros(players), np.zeros(players)
    acted = np.zeros(players, bool)
    hands = others_paid = 0
    while hands < 25:
        assert list(obs) == [f"seat_{ref_current[0]}"]  # exactly the seat to move
        (agent, o), = obs.items()
        np.testing.assert_array_equal(o["observations"], ref_obs[0])
        np.testing.assert_array_equal(o["action_mask"], ref_masks[0].astype(np.float32))
        action = legal_choice(rng, obs)
        acted[ref_current[0]] = True
        obs, rew, term, trunc, _ = env.step(action)
        ref_obs, ref_masks, ref_current, ref_rew, ref_term, ref_info = ref.step(np.array([action[agent]]))
        chips += ref_rew[0]
        assert set(rew) == {f"seat_{s}" for s in np.flatnonzero(acted)}  # every seat that has decided
        for who, r in rew.items():
            returns[int(who[5:])] += r
            others_paid += who != agent and r != 0
        assert not trunc["__all__"]
        if ref_term[0]:
            assert term["__all__"] and obs == {} and all(term[f"seat_{s}"] for s in np.flatnonzero(acted))
            np.testing.assert_allclose(chips, ref_info["final_chips"][0] - ref.tables.starting_chips)
            np.testing.assert_allclose(returns[acted], chips[acted])
            assert chips.sum() == 0
            hands += 1
            returns[:], chips[:], acted[:] = 0, 0, False
            obs, _ = env.reset()  # the next hand, dealt already (the vector env's auto-reset)
        else:
            assert not term["__all__"]
    assert others_paid > 0  # rewards did reach seats that were not to move
    assert env.book.chips_without_decision == pytest.approx(0.0, abs=1e9)  # counted (a float, any sign)


def test_batched_tables_play_as_single_table_envs():
    """Table b of a batch seeded s deals and scores as a NosTableEnv seeded s + b, action for action."""
    assert_batch_plays_as_single_tables({}, steps=300)


def test_an_illegal_action_is_a_penalty_by_default_and_an_error_on_request():
    from nos_env.engine import IllegalActionError
    from nos_env.rllib_env import NosTableEnv

    env = NosTableEnv({"seed": 2, "reward_scale": 1.0})
    obs, _ = env.reset()
    (agent, o), = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    seat, engine = int(agent[5:]), env.book.engine
    before = engine.chips[0].astype(float)
    after, rew, term, _, _ = env.step({agent: illegal})
    assert list(after) == [agent]  # D16: the same seat acts again
    assert engine.chips[0, seat] - before[seat] == -40 * 3 and not term["__all__"]
    # Its first decision's reward: the penalty plus the chips it was paid before deciding (held till now).
    assert rew[agent] == -40 * 3 + (before[seat] - engine.starting_chips)
    strict = NosTableEnv({"seed": 2, "illegal_action": "raise"})
    obs, _ = strict.reset()
    before = strict.book.engine.clone()
    with pytest.raises(IllegalActionError):
        strict.step({agent: illegal})
    after_state = strict.book.engine.clone()
    assert all(np.array_equal(before[k], after_state[k]) for k in before)
    with pytest.raises(ValueError, match="is not to move"):
        strict.step({"seat_9": 0})
    with pytest.raises(ValueError, match="unknown env_config"):
        NosTableEnv({"tabels": 2})


# -------------------------------------------------------------------- module
def test_the_masked_module_never_picks_or_weights_an_illegal_action():
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_module import MaskedPPOModule
    from nos_env.rllib_env import NosTablesVectorEnv, spaces

    obs_space, act_space = spaces(1041)
    module = RLModuleSpec(module_class=MaskedPPOModule, observation_space=obs_space, action_space=act_space,
                          model_config=DefaultModelConfig(fcnet_hiddens=[16])).build()
    env = NosTablesVectorEnv({"tables": 64, "seed": 3})
    obs, _ = env.reset()
    rows = [next(iter(o.values())) for o in obs]
    masks = torch.as_tensor(np.stack([r["action_mask"] for r in rows]))
    batch = {Columns.OBS: {"observations": torch.as_tensor(np.stack([r["observations"] for r in rows])),
                           "action_mask": masks}}
    torch.manual_seed(0)
    for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
        logits = forward({Columns.OBS: dict(batch[Columns.OBS])})[Columns.ACTION_DIST_INPUTS]
        probs = torch.softmax(logits, dim=1)
        assert float(probs[masks == 0].max()) == 0.0
        dist = module.get_exploration_action_dist_cls().from_logits(logits)  # what RLlib samples from
        draws = torch.stack([dist.sample() for _ in range(50)], dim=1)
        assert bool(masks.gather(1, draws).all())
    values = module.compute_values({Columns.OBS: dict(batch[Columns.OBS])})
    assert values.shape == (64,)


# ------------------------------------------------------------------ training
def test_a_short_rllib_self_play_run_checkpoints_resumes_and_plays_as_an_agent(ray_session, tmp_path):
    from agents.registry import make_agent
    from agents.tournament import run_tournament
    from train.cli import main

    config = str(ROOT / "configs" / "rllib_smoke.yaml")
    main(["--config", config, "--set", f"run.output_dir={tmp_path}", "--quiet"])
    run = tmp_path / "rllib_smoke"
    for name in ("rllib_module", "report.md", "results.json", "curve.csv", "eval.csv", "learning_curve.png"):
        assert (run / name).exists(), name
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] >= 1024 and state["league"]["snapshots"]  # a snapshot joined the league
    first = state["timesteps"]
    main(["--config", config, "--set", f"run.output_dir={tmp_path}", "--set", "run.total_timesteps=1500",
          "--resume", "--quiet"])
    state = json.loads((run / "checkpoints" / "state.json").read_text())
    assert state["timesteps"] > first and state["timesteps"] >= 1500
    agent = make_agent(f"rllib:{run / 'rllib_module'}")
    result = run_tournament([agent, "random", "random", "random"], 4, seed=1, progress=False)
    assert result.summary()["hands"] == 16
    with pytest.raises(SystemExit):  # a different setting is refused on resume
        main(["--config", config, "--set", f"run.output_dir={tmp_path}", "--set", "ppo.n_epochs=2", "--resume"])


def test_rllib_config_errors_name_the_key():
    from train.config import ConfigError, from_dict

    with pytest.raises(ConfigError, match="run.engine"):
        from_dict({"run": {"engine": "ray"}})
    with pytest.raises(ConfigError, match="tactics_hint"):
        from_dict({"run": {"engine": "rllib"}, "env": {"tactics_hint": True}, "ppo": {"batch_size": 512}})
    with pytest.raises(ConfigError, match="num_env_runners"):
        from_dict({"run": {"engine": "rllib"}, "rllib": {"num_env_runners": 2, "num_cpus": 2}, "ppo": {"batch_size": 512}})
    with pytest.raises(ConfigError, match="larger than a rollout"):
        from_dict({"run": {"engine": "rllib"}})  # 8192 > 1 runner * 64 tables * 32 steps
    from_dict({"run": {"engine": "rllib"}, "ppo": {"batch_size": 512}})  # and a good one passes


# --------------------------------------------------------------- distributed
def _same(a, b) -> None:
    for name in ("deal", "seat_agent", "chips", "announcement", "setter", "end", "close_right", "close_wrong",
                 "by_reason", "stream_seed", "stream_index"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
    assert a.summary()["agents"] == b.summary()["agents"]


def test_a_tournament_on_ray_equals_the_local_run(ray_session):
    from agents.tournament import run_tournament

    agents = ["random", "greedy", "tactics", "greedy"]
    local = run_tournament(agents, 30, seed=4, tables=48, progress=False, shards=3)
    remote = run_tournament(agents, 30, seed=4, tables=48, progress=False, shards=3, ray=True)
    _same(local, remote)
    one = run_tournament(agents, 30, seed=4, tables=48, progress=False)
    # One shard is the unsharded run, and every shard plays the same deals.
    _same(one, run_tournament(agents, 30, seed=4, tables=48, progress=False, shards=1, ray=True))
    assert sorted(one.deal.tolist()) == sorted(local.deal.tolist())
    with pytest.raises(ValueError, match="shards must be"):
        run_tournament(agents, 30, seed=4, tables=48, progress=False, shards=13)


def test_announcement_research_on_ray_equals_the_local_run(ray_session):
    from agents.announce import compare_announcers, survey

    local = survey(hands=3, rollouts=2, seed=2, tables=16)
    remote = survey(hands=3, rollouts=2, seed=2, tables=16, ray=True)
    np.testing.assert_array_equal(local.chips, remote.chips)
    a = compare_announcers("tactics", "greedy", deals=20, seed=1, tables=16)
    b = compare_announcers("tactics", "greedy", deals=20, seed=1, tables=16, ray=True)
    for name in ("chips_a", "chips_b", "ann_a", "ann_b", "set_a", "set_b"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)


def test_the_rllib_engine_needs_no_sb3():
    """The ray extra alone trains and plays: SB3, sb3-contrib and tensorboard are never imported."""
    import subprocess
    import sys

    code = """
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("stable_baselines3", "sb3_contrib", "tensorboard"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked)")
        return None
sys.meta_path.insert(0, Blocker())
from train.config import load_config
from train.rllib_trainer import League, build_config
import train.report, agents.rllib_module, nos_env.rllib_env
config = load_config("configs/rllib_smoke.yaml")
build_config(config, League(config), env_seed=0)
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
