"""Blind's per-action features: what each legal move leaves for the rows' next tiles (BD3, BD5).

A Blind decision is only where a turned-up tile goes when it fits both ends (or, with
``optional_play``, whether to decline it). What a move changes is the pair of open numbers the
line shows after it, and what that pair is worth depends on the tiles the rows turn up next:
the mover's own next tile (he goes on turning up while his tiles fit, rule 3), then the next
seats' first tiles. The observation holds what is known about them (``row_seen``/``row_place``:
a tile turned up and sent to the bottom is seen by all and its place is public, BD3), but a
network reading the observation and a linear head could not find, for the numbers a move
leaves, whether those next tiles fit them (docs/family.md, Blind's advantage fit learned
nothing). These features say it directly, one vector per action, computed from the seat's
observation and mask alone (never a hidden tile).

For a move, E is the set of open numbers after it (a play of [a-b] on the end showing a leaves
b there, the other end unchanged; a DECLINE leaves both ends as they are). For each seat offset
k (0 = the mover, then the seats in turn order; :data:`MAX_SEATS` of them, 0 for absent seats),
that seat's *next tile* is the one it turns up next: for the mover after a play, the tile behind
the turned-up one (row place 2); for every other seat its front tile (place 1). Then

- ``known_fit_k_r`` (r = 0 .. :data:`PLACES` − 1): whether the tile r places behind seat k's next
  tile is public (seen, at that place of that row) and fits E; the last r counts every public
  tile that far back or further that fits E. r = 0 is the next tile itself. Why the places
  behind it: the mover goes on turning up while his tiles fit (rule 3), and every row comes
  round to its known tiles in later turns, while the ends still show what this move left if
  nobody changes them; a fit of the rollout labels weighs them (docs/family.md): the mover's
  known tiles near the front that fit E are worth most, the others' count against him.
- ``unknown_share_k``: if seat k's next tile is not public, the chance it fits E: the share of the
  tiles never turned up that fit E. Every never-turned-up tile is equally likely to lie in any
  never-seen slot of any row or among the set-aside tiles (the deal is uniform, F3, and nothing
  about an unseen tile has been shown to anyone, BD3), so this is the exact chance for one slot.
  (The game's still running says some row tile fits the ends; that faint evidence is ignored.)
- ``unplayed_fit``: the tiles not on the table after the move that fit E, divided by M + 1 (the
  most tiles that can carry one number): how much play E keeps alive; 0 means the game is
  blocked at once (BD7).
- ``next_after_me``: (1 − P0) · P1, P_k = ``known_fit_k_0 + unknown_share_k``: the chance the
  mover's next tile does not fit E (his turn ends) and the next seat's first tile fits E (he
  plays on it), treating the two as independent. A linear head cannot form this product.

- ``hand_k`` (each seat's row length over the dealt hand size), ``unseen`` and ``on_table``
  (the tiles never turned up, and those on the table, over N): the same for every move of a
  decision, so a linear head cannot use them (they cancel between moves); a nonlinear one
  (``policy.features_hidden``) weighs the others by them: a move's worth depends on who is
  close to emptying his row, and a blocked game (BD7) goes to the lowest count. An offline fit
  of the rollout labels with them gained most (docs/family.md).

The mover's features are 0 for a DECLINE (his turn ends at once) and every feature is 0 for a
play of the last tile of his row (he wins: the ends no longer matter). Illegal actions: 0.
"""

from __future__ import annotations

import numpy as np

from .greedy import fitting_table
from .view import PASS, PLAY, view_of

#: Seats the features cover (Blind's largest count; fewer players leave the rest 0).
MAX_SEATS = 5
#: Places of a row the public-tile features tell apart, from the next tile back (the last: that far or further).
PLACES = 5
#: The features' names, in order (K of them per action).
FEATURE_NAMES = (tuple(f"known_fit_{k}_{r}" for k in range(MAX_SEATS) for r in range(PLACES))
                 + tuple(f"unknown_share_{k}" for k in range(MAX_SEATS))
                 + ("unplayed_fit", "next_after_me")
                 + tuple(f"hand_{k}" for k in range(MAX_SEATS)) + ("unseen", "on_table"))
NUM_FEATURES = len(FEATURE_NAMES)


