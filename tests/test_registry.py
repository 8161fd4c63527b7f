"""The game registry: list_games, env/raw_env/vector_env by game id, versioned modules."""

import pytest
from pettingzoo.test import api_test

import nos_env
from nos_env import nos_v0
from nos_env.env import raw_env as nos_raw_env
from nos_env.vector import NosVectorEnv


def test_list_games_names_nos():
    assert "nos" in nos_env.list_games()
    assert nos_env.list_games() == sorted(nos_env.list_games())


def test_game_defaults_to_nos_and_old_calls_keep_working():
    for e in (nos_env.env(num_players=3), nos_env.env(game="nos", num_players=3), nos_v0.env(num_players=3)):
        assert isinstance(e.unwrapped, nos_raw_env) and e.unwrapped.num_players == 3
        assert e.unwrapped.metadata["name"] == "nos_v0"
    assert isinstance(nos_env.raw_env(game="nos", num_players=5), nos_raw_env)
    venv = nos_env.vector_env(2, 5, seed=1)  # num_players positionally, as before the registry
    assert isinstance(venv, NosVectorEnv) and venv.num_players == 5
    assert nos_env.vector_env(num_envs=2, game="nos", num_players=3).num_players == 3


def test_the_same_seed_plays_the_same_game_through_every_entry():
    def first_masks(e):
        e.reset(seed=11)
        return e.last()[0]["action_mask"].tolist(), e.agent_selection

    assert first_masks(nos_env.env(num_players=4)) == first_masks(nos_v0.env(num_players=4)) \
        == first_masks(nos_env.env(game="nos", num_players=4))


@pytest.mark.parametrize("bad", ["chess", "Nos", "", None, 3])
def test_an_unknown_game_names_the_known_ones(bad):
    for make in (lambda: nos_env.env(game=bad), lambda: nos_env.raw_env(game=bad),
                 lambda: nos_env.vector_env(1, game=bad)):
        with pytest.raises(ValueError, match=r"unknown game .*known: \[.*'nos'"):
            make()


def test_the_versioned_module_opens_with_the_table():
    doc = nos_v0.__doc__
    assert "| Agents" in doc and "| Action Shape" in doc and "observation" in doc


def test_api_test_through_the_registry():
    api_test(nos_env.env(game="nos", num_players=4), num_cycles=50)
