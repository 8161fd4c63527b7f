"""Nos, the Dutch domino game, for learning agents.

``nos_env.env(num_players=4, **options)`` is the PettingZoo AEC environment
(:mod:`nos_env.env`), ``nos_env.raw_env`` the bare one. The reference rules
engine lives in :mod:`nos_env.engine` (one hand),
:mod:`nos_env.session` (hands with chips carried over) and
:mod:`nos_env.record` (JSON hand records). ``docs/rules/nos.md`` in the
repository is binding; decisions D1..D25 are cited where they apply.
"""

from .actions import Action, format_action, parse_action
from .deal import Deal
from .encoding import decode_compact
from .engine import Event, Hand, IllegalActionError, Payment, new_hand
from . import nos_v0
from .registry import env, game_info, list_games, raw_env, vector_env
from .vector import NosVectorEnv
from .options import Options
from .announcements import ALL_ANNOUNCEMENTS, Announcement, legal_announcements, parse_announcement

__all__ = [
    "ALL_ANNOUNCEMENTS",
    "Action",
    "Announcement",
    "Deal",
    "Event",
    "Hand",
    "IllegalActionError",
    "NosVectorEnv",
    "Options",
    "Payment",
    "decode_compact",
    "env",
    "format_action",
    "game_info",
    "list_games",
    "legal_announcements",
    "new_hand",
    "nos_v0",
    "parse_action",
    "parse_announcement",
    "raw_env",
    "vector_env",
]
