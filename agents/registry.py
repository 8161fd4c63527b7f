"""Agents by name, for Nos and for every family game.

Nos: ``AGENTS``. A family game (``nos_env.family.rules.GAMES``, issue 15): ``FAMILY_AGENTS``
(``agents/family/``), built for one game's rules: ``make_agent("greedy", game="draw",
rules=tables.rules)``. Trained models (``model:PATH``) play any game whose observation and
action sizes they were trained on; several of one game play as one agent (``ensemble:A.zip,B.zip``).
Search with a trained model as its prior (Nos): ``search+model:PATH`` or ``search+ensemble:A.zip,B.zip``.
"""

from __future__ import annotations

from nos_env.extras import require

from .greedy import GreedyAgent
from .random_agent import RandomAgent
from .search import PythonSearchAgent, SearchAgent
from .tactics import TacticsAgent

AGENTS = {"random": RandomAgent, "greedy": GreedyAgent, "tactics": TacticsAgent, "search": SearchAgent,
          "search-python": PythonSearchAgent}


#: ``model:PATH`` names a trained model (a MaskablePPO .zip saved by ``python -m train``).
MODEL_PREFIX = "model:"
#: ``rllib:PATH`` names a trained RLlib module (a checkpoint folder written by ``nos-train`` with an
#: rllib config: ``runs/<name>/rllib_module``; docs/ray.md).
RLLIB_PREFIX = "rllib:"
#: ``ensemble:A.zip,B.zip[,...]`` names trained models of one game playing as one agent: the mean of
#: their log-probabilities (agents.model.EnsembleAgent).
ENSEMBLE_PREFIX = "ensemble:"


#: ``search+model:PATH`` (or ``search+ensemble:A.zip,B.zip``) names Search with a trained model as
#: its prior: it keeps the model's move unless its rollouts show a better one clearly
#: (agents.search, the safeguard). Nos only.
SEARCH_PRIOR_PREFIX = "search+"


def search_prior_spec(spec: str) -> str:
    """The model spec inside ``search+model:PATH`` / ``search+ensemble:A,B``; a ValueError otherwise."""
    inner = spec[len(SEARCH_PRIOR_PREFIX):]
    if not inner.startswith((MODEL_PREFIX, ENSEMBLE_PREFIX)):
        raise ValueError(f"Search with a model as its prior is search+model:PATH or search+ensemble:A.zip,B.zip, "
                         f"got {spec!r}")
    return inner


def ensemble_paths(spec: str) -> list[str]:
    """The model paths of an ``ensemble:A.zip,B.zip`` spec; a ValueError unless at least 2 are given."""
    paths = [p.strip() for p in spec[len(ENSEMBLE_PREFIX):].split(",")]
    if len(paths) < 2 or not all(paths):
        raise ValueError(f"an ensemble is ensemble:A.zip,B.zip (at least 2 model paths, comma-separated), "
                         f"got {spec!r}")
    return paths


#: The agents of the family games (agents/family/): built per game from its rules.
FAMILY_AGENTS = ("random", "greedy", "search")


def known_agents(game: str = "nos") -> list[str]:
    """The agent names ``game`` has (without model:PATH); a ValueError for an unknown game."""
    if game == "nos":
        return sorted(AGENTS)
    from .family.games import check_game

    check_game(game)
    return sorted(FAMILY_AGENTS)


