"""Rewards of the family environments: the engines' points turned into what an agent learns from.

Both engines report, for every step, the points each seat gained (team games: both
partners carry the team's points). The option ``reward`` (family contract, "Scores and
rewards") chooses what an agent receives:

- ``"relative"`` (default): the seat's points minus the mean of the other seats' points in
  that step. The rewards of a step add up to zero, so a seat is paid for gaining on the
  table, not for a generous game;
- ``"points"``: the seat's own points;
- ``"win"``: 0 until the episode ends, then +1 to every seat on the winning side and
  -1/(G-1) to every other seat, G being the number of sides (seats, or the two teams of
  F20): a zero-sum result. No winner (a tie, F15): 0 for everyone.

One module for the AEC environment (one row) and the vector environment (B rows), so
both pay exactly the same.
"""

from __future__ import annotations

import numpy as np
from numba import njit

REWARDS = ("relative", "points", "win")


def check_reward(value: object) -> str:
    if not isinstance(value, str) or value not in REWARDS:
        raise ValueError(f"reward must be one of {list(REWARDS)}, got {value!r}")
    return value


def sides(num_players: int, teams: bool) -> np.ndarray:
    """The side of each seat: the seat itself, or its team (F20: seats 0 and 2 are team A)."""
    if teams:
        return np.arange(num_players) % 2
    return np.arange(num_players)


def relative(points: np.ndarray) -> np.ndarray:
    """[..., n] points -> [..., n] float32: each seat's points minus the others' mean."""
    points = np.asarray(points)
    if points.ndim == 1:
        return _relative_rows(points.reshape(1, -1).astype(np.int64))[0]
    return _relative_rows(points.reshape(-1, points.shape[-1]).astype(np.int64)).reshape(points.shape)


@njit(cache=True, inline="always")
def _relative_seat(total, p, n):
    # float64 arithmetic rounded once to float32: the same floats for one row (AEC), a batch
    # and the vector environment's step (pay_step below).
    p = float(p)
    others = (float(total) - p) / (n - 1)
    return np.float32(p - others)


@njit(cache=True)
def _relative_rows(points):
    # One compiled loop (a step's numpy expression took 120 us at B=4096, a sixth of the step).
    rows, n = points.shape
    out = np.zeros((rows, n), np.float32)
    for r in range(rows):
        total = 0
        for i in range(n):
            total += points[r, i]
        for i in range(n):
            out[r, i] = _relative_seat(total, points[r, i], n)
    return out


@njit(cache=True)
def pay_step(points, carried, relative_mode, rewards):
    """The vector environment's rewards of one step, in one pass over the batch:
    ``rewards[b] = relative(points[b, :n] + carried[b])`` (or the points themselves), then
    ``carried`` cleared. ``rewards`` float32 [B, n] must be zeros: a row whose points are all
    zero (most rows of most steps) pays zero in both modes and is skipped (the relative
    formula gives +0.0 there too), which saved 40 to 80 us a step at B=4096 beside the
    separate numpy sum, ``relative`` and clearing (docs/benchmarks.md, 2026-11-26)."""
    rows, n = carried.shape
    for r in range(rows):
        total = 0
        nonzero = False
        for i in range(n):
            p = points[r, i] + carried[r, i]
            total += p
            nonzero |= p != 0
        if not nonzero:
            for i in range(n):
                carried[r, i] = 0
            continue
        for i in range(n):
            p = points[r, i] + carried[r, i]
            rewards[r, i] = _relative_seat(total, p, n) if relative_mode else np.float32(p)
            carried[r, i] = 0


def win(winners: np.ndarray, side_of: np.ndarray) -> np.ndarray:
    """[..., n] bool winners (every seat of the winning side marked, or none) -> [..., n] float32.

    Winners get +1, the others -1/(G-1) with G = the number of sides; a row without a winner gets 0.
    """
    winners = np.asarray(winners, bool)
    num_sides = int(side_of.max()) + 1
    lose = np.float32(-1.0 / (num_sides - 1))
    out = np.where(winners, np.float32(1.0), lose).astype(np.float32)
    out[~winners.any(axis=-1)] = 0.0
    return out


def winners_mask(winner, num_players: int, side_of: np.ndarray) -> np.ndarray:
    """An engine's ``winner`` (None, a seat, or a collection of seats) as a bool [n] mask of the
    whole winning side (a team's partner included)."""
    mask = np.zeros(num_players, bool)
    if winner is None:
        return mask
    seats = [winner] if np.ndim(winner) == 0 else list(winner)
    for seat in seats:
        mask |= side_of == side_of[int(seat)]
    return mask


def step_rewards(mode: str, points, *, done: bool, winner, side_of: np.ndarray) -> np.ndarray:
    """One step's rewards [n] float32 under ``mode``; ``winner`` matters only when ``done``."""
    points = np.asarray(points, np.float64)
    if mode == "points":
        return points.astype(np.float32)
    if mode == "relative":
        return relative(points)
    if not done:
        return np.zeros(points.shape, np.float32)
    return win(winners_mask(winner, points.shape[-1], side_of), side_of)
