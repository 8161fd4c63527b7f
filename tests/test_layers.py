"""The layers import downwards only, and no module needs another to be imported first.

    train/    (training: self-play, PPO, configs, reports)
      |
    agents/   (agents, tournaments, research, trained models as agents)
      |
    nos_env/  (engines, environments, encoding)

``nos_env`` imports neither ``agents`` nor ``train``; ``agents`` does not import ``train`` (a saved
model plays through ``agents.model`` and ``agents.policy``). Every import counts, also one inside a
function, and so does ``importlib.import_module("...")`` with a literal name.
"""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

from conftest import ROOT

PACKAGES = ("nos_env", "agents", "train")
#: What each package may not import (the layers above it).
FORBIDDEN = {"nos_env": {"agents", "train"}, "agents": {"train"}, "train": set()}


def modules(package: str) -> list[tuple[str, object]]:
    """(dotted module name, path) of every module of ``package``."""
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        found.append((name, path))
    return found


def imported_names(path, module: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in a file, relative ones resolved."""
    tree = ast.parse(path.read_text(), str(path))
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                names.append((node.lineno, ".".join(base + ([node.module] if node.module else []))))
            else:
                names.append((node.lineno, node.module))
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) \
                == "import_module" and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            names.append((node.lineno, node.args[0].value))
    return names


def test_the_parser_sees_every_kind_of_import(tmp_path):
    sample = tmp_path / "sample.py"
    sample.write_text("import train.x\nfrom agents import y\nfrom ..train import z\n"
                      "def f():\n    from train.cli import main\n    importlib.import_module('agents.q')\n")
    assert imported_names(sample, "nos_env.deep.sample") == [
        (1, "train.x"), (2, "agents"), (3, "nos_env.train"), (5, "train.cli"), (6, "agents.q")]


@pytest.mark.parametrize("package", PACKAGES)
def test_no_upward_import(package):
    upward = [f"{path.relative_to(ROOT)}:{line} imports {name}"
              for module, path in modules(package) for line, name in imported_names(path, module)
              if name.split(".")[0] in FORBIDDEN[package]]
    assert upward == [], f"{package} may not import {sorted(FORBIDDEN[package])}: " + "; ".join(upward)


def test_every_module_imports_on_its_own():
    """Each module imported first, in an interpreter with no project module loaded: an import
    circle shows up as an ImportError or AttributeError for whichever module starts it."""
    from nos_env.extras import missing

    names = [name for package in PACKAGES for name, path in modules(package) if path.name != "__main__.py"]
    # Modules that need the train extra are left out where it is not installed (test_packaging checks
    # that the rest never need it).
    needs_train = {"agents.model", "agents.policy"} | {n for n in names if n.split(".")[0] == "train"}
    if missing("train"):
        names = [n for n in names if n not in needs_train]
    # The RLlib pieces need the ray extra (nos_env.extras names it when it is missing).
    if missing("ray"):
        names = [n for n in names if n not in {"nos_env.rllib_env", "agents.rllib_module"}]
    code = f"""
import importlib, sys, traceback
failed = []
for name in {names!r}:
    for loaded in [m for m in sys.modules if m.split(".")[0] in {PACKAGES!r}]:
        del sys.modules[loaded]
    try:
        importlib.import_module(name)
    except Exception:
        failed.append(name + ": " + traceback.format_exc(limit=-3))
print("\\n".join(failed) if failed else "ok")
"""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout[-4000:] + done.stderr[-2000:]
    assert len(names) >= 40