def check_agent_spec(spec: str, game: str = "nos") -> None:
    """Raise a clear ValueError unless ``spec`` names an agent of ``game`` (``make_agent`` would build it)."""
    if not isinstance(spec, str):
        raise ValueError(f"an agent is given by name, got {spec!r}")
    if spec.startswith(SEARCH_PRIOR_PREFIX):
        inner = search_prior_spec(spec)
        if game != "nos":
            raise ValueError(f"{spec!r}: Search with a model as its prior plays Nos only, not {game}")
        check_agent_spec(inner, game)
        return
    if spec.startswith(MODEL_PREFIX):
        from pathlib import Path

        path = Path(spec[len(MODEL_PREFIX):])
        if not path.is_file():
            raise ValueError(f"no trained model at {str(path)!r} (agent {spec!r})")
        # A trained model plays through torch and sb3-contrib: the train extra, not the core install.
        require("train", f"the agent {spec!r} (a trained model)", ("torch", "stable_baselines3", "sb3_contrib"))
        return
    if spec.startswith(ENSEMBLE_PREFIX):
        from pathlib import Path

        missing = [p for p in ensemble_paths(spec) if not Path(p).is_file()]
        if missing:
            raise ValueError(f"no trained model at {', '.join(repr(p) for p in missing)} (agent {spec!r})")
        require("train", f"the agent {spec!r} (trained models)", ("torch", "stable_baselines3", "sb3_contrib"))
        return
    if spec.startswith(RLLIB_PREFIX):
        from pathlib import Path

        path = Path(spec[len(RLLIB_PREFIX):])
        if not path.is_dir():
            raise ValueError(f"no RLlib module checkpoint folder at {str(path)!r} (agent {spec!r})")
        require("ray", f"the agent {spec!r} (a trained RLlib module)", ("ray", "torch"))
        return
    if spec not in known_agents(game):
        raise ValueError(f"unknown agent {spec!r} for {game}; known: {known_agents(game)}, model:PATH, "
                         f"ensemble:PATH,PATH[,...], rllib:PATH" + (" or search+model:PATH (search+ensemble:...)"
                                                                  if game == "nos" else ""))


def agent_label(spec) -> str:
    """The short name an agent spec or instance is reported under."""
    if isinstance(spec, str):
        if spec.startswith(SEARCH_PRIOR_PREFIX):
            return "search+" + agent_label(spec[len(SEARCH_PRIOR_PREFIX):])
        if spec.startswith(RLLIB_PREFIX):
            return "rllib"
        if spec.startswith(ENSEMBLE_PREFIX):
            return "ensemble"
        return "model" if spec.startswith(MODEL_PREFIX) else spec
    return getattr(spec, "name", type(spec).__name__)


def make_agent(name: str, seed: int | None = 0, game: str = "nos", rules=None, **kwargs):
    """An agent by name (``AGENTS`` for Nos, ``FAMILY_AGENTS`` for a family game, which needs
    the game's ``rules``: ``FamilyTables.rules`` or ``nos_env.family.rules.make_rules``), a
    trained model by ``model:PATH``, trained models of one game as one agent by
    ``ensemble:PATH,PATH[,...]``, a trained RLlib module (Nos) by ``rllib:PATH``, or Search with
    a trained model as its prior (Nos) by ``search+model:PATH`` / ``search+ensemble:PATH,PATH``
    (``kwargs`` go to the SearchAgent)."""
    check_agent_spec(name, game)
    if name.startswith(SEARCH_PRIOR_PREFIX):
        # The model has its own seed, apart from the search's (as Search's own prior has).
        prior = make_agent(search_prior_spec(name), seed=None if seed is None else seed + 15485863)
        return SearchAgent(seed=seed, prior=prior, **kwargs)
    if name.startswith(RLLIB_PREFIX):
        from .rllib_module import RLlibAgent  # ray and torch are imported only when one is asked for

        return RLlibAgent(name[len(RLLIB_PREFIX):], seed=seed, game=game, **kwargs)
    if name.startswith(MODEL_PREFIX):
        from .model import ModelAgent  # torch is imported only when a model is asked for

        return ModelAgent(name[len(MODEL_PREFIX):], seed=seed, **kwargs)
    if name.startswith(ENSEMBLE_PREFIX):
        from .model import EnsembleAgent

        return EnsembleAgent(ensemble_paths(name), seed=seed, **kwargs)
    if game == "nos":
        return AGENTS[name](seed=seed, **kwargs)
    from .family import make_family_agent

    if rules is None:
        from .family.games import make_rules

        rules = make_rules(game)
    if rules.game != game:
        raise ValueError(f"the rules given are {rules.game!r}'s, the agent was asked for {game!r}")
    return make_family_agent(name, rules, seed=seed, **kwargs)
