"""The Python examples in the README and docs run as written."""

import re

import pytest

from conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "docs" / "scripting.md"]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_python_examples_run(path):
    blocks = python_blocks(path)
    assert blocks, f"no python examples in {path.name}"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(path), "exec"), namespace)  # examples share names, like a reader's session


def test_readme_gives_exactly_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    commands = [c.strip() for c in re.findall(r"```sh\n(.*?)\n\s*```", readme, flags=re.S)]
    assert len(commands) == 2
    assert "-m train --config configs/quick.yaml" in commands[0] and "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci
