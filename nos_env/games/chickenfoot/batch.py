"""Chickenfoot's batch entry points: B tables reset, stepped and observed at once.

Thin loops over the shared layer (``nos_env/kernels/core.py`` says why each game writes them).
"""

from __future__ import annotations

from numba import njit, prange

from ...kernels import core
from ...kernels.core import IDLE, KERNEL
from .kernels import apply_action, compute_mask, new_episode, open_hand, settle
from .observe import encode
from .state import MAX_SEATS, P_OVER, T_DONE, T_HAND_INDEX, T_PHASE, T_TO_MOVE


@njit(**KERNEL)
def _reset_one(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF):
    new_episode(T, S, SSET, A, L, BONE, R, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF)
    compute_mask(T, SSET, A, MASK, LEGAL, b, LOW, HIGH)
    core.fresh_record(T, LEGAL, H, b)


@njit(**KERNEL)
def reset_batch(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF, tables):
    for i in range(tables.shape[0]):
        _reset_one(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, tables[i], n, k, num_hands, redeal, LOW, HIGH, SUIT,
                   DOUBLE_OF)


@njit(**KERNEL)
def load_hand(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, b, n, k, num_hands, redeal, set_number, setter, LOW, HIGH,
              SUIT, DOUBLE_OF):
    """A hand whose HAND/DEALT sets, yard (BONE from T_BONE_TOP), hand index and chips the
    caller has written: open it (the set), settle and mask."""
    T[b, T_DONE] = 0
    if open_hand(T, S, SSET, A, L, b, n, set_number, setter, LOW, HIGH, SUIT, DOUBLE_OF):
        T[b, T_PHASE] = P_OVER
        settle(T, S, SSET, A, L, BONE, R, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF)
    compute_mask(T, SSET, A, MASK, LEGAL, b, LOW, HIGH)
    core.fresh_record(T, LEGAL, H, b)


@njit(**KERNEL)
def _step_one(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF,
              a, points, terminated, final_scores, current, autoreset):
    if a == IDLE:
        core.idle_step(T, points, terminated, current, b, MAX_SEATS)
        return
    core.chips_before(S, points, b, MAX_SEATS)
    hand_index = T[b, T_HAND_INDEX]
    apply_action(T, S, SSET, A, L, BONE, b, n, a, LOW, HIGH, SUIT)
    settle(T, S, SSET, A, L, BONE, R, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF)
    compute_mask(T, SSET, A, MASK, LEGAL, b, LOW, HIGH)
    core.record_decision(T, H, PEN, b, a, hand_index)
    core.pay_rewards(T, S, points, terminated, final_scores, b, MAX_SEATS)
    if T[b, T_DONE] and autoreset:
        _reset_one(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, b, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF)
    current[b] = T[b, T_TO_MOVE]


@njit(**KERNEL)
def _observe_row(T, S, SSET, A, L, b, n, seat, obs, O, LOW, HIGH, scale):
    if seat >= 0:
        encode(T, S, SSET, A, L, b, n, seat, obs[b], O, LOW, HIGH, scale)
    else:  # a finished table without autoreset: nobody is to move
        for i in range(obs.shape[1]):
            obs[b, i] = 0


@njit(**KERNEL)
def step_batch(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, PEN, n, k, num_hands, redeal, LOW, HIGH, SUIT, DOUBLE_OF,
               actions, points, terminated, final_scores, current, obs, observe, O, scale, autoreset):
    """One decision per table (serial); the actions were checked legal by the caller."""
    for b in range(T.shape[0]):
        _step_one(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, k, num_hands, redeal, LOW, HIGH, SUIT,
                  DOUBLE_OF, actions[b], points, terminated, final_scores, current, autoreset)
    if observe:
        for b in range(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, SSET, A, L, b, n, current[b], obs, O, LOW, HIGH, scale)


@njit(cache=True, parallel=True)
def step_batch_parallel(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, PEN, n, k, num_hands, redeal, LOW, HIGH, SUIT,
                        DOUBLE_OF, actions, points, terminated, final_scores, current, obs, observe, O, scale,
                        autoreset):
    for b in prange(T.shape[0]):
        _step_one(T, S, SSET, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, k, num_hands, redeal, LOW, HIGH, SUIT,
                  DOUBLE_OF, actions[b], points, terminated, final_scores, current, autoreset)
    if observe:
        for b in prange(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, SSET, A, L, b, n, current[b], obs, O, LOW, HIGH, scale)


@njit(**KERNEL)
def observe_batch(T, S, SSET, A, L, n, seats, obs, O, LOW, HIGH, scale):
    for b in range(T.shape[0]):
        _observe_row(T, S, SSET, A, L, b, n, seats[b], obs, O, LOW, HIGH, scale)


@njit(cache=True, parallel=True)
def observe_batch_parallel(T, S, SSET, A, L, n, seats, obs, O, LOW, HIGH, scale):
    for b in prange(T.shape[0]):
        _observe_row(T, S, SSET, A, L, b, n, seats[b], obs, O, LOW, HIGH, scale)


@njit(**KERNEL)
def refresh_mask(T, SSET, A, MASK, LEGAL, b, LOW, HIGH):
    """The legal actions again after the caller changed a hand (search's determinizations)."""
    compute_mask(T, SSET, A, MASK, LEGAL, b, LOW, HIGH)