def blind_action_features(rules, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """float32 [B, actions, K]: each legal move's features (the module's list), 0 where illegal.

    ``obs`` is a batch of the seat's Blind observations (float32 or compact uint8), ``masks`` the
    legal moves; nothing else is read."""
    v = view_of(rules)
    if v.game != "blind":
        raise ValueError(f"Blind's action features are for Blind's observations, not {v.game!r}'s")
    obs = v.check(obs, masks)
    masks = np.asarray(masks) != 0
    B, A, N, M = obs.shape[0], v.num_actions, v.N, v.M
    S = v.S
    fits = fitting_table(v)  # [M+1, N]: tile t carries number e
    open_end = v.slice(obs, "arm_open").argmax(axis=2)  # [B, 2]
    outward = v.outward(obs)  # [B, A]: the number a play leaves on its arm
    unseen = v.slice(obs, "unseen") > 0  # [B, N]
    on_table = v.slice(obs, "on_table") > 0
    present = v.slice(obs, "seat_present") > 0  # [B, S]
    hand = v.slice(obs, "seat_hand_size")  # [B, S]
    seen = v.slice(obs, "row_seen") > 0  # [B, S, N]
    place = v.slice(obs, "row_place")  # [B, S, N]

    out = np.zeros((B, A, NUM_FEATURES), np.float32)
    # Only the legal moves (a decision has two or three): each row's first L legal action ids.
    L = int(masks.sum(axis=1).max()) if B else 0
    if L == 0:
        return out
    acts = np.argsort(~masks, axis=1, kind="stable")[:, :L]  # [B, L]
    valid = np.take_along_axis(masks, acts, axis=1)  # [B, L]: padding where a row has fewer
    rows = np.arange(B)[:, None]
    is_play = (v.KIND[acts] == PLAY) & valid
    is_decline = (v.KIND[acts] == PASS) & valid
    # The two open numbers after each move [B, L, 2]: a play changes its arm's; a DECLINE none.
    ends = np.repeat(open_end[:, None, :], L, axis=1)
    arm = np.maximum(v.ARM[acts], 0)
    left = np.where(is_play, outward[rows, acts], ends[rows, np.arange(L)[None, :], arm])
    np.put_along_axis(ends, arm[..., None], left[..., None], axis=2)
    fit_after = fits[ends[..., 0]] | fits[ends[..., 1]]  # [B, L, N]: tile t fits E after the move

    # Each seat's next tile: the mover's tile behind the turned-up one (place 2), the others' front
    # tile (place 1). rel: how far behind it each public tile lies (-1: the mover's turned-up tile).
    first = np.ones(S)
    first[0] = 2
    rel = place - first[None, :, None]  # [B, S, N]
    public = seen & (rel >= 0) & present[:, :, None]
    known = (public & (rel == 0)).any(axis=2)  # [B, S]: the next tile is public
    n_unseen = unseen.sum(axis=1)  # [B]
    share = (fit_after & unseen[:, None, :]).sum(axis=2) / np.maximum(n_unseen, 1)[:, None]  # [B, L]
    # known_fit [B, L, S, PLACES]: public tiles r places behind the next one that fit E
    fit_public = fit_after[:, :, None, :] & public[:, None, :, :]  # [B, L, S, N]
    bins = np.minimum(rel, PLACES - 1).astype(np.int64)  # [B, S, N]
    known_fit = np.zeros((B, L, S, PLACES), np.float32)
    for r in range(PLACES):
        known_fit[..., r] = (fit_public & (bins == r)[:, None, :, :]).sum(axis=3)
    unknown_share = np.where(~known[:, None, :] & present[:, None, :], share[:, :, None], 0.0)
    # The mover: after a DECLINE his turn is over; without a tile behind the turned-up one there is none.
    mover_off = is_decline | (hand[:, 0] < 2)[:, None]  # [B, L]
    known_fit[:, :, 0, :] *= ~mover_off[:, :, None]
    unknown_share[:, :, 0] = np.where(mover_off, 0.0, unknown_share[:, :, 0])
    # The tiles off the table after the move that fit E (a play puts the turned-up tile on it).
    turned = v.slice(obs, "turned_up") > 0  # [B, N]
    off_table = ~on_table[:, None, :] & fit_after & ~(turned[:, None, :] & is_play[..., None])
    unplayed = off_table.sum(axis=2) / float(M + 1)
    p = known_fit[..., 0] + unknown_share  # [B, L, S]
    context = np.concatenate([hand / float(N // v.num_players), n_unseen[:, None] / float(N),
                              on_table.sum(axis=1)[:, None] / float(N)], axis=1)  # [B, S + 2]
    feats = np.concatenate([known_fit.reshape(B, L, S * PLACES), unknown_share.astype(np.float32),
                            unplayed[..., None], ((1.0 - p[..., 0]) * p[..., 1])[..., None],
                            np.repeat(context[:, None, :], L, axis=1)], axis=2)
    # A play of the mover's last tile wins (rule 4): the ends after it are worth nothing.
    wins = (hand[:, 0] < 2)[:, None] & is_play
    feats[wins] = 0.0
    b = np.broadcast_to(rows, acts.shape)
    keep = is_play | is_decline  # (Blind's other actions are never legal: SET and DRAW stay 0)
    out[b[keep], acts[keep]] = feats[keep]
    return out


#: The games with per-action features, and the function computing them from (rules, obs, masks).
ACTION_FEATURE_GAMES = {"blind": blind_action_features}
