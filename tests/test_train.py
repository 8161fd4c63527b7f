"""Training: the policy's masked distribution, configs, a smoke run with resume, trained models as agents."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import shutil
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch as th
import yaml
from gymnasium import spaces
from sb3_contrib.common.maskable.distributions import MaskableCategorical

import nos_env
from agents.registry import make_agent
from agents.tournament import run_tournament
from nos_env.encoding import NUM_ACTIONS, OBSERVATION_SIZE
from train.cli import main as train_main
from train.config import ConfigError, TrainConfig, from_dict, load_config, read_sections
from agents.model import ModelAgent, PolicyAgent
from agents.policy import FastMaskedCategorical, NosPolicy

ROOT = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------- distribution
def _logits_and_masks(rows=64, seed=0):
    g = th.Generator().manual_seed(seed)
    logits = th.randn(rows, NUM_ACTIONS, generator=g) * 3
    masks = th.rand(rows, NUM_ACTIONS, generator=g) < 0.05
    masks[:, 7] = True  # every row has a legal action
    return logits, masks


def test_fast_masked_categorical_matches_sb3_contrib():
    logits, masks = _logits_and_masks()
    ours = FastMaskedCategorical(NUM_ACTIONS).proba_distribution(logits)
    ours.apply_masking(masks)
    theirs = MaskableCategorical(logits=logits, masks=masks)
    actions = th.stack([th.multinomial(masks[i].float(), 1)[0] for i in range(len(masks))])
    th.testing.assert_close(ours.log_prob(actions), theirs.log_prob(actions), rtol=1e-5, atol=1e-5)
    th.testing.assert_close(ours.entropy(), theirs.entropy(), rtol=1e-5, atol=1e-5)
    th.testing.assert_close(ours.mode(), theirs.probs.argmax(dim=1))


def test_fast_masked_categorical_samples_only_legal_actions_with_the_right_frequencies():
    logits = th.tensor([[0.0, 1.0, 2.0, 5.0] + [0.0] * (NUM_ACTIONS - 4)]).repeat(20000, 1)
    masks = th.zeros_like(logits, dtype=th.bool)
    masks[:, :3] = True  # action 3 has the largest logit but is illegal
    th.manual_seed(0)
    dist = FastMaskedCategorical(NUM_ACTIONS).proba_distribution(logits)
    dist.apply_masking(masks)
    counts = np.bincount(dist.sample().numpy(), minlength=NUM_ACTIONS)
    assert counts[3:].sum() == 0
    p = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    expected = p * 20000
    chi2 = ((counts[:3] - expected) ** 2 / expected).sum()
    assert chi2 < 13.8  # 2 degrees of freedom, p = 0.001


def test_hint_policy_starts_near_tactics_and_learns_the_hint_weight():
    space = spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE + 1,), np.float32)
    policy = NosPolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4, hint_weight=3.0)
    obs = th.zeros(4, OBSERVATION_SIZE + 1)
    obs[:, -1] = th.tensor([10.0, 20.0, 30.0, 40.0])  # hinted actions
    masks = np.zeros((4, NUM_ACTIONS), bool)
    masks[:, [10, 20, 30, 40]] = True
    dist = policy.get_distribution(obs, action_masks=masks)
    p = dist.log_p.exp().detach().numpy()
    hinted = p[np.arange(4), [10, 20, 30, 40]]
    # Four legal actions, a +3 logit on one: e^3 / (e^3 + 3) = 0.870 (the linear part starts near 0).
    np.testing.assert_allclose(hinted, np.exp(3) / (np.exp(3) + 3), atol=0.02)
    loss = -dist.log_prob(th.tensor([10, 20, 30, 40])).mean()
    loss.backward()
    assert policy.action_net.weight.grad is not None and policy.action_net.weight.grad.item() < 0


def test_a_fixed_hint_weight_does_not_move():
    space = spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE + 1,), np.float32)
    policy = NosPolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4, hint_weight=2.0, hint_trainable=False)
    obs = th.zeros(2, OBSERVATION_SIZE + 1)
    obs[:, -1] = 5.0
    masks = np.zeros((2, NUM_ACTIONS), bool)
    masks[:, [5, 6]] = True
    loss = -policy.get_distribution(obs, action_masks=masks).log_prob(th.tensor([5, 5])).mean()
    policy.optimizer.zero_grad()
    loss.backward()
    policy.optimizer.step()
    assert policy.action_net.weight.item() == 2.0 and policy.action_net.weight.grad is None
    assert policy.action_net.linear.weight.grad is not None


def test_policy_refuses_observations_of_the_wrong_size():
    with pytest.raises(ValueError, match="1041"):
        NosPolicy(spaces.Box(0, 1, (100,), np.float32), spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4)


# ------------------------------------------------------------------- configs
@pytest.mark.parametrize("name", ["quick", "quick_fast", "full", "smoke", "nos_openings", "nos_openings_ppo"])
def test_shipped_configs_load(name):
    config = load_config(ROOT / "configs" / f"{name}.yaml")
    assert config.run.name == name


def test_nos_openings_fits_the_openings_and_keeps_tactics_elsewhere():
    """configs/nos_openings.yaml (docs/training.md, "A model against Search"): exact advantages over
    Tactics at the set and the announcement only, and the hint played at every other decision:
    the hint_kept blocks are exactly the actions outside the openings' phases."""
    from nos_env.encoding import ACTION_BLOCKS

    c = load_config(ROOT / "configs" / "nos_openings.yaml")
    assert (c.distill.teacher, c.distill.target, c.env.tactics_hint) == ("rollout_advantage", "advantage", True)
    assert c.distill.phases == ["set", "announce"] and c.run.total_timesteps == 0
    opening_blocks = {"set", "draw", "announce"}  # the set phase's set and draw, the announce phase's
    assert set(c.policy.hint_kept) == set(ACTION_BLOCKS) - opening_blocks


