"""Any agent in the PettingZoo AEC loop of ``nos_env.env()``.

Agents decide for batches of fast-engine tables (``agents.base``); a search
agent also needs the table a row comes from, to copy the position's public
structure before it samples the hidden tiles (D17). :class:`AECPlayer` gives
an agent what it needs from an AEC environment, on either backend::

    import nos_env
    from agents import AECPlayer

    env = nos_env.env(num_players=4)
    players = {"player_0": AECPlayer("search"), "player_1": AECPlayer("tactics"),
               "player_2": AECPlayer("greedy"), "player_3": AECPlayer("model:runs/quick/model.zip")}
    env.reset(seed=1)
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        env.step(None if termination or truncation else players[agent](env))

The agent sees the observation and mask of the seat to move, like any other
policy. On the fast backend its context is the environment's own table; on the
reference backend the current hand is rebuilt on a one-table fast engine from
the deal and the decisions so far. Either way a search agent reads only the
public structure from it and samples every tile hidden from its seat.
"""

from __future__ import annotations

import numpy as np

from nos_env.encoding import NUM_ACTIONS, action_to_index, legal_mask
from nos_env.engine import ILLEGAL_PREFIX, Hand
from nos_env.fast_engine import FastTables

from .base import Agent, BatchContext
from .registry import make_agent


def tables_of(env) -> FastTables:
    """A fast-engine table holding the AEC environment's current hand (table 0)."""
    raw = env.unwrapped
    tables = getattr(raw.backend, "tables", None)
    if tables is not None:
        return tables
    hand: Hand = raw.hand
    options = hand.options
    tables = FastTables(1, hand.num_players, seed=0, illegal_action=options.illegal,
                        auto_forced=options.auto_forced, observation_dtype="float32")
    tables.load_deal(0, hand.deal, hand.on_set, hand.chips_start, hand.first_hand)
    replay = Hand(hand.deal, on_set=hand.on_set, chips=hand.chips_start, first_hand=hand.first_hand,
                  options=options)
    for text in hand.actions:
        if text.startswith(ILLEGAL_PREFIX):  # D16: any index outside the mask is the same penalty
            index = int(np.flatnonzero(legal_mask(replay) == 0)[0])
        else:
            index = action_to_index(replay.resolve(text))
        replay.step(text)
        tables.step(np.array([index]), observe=False, autoreset=False)
    return tables


def family_tables_of(env):
    """A family environment's position on a one-table FamilyTables (BlindTables for Blind):
    the environment's own table on the fast backend; on the reference backend the game replayed
    from its record (same seed and actions: the same game, family contract)."""
    raw = env.unwrapped
    tables = getattr(raw.backend, "tables", None)
    if tables is not None:
        return tables
    from .family.games import table_options, tables_class

    record = raw.backend.game.record()
    tables = tables_class(raw.game)(raw.game, 1, raw.num_players, seed=int(record["seed"]),
                                    observation_dtype="float32", **table_options(raw.rules))
    for a in record["actions"]:
        tables.step(np.array([int(a)], np.int64), observe=False, autoreset=False)
    return tables


class AECPlayer:
    """Wraps an agent (a name such as ``"search"``, ``"model:PATH"``, or an Agent) as an AEC policy:
    ``player(env)`` returns the action of the agent to move. For a family game's environment
    give the game and its rules: ``AECPlayer("greedy", game="draw", rules=env.unwrapped.rules)``."""

    def __init__(self, agent: str | Agent, seed: int | None = 0, **kwargs):
        self.agent = make_agent(agent, seed=seed, **kwargs) if isinstance(agent, str) else agent

    def __call__(self, env) -> int:
        raw = env.unwrapped
        if isinstance(getattr(raw, "game", None), str):  # a family game's environment (nos_env.family_env)
            agent_id = env.agent_selection
            view = env.observe(agent_id)
            mask = np.asarray(view["action_mask"], np.int8)[None, :]
            if not mask.any():
                raise ValueError(f"{agent_id} has no legal action: the episode is over or it is not to move")
            obs = np.asarray(view["observation"])[None, :]
            context = None
            if getattr(self.agent, "name", "") == "search":  # only Search reads its table
                context = BatchContext(family_tables_of(env), np.array([0]),
                                       np.array([raw.agent_name_mapping[agent_id]]))
            return int(self.agent.act_batch(obs, mask, context)[0])
        agent_id = env.agent_selection
        seat = raw.agent_name_mapping[agent_id]
        view = env.observe(agent_id)
        obs = np.asarray(view["observation"], np.float32)[None, :]
        mask = np.asarray(view["action_mask"], np.int8)[None, :]
        if mask.shape[1] != NUM_ACTIONS or not mask.any():
            raise ValueError(f"{agent_id} has no legal action: the episode is over or it is not to move")
        context = BatchContext(tables_of(env), np.array([0]), np.array([seat]))
        return int(self.agent.act_batch(obs, mask, context)[0])

    def __repr__(self) -> str:
        return f"AECPlayer({self.agent!r})"
