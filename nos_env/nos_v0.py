"""Nos, version 0: the PettingZoo-style module of the game (``from nos_env import nos_v0``).

``nos_v0.env(**options)``, ``nos_v0.raw_env(**options)`` and
``nos_v0.vector_env(num_envs, **options)``; the table of agents, actions,
observation slices and rewards follows (it is :mod:`nos_env.env`'s).
"""

from . import env as _env_module
from .env import env, raw_env
from .vector import vector_env

__doc__ = (__doc__ or "") + "\n" + (_env_module.__doc__ or "")
__all__ = ["env", "raw_env", "vector_env"]