def test_nos_openings_ppo_is_the_openings_fit_then_ppo_with_the_hint_as_a_prior():
    """configs/nos_openings_ppo.yaml (docs/training.md, "PPO after the fitted openings"): the same fit
    as nos_openings.yaml, then PPO, the kept hint a 4-logit prior instead of always played; nothing
    else differs but the rollout's shape (2048 tables of 8 steps: the full config's)."""
    ppo = load_config(ROOT / "configs" / "nos_openings_ppo.yaml").to_dict()
    fit = load_config(ROOT / "configs" / "nos_openings.yaml").to_dict()
    differ = {(section, key): ppo[section][key] for section in ppo for key in ppo[section]
              if ppo[section][key] != fit[section][key]}
    assert differ == {("run", "name"): "nos_openings_ppo", ("run", "total_timesteps"): 12_000_000,
                      ("env", "num_envs"): 2048, ("ppo", "n_steps"): 8, ("policy", "kept_bonus"): 4.0}


def test_nos_openings_ppo_closing_differs_only_by_the_closing_features_and_the_seed():
    """configs/nos_openings_ppo_closing.yaml (docs/training.md, "A per-action input for the closings"):
    nos_openings_ppo.yaml with each play's closing features, on training seed 1 (the seed it was
    measured against without them)."""
    closing = load_config(ROOT / "configs" / "nos_openings_ppo_closing.yaml").to_dict()
    ppo = load_config(ROOT / "configs" / "nos_openings_ppo.yaml").to_dict()
    differ = {(section, key): closing[section][key] for section in closing for key in closing[section]
              if closing[section][key] != ppo[section][key]}
    assert differ == {("run", "name"): "nos_openings_ppo_closing", ("run", "seed"): 1,
                      ("env", "closing_features"): True}


def test_nos_openings_ppo_closing_long_is_the_closing_config_for_twice_the_decisions():
    """configs/nos_openings_ppo_closing_long.yaml (docs/training.md, "Twice the PPO decisions"):
    the closing config on training seed 0 (closing_s0's labels and fit) for 20M PPO decisions at
    the same constant rate."""
    long = load_config(ROOT / "configs" / "nos_openings_ppo_closing_long.yaml").to_dict()
    closing = load_config(ROOT / "configs" / "nos_openings_ppo_closing.yaml").to_dict()
    differ = {(section, key): long[section][key] for section in long for key in long[section]
              if long[section][key] != closing[section][key]}
    assert differ == {("run", "name"): "nos_openings_ppo_closing_long", ("run", "seed"): 0,
                      ("run", "total_timesteps"): 20_000_000}
    assert long["ppo"]["learning_rate_end"] is None  # a constant rate, as in closing_s0


