"""What tests/test_rllib.py (Nos) and tests/test_rllib_family.py (every other game) check the
same way: a legal random choice from an RLlib observation dict, and a batch of tables
(``NosTablesVectorEnv``) played action for action against single-table environments."""

from __future__ import annotations

import numpy as np


def legal_choice(rng, obs: dict) -> dict:
    (agent, o), = obs.items()
    return {agent: int(rng.choice(np.flatnonzero(o["action_mask"])))}


def assert_batch_plays_as_single_tables(config: dict, tables: int = 3, seed: int = 5, steps: int = 300) -> None:
    """Table b of a batch seeded ``seed`` deals, observes and scores as a NosTableEnv seeded
    ``seed + b`` under the same actions, across episode ends (at least 5 of them)."""
    from nos_env.rllib_env import NosTableEnv, NosTablesVectorEnv

    batch = NosTablesVectorEnv({**config, "tables": tables, "seed": seed})
    singles = [NosTableEnv({**config, "seed": seed + b}) for b in range(tables)]
    obs, _ = batch.reset()
    single_obs = [e.reset()[0] for e in singles]
    rng = np.random.default_rng(1)
    pending_reset = [False] * tables
    ended = 0
    for _ in range(steps):
        actions = []
        for b in range(tables):
            assert obs[b].keys() == single_obs[b].keys()
            for agent in obs[b]:
                np.testing.assert_array_equal(obs[b][agent]["observations"], single_obs[b][agent]["observations"])
            actions.append({} if pending_reset[b] else legal_choice(rng, obs[b]))
        obs, rew, term, _, _ = batch.step(actions)
        for b in range(tables):
            if pending_reset[b]:
                single_obs[b], _ = singles[b].reset()
                pending_reset[b] = False
                continue
            single_obs[b], r, t, _, _ = singles[b].step(actions[b])
            assert r == rew[b] and t == term[b]
            if t["__all__"]:
                pending_reset[b] = True
                ended += 1
    assert ended >= 5
