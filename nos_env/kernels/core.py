"""The shared layer of the fast engine: what every game's kernels do the same way.

- random: SplitMix64 per table (:func:`next_u64`, :func:`below`; ``rng.py`` is the same
  generator in plain Python);
- seats: :func:`rel` (seat offset from an observer, D18) and :func:`after` (the seat i to
  the left);
- legal actions: :func:`allow` appends to a table's mask and sorted list; :func:`sample_legal`
  draws a uniformly random legal action per table from the caller's own streams;
- :data:`IDLE`: the action that leaves a table untouched for one step;
- the illegal-action policy: raise (:func:`first_illegal`, or :func:`first_bad_action` with
  the range test, finds the table to report) or
  D16 penalties (:func:`count_penalty` keeps where they came, :func:`clear_penalties`;
  :func:`first_beyond` guards the chips);
- one step's bookkeeping: :func:`idle_step`, :func:`chips_before`, :func:`record_decision`
  (the per-hand history), :func:`pay_rewards` (chip changes plus pending rewards,
  termination, final chips), :func:`start_pending` (an episode's opening payments wait for
  the table's next step, so auto-reset loses none).

How a game's batch loop reaches its rule kernels (measured, numba 0.68, ``cache=True``):

- a shared loop taking the game's kernels as first-class function arguments compiles and
  runs, but numba keys its cache on the dispatcher object, so every process misses the cache
  and recompiles (0.3 s for a 3-line loop, about 40 s for Nos's);
- a factory (``make_step_batch(game)`` returning an ``njit`` closure over the game's kernels)
  misses the cache the same way and writes a new cache entry per process;
- a thin per-game wrapper over shared inline helpers: the game's module holds its own
  ``step_batch``/``step_batch_parallel``/``observe_batch`` loops (a few lines each), the
  helpers here are ``inline="always"``, so the compiled code is what one file would give,
  every kernel is a module-level function and caches.

The third is what every game does: see ``nos_env/games/nos/batch.py``. Common state columns
(``schema.COMMON_TABLE``, ``COMMON_SEAT``) sit at the same index in every game, so they are
folded here; the history and penalty widths come from the arrays' shapes, which differ per game.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ..rng import GAMMA
from .schema import common_constants

#: Options of every serial kernel. The kernels never allocate or keep an array, so numba's
#: reference counting would only add calls for each array argument at every inlined helper
#: (about 40 in Nos's ``encode`` alone); ``_nrt=False`` compiles them without it.
KERNEL = {"cache": True, "_nrt": False}
#: Options of a small helper: KERNEL, inlined into its caller.
INLINE = {"cache": True, "_nrt": False, "inline": "always"}

_C = common_constants()
T_PHASE, T_TO_MOVE, T_DONE, T_HANDS_LEFT, T_HAND_INDEX = (_C["T_PHASE"], _C["T_TO_MOVE"], _C["T_DONE"],
                                                          _C["T_HANDS_LEFT"], _C["T_HAND_INDEX"])
T_NLEGAL, T_NHIST, T_BONE_TOP, T_BONE_END = _C["T_NLEGAL"], _C["T_NHIST"], _C["T_BONE_TOP"], _C["T_BONE_END"]
S_CHIPS, S_CHIPS_HAND, S_CHIPS_EPISODE, S_PENDING = (_C["S_CHIPS"], _C["S_CHIPS_HAND"], _C["S_CHIPS_EPISODE"],
                                                     _C["S_PENDING"])

#: The action value that leaves a table untouched for one ``step_batch`` call (self-play
#: steps only the tables whose seat to move is an opponent).
IDLE = -1

U_GAMMA = np.uint64(GAMMA)
U_M1 = np.uint64(0xBF58476D1CE4E5B9)
U_M2 = np.uint64(0x94D049BB133111EB)


# ------------------------------------------------------------------- random
@njit(**INLINE)
def next_u64(R, b):
    s = R[b] + U_GAMMA
    R[b] = s
    z = (s ^ (s >> np.uint64(30))) * U_M1
    z = (z ^ (z >> np.uint64(27))) * U_M2
    return z ^ (z >> np.uint64(31))


@njit(**INLINE)
def below(R, b, n):
    """A number 0..n-1 from table b's stream (rng.SplitMix64.below)."""
    return np.int64((next_u64(R, b) >> np.uint64(32)) % np.uint64(n))


# ------------------------------------------------------------------- seats
@njit(**INLINE)
def rel(s, seat, n):
    """(s - seat) % n for seats 0..n-1, without a division."""
    r = s - seat
    return r + n if r < 0 else r


@njit(**INLINE)
def after(seat, i, n):
    """(seat + i) % n for 0 <= i <= n, without a division."""
    s = seat + i
    return s - n if s >= n else s


# ------------------------------------------------------------- legal actions
@njit(**INLINE)
def allow(MASK, LEGAL, b, count, action):
    """Marks action legal and appends it to the table's list; returns the new count."""
    MASK[b, action] = 1
    LEGAL[b, count] = action
    return count + 1


@njit(**INLINE)
def _sample_one(T, LEGAL, R, out, b):
    count = T[b, T_NLEGAL]
    out[b] = LEGAL[b, below(R, b, count)] if count > 0 else IDLE  # a finished table waits


@njit(cache=True, parallel=True)
def sample_legal(T, LEGAL, R, out):
    """A uniformly random legal action per table, from the policy's own streams R (uint64 [B])."""
    for b in prange(LEGAL.shape[0]):
        _sample_one(T, LEGAL, R, out, b)