def test_nos_openings_ppo_settle_differs_only_by_the_settlement_features_and_the_seed():
    """configs/nos_openings_ppo_settle.yaml (docs/training.md, "A per-action input for the final
    count"): the closing config with each play's settlement features, on training seed 0 (whose
    closing model it is compared with)."""
    settle = load_config(ROOT / "configs" / "nos_openings_ppo_settle.yaml").to_dict()
    closing = load_config(ROOT / "configs" / "nos_openings_ppo_closing.yaml").to_dict()
    differ = {(section, key): settle[section][key] for section in settle for key in settle[section]
              if settle[section][key] != closing[section][key]}
    assert differ == {("run", "name"): "nos_openings_ppo_settle", ("run", "seed"): 0,
                      ("env", "settlement_features"): True}


def test_quick_fast_is_quick_on_two_cores():
    """quick_fast.yaml is quick.yaml's run with the learner process, bf16 and reweighting, nothing else
    (its strength was measured against quick.yaml's, six seeds: docs/training.md)."""
    quick = load_config(ROOT / "configs" / "quick.yaml").to_dict()
    fast = load_config(ROOT / "configs" / "quick_fast.yaml").to_dict()
    differ = {(section, key) for section in quick for key in quick[section]
              if quick[section][key] != fast[section][key]}
    assert differ == {("run", "name"), ("env", "num_threads"), ("ppo", "overlap"), ("ppo", "overlap_in"),
                      ("ppo", "overlap_reweight"), ("ppo", "bf16")}


@pytest.mark.parametrize("data,message", [
    ({"rnu": {}}, "unknown section 'rnu' (did you mean 'run'?)"),
    ({"ppo": {"n_step": 8}}, "unknown key 'n_step' (did you mean 'n_steps'?)"),
    ({"ppo": {"n_steps": "8"}}, "ppo.n_steps: must be an integer"),
    ({"ppo": {"n_steps": 2.5}}, "ppo.n_steps: must be an integer"),
    ({"env": {"auto_forced": 1}}, "env.auto_forced: must be true or false"),
    ({"env": {"num_players": 6}}, "env.num_players: must be 3, 4 or 5"),
    ({"env": {"learner_seat": 4}}, "env.learner_seat: must be 'rotate' or a seat 0..3"),
    ({"ppo": {"gamma": 1.5}}, "ppo.gamma: must be in (0, 1]"),
    ({"ppo": {"learning_rate": -1}}, "ppo.learning_rate: must be positive"),
    ({"ppo": {"batch_size": 100_000}}, "larger than a rollout"),
    ({"opponents": {"baselines": {"tacticz": 1.0}}}, "unknown agent (did you mean 'tactics'?)"),
    ({"opponents": {"baselines": {"random": -1}}}, "weight must be a number >= 0"),
    ({"opponents": {"baselines": {}, "snapshot_weight": 1.0}}, "opponents.baselines: needs at least one agent"),
    ({"run": {"seed": -1}}, "run.seed: must be >= 0"),
    ({"ppo": {"clip_range": float("nan")}}, "ppo.clip_range: must be a finite number"),
    ({"env": {"reward_scale": float("inf")}}, "env.reward_scale: must be a finite number"),
    ({"ppo": {"batch_size": 1}}, "leaves a minibatch of one sample"),
    ({"env": {"num_envs": 3}, "ppo": {"n_steps": 3, "batch_size": 4}}, "leaves a minibatch of one sample"),
    ({"eval": {"every": 100}}, "eval.every: is counted in timesteps"),
    ({"eval": {"opponent": "grredy"}}, "unknown agent 'grredy'"),
    ({"policy": {"pi": [64, 0]}}, "policy.pi: must be a list of positive layer sizes"),
    ({"policy": {"activation": "gelu"}}, "policy.activation"),
    ({"run": {"name": "a/b"}}, "run.name: must be a plain folder name"),
    ({"env": {"num_threads": 0}}, "env.num_threads: must be 'auto' or a number of threads from 1 to"),
    ({"env": {"num_threads": "all"}}, "env.num_threads: must be 'auto' or a number of threads from 1 to"),
    ({"env": {"num_threads": 1.0}}, "env.num_threads: must be 'auto' or a number of threads from 1 to"),
    (["run"], "must be a mapping of sections"),
])
def test_config_errors_name_the_key_and_the_fix(data, message):
    with pytest.raises(ConfigError) as info:
        from_dict(data, "my.yaml")
    assert message in str(info.value) and str(info.value).startswith("my.yaml")


