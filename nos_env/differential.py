"""Differential check: the fast engine against the reference engine, step by step.

``run(num_players, hands, seed)`` plays ``hands`` hands on a batch of fast
tables and, beside each table, the same hand in the reference engine, with
the same random legal actions. At every step it compares the legal-action
mask and list, the observation of the seat to move (both as ``step`` returns
it and as ``observe`` makes it; every seat's when asked), the seat to move,
every seat's reward and the end of the hand, and raises
:class:`EngineMismatch` with the table, the hand record and the first
difference.

``force_announcements=True`` plays each of the 76 announcements (where the
player count allows its set tile) through scripted deals: a deal is drawn
until the setter can set a tile that allows the announcement, and the setter
then sets it and announces it. Random play alone rarely reaches the
triangle games.
"""

from __future__ import annotations

import numpy as np

from .actions import Action
from .deal import Deal
from .encoding import (OBSERVATION_LAYOUT, action_to_index, decode_compact, encode_observation, index_to_action,
                       legal_mask)
from .engine import Hand
from .games import nos as K
from .fast_engine import FastTables
from .announcements import ALL_ANNOUNCEMENTS, is_legal_for_set_tile
from .record import hand_record
from .tiles import is_double


class EngineMismatch(AssertionError):
    pass


def _set_options(deal: Deal, on_set: int):
    doubles = [t for t in deal.hands[on_set] if is_double(t)]
    return doubles if doubles else [deal.boneyard[0]]


def forced_deal(num_players: int, announcement, rng: np.random.Generator, tries: int = 20000):
    """A deal and setter whose set tile may carry ``announcement`` (later-hand rule)."""
    for _ in range(tries):
        deal = Deal.random(num_players, rng)
        on_set = int(rng.integers(num_players))
        for tile in _set_options(deal, on_set):
            if is_legal_for_set_tile(announcement, tile):
                return deal, on_set, tile
    raise RuntimeError(f"no deal found for {announcement}")


def _first_difference(fast, ref) -> str:
    names = [name for name, (a, b, _) in OBSERVATION_LAYOUT.items() if not np.array_equal(fast[a:b], ref[a:b])]
    return f"observation slices differ: {names}"


