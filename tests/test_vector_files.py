"""The worked-example files the repository carries (tests/data/vectors).

The replay tests (test_vectors.py, test_fast_engine.py) are parametrised from the fixed list
``conftest.VECTOR_NAMES``; these tests make sure that list and the folder agree exactly, so a
missing, renamed or extra file fails here instead of being skipped or ignored. The copies came
verbatim from the shared specification; when that still sits beside the project, the last
test checks they have not drifted apart.
"""

import json
import os
from pathlib import Path

import pytest

from conftest import ROOT, VECTOR_NAMES, VECTORS

#: Where the shared specification sits when present (beside the project); NOS_SHARED points
#: elsewhere. Only the comparison below reads it: nothing else may need it.
SHARED_VECTORS = Path(os.environ.get("NOS_SHARED", ROOT.parent / "shared")) / "vectors"

#: The one line of the folder's README adapted to the repository (its link to the rules).
SHARED_README_LINK = "Each JSON file is one worked example of `../RULES.md` §13, played out as a"
OUR_README_LINK = "Each JSON file is one worked example of [the rules page](../../../docs/rules/nos.md) §13, played out as a"


def test_the_folder_holds_exactly_the_eleven_worked_examples_and_their_readme():
    assert len(VECTOR_NAMES) == 11 and len(set(VECTOR_NAMES)) == 11
    assert sorted(p.name for p in VECTORS.iterdir()) == sorted([f"{n}.json" for n in VECTOR_NAMES] + ["README.md"])


def test_every_example_of_section_13_has_a_file():
    numbers = sorted(int(name.split("_")[0].removeprefix("example")) for name in VECTOR_NAMES)
    assert numbers == [1, 2, 3, 4, 4, 5, 6, 7, 8, 9, 10]  # example 4 comes with a contrast case


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_each_file_is_a_complete_deal(name):
    vector = json.loads((VECTORS / f"{name}.json").read_text())
    n = vector["num_players"]
    assert n in (3, 4, 5)
    assert len(vector["hands"]) == n and all(len(h) == 8 - n for h in vector["hands"])
    tiles = [t for h in vector["hands"] for t in h] + vector["boneyard_top_first"]
    assert len(tiles) == 28 == len(set(tiles))
    assert len(vector["chips_start"]) == n and 0 <= vector["on_set"] < n
    assert vector["steps"] and all(len(s["chips_after"]) == n for s in vector["steps"])


def test_the_readme_links_the_rules_page():
    text = (VECTORS / "README.md").read_text()
    assert OUR_README_LINK in text
    assert (VECTORS / "../../../docs/rules/nos.md").resolve() == ROOT / "docs" / "rules" / "nos.md"
    assert (ROOT / "docs" / "rules" / "nos.md").is_file()


def test_the_copies_match_the_shared_specification():
    if not SHARED_VECTORS.is_dir():
        pytest.skip(f"{SHARED_VECTORS} is absent: nothing to compare the repository's vectors with")
    shared_files = sorted(p.name for p in SHARED_VECTORS.iterdir() if p.is_file())
    assert shared_files == sorted(p.name for p in VECTORS.iterdir())
    for name in VECTOR_NAMES:
        assert (VECTORS / f"{name}.json").read_bytes() == (SHARED_VECTORS / f"{name}.json").read_bytes(), name
    shared_readme = (SHARED_VECTORS / "README.md").read_text()
    assert shared_readme.count(SHARED_README_LINK) == 1
    assert (VECTORS / "README.md").read_text() == shared_readme.replace(SHARED_README_LINK, OUR_README_LINK)