def test_numbers_in_exponent_form_are_numbers():
    # YAML 1.1 reads 3e-4 as a string; a learning rate written that way is still a number.
    assert from_dict({"ppo": {"learning_rate": "3e-4"}}).ppo.learning_rate == 3e-4
    with pytest.raises(ConfigError, match="must be a number"):
        from_dict({"ppo": {"learning_rate": "fast"}})


def test_config_files_bad_yaml_and_missing(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("run: [unclosed\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(bad)
    with pytest.raises(ConfigError, match="no such config file"):
        load_config(tmp_path / "missing.yaml")


def test_defaults_round_trip_and_cli_overrides(tmp_path, capsys):
    train_main(["--print-defaults"])
    printed = yaml.safe_load(capsys.readouterr().out)
    assert from_dict(printed).to_dict() == TrainConfig().to_dict()
    with pytest.raises(SystemExit):
        train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", "ppo.n_epochs=0"])
    assert "ppo.n_epochs: must be positive" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", "n_epochs=2"])
    assert "expected section.key=value" in capsys.readouterr().err


def test_num_threads_reaches_the_self_play_engine():
    from train.trainer import make_env

    assert from_dict({}).env.num_threads == "auto"
    config = from_dict({"env": {"num_threads": 1, "num_envs": 8}, "ppo": {"n_steps": 4, "batch_size": 8}})
    env, _ = make_env(config)
    assert env.tables.num_threads == 1


def test_nos_training_opponents_play_the_compiled_tactics():
    """Tactics in a Nos training pool decides with the compiled kernels (engine speed); Random and
    Greedy stay as they are."""
    from agents.tactics import TacticsAgent
    from train.trainer import make_env

    config = from_dict({"env": {"num_envs": 8}, "ppo": {"n_steps": 4, "batch_size": 8},
                        "opponents": {"baselines": {"random": 1, "greedy": 1, "tactics": 1}}})
    _, pool = make_env(config)
    tactics = [a for a in pool.agents if isinstance(a, TacticsAgent)]
    assert len(tactics) == 1 and tactics[0].compiled
    assert pool.labels == ["random", "greedy", "tactics"]


def _numba_threads() -> int:
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


@pytest.mark.skipif(_numba_threads() < 2, reason="needs numba's pool of 2 threads (env.num_threads: 2) to change "
                    "torch's; NUMBA_NUM_THREADS is 1 here (on a 2-core machine it is 2 unless set)")
def test_updates_and_rollouts_keep_the_torch_threads_asked_for():
    """Starting numba's OpenMP pool (the engine's first parallel call) sets the OpenMP thread count
    torch reads; the trainer sets it again before every update and after every environment step."""
    from train.trainer import keep_torch_threads, make_env, make_model

    before = th.get_num_threads()
    config = from_dict({"env": {"num_envs": 16, "num_threads": 2}, "policy": {"width": 16},
                        "ppo": {"n_steps": 2, "batch_size": 32, "n_epochs": 1}})
    try:
        env, _ = make_env(config)
        model = make_model(config, env)
        seen = []
        model.train = lambda: seen.append(th.get_num_threads())  # what the update would run on
        keep_torch_threads(model, 1)
        stepped = env.step_wait
        env.step_wait = lambda: (stepped(), seen.append(("env", th.get_num_threads())))[0]
        th.set_num_threads(2)  # as the pool's start leaves it
        model.learn(64)
        assert seen.count(1) == 2 and seen.count(("env", 1)) == 4 and len(seen) == 6
    finally:
        th.set_num_threads(before)


# ------------------------------------------------------- smoke run and resume
@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("runs")
    train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={out}", "--quiet"])
    return out / "smoke"


def test_the_smoke_run_keeps_every_evaluations_deals_and_records(smoke_run):
    """Issue 17 item 4 for Nos: each evaluation's deal seeds, agents and (eval.records) records."""
    from test_train_records import check_kept_evaluations

    check_kept_evaluations(smoke_run, 4, "tactics", (0, 2048, 4096), deals=8)


def test_smoke_training_writes_everything(smoke_run):
    for name in ("model.zip", "best_model.zip", "report.md", "results.json", "learning_curve.png", "config.yaml", "curve.csv",
                 "eval.csv", "checkpoints/state.json"):
        assert (smoke_run / name).is_file(), name
    assert list((smoke_run / "tb").rglob("events.out.tfevents.*")), "no TensorBoard events"
    results = json.loads((smoke_run / "results.json").read_text())
    assert results["timesteps"] == 4096
    # The final model against each final opponent, then the best evaluated model against eval.opponent.
    assert [r["opponent"] for r in results["final"]] == ["random", "tactics"]
    assert results["final"][1]["opponent_label"] == "tactics (best_model.zip)"
    assert (smoke_run / "best_model.zip").is_file()
    curve = (smoke_run / "curve.csv").read_text().splitlines()
    assert len(curve) == 1 + 4  # one row per rollout of 64 tables x 16 steps
    assert all(int(row.split(",")[-1]) > 0 for row in curve[1:])  # hands finished in every rollout
    evals = (smoke_run / "eval.csv").read_text().splitlines()
    assert [row.split(",")[-2] for row in evals[1:]] == ["0", "2048", "4096"]  # the untrained model first
    assert len(json.loads((smoke_run / "checkpoints/state.json").read_text())["snapshots"]) == 2
    assert "model − opponent" in (smoke_run / "report.md").read_text()
    # Checkpoints leave out the last rollout's observations (a resume resets the environment).
    with zipfile.ZipFile(smoke_run / "checkpoints" / "step_4096.zip") as z:
        data = z.read("data").decode()
    assert '"_last_obs"' not in data and '"_last_original_obs"' not in data
    assert '"_last_obs"' not in zipfile.ZipFile(smoke_run / "model.zip").read("data").decode()


@pytest.fixture(scope="module")
def short_run(tmp_path_factory):
    """A launch shorter than one evaluation period (eval.every 2048; SB3 rounds 1000 up to one
    rollout of 64 x 16 = 1024), with its progress bar: the run folder and what it printed (stdout,
    stderr). Two tests read it; the resume test continues a copy, so it is trained once."""
    out = tmp_path_factory.mktemp("short")
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={out}",
                    "--set", "run.total_timesteps=1000", "--set", "output.progress_bar=true"])
    return out / "smoke", stdout.getvalue(), stderr.getvalue()


