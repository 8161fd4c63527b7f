"""Agents for Nos: one interface, batched, plus baseline players.

See :mod:`agents.base` for the interface. ``make_agent("greedy", seed=0)``
builds an agent by name (:data:`AGENTS`).
"""

from .aec import AECPlayer
from .base import Agent, BatchContext
from .registry import AGENTS, make_agent

__all__ = ["AECPlayer", "AGENTS", "Agent", "BatchContext", "make_agent"]
