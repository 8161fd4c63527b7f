"""Packaging: the environment installs and runs without torch; every command's --help works."""

import re
import subprocess
import sys
import tomllib

import pytest

from conftest import ROOT

TRAIN_ONLY = ("torch", "stable_baselines3", "sb3_contrib", "tensorboard", "yaml")


def run_python(code: str, timeout: int = 600) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def test_core_dependencies_leave_training_to_the_train_extra():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    core = " ".join(project["dependencies"])
    for name in ("torch", "stable-baselines3", "sb3-contrib", "tensorboard", "pyyaml"):
        assert name not in core
    train = project["optional-dependencies"]["train"]
    assert "torch==2.13.0" in train  # pinned exactly: the CPU wheel on local disk
    assert not [d for d in train if d.startswith("torch") and d != "torch==2.13.0"]


BLOCK_TRAIN_PACKAGES = f"""
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {TRAIN_ONLY!r}:
            raise ModuleNotFoundError(f"No module named {{name!r}} (blocked: the train extra is not installed)")
        return None
sys.meta_path.insert(0, Blocker())
"""


def test_environment_agents_and_tournament_work_without_the_train_extra(tmp_path):
    model = tmp_path / "model.zip"
    model.write_bytes(b"not a real model")
    code = BLOCK_TRAIN_PACKAGES + f"""
import numpy as np
import nos_env, agents, agents.announce, nos_env.playthrough
from agents.tournament import run_tournament
from nos_env.extras import MissingExtraError
env = nos_env.env(num_players=4)
env.reset(seed=1)
for agent in env.agent_iter():
    obs, _, term, trunc, _ = env.last()
    env.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
venv = nos_env.vector_env(8, num_players=3, seed=0)
venv.reset()
result = run_tournament(["random", "greedy", "tactics", "random"], 2, 0, progress=False)
try:
    agents.make_agent("model:{model}")
except MissingExtraError as exc:
    assert "'train' extra" in str(exc) and "nos-env[train]" in str(exc), exc
else:
    raise AssertionError("a model agent was made without torch")
from train.cli import main
try:
    main(["--print-defaults"])
except SystemExit as exc:
    assert exc.code == 2
else:
    raise AssertionError("nos-train ran without the train extra")
assert not set(sys.modules) & set({TRAIN_ONLY!r}), sorted(set(sys.modules) & set({TRAIN_ONLY!r}))
print("ok")
"""
    done = run_python(code)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stderr[-3000:]
    assert "needs the 'train' extra" in done.stderr  # nos-train's message, through argparse


def run_without_train(command: list[str], timeout: int = 300) -> subprocess.CompletedProcess:
    """``python COMMAND`` (``-m MODULE ARGS`` or ``SCRIPT ARGS``) with the train extra's packages blocked,
    this checkout first on the path."""
    if command[0] == "-m":
        run = (f"import runpy, sys; sys.argv = {command[1:]!r}; "
               f"runpy.run_module({command[1]!r}, run_name='__main__', alter_sys=True)")
    else:  # as `python SCRIPT` would, the script's folder first
        run = (f"import runpy, sys; sys.path.insert(0, {str((ROOT / command[0]).parent)!r}); "
               f"sys.argv = {command!r}; runpy.run_path({command[0]!r}, run_name='__main__')")
    return run_python(BLOCK_TRAIN_PACKAGES + run, timeout)


@pytest.mark.parametrize("command", [
    ["-m", "agents.tournament", "--agents", "model:{model}", "random", "random", "random", "--deals", "1"],
    ["-m", "agents.announce", "compare", "--play", "model:{model}", "--deals", "1"],
], ids=["tournament", "announce"])
def test_commands_with_a_model_agent_name_the_train_extra(tmp_path, command):
    model = tmp_path / "model.zip"
    model.write_bytes(b"not a real model")
    done = run_without_train([part.format(model=model) for part in command] + ["--quiet"])
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert f"error: the agent 'model:{model}' (a trained model) needs the 'train' extra" in done.stderr
    assert "pip install 'nos-env[train]'" in done.stderr and done.stdout == ""


