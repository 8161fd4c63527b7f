"""The two engines behind the AEC environment, with one small interface.

Both deal from the same random stream (``rng.py``) in the same order, so a
seed gives the same games on either, and both report each seat's chip change
for every step. ``hand`` is always a reference-engine ``Hand`` (the fast
backend rebuilds it from the deal and the decisions), used for rendering and
text conversions, never on the hot path.
"""

from __future__ import annotations

import numpy as np

from .games import nos as K
from .deal import Deal
from .encoding import encode_observation, index_to_action, legal_mask
from .engine import Hand
from .options import TableOptions
from .fast_engine import FastTables
from .rng import SplitMix64
from .session import Session


class ReferenceBackend:
    name = "reference"

    def __init__(self, num_players: int, options: TableOptions):
        self.num_players = num_players
        self.hands_per_episode = options.hands_per_episode
        self.first_hand_rule = options.first_hand_rule
        self.options = options.engine_options
        self.chip_scale = options.chip_scale
        self.rng = SplitMix64(int(np.random.SeedSequence().entropy))
        self.session: Session | None = None
        self.hand: Hand | None = None

    def reset(self, seed, chips, deal: Deal | None, on_set) -> list[int]:
        """A new episode; the arguments are checked by the environment. The new session and
        hand are built on a copy of the random stream and kept only once they stand."""
        rng = SplitMix64(seed) if seed is not None else SplitMix64.from_state(self.rng.state)
        session = Session(self.num_players, num_hands=self.hands_per_episode, chips=list(chips),
                          options=self.options, rng=rng)
        if deal is not None and on_set is not None:
            hand = session.start_hand(deal, on_set=on_set)
        else:
            hand = session.start_hand(deal, first_hand=self.first_hand_rule)
        self.rng, self.session, self.hand = rng, session, hand
        self.episode_chips_start = list(session.chips)
        self.done = False
        return [c - s for c, s in zip(hand.chips, self.episode_chips_start)]

    @property
    def to_move(self) -> int | None:
        return self.hand.to_move

    @property
    def chips(self) -> list[int]:
        return list(self.hand.chips)

    @property
    def hand_index(self) -> int:
        return len(self.session.hands) - 1

    def step(self, index: int) -> list[int]:
        hand = self.hand
        before = list(hand.chips)
        action = index_to_action(index, hand)
        if legal_mask(hand)[index]:
            hand.step(action)
        else:
            # Legal is what the mask says, as in the fast engine: a double's second-side index
            # names the same play as its first-side one but is not in the mask (D16 applies).
            hand.refuse(action)  # IllegalActionError leaves the hand unchanged
        if hand.over:
            if self.session.hands_left:
                self.hand = hand = self.session.start_hand()
            else:
                self.session.finish()
                self.done = True
        return [a - b for a, b in zip(hand.chips, before)]

    def observe(self, seat: int) -> np.ndarray:
        return encode_observation(self.hand, seat, self.chip_scale, self.episode_chips_start)

    def mask(self) -> np.ndarray:
        return legal_mask(self.hand)


class FastBackend:
    name = "fast"

    def __init__(self, num_players: int, options: TableOptions):
        self.num_players = num_players
        # (the AEC observation is float32)
        self.tables = FastTables(1, num_players, None, observation_dtype="float32", **options.as_kwargs())
        self._seat = np.zeros(1, np.int64)

    def reset(self, seed, chips, deal: Deal | None, on_set) -> list[int]:
        """A new episode; the arguments are checked by the environment (nothing below can
        refuse them), so the table changes only once they are known to be good."""
        t = self.tables
        n = self.num_players
        if seed is not None:
            t.seed(seed)
        if deal is None:
            t.reset_tables()
            # Chips other than the starting chips: payments are additive, so shift every chip field.
            offset = np.asarray(chips, np.int64) - t.starting_chips
            for f in (K.S_CHIPS, K.S_CHIPS_HAND, K.S_CHIPS_EPISODE):
                t.S[0, :n, f] += offset
        else:
            if on_set is None and not t.first_hand_rule:
                rng = SplitMix64.from_state(int(t.R[0]))  # D20 from the table's own stream
                on_set = rng.below(n)
                t.R[0] = np.uint64(rng.state)
            t.load_deal(0, deal, on_set, list(chips), first_hand=on_set is None)
        self.episode_chips_start = [int(c) for c in t.S[0, :n, K.S_CHIPS_EPISODE]]
        pending = [int(c) for c in t.S[0, :n, K.S_PENDING]]
        t.S[0, :, K.S_PENDING] = 0  # delivered now, as reset rewards
        self.done = False
        return pending

    @property
    def to_move(self) -> int | None:
        seat = int(self.tables.T[0, K.T_TO_MOVE])
        return None if seat < 0 else seat

    @property
    def chips(self) -> list[int]:
        return [int(c) for c in self.tables.chips[0]]

    @property
    def hand_index(self) -> int:
        return int(self.tables.T[0, K.T_HAND_INDEX])

    @property
    def hand(self) -> Hand:
        return self.tables.reference_hand(0)

    def step(self, index: int) -> list[int]:
        rewards, terminated, _, _, _ = self.tables.step(np.array([index], np.int64), observe=False,
                                                        autoreset=False)
        self.done = bool(terminated[0])
        return [int(r) for r in rewards[0, : self.num_players]]

    def observe(self, seat: int) -> np.ndarray:
        self._seat[0] = seat
        return self.tables.observe(self._seat)[0]

    def mask(self) -> np.ndarray:
        return self.tables.MASK[0].copy()


BACKENDS = {"fast": FastBackend, "reference": ReferenceBackend}
