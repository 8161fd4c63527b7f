"""The PPO update in a learner process (``ppo.overlap_in: process``, train/learner_process.py).
Checked: a run equals the threaded overlap's (train/overlap.py) to the bit, logged losses and
update count included; the learner's errors reach the caller with their traceback; a dead
learner is an error, not a hang; Ctrl-C saves a checkpoint of the finished update and leaves no
process behind; a whole training run (evaluations, checkpoints, resume) works with it; config
errors name what is allowed."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

import train.learner_process as learner_process  # noqa: E402
from train.cli import main as train_main  # noqa: E402
from train.config import ConfigError, from_dict  # noqa: E402
from train.learner_process import LearnerProcessError, ProcessLearning  # noqa: E402
from train.trainer import close_learner  # noqa: E402
from tiny_training import flat_weights as _weights  # noqa: E402
from tiny_training import overlap_model as _model  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("reweight", [False, True])
def test_a_run_equals_the_threaded_overlaps_to_the_bit(reweight):
    th.set_flush_denormal(True)  # as the learner process and train() set it
    runs = []
    for where in ("thread", "process"):
        model = _model(overlap_in=where, overlap_reweight=reweight)
        assert isinstance(model.learn.__self__, ProcessLearning) == (where == "process")
        model.learn(4 * 64)  # 4 rollouts of 16 tables x 4 steps
        model.learn(2 * 64, reset_num_timesteps=False)  # a second learn call goes on from the same state
        runs.append((_weights(model.policy), dict(model.logger.name_to_value), model._n_updates,
                     th.cat([s["exp_avg"].flatten() for s in model.policy.optimizer.state.values()])))
        close_learner(model)
    (w_thread, log_thread, n_thread, adam_thread), (w_process, log_process, n_process, adam_process) = runs
    assert th.equal(w_thread, w_process)
    assert th.equal(adam_thread, adam_process)  # Adam's state came back too
    assert n_thread == n_process == 6 * 2
    assert log_process["train/value_loss"] == log_thread["train/value_loss"]


def test_an_error_in_the_learner_process_reaches_the_caller_with_its_traceback(monkeypatch):
    model = _model(overlap_in="process")
    # The main process sends the learner something that is not a state: loading it fails there.
    monkeypatch.setattr(learner_process, "state_bytes", lambda policy, n_updates: b"not a state")
    with pytest.raises(Exception) as caught:
        model.learn(4 * 64)
    notes = "\n".join(getattr(caught.value, "__notes__", []))
    assert "in the learner process" in notes and "load_state" in notes
    process = model.learn.__self__.process
    assert process.is_alive()  # an error in a job leaves the learner waiting for the next one
    close_learner(model)
    assert not process.is_alive() and process.exitcode == 0


def test_a_dead_learner_process_is_an_error_not_a_hang(monkeypatch):
    model = _model(overlap_in="process")
    learning = model.learn.__self__
    collect = learning.collect

    def killing_collect(*args, **kwargs):
        if learning.pending:  # an update is running in the learner: kill it
            os.kill(learning.process.pid, signal.SIGKILL)
        return collect(*args, **kwargs)

    learning.collect = killing_collect
    with pytest.raises(LearnerProcessError, match=r"exited \(code -9\)"):
        model.learn(4 * 64)
    assert learning.process is None


def test_ctrl_c_saves_the_finished_update_and_leaves_no_process(tmp_path, monkeypatch, capsys):
    """Ctrl-C reaches the learner too (the terminal's process group): it ignores it, finishes its
    update, which the interrupted run saves in its checkpoint; then the learner is stopped."""
    seen = []
    collect = ProcessLearning.collect

    def interrupted_collect(self, *args, **kwargs):
        seen.append(self.process)
        if len(seen) == 3:  # an update is running in the learner
            assert self.pending
            os.kill(self.process.pid, signal.SIGINT)
            raise KeyboardInterrupt
        return collect(self, *args, **kwargs)

    monkeypatch.setattr(ProcessLearning, "collect", interrupted_collect)
    args = ["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}", "--quiet",
            "--set", "ppo.overlap=true", "--set", "ppo.overlap_in=process", "--set", "run.total_timesteps=8192"]
    with pytest.raises(SystemExit) as stopped:
        train_main(args)
    assert stopped.value.code == 130 and "interrupted: saved" in capsys.readouterr().err
    process = seen[-1]
    assert not process.is_alive() and process.exitcode == 0  # stopped when asked, not killed
    state = (tmp_path / "smoke" / "checkpoints" / "state.json").read_text()
    # smoke: 64 tables x 16 steps a rollout, one epoch; the third rollout was interrupted at once
    assert '"timesteps": 2048' in state
    from agents.model import load_model

    saved = load_model(tmp_path / "smoke" / "checkpoints" / "step_2048.zip", device="cpu")
    assert saved._n_updates == 2  # both rollouts' updates: the second was running at Ctrl-C


def test_a_training_run_with_a_learner_process_evaluates_checkpoints_and_resumes(tmp_path):
    args = ["--config", str(ROOT / "configs" / "smoke.yaml"), "--set", f"run.output_dir={tmp_path}", "--quiet",
            "--set", "ppo.overlap=true", "--set", "ppo.overlap_in=process", "--set", "run.total_timesteps=2048"]
    train_main(args)
    run = tmp_path / "smoke"
    assert (run / "model.zip").exists() and (run / "checkpoints" / "step_2048.zip").exists()
    train_main(args[:-1] + ["run.total_timesteps=4096", "--resume"])
    assert (run / "checkpoints" / "step_4096.zip").exists()
    from agents.registry import make_agent

    assert make_agent(f"model:{run / 'model.zip'}").policy is not None


@pytest.mark.parametrize("ppo, message", [
    ({"overlap": True, "overlap_in": "processes"}, "ppo.overlap_in: must be 'thread' or 'process'"),
    ({"overlap_in": "process"}, "ppo.overlap_in: says where an overlapped update runs: set ppo.overlap: true"),
])
def test_config_errors_name_what_is_allowed(ppo, message):
    with pytest.raises(ConfigError, match=message):
        from_dict({"ppo": ppo})


def test_a_buffer_refuses_storage_of_another_shape_and_stays_as_it_was():
    import numpy as np

    model = _model()
    buffer = model.rollout_buffer
    buffer.reset()
    before = {name: getattr(buffer, name) for name in learner_process.ROLLOUT_ARRAYS}
    storage = {name: np.zeros_like(array) for name, array in before.items()}
    storage["action_masks"] = np.zeros(storage["action_masks"].shape, np.float32)  # sb3-contrib's dtype, not bool
    with pytest.raises(ValueError, match=r"storage 'action_masks' is float32.*needs bool"):
        buffer.keep_in(storage)
    assert buffer.storage is None
    assert all(getattr(buffer, name) is array for name, array in before.items())


def test_a_learner_that_cannot_start_says_why_and_leaves_nothing_running(monkeypatch):
    model = _model(overlap_in="process")
    learning = model.learn.__self__
    # a saved model the learner cannot load
    monkeypatch.setattr(model, "save", lambda out, exclude=None: out.write(b"not a model"))
    with pytest.raises(Exception) as caught:
        model.learn(64)
    assert "in the learner process" in "\n".join(getattr(caught.value, "__notes__", [])) \
        or "learner process failed" in str(caught.value)
    assert learning.process is None