@njit(**KERNEL)
def sample_legal_serial(T, LEGAL, R, out):
    """``sample_legal`` on the calling thread only (the same draws)."""
    for b in range(LEGAL.shape[0]):
        _sample_one(T, LEGAL, R, out, b)


# ------------------------------------------------------- illegal-action policy
@njit(**KERNEL)
def first_bad_action(MASK, actions, low, high):
    """One pass over int64 ``actions``: ``(b, True)`` for the first table whose action is
    outside ``low..high-1``, else ``(b, False)`` for the first illegal one (IDLE tables are
    skipped), else ``(-1, False)``. Checking an action array with numpy first (a range test,
    then a copy) cost as much as this whole pass (docs/benchmarks.md, 2026-11-26)."""
    illegal = -1
    for b in range(actions.shape[0]):
        a = actions[b]
        if a < low or a >= high:
            return b, True
        if illegal < 0 and a != IDLE and MASK[b, a] == 0:
            illegal = b
    return illegal, False


@njit(**KERNEL)
def first_illegal(MASK, actions):
    """The first table whose action is not legal, or -1 (IDLE tables are skipped)."""
    for b in range(MASK.shape[0]):
        if actions[b] != IDLE and MASK[b, actions[b]] == 0:
            return b
    return -1


@njit(**KERNEL)
def first_beyond(S, n, guard):
    """The first table with a seat's chips beyond +-guard, or -1 (penalty mode's check, options.py)."""
    for b in range(S.shape[0]):
        for s in range(n):
            if S[b, s, S_CHIPS] > guard or S[b, s, S_CHIPS] < -guard:
                return b
    return -1


@njit(**KERNEL)
def clear_penalties(PEN, b):
    """A new hand's penalty counts start at zero. PEN holds the counts after each of the hand's
    first ``H.shape[1]`` decisions and, last, a flag set once the row has any (so a row is
    cleared only then); without the penalty option PEN has a single, unused column."""
    dirty = PEN.shape[1] - 1
    if dirty > 0 and PEN[b, dirty]:
        for k in range(PEN.shape[1]):
            PEN[b, k] = 0


@njit(**INLINE)
def count_penalty(T, PEN, b):
    """A D16 penalty, counted where it came (after the hand's T_NHIST decisions), not kept as
    a decision: the history stays bounded. The game pays it."""
    k = T[b, T_NHIST]
    dirty = PEN.shape[1] - 1
    if k < dirty:
        PEN[b, k] += 1
    PEN[b, dirty] = 1


# ------------------------------------------------------------ a new episode's record
@njit(**INLINE)
def fresh_record(T, LEGAL, H, b):
    """A new episode (a reset, an autoreset or a loaded deal) starts its record clean: the
    decision history empty and zeroed, and the legal list zeroed past its T_NLEGAL entries (call
    it after the mask is computed). Then a table's whole state after a reset depends on its seed
    alone, never on the episode before it, so snapshots of two tables reset alike compare equal
    (tests/test_reset_state.py)."""
    T[b, T_NHIST] = 0
    for k in range(H.shape[1]):
        H[b, k] = 0
    for i in range(T[b, T_NLEGAL], LEGAL.shape[1]):
        LEGAL[b, i] = 0


@njit(**KERNEL)
def fresh_record_table(T, LEGAL, H, b):
    """fresh_record for the tables' Python side (after a loaded deal)."""
    fresh_record(T, LEGAL, H, b)


# ------------------------------------------------------------ one step's books
@njit(**INLINE)
def idle_step(T, rewards, terminated, current, b, seats):
    """An IDLE table waits: nothing changes, nothing is paid, its obs row is not written."""
    for s in range(seats):
        rewards[b, s] = 0
    terminated[b] = 0
    current[b] = T[b, T_TO_MOVE]


@njit(**INLINE)
def chips_before(S, rewards, b, seats):
    """Keeps each seat's chips in its reward slot before the step (pay_rewards takes the difference)."""
    for s in range(seats):
        rewards[b, s] = S[b, s, S_CHIPS]


@njit(**INLINE)
def record_decision(T, H, PEN, b, a, hand_index):
    """The legal decision a joins the hand's history, the one that ends the hand included;
    when a new hand of the session has started (T_HAND_INDEX moved on), its history starts
    empty instead, and so do its penalty counts."""
    if T[b, T_HAND_INDEX] == hand_index:
        k = T[b, T_NHIST]
        if k < H.shape[1]:
            H[b, k] = a
        T[b, T_NHIST] = k + 1  # beyond H's width: an overflow, reported when the hand is rebuilt
    else:
        clear_penalties(PEN, b)


@njit(**INLINE)
def pay_rewards(T, S, rewards, terminated, final_chips, b, seats):
    """Rewards are chip changes plus the pending ones; a finished episode's chips go to final_chips."""
    for s in range(seats):
        rewards[b, s] = S[b, s, S_CHIPS] - rewards[b, s] + S[b, s, S_PENDING]
        S[b, s, S_PENDING] = 0
    terminated[b] = T[b, T_DONE]
    if T[b, T_DONE]:
        for s in range(seats):
            final_chips[b, s] = S[b, s, S_CHIPS]


@njit(**INLINE)
def start_pending(S, b, n):
    """After a reset: the chips the new episode paid before its first decision (a forced
    opening) wait in S_PENDING for the table's next step."""
    for s in range(n):
        S[b, s, S_PENDING] = S[b, s, S_CHIPS] - S[b, s, S_CHIPS_EPISODE]
