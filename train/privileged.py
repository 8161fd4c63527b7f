"""What only the critic sees during training: every other seat's hand (a *privileged critic*).

A hand's outcome depends mostly on tiles the learner cannot see. A value function that
reads only the learner's observation must average over them, so it explains little of the
outcome (explained variance 0.2 to 0.3 in the family games) and the advantages PPO learns
from stay noisy. PerfectDou (Yang et al., 2022) trains the critic on the perfect-information
state instead: the policy still sees only its seat's observation, so what it learns is a
policy that plays from public information, but the advantage of each of its choices is
measured against a baseline that knows the deal.

:func:`privileged_features` builds that extra input for rows of ``FamilyTables`` (the
line/cross/spinner games, and ``ChickenfootTables`` and ``MexicanTrainTables``, whose hands
are bit sets of one or two 64-bit words in the tile set's canonical order; Blind is refused): for each other seat, in playing order from the learner's left, the tiles
it holds, one 0/1 float per tile of the set. The boneyard's tiles are implied (the tiles
no hand holds and the table has not placed), so they are not repeated.

Nos (``nos_env.fast_engine.FastTables``, hands one 28-bit column of ``S``) gets the same
planes and two more of the boneyard, whose order Nos's rules keep hidden (docs/rules/nos.md:
draws come from its top, its bottom two are never drawn): the tile the next draw (or the set)
takes, and the bottom two. The boneyard's *set* is implied as in the family games, but who
draws which tile and which two tiles stay out of play (so whether a closing is certainly
correct, D14) are not; the rest of the order is left out (the next draw is most of what one
decision changes, and each plane costs the critic's first layer 28 inputs).

``agents.policy.NosPolicy(privileged=K)`` routes the last K floats of its observation to the
critic only; a saved model plays without them (``agents.model.PolicyAgent`` fills zeros
that no action logit reads).
"""

from __future__ import annotations

import numpy as np
from nos_env.tiles import ALL_TILES


#: Nos's planes after the other hands: the next draw's tile, the boneyard's bottom two.
NOS_BONEYARD_PLANES = 2


def _is_nos(tables) -> bool:
    from nos_env.fast_engine import FastTables

    return isinstance(tables, FastTables)


def privileged_size(tables) -> int:
    """Floats :func:`privileged_features` gives per row for these tables."""
    if _is_nos(tables):
        return (tables.num_players - 1 + NOS_BONEYARD_PLANES) * len(ALL_TILES)
    _check(tables)
    return (tables.num_players - 1) * tables.rules.num_tiles


def _hand_words(tables):
    """The tables' per-seat hand bit sets, uint64 [B, n, words] (tile t is bit t % 64 of word t // 64),
    or None for tables whose hands are kept otherwise (``hand_sets``: FamilyTables,
    ChickenfootTables, MexicanTrainTables)."""
    return getattr(tables, "hand_sets", None)


def _check(tables) -> None:
    if _hand_words(tables) is None:
        raise ValueError(f"the privileged critic reads Nos's FastTables' and FamilyTables' hands (block, draw, cross, double_nine_cross, "
                         f"matador, all_fives, fives_and_threes, five_up, bergen, fours), ChickenfootTables' and "
                         f"MexicanTrainTables'; got {type(tables).__name__}")


def privileged_features(tables, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """float32 [len(rows), (n - 1) * num_tiles]: at each row, the hands of the seats after
    ``seats[i]`` (seat + 1, ..., seat + n - 1, mod n), tile t of the k-th at column k * N + t.
    Nos adds its two boneyard planes after them (:func:`nos_privileged_features`)."""
    if _is_nos(tables):
        return nos_privileged_features(tables, rows, seats)
    _check(tables)
    rows = np.asarray(rows, np.int64)
    seats = np.asarray(seats, np.int64)
    n, N = tables.num_players, tables.rules.num_tiles
    words = _hand_words(tables)[rows, :n].astype(np.uint64)  # [R, n, W]
    others = (seats[:, None] + np.arange(1, n)[None, :]) % n  # [R, n - 1]
    held = np.take_along_axis(words, others[:, :, None], axis=1)  # [R, n - 1, W]
    t = np.arange(N)
    bits = (held[:, :, t // 64] >> (t % 64).astype(np.uint64)[None, None, :]) & np.uint64(1)
    return bits.reshape(len(rows), (n - 1) * N).astype(np.float32)


def nos_privileged_features(tables, rows: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """float32 [len(rows), (n + 1) * 28] for Nos's FastTables: the other seats' hands as in
    :func:`privileged_features` (tile t is ``tiles.ALL_TILES[t]``), then a one-hot of the tile
    the next draw takes (all zeros when no tile may be drawn: 2 or fewer left, the rules'
    section 7), then the boneyard's bottom two tiles (never drawn; zeros once the hand is over and
    the table waits)."""
    rows = np.asarray(rows, np.int64)
    seats = np.asarray(seats, np.int64)
    n, N = tables.num_players, len(ALL_TILES)
    hands = tables.hands[rows]  # [R, n], bit t: tile t
    others = (seats[:, None] + np.arange(1, n)[None, :]) % n
    held = np.take_along_axis(hands, others, axis=1)  # [R, n - 1]
    t = np.arange(N)
    out = np.zeros((len(rows), n + 1, N), np.float32)
    out[:, : n - 1] = (held[:, :, None] >> t) & 1
    top, end = (bound[rows] for bound in tables.boneyard_bounds)
    bone = tables.boneyard_order()[rows]
    r = np.arange(len(rows))
    can_draw = end - top > 2
    out[r[can_draw], n - 1, bone[r[can_draw], top[can_draw]]] = 1.0
    dealt = end >= 2  # a table with its deal (always, while a seat is to move)
    for k in (2, 1):
        out[r[dealt], n, bone[r[dealt], end[dealt] - k]] = 1.0
    return out.reshape(len(rows), (n + 1) * N)