def test_a_short_run_talks_to_its_user_and_keeps_no_untrained_best_model(short_run):
    """Shorter than one evaluation period: the only evaluation is the untrained model's, so no
    best_model.zip. The bar ends at the configured total, with units; the last lines name every
    file written."""
    run, out, err = short_run
    assert not (run / "best_model.zip").exists()
    assert "best_model" not in (run / "report.md").read_text()
    assert out.startswith("nos-train: loading torch")  # said before the silent import and compile
    bar = err.replace("\r", "\n").strip().splitlines()[-1]
    assert "1.00k/1.00k" in bar and "decisions" in bar, bar
    written = out.split("written:")[1]
    for name in ("model.zip", "report.md", "results.json", "learning_curve.png", "curve.csv", "eval.csv",
                 "config.yaml", "checkpoints", "tb"):
        assert str(run / name) in written, name


def test_a_resumed_run_judges_its_best_model_on_trained_evaluations_only(short_run, tmp_path, capsys):
    """A launch shorter than eval.every leaves only the untrained step-0 evaluation; the resumed
    launch's first trained evaluation (2048) is its best so far, however well step 0 scored."""
    run = tmp_path / "smoke"
    shutil.copytree(short_run[0], run)  # the short run's folder, moved (a run's files name it relatively)
    assert not (run / "best_model.zip").exists() and not (run / "snapshots").exists()
    with (run / "eval.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["timesteps"] for r in rows] == ["0"]
    rows[0]["difference"] = "999"  # better than any trained model could do against tactics
    with (run / "eval.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    capsys.readouterr()
    train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}", "--quiet",
                "--resume", "--set", "run.total_timesteps=2048"])
    out = capsys.readouterr().out
    assert (run / "best_model.zip").is_file()
    assert "tactics (best_model.zip)" in (run / "report.md").read_text()
    written = out.split("written:")[1]
    for name in ("best_model.zip", "snapshots"):  # the snapshot of step 2048 is the run's first
        assert str(run / name) in written, name


