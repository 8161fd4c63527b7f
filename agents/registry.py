"""Agents by name."""

from __future__ import annotations

from nos_env.extras import require

from .greedy import GreedyAgent
from .random_agent import RandomAgent
from .search import SearchAgent
from .tactics import TacticsAgent

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "tactics": TacticsAgent, "search": SearchAgent}


#: ``model:PATH`` names a trained model (a MaskablePPO .zip saved by ``python -m train``).
MODEL_PREFIX = "model:"
#: ``rllib:PATH`` names a trained RLlib module (a checkpoint folder written by ``nos-train`` with an
#: rllib config: ``runs/<name>/rllib_module``; docs/ray.md).
RLLIB_PREFIX = "rllib:"


def check_agent_spec(spec: str) -> None:
    """Raise a clear ValueError unless ``spec`` names an agent (``make_agent`` would build it)."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent is given by name, got {spec!r}")
    if spec.startswith(MODEL_PREFIX):
        from pathlib import Path

        path = Path(spec[len(MODEL_PREFIX):])
        if not path.is_file():
            raise ValueError(f"no trained model at {str(path)!r} (agent {spec!r})")
        # A trained model plays through torch and sb3-contrib: the train extra, not the core install.
        require("train", f"the agent {spec!r} (a trained model)", ("torch", "stable_baselines3", "sb3_contrib"))
        return
    if spec.startswith(RLLIB_PREFIX):
        from pathlib import Path

        path = Path(spec[len(RLLIB_PREFIX):])
        if not path.is_dir():
            raise ValueError(f"no RLlib module checkpoint folder at {str(path)!r} (agent {spec!r})")
        require("ray", f"the agent {spec!r} (a trained RLlib module)", ("ray", "torch"))
        return
    if spec not in AGENTS:
        raise ValueError(f"unknown agent {spec!r}; known: {sorted(AGENTS)}, model:PATH or rllib:PATH")


def agent_label(spec) -> str:
    """The short name an agent spec or instance is reported under."""
    if isinstance(spec, str):
        if spec.startswith(RLLIB_PREFIX):
            return "rllib"
        return "model" if spec.startswith(MODEL_PREFIX) else spec
    return getattr(spec, "name", type(spec).__name__)


def make_agent(name: str, seed: int | None = 0, **kwargs):
    """An agent by name (``AGENTS``), a trained model by ``model:PATH``, or a trained RLlib module by
    ``rllib:PATH``."""
    check_agent_spec(name)
    if name.startswith(RLLIB_PREFIX):
        from .rllib_module import RLlibAgent  # ray and torch are imported only when one is asked for

        return RLlibAgent(name[len(RLLIB_PREFIX):], seed=seed, **kwargs)
    if name.startswith(MODEL_PREFIX):
        from .model import ModelAgent  # torch is imported only when a model is asked for

        return ModelAgent(name[len(MODEL_PREFIX):], seed=seed, **kwargs)
    return AGENTS[name](seed=seed, **kwargs)
