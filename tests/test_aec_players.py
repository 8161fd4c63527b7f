"""Any agent in the AEC loop of nos_env.env() (agents.aec), on both backends."""

import numpy as np
import pytest

import nos_env
from agents import AECPlayer
from agents.aec import tables_of
from nos_env.games import nos as K


def play(env, players, seed):
    env.reset(seed=seed)
    start = list(env.unwrapped.chips)
    decisions = 0
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        action = players[agent](env)
        assert env.observe(agent)["action_mask"][action] == 1  # the player chose a legal action
        env.step(action)
        decisions += 1
    return start, list(env.unwrapped.chips), decisions


@pytest.mark.parametrize("backend", ["fast", "reference"])
def test_search_tactics_greedy_and_random_play_whole_hands(backend):
    env = nos_env.env(num_players=4, backend=backend)
    players = {"player_0": AECPlayer("search", seed=1, rollouts=8), "player_1": AECPlayer("tactics"),
               "player_2": AECPlayer("greedy"), "player_3": AECPlayer("random", seed=3)}
    for seed in (1, 2):
        start, end, decisions = play(env, players, seed)
        assert all(env.terminations.values()) and decisions > 10
        assert sum(end) == sum(start) and end != start  # zero-sum chips, and chips changed hands


def test_both_backends_play_the_same_game_with_the_same_players():
    games = []
    for backend in ("fast", "reference"):
        env = nos_env.env(num_players=3, backend=backend)
        players = {"player_0": AECPlayer("search", seed=5, rollouts=8), "player_1": AECPlayer("tactics"),
                   "player_2": AECPlayer("search", seed=6, rollouts=8)}
        games.append(play(env, players, seed=7)[1:] + (env.unwrapped.hand.actions,))
    assert games[0] == games[1]


def test_the_rebuilt_table_holds_the_reference_backends_position():
    env = nos_env.env(num_players=5, backend="reference")
    env.reset(seed=4)
    rng = np.random.default_rng(4)
    for _ in range(25):
        env.step(int(rng.choice(np.flatnonzero(env.last()[0]["action_mask"]))))
    tables = tables_of(env)
    hand = env.unwrapped.hand
    assert int(tables.T[0, K.T_TO_MOVE]) == hand.to_move
    assert [int(c) for c in tables.S[0, :5, K.S_CHIPS]] == hand.chips
    np.testing.assert_array_equal(tables.MASK[0], env.last()[0]["action_mask"])


def test_asking_when_nobody_is_to_move_is_an_error():
    env = nos_env.env(num_players=3)
    player = AECPlayer("random")
    play(env, {a: player for a in env.possible_agents}, seed=2)
    with pytest.raises(ValueError, match="no legal action"):
        player(env)