def test_resume_continues_the_run_and_refuses_to_overwrite(smoke_run, capsys):
    config = ["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={smoke_run.parent}",
              "--quiet"]
    with pytest.raises(SystemExit):
        train_main(config)  # the run exists: no silent overwrite
    assert "--resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(config + ["--resume", "--set", "run.total_timesteps=6144", "--set", "ppo.n_epochs=2"])
    assert "differ from its config.yaml: ppo.n_epochs" in capsys.readouterr().err
    # Rows written after the last checkpoint belong to a lost future: a resume drops them.
    with (smoke_run / "eval.csv").open("a") as f:
        f.write("tactics,8,32,0,0,0,0,999999,0\n")
    train_main(config + ["--resume", "--set", "run.total_timesteps=6144"])
    results = json.loads((smoke_run / "results.json").read_text())
    assert results["timesteps"] == 6144
    state = json.loads((smoke_run / "checkpoints/state.json").read_text())
    assert state["timesteps"] == 6144 and len(state["snapshots"]) == 3  # 2048, 4096 restored; 6144 new
    assert state["checkpoint"] == "step_6144.zip"  # relative to the run: the folder can move
    steps = [row.split(",")[-2] for row in (smoke_run / "eval.csv").read_text().splitlines()[1:]]
    assert steps == ["0", "2048", "4096", "6144"]
    with pytest.raises(SystemExit):
        train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set",
                    f"run.output_dir={smoke_run.parent / 'elsewhere'}", "--resume", "--quiet"])
    assert "nothing to resume" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        train_main(config + ["--resume", "--overwrite"])
    assert "contradict" in capsys.readouterr().err


def test_overwrite_deletes_only_a_run_folder(tmp_path, capsys):
    (tmp_path / "smoke").mkdir()
    (tmp_path / "smoke" / "precious.txt").write_text("not a run")
    with pytest.raises(SystemExit):
        train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}",
                    "--overwrite", "--quiet"])
    assert "not a training run's folder" in capsys.readouterr().err
    assert (tmp_path / "smoke" / "precious.txt").exists()


def test_overwrite_starts_the_run_again(smoke_run, tmp_path):
    # A copy of the smoke run (4,096 timesteps) is the run overwritten: a real run's folder, trained once.
    shutil.copytree(smoke_run, tmp_path / "smoke")
    (tmp_path / "smoke" / "stale.txt").write_text("from the first run")
    train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}", "--set",
                "run.total_timesteps=1024", "--set", "eval.final_deals=0", "--quiet", "--overwrite"])
    assert not (tmp_path / "smoke" / "stale.txt").exists()
    assert json.loads((tmp_path / "smoke" / "results.json").read_text())["timesteps"] == 1024


# ---------------------------------------------------------- models as agents
def test_a_trained_model_plays_the_aec_environment_and_tournaments(smoke_run):
    agent = make_agent(f"model:{smoke_run / 'model.zip'}", seed=0)
    assert isinstance(agent, ModelAgent)
    env = nos_env.env(num_players=4, backend="reference")
    env.reset(seed=3)
    steps = 0
    for name in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        action = agent.act(obs["observation"], obs["action_mask"])
        assert obs["action_mask"][action] == 1
        env.step(action)
        steps += 1
    assert steps > 10
    result = run_tournament([f"model:{smoke_run / 'model.zip'}", "random", "random", "random"], deals=4,
                            seed=0, progress=False)
    assert result.labels[0] == "model" and len(result.chips) == 16


@pytest.mark.parametrize("backend", ["fast", "reference"])
def test_a_model_plays_whole_hands_through_aec_player_beside_every_baseline(smoke_run, backend):
    from agents import AECPlayer

    model = f"model:{smoke_run / 'model.zip'}"
    env = nos_env.env(num_players=5, backend=backend)
    players = {"player_0": AECPlayer(model), "player_1": AECPlayer("search", seed=1, rollouts=4),
               "player_2": AECPlayer("tactics"), "player_3": AECPlayer("greedy"),
               "player_4": AECPlayer(model, seed=2, deterministic=False)}
    model_decisions = 0
    for seed in (1, 2):
        env.reset(seed=seed)
        start = list(env.unwrapped.chips)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = players[agent](env)
            assert obs["action_mask"][action] == 1
            model_decisions += agent in ("player_0", "player_4")
            env.step(action)
        assert env.unwrapped.hand.over and all(env.terminations.values())
        assert sum(env.unwrapped.chips) == sum(start) and env.unwrapped.chips != start  # zero-sum, chips moved
    assert model_decisions > 4


