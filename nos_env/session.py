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
from .engine import DEFAULT_CHIPS, Hand, Options, Payment
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
        self.num_players = check_num_players(num_players)
        if num_hands is not None and (isinstance(num_hands, bool) or not isinstance(num_hands, int) or num_hands < 1):
            raise ValueError(f"num_hands must be a positive integer or None, got {num_hands!r}")
        self.num_hands = num_hands
        # Deals, setters and tie-breaks come from the stream all engines share (rng.py).
        if rng is None:
            rng = SplitMix64(seed if seed is not None else int(np.random.SeedSequence().entropy))
        self.rng = rng
        self.chips = [int(chips)] * self.num_players if isinstance(chips, int) else [int(c) for c in chips]
        if len(self.chips) != self.num_players:
            raise ValueError(f"chips must have one entry per seat ({self.num_players})")
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
        if self.finished or self.hands_left == 0:
            raise RuntimeError("the session has no hands left")
        if self.current is not None and not self.current.over:
            raise RuntimeError("the current hand is not over yet")
        if self.current is not None:
            if on_set is not None or first_hand is not None:
                raise ValueError("after the first hand the loser of the last hand is on set "
                                 "(on_set and first_hand apply to the first hand only)")
            self.chips = list(self.current.chips)
            self.next_on_set = self._pick_loser(self.current)
            hand = Hand(deal or Deal.random(self.num_players, self.rng), on_set=self.next_on_set,
                        chips=self.chips, options=self.options)
        elif on_set is not None:
            hand = Hand(deal or Deal.random(self.num_players, self.rng), on_set=on_set,
                        chips=self.chips, options=self.options)
        elif first_hand is None or first_hand:
            while deal is None:  # a deal without any double is shuffled again
                deal = Deal.random(self.num_players, self.rng)
                if not any(t[0] == t[1] for h in deal.hands for t in h):
                    deal = None
            hand = Hand(deal, chips=self.chips, first_hand=True, options=self.options)
        else:  # D20
            if deal is None:
                deal = Deal.random(self.num_players, self.rng)
            hand = Hand(deal, on_set=self.rng.below(self.num_players), chips=self.chips, options=self.options)
        self.hands.append(hand)
        return hand

    def _pick_loser(self, hand: Hand) -> int:
        losers = hand.losers
        if len(losers) == 1:
            return losers[0]
        return losers[self.rng.below(len(losers))]  # D2

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
