"""Sessions: several hands with chips carried over (docs/rules/nos.md §10).

The first hand follows the first-hand rule (highest double sets it; a deal
without a double is shuffled again). The loser of each hand (highest count,
ties broken uniformly at random, D2) is on set in the next and follows the
later-hand rule. D15, the optional end-of-session settlement, rounds each
total down to a multiple of 20 and gives the remainders to one player drawn
at random.
"""

from __future__ import annotations

import numpy as np

from .deal import Deal, check_num_players
from .engine import Hand, Payment
from .options import (DEFAULT_CHIPS, HAND_CHIP_LIMIT, Options, check_bool, check_chip, check_chips, check_int,
                      check_seat, check_seed, is_integer)
from .rng import SplitMix64


class Session:
    def __init__(
        self,
        num_players: int = 4,
        num_hands: int | None = None,
        seed: int | None = None,
        chips: int | list[int] = DEFAULT_CHIPS,
        end_settlement: bool = False,
        options: Options | None = None,
        rng: SplitMix64 | None = None,
    ):
        # Everything is checked before anything is kept (options.py: the shared checks).
        self.num_players = n = check_num_players(num_players)
        if num_hands is not None:
            num_hands = check_int("num_hands", num_hands, 1)
        seed = check_seed(seed)
        if rng is not None and not isinstance(rng, SplitMix64):
            raise ValueError(f"rng must be a nos_env.rng.SplitMix64 or None, got {type(rng).__name__}")
        chips = [check_chip("chips", chips)] * n if is_integer(chips) else check_chips(chips, n)
        end_settlement = check_bool("end_settlement", end_settlement)
        if options is not None and not isinstance(options, Options):
            raise ValueError(f"options must be an Options or None, got {type(options).__name__}")
        self.num_hands = num_hands
        # Deals, setters and tie-breaks come from the stream all engines share (rng.py).
        if rng is None:
            rng = SplitMix64(seed if seed is not None else int(np.random.SeedSequence().entropy))
        self.rng = rng
        self.chips = chips
        self.end_settlement = end_settlement
        self.options = options
        self.hands: list[Hand] = []
        self.next_on_set: int | None = None
        self.settlement: list[Payment] = []
        self.finished = False

    @property
    def current(self) -> Hand | None:
        return self.hands[-1] if self.hands else None

    @property
    def hands_left(self) -> int | None:
        return None if self.num_hands is None else self.num_hands - len(self.hands)

    def start_hand(
        self, deal: Deal | None = None, on_set: int | None = None, first_hand: bool | None = None
    ) -> Hand:
        """Start the next hand, from ``deal`` if given, else from a fresh shuffle.

        The first hand follows the first-hand rule (section 10) unless
        ``first_hand=False`` (its setter is then drawn at random and follows the
        later-hand rule, D20: the one-hand training default) or ``on_set`` names
        its setter (experiments from a given deal). Every later hand is set by
        the loser of the one before (D2 breaks ties); ``on_set`` and
        ``first_hand`` are refused there.
        """
        # Every argument is checked before the first random draw, so a refused call leaves
        # the session (its random stream included) as it was and the seed still replays it.
        if self.finished or self.hands_left == 0:
            raise RuntimeError("the session has no hands left")
        if self.current is not None and not self.current.over:
            raise RuntimeError("the current hand is not over yet")
        n = self.num_players
        if deal is not None:
            if not isinstance(deal, Deal):
                raise ValueError(f"deal must be a Deal or None, got {type(deal).__name__}")
            if deal.num_players != n:
                raise ValueError(f"the deal is for {deal.num_players} players, the session for {n}")
        if first_hand is not None:
            first_hand = check_bool("first_hand", first_hand)
        if on_set is not None:
            on_set = check_seat("on_set", on_set, n)
        if self.current is not None:
            if on_set is not None or first_hand is not None:
                raise ValueError("after the first hand the loser of the last hand is on set "
                                 "(on_set and first_hand apply to the first hand only)")
            chips = check_chips(self.current.chips, n, "chips carried into the next hand", HAND_CHIP_LIMIT)
            rng = SplitMix64.from_state(self.rng.state)  # drawn from a copy, kept once the hand stands
            next_on_set = self._pick_loser(self.current, rng)
            hand = Hand(deal or Deal.random(n, rng), on_set=next_on_set, chips=chips, options=self.options)
            self.chips = chips
            self.next_on_set = next_on_set
            self.rng.state = rng.state
        elif on_set is not None:
            if first_hand:
                # The first-hand rule names its own setter; a given one must be that seat (Hand checks).
                hand = self._first_hand(deal, on_set)
            else:
                rng = SplitMix64.from_state(self.rng.state)
                hand = Hand(deal or Deal.random(n, rng), on_set=on_set, chips=self.chips, options=self.options)
                self.rng.state = rng.state
        elif first_hand is None or first_hand:
            hand = self._first_hand(deal, None)
        else:  # D20
            rng = SplitMix64.from_state(self.rng.state)
            if deal is None:
                deal = Deal.random(n, rng)
            hand = Hand(deal, on_set=rng.below(n), chips=self.chips, options=self.options)
            self.rng.state = rng.state
        self.hands.append(hand)
        return hand

    def _first_hand(self, deal: Deal | None, on_set: int | None) -> Hand:
        """Section 2: the holder of the highest double sets it; a deal without any double is
        shuffled again (a given deal without one is refused by Hand)."""
        rng = SplitMix64.from_state(self.rng.state)
        while deal is None:
            deal = Deal.random(self.num_players, rng)
            if not any(t[0] == t[1] for h in deal.hands for t in h):
                deal = None
        hand = Hand(deal, on_set=on_set, chips=self.chips, first_hand=True, options=self.options)
        self.rng.state = rng.state
        return hand

    def _pick_loser(self, hand: Hand, rng: SplitMix64 | None = None) -> int:
        rng = self.rng if rng is None else rng
        losers = hand.losers
        if len(losers) == 1:
            return losers[0]
        return losers[rng.below(len(losers))]  # D2

    def finish(self) -> list[int]:
        """End the session; returns the final chips (after D15 if enabled)."""
        if self.finished:
            return list(self.chips)
        if self.current is not None:
            if not self.current.over:
                raise RuntimeError("the current hand is not over yet")
            self.chips = list(self.current.chips)
        if self.end_settlement:
            # D15: round every total down to a multiple of 20; one random player takes the pot.
            winner = self.rng.below(self.num_players)
            for seat in range(self.num_players):
                remainder = self.chips[seat] % 20  # Python's % floors, so -7 leaves 13
                if remainder and seat != winner:
                    self.settlement.append(Payment(seat, winner, remainder, "session_pot"))
            for p in self.settlement:
                self.chips[p.payer] -= p.amount
                self.chips[p.payee] += p.amount
        self.finished = True
        return list(self.chips)
