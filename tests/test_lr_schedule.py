"""PPO's learning-rate schedule (ppo.learning_rate_end, train/schedules.py): the rate the optimizer
really has at each update, across a resume, and the config's checks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sb3_contrib import MaskablePPO

from train.cli import main as train_main
from train.config import ConfigError, from_dict, load_config
from train.trainer import quiet_model

ROOT = Path(__file__).resolve().parent.parent
START = 3e-4  # smoke.yaml's (the default) learning rate


def _record_update_rates(monkeypatch) -> list:
    """(timesteps, the optimizer's rate) after every PPO update of any MaskablePPO from now on: SB3
    sets the rate from its schedule at the start of each update (train)."""
    seen = []
    update = MaskablePPO.train

    def train(self):
        update(self)
        seen.append((self.num_timesteps, self.policy.optimizer.param_groups[0]["lr"]))

    monkeypatch.setattr(MaskablePPO, "train", train)
    return seen


def _check(seen: list, expected: list) -> None:
    assert [t for t, _ in seen] == [t for t, _ in expected]
    assert [lr for _, lr in seen] == pytest.approx([lr for _, lr in expected], rel=1e-9, abs=1e-15)


def _smoke(tmp_path, *sets):
    args = ["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}", "--quiet",
            "--set", "eval.every=0", "--set", "eval.final_deals=0", "--set", "opponents.snapshot_weight=0"]
    for item in sets:
        args += ["--set", item]
    return args


def test_the_rate_falls_linearly_to_its_end_and_never_below(monkeypatch):
    """smoke.yaml's rollouts are 64 tables x 16 steps = 1,024 decisions. Over 4,096 the updates run at
    1,024 .. 4,096: 3e-4 falling to 1e-4 gives 2.5e-4, 2e-4, 1.5e-4, 1e-4."""
    seen = _record_update_rates(monkeypatch)
    config = load_config(ROOT / "configs" / "smoke.yaml")
    config.ppo.learning_rate_end = 1e-4
    config.opponents.snapshot_weight = 0.0
    _, model = quiet_model(config)
    model.learn(4096)
    assert [t for t, _ in seen] == [1024, 2048, 3072, 4096]
    assert [lr for _, lr in seen] == pytest.approx([2.5e-4, 2e-4, 1.5e-4, 1e-4], rel=1e-9)
    # SB3 rounds 1,500 up to two rollouts: the second update (2,048 > 1,500) is at the end, 0, never below.
    seen.clear()
    config.ppo.learning_rate_end = 0.0
    _, model = quiet_model(config)
    model.learn(1500)
    assert [t for t, _ in seen] == [1024, 2048]
    assert seen[0][1] == pytest.approx(START * (1 - 1024 / 1500), rel=1e-9)
    assert seen[1][1] == 0.0


def test_without_an_end_the_rate_is_constant(monkeypatch):
    seen = _record_update_rates(monkeypatch)
    config = load_config(ROOT / "configs" / "smoke.yaml")
    config.opponents.snapshot_weight = 0.0
    assert config.ppo.learning_rate_end is None
    _, model = quiet_model(config)
    model.learn(2048)
    assert [lr for _, lr in seen] == [START, START]


def test_a_resume_follows_the_schedule_of_its_total_timesteps(monkeypatch, tmp_path):
    """The rate is a function of the timestep t and run.total_timesteps T alone: START * (1 - t/T) here.
    A 2,048 run decays to 0; resumed to 4,096 it starts again at the 4,096 schedule's rate (START/4 at
    3,072) and ends at 0. A 4,096 run stopped at its 2,048 checkpoint and resumed with the same total
    has exactly the rates of the run that went through."""
    seen = _record_update_rates(monkeypatch)
    train_main(_smoke(tmp_path / "short", "run.total_timesteps=2048", "ppo.learning_rate_end=0"))
    _check(seen, [(1024, START / 2), (2048, 0.0)])
    seen.clear()
    train_main(_smoke(tmp_path / "short", "run.total_timesteps=4096", "ppo.learning_rate_end=0") + ["--resume"])
    _check(seen, [(3072, START / 4), (4096, 0.0)])

    seen.clear()
    train_main(_smoke(tmp_path / "through", "ppo.learning_rate_end=0"))
    through = list(seen)
    _check(through, [(1024, START * 3 / 4), (2048, START / 2), (3072, START / 4), (4096, 0.0)])
    # Stopped at 2,048: the state names that checkpoint (as a run interrupted there leaves it).
    state_file = tmp_path / "through" / "smoke" / "checkpoints" / "state.json"
    state = json.loads(state_file.read_text())
    state.update(checkpoint="step_2048.zip", timesteps=2048)
    state_file.write_text(json.dumps(state))
    seen.clear()
    train_main(_smoke(tmp_path / "through", "ppo.learning_rate_end=0") + ["--resume"])
    _check(seen, through[2:])


def test_a_resume_cannot_change_the_schedule(tmp_path, capsys):
    train_main(_smoke(tmp_path, "run.total_timesteps=1024", "ppo.learning_rate_end=0"))
    with pytest.raises(SystemExit):
        train_main(_smoke(tmp_path, "run.total_timesteps=2048", "ppo.learning_rate_end=1e-4") + ["--resume"])
    assert "differ from its config.yaml: ppo.learning_rate_end" in capsys.readouterr().err


@pytest.mark.parametrize("ppo,message", [
    ({"learning_rate_end": -1e-5}, "ppo.learning_rate_end: the rate falls from ppo.learning_rate (0.0003) to it: "
                                   "it must be in [0, 0.0003], got -1e-05"),
    ({"learning_rate_end": 1e-3}, "it must be in [0, 0.0003], got 0.001"),
    ({"learning_rate": 1e-4, "learning_rate_end": 2e-4}, "it must be in [0, 0.0001], got 0.0002"),
    ({"learning_rate_end": "slow"}, "ppo.learning_rate_end: must be null (a constant ppo.learning_rate) or a number"),
    ({"learning_rate_end": True}, "must be null (a constant ppo.learning_rate) or a number, got True"),
    ({"learning_rate_end": float("nan")}, "must be null (a constant ppo.learning_rate) or a number, got nan"),
])
def test_bad_ends_are_named(ppo, message):
    with pytest.raises(ConfigError) as info:
        from_dict({"ppo": ppo}, "my.yaml")
    assert str(info.value).startswith("my.yaml") and message in str(info.value)


def test_the_rllib_engine_refuses_a_schedule():
    with pytest.raises(ConfigError, match="ppo.learning_rate_end: is the sb3 engine's schedule"):
        from_dict({"run": {"engine": "rllib"}, "ppo": {"batch_size": 1024, "learning_rate_end": 0.0}}, "my.yaml")


def test_good_ends_are_kept_as_numbers():
    assert from_dict({}).ppo.learning_rate_end is None
    # YAML 1.1 reads 3e-5 (no dot) as a string, an integer 0 as an int: both become floats.
    assert from_dict({"ppo": {"learning_rate_end": "3e-5"}}).ppo.learning_rate_end == 3e-5
    end = from_dict({"ppo": {"learning_rate_end": 0}}).ppo.learning_rate_end
    assert end == 0.0 and isinstance(end, float)
    assert from_dict({"ppo": {"learning_rate_end": 3e-4}}).ppo.learning_rate_end == 3e-4  # = start: constant