def test_deterministic_model_plays_its_most_probable_legal_action(smoke_run):
    agent = ModelAgent(smoke_run / "model.zip")
    venv = nos_env.vector_env(32, seed=1)
    obs, masks, _ = venv.reset()
    log_p = agent.log_probabilities(obs, masks)
    actions = agent.act_batch(obs, masks)
    np.testing.assert_array_equal(actions, log_p.argmax(axis=1))
    assert (masks[np.arange(32), actions] == 1).all()
    assert np.isneginf(log_p[masks == 0]).all()
    np.testing.assert_allclose(np.exp(log_p).sum(axis=1), 1.0, rtol=1e-4)
    sampler = ModelAgent(smoke_run / "model.zip", deterministic=False, seed=5)
    again = ModelAgent(smoke_run / "model.zip", deterministic=False, seed=5)
    drawn = sampler.act_batch(obs, masks)
    np.testing.assert_array_equal(drawn, again.act_batch(obs, masks))
    assert (masks[np.arange(32), drawn] == 1).all()


def test_hint_policies_compute_their_own_hint():
    space = spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE + 1,), np.float32)
    policy = NosPolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4, hint_weight=50.0)
    agent = PolicyAgent(policy, seed=0)
    venv = nos_env.vector_env(32, seed=2)
    obs, masks, _ = venv.reset()
    tactics = make_agent("tactics", seed=0)
    # With a huge hint weight the policy is Tactics.
    np.testing.assert_array_equal(agent.act_batch(obs, masks), tactics.act_batch(obs, masks))


def test_missing_model_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no trained model"):
        make_agent(f"model:{tmp_path / 'nope.zip'}")


def test_compact_rollout_buffer_gives_the_same_samples_as_sb3_contribs():
    from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer

    from train.buffer import CompactMaskableRolloutBuffer

    obs_space = spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32)
    act_space = spaces.Discrete(NUM_ACTIONS)
    buffers = [cls(4, obs_space, act_space, n_envs=3) for cls in (MaskableRolloutBuffer, CompactMaskableRolloutBuffer)]
    rng = np.random.default_rng(0)
    for _ in range(4):
        obs = rng.random((3, OBSERVATION_SIZE), dtype=np.float32)
        masks = rng.random((3, NUM_ACTIONS)) < 0.1
        action, reward = rng.integers(0, NUM_ACTIONS, (3, 1)), rng.random(3)
        start, value, log_p = rng.random(3) < 0.2, th.as_tensor(rng.random(3)), th.as_tensor(rng.random(3))
        for buf in buffers:
            buf.add(obs, action, reward, start, value, log_p, action_masks=masks)
    for buf in buffers:
        buf.compute_returns_and_advantage(th.zeros(3), np.zeros(3, bool))
    np.random.seed(1)
    theirs = list(buffers[0].get(4))
    np.random.seed(1)
    ours = list(buffers[1].get(4))
    assert len(theirs) == len(ours) == 3
    for a, b in zip(theirs, ours):
        for x, y in zip(a, b):
            th.testing.assert_close(x.float(), y.float())
        assert b.action_masks.dtype == th.bool


def test_a_trained_model_is_rated_on_the_leaderboard_by_its_content(smoke_run, tmp_path, capsys):
    """nos-tournament rates a model under its path and the SHA-256 of its zip (agents/ratings.py)."""
    import hashlib
    import shutil

    from agents.tournament import main as tournament_main

    model = tmp_path / "model.zip"
    shutil.copy(smoke_run / "model.zip", model)
    board = tmp_path / "board.json"
    tournament_main(["--agents", f"model:{model}", "random", "random", "--deals", "2", "--quiet",
                     "--leaderboard", str(board)])
    players = json.loads(board.read_text())["games"]["nos"]["players"]
    sha = hashlib.sha256(model.read_bytes()).hexdigest()
    key = f"model:{model.resolve()}@sha256:{sha}"
    assert set(players) == {key, "random"}
    assert players[key]["games"] == 6 and players[key]["path"] == str(model.resolve())
    assert players[key]["label"] == f"model:model.zip@{sha[:8]}"


