"""The agent interface.

An agent decides for many tables at once::

    actions = agent.act_batch(obs, masks, context)

- ``obs`` [B, D]: each row is one seat's observation (``nos_env.encoding``):
  float32 [B, 1041], or the compact uint8 [B, 1084] that ``vector_env`` returns by
  default (agents decode it with :func:`float_observations`); read slices by name
  with :func:`obs_slice`;
- ``masks`` int8 [B, A]: the legal actions of that seat;
- ``context`` (:class:`BatchContext`, optional): which fast-engine tables and
  seats the rows belong to. Heuristic agents ignore it. A search agent may
  use it to copy the *public* structure of a position (layout, phase, turn
  order, chips) from the engine; it must replace every hidden tile (other
  hands, the boneyard order) with ones sampled from public information only
  (D17), as ``agents.search`` does.

It returns int64 [B]: one legal action index per row. ``act(obs, mask)`` is
the single-row form. Agents are seeded and deterministic given their seed
and their inputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from nos_env.encoding import COMPACT_DTYPE, OBSERVATION_LAYOUT, OBSERVATION_SIZE, decode_compact


def float_observations(obs: np.ndarray) -> np.ndarray:
    """A batch of observations as float32 [B, 1041]: compact uint8 rows are decoded (with the
    default ``chip_scale`` of 100, the one every agent and model here is built for)."""
    obs = np.asarray(obs)
    if obs.dtype == COMPACT_DTYPE:
        return decode_compact(obs)
    if obs.ndim != 2 or obs.shape[1] != OBSERVATION_SIZE:
        raise ValueError(f"observations must be float32 [B, {OBSERVATION_SIZE}] or compact uint8 "
                         f"(encoding.COMPACT_SIZE a row), got {obs.dtype} {obs.shape}")
    return obs.astype(np.float32, copy=False)


def obs_slice(obs: np.ndarray, name: str) -> np.ndarray:
    """The named slice of a batch of observations, shaped [B, *shape]."""
    start, stop, shape = OBSERVATION_LAYOUT[name]
    return obs[:, start:stop].reshape((obs.shape[0],) + tuple(shape))


@dataclass
class BatchContext:
    """Where a batch's rows come from: ``tables`` (a FastTables), ``table_index`` [B], ``seats`` [B]."""

    tables: object = None
    table_index: np.ndarray | None = None
    seats: np.ndarray | None = None


class Agent:
    name = "agent"

    def __init__(self, seed: int | None = 0):
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        raise NotImplementedError

    def act(self, obs: np.ndarray, mask: np.ndarray, context: BatchContext | None = None) -> int:
        return int(self.act_batch(obs[None, :], mask[None, :], context)[0])

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row (vectorised)."""
    noise = rng.random(masks.shape, dtype=np.float32)
    noise[masks == 0] = -1.0
    return noise.argmax(axis=1).astype(np.int64)