COMMANDS = [
    ["-m", "nos_env.simulate"],
    ["-m", "agents.tournament"],
    ["-m", "agents.ratings"],
    ["-m", "agents.announce"],
    ["-m", "agents.announce", "hand"],
    ["-m", "agents.announce", "survey"],
    ["-m", "agents.announce", "compare"],
    ["-m", "agents.announce_values"],
    ["-m", "train.distill_nos"],
    ["-m", "train"],
    ["-m", "nos_env.playthrough"],
    ["-m", "nos_env.playthrough", "record"],
    ["-m", "nos_env.playthrough", "regenerate"],
    ["-m", "nos_env.playthrough", "check"],
    ["-m", "nos_env.playthrough", "family"],
    ["-m", "nos_env.family_docs"],
    ["-m", "nos_env.view"],
    ["-m", "agents.play"],
    ["docs/make_pictures.py"],  # without --help handling it would rewrite the docs' pictures
] + [[f"benchmarks/{p.name}"] for p in sorted((ROOT / "benchmarks").glob("*.py"))] + [
    ["tests/golden/generate.py"],  # without --help handling it would rewrite the golden files
    ["tests/kernel_warmup.py"],  # without --help handling it would compile kernels
]


def test_every_entry_point_is_covered():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    modules = {target.split(":")[0] for target in scripts.values()}
    covered = {c[1] for c in COMMANDS if c[0] == "-m"}
    assert modules - {"train.cli"} <= covered and "train" in covered
    assert len([c for c in COMMANDS if c[0].startswith("benchmarks/")]) >= 9
    # Every file that is a command (an argument parser or a __main__ block) is in the list.
    commands = {path.relative_to(ROOT).as_posix() for folder in ("nos_env", "agents", "train", "benchmarks", "tests")
                for path in (ROOT / folder).rglob("*.py") if not path.name.startswith("test_")
                and (path.name == "__main__.py" or re.search(r'__name__ == "__main__"|ArgumentParser\(',
                                                             path.read_text()))}
    listed = {c[0] for c in COMMANDS if c[0] != "-m"} | {c[1].replace(".", "/") + ".py" for c in COMMANDS
                                                       if c[0] == "-m"} | {"train/__main__.py", "train/cli.py"}
    assert commands - listed == set()


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_help_works(command):
    done = run_without_train(command + ["--help"])  # on the core install, too: no torch for a help text
    assert done.returncode == 0, done.stderr[-2000:]
    assert "usage:" in done.stdout and "--help" in done.stdout


BLOCK_RAY = """
import importlib.abc, sys
class Blocker(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] == "ray":
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: the ray extra is not installed)")
        return None
sys.meta_path.insert(0, Blocker())
"""


def test_ray_is_imported_only_where_the_ray_extra_is_used_and_named_when_missing(tmp_path):
    """SB3 training, tournaments and the research tools never import ray; the rllib engine,
    rllib:PATH agents and --ray say which extra to install."""
    folder = tmp_path / "module"
    folder.mkdir()
    code = BLOCK_RAY + f"""
import sys
from nos_env.extras import MissingExtraError
import train.trainer, train.rllib_trainer, agents.tournament, agents.announce
from agents.tournament import run_tournament
run_tournament(["random", "greedy", "random", "greedy"], 2, 0, progress=False, shards=2)
try:
    import agents.registry
    agents.registry.make_agent("rllib:{folder}")
except MissingExtraError as exc:
    assert "'ray' extra" in str(exc) and "nos-env[ray]" in str(exc), exc
else:
    raise AssertionError("an rllib agent was made without ray")
try:
    run_tournament(["random", "greedy", "random", "greedy"], 2, 0, progress=False, shards=2, ray=True)
except MissingExtraError as exc:
    assert "'ray' extra" in str(exc), exc
else:
    raise AssertionError("a tournament ran on Ray without ray")
from train.cli import main
try:
    main(["--config", "configs/rllib_smoke.yaml", "--set", "run.output_dir={tmp_path}"])
except SystemExit as exc:
    assert exc.code == 2
else:
    raise AssertionError("nos-train ran the rllib engine without the ray extra")
assert "ray" not in sys.modules
print("ok")
"""
    done = run_python(code)
    assert done.returncode == 0 and done.stdout.strip().endswith("ok"), done.stdout[-2000:] + done.stderr[-3000:]
    assert "nos-train with run.engine: rllib needs the 'ray' extra" in done.stderr