def test_read_sections_applies_overrides_and_names_bad_ones(tmp_path):
    """nos-train and python -m train.distill_nos read their files through read_sections."""
    from train.config import read_sections

    path = tmp_path / "c.yaml"
    path.write_text("run: {name: a}\neval:\n")
    assert read_sections(path, ["run.seed=3", "eval.deals=50", "ppo.n_epochs=2"]) == {
        "run": {"name": "a", "seed": 3}, "eval": {"deals": 50}, "ppo": {"n_epochs": 2}}
    (tmp_path / "empty.yaml").write_text("")
    assert read_sections(tmp_path / "empty.yaml") == {}
    with pytest.raises(ConfigError, match="expected section.key=value"):
        read_sections(path, ["seed=3"])
    path.write_text("run: 3\n")
    with pytest.raises(ConfigError, match="section 'run' is not a mapping"):
        read_sections(path, ["run.seed=3"])
    path.write_text("- run\n")
    with pytest.raises(ConfigError, match="must be a mapping of sections"):
        read_sections(path, ["run.seed=3"])


def _weights(policy) -> dict:
    return {k: v.detach().clone() for k, v in policy.state_dict().items()}


def test_init_from_starts_a_run_from_a_saved_models_weights(smoke_run, tmp_path):
    """run.init_from: the new run's policy, critic included, is the saved one's; with a learning
    rate too small to move a weight (Adam's step is about the rate) the run's model is still it,
    while a fresh network differs everywhere; the report says where it started."""
    from agents.model import load_policy

    saved = _weights(load_policy(smoke_run / "model.zip"))
    out = tmp_path / "runs"
    train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={out}",
                "--set", "run.name=tuned", "--set", f"run.init_from={smoke_run / 'model.zip'}",
                "--set", "run.total_timesteps=1024", "--set", "ppo.learning_rate=1e-12",
                "--set", "opponents.snapshot_weight=0", "--set", "eval.every=1000000", "--set", "eval.final_deals=0",
                "--quiet"])
    tuned = _weights(load_policy(out / "tuned" / "model.zip"))
    assert tuned.keys() == saved.keys() and any("value_net" in k for k in saved)
    for name, value in saved.items():
        assert th.allclose(tuned[name], value, atol=1e-8), name
    fresh_out = tmp_path / "fresh"
    train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={fresh_out}",
                "--set", "run.total_timesteps=1024", "--set", "ppo.learning_rate=1e-12", "--set", "run.seed=5",
                "--set", "opponents.snapshot_weight=0", "--set", "eval.every=1000000", "--set", "eval.final_deals=0",
                "--quiet"])
    fresh = _weights(load_policy(fresh_out / "smoke" / "model.zip"))
    assert not th.allclose(fresh["value_net.weight"], saved["value_net.weight"])
    report = (out / "tuned" / "report.md").read_text()
    assert f"started from `{smoke_run / 'model.zip'}`'s weights (run.init_from)" in report
    assert "started from" not in (fresh_out / "smoke" / "report.md").read_text()


def test_init_from_refuses_another_network_and_leaves_no_run_folder(smoke_run, tmp_path, capsys):
    out = tmp_path / "runs"
    with pytest.raises(SystemExit):
        train_main(["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={out}",
                    "--set", f"run.init_from={smoke_run / 'model.zip'}", "--set", "policy.width=64", "--quiet"])
    err = capsys.readouterr().err
    assert "run.init_from" in err and "width: saved 256, this config 64" in err
    assert not (out / "smoke").exists()  # refused before the run folder was made: a retry needs no --overwrite


def test_start_from_leaves_the_policy_as_it_was_when_it_refuses(smoke_run):
    from train.trainer import make_env, make_model, start_from

    config = from_dict(read_sections(ROOT / "configs" / "smoke.yaml", ["policy.width=64", "env.num_envs=32"]))
    env, _ = make_env(config)
    policy = make_model(config, env).policy
    before = _weights(policy)
    with pytest.raises(ConfigError, match="width"):
        start_from(policy, smoke_run / "model.zip")
    after = _weights(policy)
    assert all(th.equal(before[k], after[k]) for k in before)


@pytest.mark.parametrize("overrides, message", [
    (["run.init_from=nowhere/model.zip"], "no saved model at 'nowhere/model.zip'"),
    (["run.init_from=configs/smoke.yaml", "distill.teacher=tactics"], "both choose the starting weights"),
])
def test_init_from_is_checked_with_the_config(overrides, message):
    with pytest.raises(ConfigError, match=message):
        from_dict(read_sections(ROOT / "configs" / "smoke.yaml", overrides))