def run(num_players: int, hands: int, seed: int, batch: int = 32, auto_forced: bool = False,
        force_announcements: bool = False, all_seats_every: int = 10) -> dict:
    """Play ``hands`` hands (one-hand episodes) differentially; returns counters."""
    rng = np.random.default_rng(seed)
    # the default compact observations, decoded and compared value for value with the reference
    # encoder (tests/test_compact_observations.py checks the float32 rows against the decoded ones)
    tables = FastTables(batch, num_players, seed=seed, auto_forced=auto_forced)
    tables.reset_tables()
    targets = list(ALL_ANNOUNCEMENTS) if force_announcements else []
    plan: list = [None] * batch  # per table: (set tile, announcement) to force, or None
    refs: list[Hand] = [None] * batch  # type: ignore[list-item]
    pending = np.zeros((batch, num_players), np.int64)
    started = finished = steps = 0
    announced: set[int] = set()

    def begin(b: int) -> None:
        nonlocal started
        if targets:
            target = targets[started % len(targets)]
            deal, on_set, tile = forced_deal(num_players, target, rng)
            tables.load_deal(b, deal, on_set)
            plan[b] = (tile, target)
        else:
            plan[b] = None
        refs[b] = tables.reference_hand(b)
        pending[b] = [refs[b].chips[i] - refs[b].chips_start[i] for i in range(num_players)]
        started += 1

    for b in range(batch):
        begin(b)
    active = np.ones(batch, bool)
    stepped_obs: list[np.ndarray | None] = [None] * batch
    while active.any():
        actions = np.zeros(batch, np.int64)
        for b in range(batch):
            if not active[b]:
                actions[b] = int(np.flatnonzero(tables.MASK[b])[0])  # a finished slot idles on legal moves
                continue
            ref = refs[b]
            mask = tables.MASK[b]
            if not np.array_equal(mask, legal_mask(ref)):
                raise EngineMismatch(f"table {b}: masks differ in phase {ref.phase}; record {hand_record(ref)}")
            count = int(tables.T[b, K.T_NLEGAL])
            if not np.array_equal(tables.LEGAL[b, :count], np.flatnonzero(mask)):
                raise EngineMismatch(f"table {b}: the legal-action list {tables.LEGAL[b, :count].tolist()} "
                                     f"is not the mask's; record {hand_record(ref)}")
            seats = range(num_players) if steps % all_seats_every == 0 else [ref.to_move]
            for seat in seats:
                fast_obs = decode_compact(tables.observe(np.full(batch, seat))[b])
                ref_obs = encode_observation(ref, seat)
                if not np.array_equal(fast_obs, ref_obs):
                    raise EngineMismatch(f"table {b} seat {seat}: {_first_difference(fast_obs, ref_obs)}; "
                                         f"record {hand_record(ref)}")
                if seat == ref.to_move and stepped_obs[b] is not None:  # what step() returned for it
                    if not np.array_equal(stepped_obs[b], ref_obs):
                        raise EngineMismatch(f"table {b}: step's observation: "
                                             f"{_first_difference(stepped_obs[b], ref_obs)}; record {hand_record(ref)}")
            legal = np.flatnonzero(mask)
            choice = int(legal[rng.integers(len(legal))])
            if plan[b] is not None:
                tile, target = plan[b]
                if ref.phase == "set" and mask[action_to_index(Action("set", tile=tile))]:
                    choice = action_to_index(Action("set", tile=tile))
                elif ref.phase == "announce":
                    choice = action_to_index(Action("announce", announcement=target))
            actions[b] = choice
        before = [list(r.chips) for r in refs]
        for b in range(batch):
            if active[b]:
                refs[b].step(index_to_action(int(actions[b]), refs[b]))
        rewards, terminated, _, current, obs = tables.step(actions, observe=True)
        steps += 1
        for b in range(batch):
            stepped_obs[b] = None
            if not active[b]:
                continue
            ref = refs[b]
            if not ref.over:
                if current[b] != ref.to_move:
                    raise EngineMismatch(f"table {b}: step says seat {current[b]} moves, the reference "
                                         f"{ref.to_move}; record {hand_record(ref)}")
                stepped_obs[b] = decode_compact(obs[b])
            expected = [ref.chips[i] - before[b][i] + int(pending[b, i]) for i in range(num_players)]
            pending[b] = 0
            if list(rewards[b, :num_players]) != expected:
                raise EngineMismatch(f"table {b}: rewards {list(rewards[b, :num_players])} != {expected}; "
                                     f"record {hand_record(ref)}")
            if bool(terminated[b]) != ref.over:
                raise EngineMismatch(f"table {b}: terminated {terminated[b]} but reference over={ref.over}; "
                                     f"record {hand_record(ref)}")
            if ref.over:
                _check_final_stats(tables.final_stats[b], ref, b)
                finished += 1
                announced.add(ref.announcement.index)
                if started < hands:
                    begin(b)
                else:
                    active[b] = False
    return {"hands": finished, "steps": steps, "announcements": announced}



def _check_final_stats(stats, ref: Hand, b: int) -> None:
    """The fast engine's end-of-episode report against the reference ledger."""
    n = ref.num_players
    net = np.zeros((K.MAX_SEATS, len(K.REASONS)), np.int64)
    for p in ref.ledger:
        r = K.REASONS.index(p.reason)
        net[p.payer, r] -= p.amount
        net[p.payee, r] += p.amount
    got = np.asarray(stats[K.F_PAY:]).reshape(K.MAX_SEATS, len(K.REASONS))
    right = sum(1 for e in ref.events if e.action.startswith("play") and e.action.endswith("close")
                and any(p.reason == "close" for p in e.payments))
    wrong = sum(1 for e in ref.events if any(p.reason == "wrong_close" for p in e.payments))
    expected = [ref.announcement.index, ref.on_set, ("out", "close", "blocked").index(ref.end_reason), right, wrong]
    if list(stats[: K.F_PAY]) != expected or not np.array_equal(got[:n], net[:n]):
        raise EngineMismatch(f"table {b}: end-of-episode stats {list(stats[:K.F_PAY])} {got[:n].tolist()} "
                             f"!= {expected} {net[:n].tolist()}; record {hand_record(ref)}")
