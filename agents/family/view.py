"""What a family agent reads: the observation by slice name, and what each action id means.

Every family game has its own observation layout and action space (the contract of issue 15,
``nos_env.family.encoding``): N tiles (28 or 55), A arms, S seats at most. A
:class:`FamilyView` is built once per rules object and gives

- :meth:`FamilyView.slice`: a named slice of a batch of float32 observations, shaped
  ``[B, *shape]`` (``observation_layout(rules)``);
- per action id: ``KIND`` (PLAY, SET, DRAW, PASS), ``TILE`` and ``ARM`` (-1 where none) and
  ``SIDE`` (Matador's outward number: 0 the tile's lower number faces outward, 1 the higher);
- per tile: ``LOW``, ``HIGH``, ``PIPS``, ``IS_DOUBLE`` (``nos_env.kernels.tilesets``, the
  low-major order every family encoding uses).

Agents read only this: the observation, the mask, and these public tables (never hidden
state; F24).
"""

from __future__ import annotations

from functools import cache

import numpy as np

PLAY, SET, DRAW, PASS = 0, 1, 2, 3
KIND_NAMES = ("play", "set", "draw", "pass")


@cache
def set_tiles(max_pip: int) -> tuple[tuple[int, int], ...]:
    """The tiles (a, b), a <= b, of the double-``max_pip`` set in the engines' index order (low-major:
    0-0, 0-1, ..., 0-m, 1-1, ...; family.md "Tiles and sets"). Agents do not import the kernel library."""
    return tuple((a, b) for a in range(max_pip + 1) for b in range(a, max_pip + 1))


class FamilyView:
    """Observation slices and action tables of one family game's rules (see the module)."""

    def __init__(self, rules):
        from nos_env.family_backends import encoding_module

        encoding = encoding_module(rules.game)
        self.rules = rules
        self.game = rules.game
        self.num_players = int(rules.num_players)
        self.N = int(rules.num_tiles)
        self.A = int(rules.num_arms)
        self.M = int(rules.max_pip)
        self.seven = getattr(rules, "matching", "equal") == "seven"  # Matador: ends add to seven, side named
        self.layout = encoding.observation_layout(rules)
        self.S = int(self.layout["seat_present"][2][0])  # the game's largest player count
        self.observation_size = max(stop for _, stop, _ in self.layout.values())
        self.tiles = set_tiles(self.M)
        if len(self.tiles) != self.N:
            raise ValueError(f"rules of {self.game!r} have {self.N} tiles, the double-{self.M} set {len(self.tiles)}")
        self.index = {t: i for i, t in enumerate(self.tiles)}
        pairs = np.array(self.tiles, np.int64).reshape(-1, 2)
        for name, values in (("LOW", pairs[:, 0]), ("HIGH", pairs[:, 1]), ("PIPS", pairs.sum(1)),
                             ("IS_DOUBLE", pairs[:, 0] == pairs[:, 1])):
            values.flags.writeable = False
            setattr(self, name, values)
        sides = 2 if self.seven else 1
        self.P = self.N * self.A * sides
        self.num_actions = self.P + self.N + 2
        kind = np.full(self.num_actions, PLAY, np.int64)
        tile = np.full(self.num_actions, -1, np.int64)
        arm = np.full(self.num_actions, -1, np.int64)
        side = np.zeros(self.num_actions, np.int64)
        ids = np.arange(self.P)
        tile[: self.P] = ids // sides // self.A
        arm[: self.P] = ids // sides % self.A
        side[: self.P] = ids % sides
        kind[self.P: self.P + self.N] = SET
        tile[self.P: self.P + self.N] = np.arange(self.N)
        kind[self.P + self.N] = DRAW
        kind[self.P + self.N + 1] = PASS
        for a in (kind, tile, arm, side):
            a.flags.writeable = False
        if hasattr(encoding, "num_actions") and int(encoding.num_actions(rules)) != self.num_actions:
            raise ValueError(f"{self.game}: the encoding has {encoding.num_actions(rules)} actions, "
                             f"the contract's layout {self.num_actions}")
        self.KIND, self.TILE, self.ARM, self.SIDE = kind, tile, arm, side
        # The number a play leaves open on its arm (-1: not a play; a double leaves its own).
        # Equal matching: the number of the tile that does not match the arm's open end, known
        # only with the position (outward_number); Matador names it with the side.
        self.OUTWARD_SIDE = np.where(kind == PLAY, np.where(side == 0, self.LOW[np.maximum(tile, 0)],
                                                            self.HIGH[np.maximum(tile, 0)]), -1)

    def slice(self, obs: np.ndarray, name: str) -> np.ndarray:
        start, stop, shape = self.layout[name]
        return obs[:, start:stop].reshape((obs.shape[0],) + tuple(shape))

    def check(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The batch as float32 [B, D], checked against this game's sizes (compact uint8 rows, the
        vector API's default, are decoded with the default ``score_scale``)."""
        obs = np.asarray(obs)
        if obs.dtype == np.uint8:
            from nos_env.family_backends import encoding_module

            obs = encoding_module(self.game).decode_compact(obs, self.rules)
        if obs.ndim != 2 or obs.shape[1] != self.observation_size:
            raise ValueError(f"{self.game} observations must be float32 [B, {self.observation_size}], "
                             f"got {obs.dtype} {obs.shape}")
        masks = np.asarray(masks)
        if masks.shape != (obs.shape[0], self.num_actions):
            raise ValueError(f"{self.game} masks must be [B, {self.num_actions}] (one per observation), "
                             f"got {masks.shape}")
        return obs.astype(np.float32, copy=False)

    def outward(self, obs: np.ndarray) -> np.ndarray:
        """[B, actions]: the number each play leaves open on its arm (-1: not a play, or an arm
        that does not exist). Equal matching: the tile's other number than the arm's open end;
        Matador: the named side's number."""
        if self.seven:
            return np.broadcast_to(self.OUTWARD_SIDE, (obs.shape[0], self.num_actions)).copy()
        open_end = self.slice(obs, "arm_open").argmax(axis=2)  # [B, A]
        exists = self.slice(obs, "arm_exists") > 0
        plays = np.flatnonzero(self.KIND == PLAY)
        t, a = self.TILE[plays], self.ARM[plays]
        e = open_end[:, a]  # [B, plays]
        low, high = self.LOW[t][None, :], self.HIGH[t][None, :]
        out = np.full((obs.shape[0], self.num_actions), -1, np.int64)
        out[:, plays] = np.where(exists[:, a], np.where(e == low, high, low), -1)
        return out


@cache
def view_of(rules) -> FamilyView:
    """One view per rules object (rules are frozen dataclasses, so hashable)."""
    return FamilyView(rules)
