"""Playthroughs (after OpenSpiel): one generic check for every file in tests/playthroughs/.

Each file pins, per decision, the agent, the action index and text, the legal
indices, a digest of every agent's observation and the rewards (see
``nos_env/playthrough.py``). A change of rules or of either encoding fails here;
after a deliberate change: ``python -m nos_env.playthrough regenerate tests/playthroughs``.
"""

import copy
from pathlib import Path

import pytest

from nos_env.playthrough import PlaythroughMismatch, check, family_specs, load

HERE = Path(__file__).resolve().parent / "playthroughs"
#: Pinned, so a lost file fails rather than shrinking the parametrisation.
NOS_FILES = ["nos_3p", "nos_4p", "nos_4p_session", "nos_5p_auto_forced"]
#: The family files: one hand per game and player count, a match per game, one hand per option
#: value other than the default (``python -m nos_env.playthrough family tests/playthroughs``).
FAMILY_FILES = [name for name, _, _ in family_specs()]
FILES = NOS_FILES + FAMILY_FILES
#: The family files are recorded on the reference engine and replayed here on every backend.
FAMILY_BACKENDS = ["reference", "fast"]


def test_the_pinned_files_are_all_there():
    assert sorted(p.stem for p in HERE.glob("*.json")) == sorted(FILES)
    assert len(FAMILY_FILES) > 100  # every game, player count and option value


@pytest.mark.parametrize("backend", ["fast", "reference"])
@pytest.mark.parametrize("name", NOS_FILES)
def test_playthrough_replays_exactly(name, backend):
    check(load(HERE / f"{name}.json"), backend=backend)


@pytest.mark.parametrize("backend", FAMILY_BACKENDS)
def test_family_playthroughs_replay_exactly(backend):
    """All family files in one test (138 small files: one test each would cost more in pytest
    than in replaying); the first mismatch names its file, step and field."""
    for name in FAMILY_FILES:
        data = load(HERE / f"{name}.json")
        try:
            check(data, backend=backend)
        except PlaythroughMismatch as error:
            raise PlaythroughMismatch(f"{name}: {error}") from None


def test_a_changed_family_record_is_caught():
    data = copy.deepcopy(load(HERE / "draw_4p.json"))
    data["steps"][3]["legal"].append(data["steps"][3]["legal"][-1] + 1)
    with pytest.raises(PlaythroughMismatch, match="step 3 .*legal was"):
        check(data, backend="reference")


@pytest.mark.parametrize("field, change", [
    ("observations", lambda s: s["observations"].update(player_0="0" * 16)),
    ("legal", lambda s: s["legal"].append(556)),
    ("rewards", lambda s: s["rewards"].__setitem__(0, s["rewards"][0] + 1)),
    ("text", lambda s: s.__setitem__("text", "pass")),
])
def test_a_changed_record_is_caught_with_its_step_and_field(field, change):
    data = copy.deepcopy(load(HERE / "nos_4p.json"))
    change(data["steps"][5])
    with pytest.raises(PlaythroughMismatch, match=f"step 5 .*{field} was"):
        check(data)


def test_a_shortened_record_is_caught():
    data = copy.deepcopy(load(HERE / "nos_3p.json"))
    del data["steps"][-3:]
    with pytest.raises(PlaythroughMismatch, match="goes on after the recorded"):
        check(data)
