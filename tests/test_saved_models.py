"""Models saved before NosPolicy moved from train/policy.py to agents/policy.py still load and play.

``tests/data/models/old_policy_path.zip`` was saved by ``python -m train``'s ``make_model`` while the
policy was ``train.policy.NosPolicy`` (the commit before the move), with a tiny network (width 8,
Tactics hint) whose action layer was then set by hand: its weights 0, bias +10 on ``pass``, -10 on
``decline``, hint weight 1.25. So it passes whenever it may and otherwise plays Tactics' choice
(the hint), unless that is ``decline``: a rule this test can state without the code under test.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra

from conftest import ROOT  # noqa: E402

import nos_env  # noqa: E402
from agents.tactics import TacticsAgent  # noqa: E402
from nos_env.encoding import DECLINE, PASS  # noqa: E402

OLD_MODEL = ROOT / "tests" / "data" / "models" / "old_policy_path.zip"


def expected_choices(masks: np.ndarray, hints: np.ndarray) -> np.ndarray:
    logits = np.where(masks != 0, 0.0, -np.inf)
    logits[:, PASS] += 10.0
    logits[:, DECLINE] -= 10.0
    logits[np.arange(len(hints)), hints] += 1.25
    return logits.argmax(axis=1)


def test_the_fixture_pickles_the_old_policy_path():
    with zipfile.ZipFile(OLD_MODEL) as archive:
        data = json.loads(archive.read("data"))
    assert data["policy_class"]["__module__"] == "train.policy"


def test_an_old_model_plays_through_make_agent_without_importing_train():
    code = f"""
import sys
from agents.registry import make_agent
agent = make_agent("model:{OLD_MODEL}")
assert type(agent.policy).__module__ == "agents.policy", type(agent.policy)
assert float(agent.policy.action_net.weight) == 1.25
assert not [m for m in sys.modules if m == "train" or m.startswith("train.")], "train was imported"
print("ok")
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]


def test_an_old_model_plays_the_moves_its_weights_say():
    from agents.registry import make_agent

    agent = make_agent(f"model:{OLD_MODEL}", seed=0)
    hinter = TacticsAgent(seed=0)  # the same seed as the agent's own hint: the same choices
    venv = nos_env.vector_env(64, num_players=4, seed=11)
    obs, masks, current = venv.reset()
    passes = hinted = 0
    for _ in range(60):
        masks = np.array(masks)
        chosen = agent.act_batch(obs, masks)
        hints = hinter.act_batch(obs, masks)
        np.testing.assert_array_equal(chosen, expected_choices(masks, hints))
        passes += int((chosen == PASS).sum())
        hinted += int(((chosen == hints) & (chosen != PASS)).sum())
        obs, masks, current, *_ = venv.step(chosen)
    assert passes > 0 and hinted > 0  # both branches of the rule were exercised


def test_the_trainer_resumes_from_an_old_checkpoint():
    """train/trainer.py loads checkpoints through agents.model.load_model, which maps the old path."""
    from agents.model import load_model
    from agents.policy import NosPolicy

    model = load_model(OLD_MODEL, device="cpu")
    assert type(model.policy) is NosPolicy and model.policy.width == 8 and model.policy.hint == 1


def test_a_file_that_is_not_a_model_is_refused_by_sb3_not_by_the_path_check(tmp_path):
    from agents.model import load_model

    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(Exception) as info:
        load_model(bad)
    assert not isinstance(info.value, (KeyError, json.JSONDecodeError))
    with pytest.raises(FileNotFoundError, match="no trained model"):
        load_model(tmp_path / "missing.zip")


def test_load_policy_builds_the_policy_that_maskableppo_load_builds():
    import torch as th

    from agents.model import load_model, load_policy

    alone = load_policy(OLD_MODEL)
    whole = load_model(OLD_MODEL, device="cpu").policy
    assert type(alone) is type(whole) and repr(alone) == repr(whole)
    theirs = whole.state_dict()
    for name, tensor in alone.state_dict().items():
        assert th.equal(tensor, theirs[name]), name
    assert alone.state_dict().keys() == theirs.keys()
