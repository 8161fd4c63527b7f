"""Lookup tables that turn action indices into their parts, for vectorised agents.

``KIND[a]`` is the action's block (``SET``, ``DRAW``, ``ANNOUNCE``, ``DECLARE``,
``NO_DECLARE``, ``DECLINE``, ``PLAY``, ``PASS``); for plays ``TILE``, ``ARM``,
``SIDE``, ``CLOSE``, ``PIPS``, ``IS_DOUBLE``, ``IS_MATADOR``; for set actions
``TILE``; for announcements ``ANN`` (index into ``ALL_ANNOUNCEMENTS``) and
``GAME``. ``OPENING_PLAYABLE[set_tile, ann]`` is the 28-bit set of tiles that
some arm accepts right after that announcement (from the rules engine's own
layout code), used to judge an announcement by the tiles one could play.
"""

from __future__ import annotations

import numpy as np

from nos_env import encoding as E
from nos_env.announcements import ALL_ANNOUNCEMENTS, game_spec, is_legal_for_set_tile
from nos_env.layout import Layout
from nos_env.tiles import ALL_TILES, TILE_COUNT, TILE_IS_DOUBLE, TILE_IS_MATADOR, mask_from_flags

SET, DRAW, ANNOUNCE, DECLARE, NO_DECLARE, DECLINE, PLAY, PASS = range(8)
A = E.NUM_ACTIONS
KIND = np.full(A, -1, np.int64)
TILE = np.full(A, -1, np.int64)
ARM = np.full(A, -1, np.int64)
SIDE = np.zeros(A, np.int64)
CLOSE = np.zeros(A, bool)
ANN = np.full(A, -1, np.int64)
KIND[E.SET0:E.DRAW] = SET
TILE[E.SET0:E.DRAW] = np.arange(28)
KIND[E.DRAW] = DRAW
KIND[E.ANNOUNCE0:E.DECLARE] = ANNOUNCE
ANN[E.ANNOUNCE0:E.DECLARE] = np.arange(len(ALL_ANNOUNCEMENTS))
KIND[E.DECLARE] = DECLARE
KIND[E.NO_DECLARE] = NO_DECLARE
KIND[E.DECLINE] = DECLINE
KIND[E.PASS] = PASS
KIND[E.PLAY0:E.PASS] = PLAY
TILE[E.PLAY0:E.PASS], ARM[E.PLAY0:E.PASS], SIDE[E.PLAY0:E.PASS], CLOSE[E.PLAY0:E.PASS] = \
    E.play_parts(np.arange(E.PLAY0, E.PASS))

# Per action from the per-tile tables of nos_env.tiles (TILE_COUNT: [0-0] counts 14).
PIPS = np.where(TILE >= 0, TILE_COUNT[np.maximum(TILE, 0)], 0)
IS_DOUBLE = (TILE >= 0) & TILE_IS_DOUBLE[np.maximum(TILE, 0)]
IS_MATADOR = (TILE >= 0) & TILE_IS_MATADOR[np.maximum(TILE, 0)]
GAME = np.array([a.game for a in ALL_ANNOUNCEMENTS], np.int64)


def _opening_playable() -> np.ndarray:
    table = np.zeros((28, len(ALL_ANNOUNCEMENTS)), np.int64)
    for s, set_tile in enumerate(ALL_TILES):
        for i, a in enumerate(ALL_ANNOUNCEMENTS):
            if not is_legal_for_set_tile(a, set_tile):
                continue
            layout = Layout(game_spec(a), set_tile)
            table[s, i] = sum(1 << t for t, tile in enumerate(ALL_TILES) if tile != set_tile and layout.placements(tile))
    return table


OPENING_PLAYABLE = _opening_playable()


def hand_bits(obs: np.ndarray) -> np.ndarray:
    """Each row's own hand as a 28-bit integer."""
    start, stop, _ = E.OBSERVATION_LAYOUT["hand"]
    return mask_from_flags(obs[:, start:stop])
