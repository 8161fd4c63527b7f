"""Per-play closing features read from one seat's observation and mask (issue 19 item 2).

Why: a closing (§9) is a variant of any play, correct exactly when after the play no tile of a
player still in the game and no boneyard tile but the bottom two can be placed (D14), or when
the play leaves one holder (D21). Whether that holds depends on which unseen tiles would fit
after the play, which a network reading the observation (and a linear action head) does not
see. Tactics closes only with a proof; this module gives a policy, for each play, the same
proof and a probability where there is none (``agents/policy.py``, ``closing_features``).

For every play whose "close" variant is legal (a play in turn, §9), one row of
:data:`FEATURES` per (tile, arm, side), from public information and the seat's own hand only
(D17: never another hand or the boneyard's order):

- ``fit_unseen``: how many unseen tiles (not in my hand, not on the layout, not provably among
  the boneyard's bottom two) some arm accepts after the play (locks included);
- ``own_fits``: 1 if a tile left in my hand fits after the play (then the closing is wrong,
  unless D21);
- ``p_correct``: the closing's probability of being correct. 1 by D21 (the play leaves one
  holder) and wherever ``fit_unseen`` and ``own_fits`` are both 0: exactly where Tactics' proof
  (``tactics._prove_closing``) proves it; 0 if I still hold a fitting tile, if more tiles fit
  than the bottom two have free places, or if a fitting tile is a declared double still held
  face up (D9). Otherwise (1 or 2 fitting unseen tiles) the approximation: each fitting tile
  lies in any of the positions it may be in with equal chance, independently of the others
  but without two in one place. Its positions are the boneyard's tiles not known to be among
  the bottom two, plus each player still in the game's hand, unless he passed while that tile
  fitted (``seat_passed_tiles``: he holds none). The bottom two's free places are 2 less the
  tiles proved to be there. So p = prod_j (free - j) / (positions_j - j) over the fitting
  tiles j = 0, 1. It ignores the hint of the draws (a draw may be voluntary) and what the
  passes say about the other tiles;
- ``close_chips``: the closing's expected payment to the closer under that probability, in
  tens of chips: (p * 20 * others in the game - (1 - p) * 40 * (players - 1)) / 10 (§9: a
  correct closing takes 20 from each other player still in the game, a wrong one pays 40 to
  every other player).

With the settlement features (``settlement=True`` in ``nos_env.fast_engine.closing_features``: the
output has :data:`ALL_FEATURES` rows), two more rows say what the final count (§9, settlement)
would pay me. Every player pays every player with a lower count the difference, so my net is
exactly ``sum over the others r of (count_r - my count)``: linear in the counts, and its
expectation is the same sum over the expected counts. My count after the play is known (the
hand's pips less the tile's, [0-0] counting 14; 0 when the play is my last tile); a player out
counts 0; each other player still in the game counts his hand size times ``mean``, the mean count
of the unseen tiles not proved to be among the bottom two (it ignores what passes and face-up
doubles say about a hand):

- ``close_settle``: ``p_correct`` times the settlement a correct closing with this play would
  bring, in tens of chips: the counts above, plus the boneyard less its bottom two (times
  ``mean``) in the hand of the next player still in the game, who draws them (§9), unless the
  play leaves one holder (D21: nobody draws). Added to ``close_chips`` it is the closing's
  expected payment with the final count included, which Search's rollouts see and
  ``close_chips`` alone does not;
- ``settle_now``: the settlement if the hand ended right after the play with no draw, in tens
  of chips. Between the plays of one position it differs only by my count, so it says how much
  each play lowers what the final count would cost me, scaled by the players who would pay.

Rows that are not a play in turn, and plays whose close variant is not legal, are all zeros.
The fit after the play is ``tactics.accepted_after`` (the proof's own primitive: the engine's
``_accepted_anywhere`` on the layout rebuilt from the observation), not written again here.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...encoding import MAX_ARMS, MAX_SEATS, OBSERVATION_LAYOUT, PHASES, PLAY0
from ...engine import CLOSE_PAYMENT, WRONG_CLOSE_PAYMENT
from ...kernels.bits import popcount as _popcount
from ...tiles import ALL_TILES_MASK, NUM_TILES
from .tactics import (ACT_ARM, ACT_SIDE, ACT_TILE, O_DRAWABLE, O_FACE, O_HAND, O_HSIZE, O_LTILES, O_NP, O_OUT,
                      O_PASSED, O_PHASE, O_PRESENT, TILE_BIT, TILE_NUM, DBL_OF, COUNT, _argmax, _bits, _rint,
                      accepted_after)

#: The features of each play, in the order of the feature axis.
FEATURES = ("fit_unseen", "own_fits", "p_correct", "close_chips")
NUM_FEATURES = len(FEATURES)
#: The settlement features, behind the closing features when asked for (their rows 4 and 5).
SETTLEMENT_FEATURES = ("close_settle", "settle_now")
ALL_FEATURES = FEATURES + SETTLEMENT_FEATURES
NUM_ALL_FEATURES = len(ALL_FEATURES)
#: One row per (tile, arm, side): the play block's actions without the close digit.
NUM_PLAYS = NUM_TILES * MAX_ARMS * 2
#: The observation column of the boneyard's size.
O_BONE = OBSERVATION_LAYOUT["boneyard_size"][0]
PH_PLAY = PHASES.index("play")
#: close_chips is in tens of chips (the scale of the fitted advantages: 10 chips a logit).
CHIPS_UNIT = 10.0


@njit(cache=True)
def closing_features_row(obs, mask, out):
    """The features of one observation row (float32 [OBSERVATION_SIZE]) and its mask (int8
    [557]) into ``out`` (float32 [NUM_FEATURES, NUM_PLAYS], or [NUM_ALL_FEATURES, NUM_PLAYS] for
    the settlement features too; overwritten)."""
    out[:, :] = 0.0
    settlement = out.shape[0] > NUM_FEATURES
    if _argmax(obs, O_PHASE, len(PHASES)) != PH_PLAY:
        return
    hand = _bits(obs, O_HAND)
    layout = _bits(obs, O_LTILES)
    unseen = ALL_TILES_MASK & ~hand & ~layout
    n = _argmax(obs, O_NP, 3) + 3
    drawable = obs[O_DRAWABLE] > 0.5
    bone = _rint(obs[O_BONE])
    hs = _rint(obs[O_HSIZE])
    others_in = 0
    in_all = ALL_TILES_MASK  # the tiles every other player still in the game passed on
    face_up = 0  # declared doubles still held by players in the game (D9): never in the boneyard
    for r in range(1, MAX_SEATS):
        if obs[O_PRESENT + r] > 0.5 and not obs[O_OUT + r] > 0.5:
            others_in += 1
            in_all &= _bits(obs, O_PASSED + NUM_TILES * r)
            for d in range(7):
                if obs[O_FACE + 7 * r + d] > 0.5:
                    face_up |= TILE_BIT[DBL_OF[d]]
    # Once nothing can be drawn, a tile nobody in the game can hold is among the bottom two
    # (Tactics' ``exempt``, the same set).
    exempt = 0 if drawable else in_all & unseen
    proved_bottom = _popcount(exempt)
    free = max(min(2, bone) - proved_bottom, 0)
    open_bone = max(bone - proved_bottom, 0)
    d21 = hs == 1 and others_in == 1
    if settlement:
        # The final count (§9): my pips, the unseen tiles' mean count, the others' expected counts.
        mine = 0
        for t in range(NUM_TILES):
            if (hand >> t) & 1:
                mine += COUNT[t]
        pool = unseen & ~exempt
        size = _popcount(pool)
        total = 0
        for t in range(NUM_TILES):
            if (pool >> t) & 1:
                total += COUNT[t]
        mean = total / size if size > 0 else 0.0
        others = 0.0
        for r in range(1, MAX_SEATS):
            if obs[O_PRESENT + r] > 0.5 and not obs[O_OUT + r] > 0.5:
                others += _rint(obs[O_HSIZE + r]) * mean
        # After a correct closing the next player still in the game draws all but the bottom two.
        drawn = 0.0 if d21 else max(bone - 2, 0) * mean
    for a in range(PLAY0, PLAY0 + 2 * NUM_PLAYS, 2):
        if not mask[a + 1]:  # the close variant is legal exactly for a play in turn
            continue
        tile = ACT_TILE[a]
        fits = accepted_after(obs, ACT_ARM[a], TILE_NUM[tile, ACT_SIDE[a]]) & ~layout & ~TILE_BIT[tile]
        own = (fits & hand & ~TILE_BIT[tile]) != 0
        fitting = fits & unseen & ~exempt
        k = _popcount(fitting)
        if d21 or (k == 0 and not own):
            p = 1.0
        elif own or k > free or (fitting & face_up) != 0:
            p = 0.0
        else:
            p = 1.0
            j = 0
            for t in range(NUM_TILES):
                if not (fitting >> t) & 1:
                    continue
                places = open_bone
                for r in range(1, MAX_SEATS):
                    if obs[O_PRESENT + r] > 0.5 and not obs[O_OUT + r] > 0.5 \
                            and obs[O_PASSED + NUM_TILES * r + t] < 0.5:
                        places += _rint(obs[O_HSIZE + r])
                p *= (free - j) / max(places - j, 1)
                j += 1
            p = min(p, 1.0)
        i = (a - PLAY0) // 2
        out[0, i] = k
        out[1, i] = 1.0 if own else 0.0
        out[2, i] = p
        out[3, i] = (p * CLOSE_PAYMENT * others_in - (1.0 - p) * WRONG_CLOSE_PAYMENT * (n - 1)) / CHIPS_UNIT
        if settlement:
            now = others - (n - 1) * (mine - COUNT[tile])
            out[4, i] = p * (now + drawn) / CHIPS_UNIT
            out[5, i] = now / CHIPS_UNIT


@njit(cache=True)
def closing_features_rows(obs, masks, out):
    """closing_features_row for each row: obs float32 [R, OBSERVATION_SIZE], masks int8 [R, 557],
    out float32 [R, NUM_FEATURES or NUM_ALL_FEATURES, NUM_PLAYS]."""
    for i in range(obs.shape[0]):
        closing_features_row(obs[i], masks[i], out[i])
