"""Nos's batch entry points: B tables reset, stepped and observed at once.

Thin per-game loops over the shared layer (``nos_env/kernels/core.py``, whose docstring
says why a game writes these few lines itself instead of passing its kernels to a shared
loop: that is what keeps numba's cache and the speed). What is Nos's here: the rule kernels
called (``apply_action``, ``settle``, ``new_episode``, ``encode``), the D16 penalty's
payments and the finished episode's statistics (``F_*``).
"""

from __future__ import annotations

from numba import njit, prange

from ...engine import PENALTY_PAYMENT
from ...kernels import core
from ...kernels.core import IDLE, KERNEL
from .kernels import _pay, apply_action, new_episode, settle
from .observe import encode
from .state import (
    F_ANN,
    F_CLOSE_RIGHT,
    F_CLOSE_WRONG,
    F_END,
    F_ON_SET,
    F_PAY,
    MAX_SEATS,
    R_PENALTY,
    REASONS,
    S_PAY,
    T_ANN,
    T_CLOSE_RIGHT,
    T_CLOSE_WRONG,
    T_DONE,
    T_END,
    T_HAND_INDEX,
    T_ON_SET,
    T_TO_MOVE,
)


@njit(**KERNEL)
def _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, H, b, n, hands, first_rule, chips, auto):
    new_episode(T, S, A, L, BONE, R, b, n, hands, first_rule, chips)
    settle(T, S, A, L, BONE, R, MASK, LEGAL, b, n, auto)
    core.fresh_record(T, LEGAL, H, b)
    core.start_pending(S, b, n)


@njit(**KERNEL)
def reset_batch(T, S, A, L, BONE, R, MASK, LEGAL, H, n, hands, first_rule, chips, auto, tables):
    for i in range(tables.shape[0]):
        _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, H, tables[i], n, hands, first_rule, chips, auto)


@njit(**KERNEL)
def _penalise(T, S, PEN, b, n):
    """D16 penalty option: 40 to every other player, the same seat again. A finished table
    (autoreset off) has nobody to move and takes no penalty. A call of its own, so
    _step_one's legal-action path stays as it was."""
    seat = T[b, T_TO_MOVE]
    if seat < 0:
        return
    for s in range(n):
        if s != seat:
            _pay(S, b, seat, s, PENALTY_PAYMENT, R_PENALTY)
    core.count_penalty(T, PEN, b)


@njit(**KERNEL, inline="always")
def _final_stats(T, S, final_stats, b):
    final_stats[b, F_ANN] = T[b, T_ANN]
    final_stats[b, F_ON_SET] = T[b, T_ON_SET]
    final_stats[b, F_END] = T[b, T_END]
    final_stats[b, F_CLOSE_RIGHT] = T[b, T_CLOSE_RIGHT]
    final_stats[b, F_CLOSE_WRONG] = T[b, T_CLOSE_WRONG]
    for s in range(MAX_SEATS):
        for r in range(len(REASONS)):
            final_stats[b, F_PAY + s * len(REASONS) + r] = S[b, s, S_PAY + r]


@njit(**KERNEL)
def _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, a, auto, penalty, hands, first_rule, chips,
              rewards, terminated, final_chips, final_stats, current, autoreset):
    if a == IDLE:
        core.idle_step(T, rewards, terminated, current, b, MAX_SEATS)
        return
    core.chips_before(S, rewards, b, MAX_SEATS)
    if MASK[b, a] == 0:
        if penalty:
            _penalise(T, S, PEN, b, n)
    else:
        hand_index = T[b, T_HAND_INDEX]
        apply_action(T, S, A, L, BONE, b, n, a)
        settle(T, S, A, L, BONE, R, MASK, LEGAL, b, n, auto)
        core.record_decision(T, H, PEN, b, a, hand_index)
    core.pay_rewards(T, S, rewards, terminated, final_chips, b, MAX_SEATS)
    if T[b, T_DONE]:
        _final_stats(T, S, final_stats, b)
        if autoreset:
            _reset_one(T, S, A, L, BONE, R, MASK, LEGAL, H, b, n, hands, first_rule, chips, auto)
            core.clear_penalties(PEN, b)
    current[b] = T[b, T_TO_MOVE]


@njit(**KERNEL)
def _observe_row(T, S, A, L, b, n, seat, obs, chip_scale):
    if seat >= 0:
        encode(T, S, A, L, b, n, seat, obs[b], chip_scale)
    else:  # a finished table without autoreset: nobody is to move
        for i in range(obs.shape[1]):
            obs[b, i] = 0


@njit(**KERNEL)
def step_batch(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, n, actions, auto, penalty, hands, first_rule, chips,
               rewards, terminated, final_chips, final_stats, current, obs, observe, chip_scale, autoreset):
    """One action per table (serial). Rewards are chip changes; a finished episode is reported
    in ``terminated`` with its final rewards and chips, then (with ``autoreset``) the table
    starts its next episode, whose own opening payments (a D12 forced set) wait in
    S_PENDING for the table's next step."""
    for b in range(T.shape[0]):
        _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, actions[b], auto, penalty, hands, first_rule, chips,
                  rewards, terminated, final_chips, final_stats, current, autoreset)
    if observe:
        for b in range(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, A, L, b, n, current[b], obs, chip_scale)


@njit(cache=True, parallel=True)
def step_batch_parallel(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, n, actions, auto, penalty, hands, first_rule, chips,
                        rewards, terminated, final_chips, final_stats, current, obs, observe, chip_scale,
                        autoreset):
    """step_batch over all cores: tables are independent. The observations are a second pass:
    interleaving their 4 KB rows with the steps pushes the state out of the caches (about 5%)."""
    for b in prange(T.shape[0]):
        _step_one(T, S, A, L, BONE, R, MASK, LEGAL, H, PEN, b, n, actions[b], auto, penalty, hands, first_rule, chips,
                  rewards, terminated, final_chips, final_stats, current, autoreset)
    if observe:
        for b in prange(T.shape[0]):
            if actions[b] != IDLE:
                _observe_row(T, S, A, L, b, n, current[b], obs, chip_scale)


@njit(**KERNEL)
def observe_batch(T, S, A, L, n, seats, obs, chip_scale):
    for b in range(T.shape[0]):
        encode(T, S, A, L, b, n, seats[b], obs[b], chip_scale)


@njit(cache=True, parallel=True)
def observe_batch_parallel(T, S, A, L, n, seats, obs, chip_scale):
    for b in prange(T.shape[0]):
        encode(T, S, A, L, b, n, seats[b], obs[b], chip_scale)
