"""The family games' batch entry points: B tables reset, stepped and observed at once.

Thin loops over the shared layer (``nos_env/kernels/core.py``; its docstring says why each
game writes these few lines itself: numba's cache and the speed). One compiled loop serves
every family game: the game is in ``CFG``. The family has no penalty mode (F22), so an
illegal action never reaches these loops (``FamilyTables.step`` refuses it first).
"""

from __future__ import annotations

from numba import njit, prange

from ...kernels import core
from ...kernels.core import IDLE, KERNEL
from .kernels import apply_action, new_episode, open_hand, settle
from .observe import encode
from .state import T_DONE, T_HAND_INDEX, T_NHIST, T_TO_MOVE


@njit(**KERNEL)
def _reset_one(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, TT, CFG, ACC, b):
    new_episode(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b)
    settle(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, TT, CFG, ACC, b)
    core.fresh_record(T, LEGAL, H, b)  # the history of the new hand is empty


@njit(**KERNEL)
def reset_batch(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, TT, CFG, ACC, tables):
    for i in range(tables.shape[0]):
        b = tables[i]
        _reset_one(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, TT, CFG, ACC, b)


@njit(**KERNEL)
def _step_one(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, PEN, TT, CFG, ACC, b, a, rewards, terminated,
              final_scores, current, autoreset):
    seats = rewards.shape[1]
    if a == IDLE:
        core.idle_step(T, rewards, terminated, current, b, seats)
        return
    core.chips_before(S, rewards, b, seats)
    hand_index = T[b, T_HAND_INDEX]
    apply_action(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, a)
    settle(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, TT, CFG, ACC, b)
    core.record_decision(T, H, PEN, b, a, hand_index)
    if T[b, T_HAND_INDEX] != hand_index:
        T[b, T_NHIST] = 0  # a new hand's history starts empty (record_decision clears only penalties)
    core.pay_rewards(T, S, rewards, terminated, final_scores, b, seats)
    if T[b, T_DONE] and autoreset:
        _reset_one(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, TT, CFG, ACC, b)
    current[b] = T[b, T_TO_MOVE]


@njit(**KERNEL)
def _observe_row(T, S, TS, SS, A, L, TT, CFG, b, seat, obs, compact, scale):
    if seat >= 0:
        encode(T, S, TS, SS, A, L, TT, CFG, b, seat, obs[b], compact, scale)
    else:  # a finished table without autoreset: nobody is to move
        for i in range(obs.shape[1]):
            obs[b, i] = 0


@njit(**KERNEL)
def step_batch(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, PEN, TT, CFG, ACC, actions, rewards, terminated,
               final_scores, current, obs, observe, compact, scale, autoreset):
    """One action per table (serial); observations of the seats to move in a second pass."""
    for b in range(T.shape[0]):
        _step_one(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, PEN, TT, CFG, ACC, b, actions[b], rewards,
                  terminated, final_scores, current, autoreset)
    if observe:
        for b in range(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, TS, SS, A, L, TT, CFG, b, current[b], obs, compact, scale)


@njit(cache=True, parallel=True)
def step_batch_parallel(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, PEN, TT, CFG, ACC, actions, rewards,
                        terminated, final_scores, current, obs, observe, compact, scale, autoreset):
    """step_batch over every thread: tables are independent."""
    for b in prange(T.shape[0]):
        _step_one(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, PEN, TT, CFG, ACC, b, actions[b], rewards,
                  terminated, final_scores, current, autoreset)
    if observe:
        for b in prange(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, TS, SS, A, L, TT, CFG, b, current[b], obs, compact, scale)


@njit(**KERNEL)
def observe_batch(T, S, TS, SS, A, L, TT, CFG, rows, seats, obs, compact, scale):
    for i in range(rows.shape[0]):
        _observe_into(T, S, TS, SS, A, L, TT, CFG, rows[i], seats[i], obs, i, compact, scale)


@njit(cache=True, parallel=True)
def observe_batch_parallel(T, S, TS, SS, A, L, TT, CFG, rows, seats, obs, compact, scale):
    for i in prange(rows.shape[0]):
        _observe_into(T, S, TS, SS, A, L, TT, CFG, rows[i], seats[i], obs, i, compact, scale)


@njit(**KERNEL)
def _observe_into(T, S, TS, SS, A, L, TT, CFG, b, seat, obs, i, compact, scale):
    if seat >= 0:
        encode(T, S, TS, SS, A, L, TT, CFG, b, seat, obs[i], compact, scale)
    else:
        for j in range(obs.shape[1]):
            obs[i, j] = 0


@njit(**KERNEL)
def load_hand(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, H, TT, CFG, ACC, b, setter):
    """A hand whose deal the caller wrote (FamilyTables.load_deal) begins: its opening, then the mask."""
    open_hand(T, S, TS, SS, A, L, BONE, R, TT, CFG, ACC, b, setter)
    settle(T, S, TS, SS, A, L, BONE, R, MASK, LEGAL, TT, CFG, ACC, b)
    core.fresh_record(T, LEGAL, H, b)
