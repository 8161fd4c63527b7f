"""Agents by name."""

from __future__ import annotations

from .greedy import GreedyAgent
from .random_agent import RandomAgent
from .search import SearchAgent
from .tactics import TacticsAgent

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "tactics": TacticsAgent, "search": SearchAgent}


def make_agent(name: str, seed: int | None = 0, **kwargs):
    if name not in AGENTS:
        raise ValueError(f"unknown agent {name!r}; known: {sorted(AGENTS)}")
    return AGENTS[name](seed=seed, **kwargs)
