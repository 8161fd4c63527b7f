"""Blind's batch entry points: B tables reset, stepped and observed at once.

Thin loops over the shared layer (``nos_env/kernels/core.py`` says why each game writes
them). Blind's own part: a deal played out without a decision is dealt again from the
table's stream (``T_SKIPPED`` counts them), so a table always has a seat to move.
"""

from __future__ import annotations

from numba import njit, prange

from ...kernels import core
from ...kernels.core import IDLE, KERNEL
from .kernels import apply_action, compute_mask, new_episode
from .observe import encode
from .state import MAX_SEATS, T_DONE, T_SKIPPED, T_TO_MOVE


@njit(**KERNEL)
def _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, H, b, n, first_seat, optional, LOW, HIGH):
    while True:
        new_episode(T, S, A, L, BONE, R, b, n, first_seat, optional, LOW, HIGH)
        if not T[b, T_DONE]:
            break
        T[b, T_SKIPPED] += 1
    compute_mask(T, A, MASK, LEGAL, b, optional, LOW, HIGH)
    core.fresh_record(T, LEGAL, H, b)


@njit(**KERNEL)
def reset_batch(T, S, A, L, BONE, R, MASK, LEGAL, H, n, first_seat, optional, LOW, HIGH, tables):
    for i in range(tables.shape[0]):
        _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, H, tables[i], n, first_seat, optional, LOW, HIGH)


@njit(**KERNEL)
def _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, a, first_seat, optional, LOW, HIGH,
              points, terminated, final_scores, current, autoreset):
    if a == IDLE:
        core.idle_step(T, points, terminated, current, b, MAX_SEATS)
        return
    core.chips_before(S, points, b, MAX_SEATS)
    hand_index = 0
    apply_action(T, S, A, L, b, n, a, optional, LOW, HIGH)
    compute_mask(T, A, MASK, LEGAL, b, optional, LOW, HIGH)
    core.record_decision(T, H, PEN, b, a, hand_index)
    core.pay_rewards(T, S, points, terminated, final_scores, b, MAX_SEATS)
    if T[b, T_DONE] and autoreset:
        _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, H, b, n, first_seat, optional, LOW, HIGH)
    current[b] = T[b, T_TO_MOVE]


@njit(**KERNEL)
def _observe_row(T, S, A, L, b, n, seat, obs, O, LOW, HIGH, scale):
    if seat >= 0:
        encode(T, S, A, L, b, n, seat, obs[b], O, LOW, HIGH, scale)
    else:  # a finished table without autoreset: nobody is to move
        for i in range(obs.shape[1]):
            obs[b, i] = 0


@njit(**KERNEL)
def step_batch(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, n, actions, first_seat, optional, LOW, HIGH,
               points, terminated, final_scores, current, obs, observe, O, scale, autoreset):
    """One decision per table (serial); the actions were checked legal by the caller."""
    for b in range(T.shape[0]):
        _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, actions[b], first_seat, optional, LOW, HIGH,
                  points, terminated, final_scores, current, autoreset)
    if observe:
        for b in range(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, A, L, b, n, current[b], obs, O, LOW, HIGH, scale)


@njit(cache=True, parallel=True)
def step_batch_parallel(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, n, actions, first_seat, optional, LOW, HIGH,
                        points, terminated, final_scores, current, obs, observe, O, scale, autoreset):
    for b in prange(T.shape[0]):
        _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, actions[b], first_seat, optional, LOW, HIGH,
                  points, terminated, final_scores, current, autoreset)
    if observe:
        for b in prange(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, A, L, b, n, current[b], obs, O, LOW, HIGH, scale)


@njit(**KERNEL)
def observe_batch(T, S, A, L, n, seats, obs, O, LOW, HIGH, scale):
    for b in range(T.shape[0]):
        _observe_row(T, S, A, L, b, n, seats[b], obs, O, LOW, HIGH, scale)


@njit(cache=True, parallel=True)
def observe_batch_parallel(T, S, A, L, n, seats, obs, O, LOW, HIGH, scale):
    for b in prange(T.shape[0]):
        _observe_row(T, S, A, L, b, n, seats[b], obs, O, LOW, HIGH, scale)
