"""The table options are written once (nos_env/options.py: TableOptions) and every constructor
that takes them (FastTables, vector_env, the AEC environment on both backends) agrees with it."""

from __future__ import annotations

import dataclasses
import inspect

import pytest

import nos_env
from nos_env.env import raw_env
from nos_env.fast_engine import FastTables
from nos_env.options import Options, TableOptions
from nos_env.vector import NosVectorEnv

FIELDS = [f.name for f in dataclasses.fields(TableOptions)]


def test_the_documented_defaults():
    # The defaults the README and nos_env/env.py's docstring promise, typed here again on purpose.
    assert TableOptions() == TableOptions(hands_per_episode=1, first_hand_rule=False, starting_chips=500,
                                          illegal_action="raise", auto_forced=False, chip_scale=100.0)
    assert FIELDS == ["hands_per_episode", "first_hand_rule", "starting_chips", "illegal_action", "auto_forced",
                      "chip_scale"]


@pytest.mark.parametrize("constructor", [FastTables, NosVectorEnv, raw_env])
def test_every_constructor_takes_every_table_option_with_its_default(constructor):
    parameters = inspect.signature(constructor).parameters
    for name in FIELDS:
        assert name in parameters, f"{constructor.__name__} lacks the option {name}"
        assert parameters[name].default == getattr(TableOptions, name), (constructor.__name__, name)
        assert parameters[name].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD


def test_first_hand_rule_follows_the_number_of_hands_unless_given():
    assert TableOptions(hands_per_episode=1).first_hand_rule is False
    assert TableOptions(hands_per_episode=2).first_hand_rule is True
    assert TableOptions(hands_per_episode=2, first_hand_rule=False).first_hand_rule is False
    assert TableOptions(first_hand_rule=True).first_hand_rule is True


def test_values_are_stored_as_plain_python_values():
    import numpy as np

    options = TableOptions(np.int64(3), np.bool_(False), np.int32(-7), "penalty", np.bool_(True), np.float32(2.5))
    assert options == TableOptions(3, False, -7, "penalty", True, 2.5)
    assert [type(getattr(options, name)) for name in FIELDS] == [int, bool, int, str, bool, float]
    assert options.penalty and options.engine_options == Options(auto_forced=True, illegal="penalty")
    assert TableOptions(**options.as_kwargs()) == options


@pytest.mark.parametrize("kwargs, message", [
    ({"hands_per_episode": 0}, r"hands_per_episode must be an integer in 1\.\.10000, got 0"),
    ({"illegal_action": "ignore"}, r"illegal_action must be 'raise' or 'penalty', got 'ignore'"),
    ({"illegal_action": None}, r"illegal_action must be 'raise' or 'penalty', got None"),
    ({"starting_chips": True}, r"starting_chips must be an integer within \+-500,000,000"),
    ({"chip_scale": 0.0}, "chip_scale must be a positive finite number, got 0.0"),
    ({"chip_scale": True}, "chip_scale must be a positive finite number, got True"),
    ({"first_hand_rule": "yes"}, "first_hand_rule must be True or False, got 'yes'"),
    ({"auto_forced": 0}, r"auto_forced must be True or False, got 0 \(int\)"),
])
def test_bad_options_are_named(kwargs, message):
    with pytest.raises(ValueError, match=message):
        TableOptions(**kwargs)


def test_options_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        TableOptions().starting_chips = 3


@pytest.mark.parametrize("backend", ["reference", "fast"])
def test_the_aec_environment_and_its_backend_hold_the_checked_options(backend):
    e = nos_env.raw_env(backend=backend, hands_per_episode=3, starting_chips=40, illegal_action="penalty",
                        chip_scale=50)
    expected = TableOptions(3, True, 40, "penalty", False, 50.0)
    assert e.table_options == expected
    assert (e.hands_per_episode, e.first_hand_rule, e.starting_chips, e.chip_scale) == (3, True, 40, 50.0)
    assert e.engine_options == Options(auto_forced=False, illegal="penalty")
    if backend == "fast":
        assert e.backend.tables.table_options == expected
    else:
        assert e.backend.options == Options(auto_forced=False, illegal="penalty")
    e.reset(seed=1)
    assert e.chips == [40] * 4


def test_vector_env_and_fast_tables_hold_the_checked_options():
    venv = nos_env.vector_env(2, num_players=3, seed=0, hands_per_episode=2, first_hand_rule=False,
                              auto_forced=True, reward_scale=0.5)
    assert venv.tables.table_options == TableOptions(2, False, 500, "raise", True, 100.0)
    assert venv.reward_scale == 0.5 and type(venv.reward_scale) is float
    for kwargs in ({"reward_scale": 0}, {"reward_scale": float("inf")}):
        with pytest.raises(ValueError, match="reward_scale must be a positive finite number"):
            nos_env.vector_env(2, **kwargs)
