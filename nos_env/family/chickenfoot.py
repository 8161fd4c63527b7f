"""Chickenfoot, the reference engine: plain Python beside [rules/chickenfoot.md](../../docs/rules/chickenfoot.md).

A match of hands (CK13), each set with a lower double (CK4): six toes on the set (the double
chickenfoot, CK6), three on every later double (a chickenfoot, CK7), each foot filled before
any other play; one tile a turn, draw one when nothing fits (CK8); pips left in hand, and 50
for the [0-0], are penalty points (CK12). The API is ``FamilyGame``'s (family contract).

The random stream (``nos_env.rng.SplitMix64``, created by ``reset(seed)``), for each hand, in
this order (CK3, CK5): the deal (the identity list ``0..N-1`` shuffled by Fisher-Yates from
the top; seat s gets ``order[s*k:(s+1)*k]``, the yard is ``order[n*k:]``, drawn from its
front); if the hand's set double cannot be placed (CK5) the deal again, from a fresh identity
list on the same stream. Nothing else draws from it: the setter is the holder of the set.

Scores (CK12): ``scores`` are the penalty totals (lower is better); ``step`` returns every
seat's points **gained**, the negated penalties, so the family's rewards favour the better
seat as in every other game.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kernels.tilesets import DOUBLE_NINE, DOUBLE_TWELVE
from ..rng import SplitMix64
from . import chickenfoot_encoding as enc
from .own_rules import TileSetRules, check_game, check_option_names, checked_players, restart_stream

GAME = "chickenfoot"
PLAYER_COUNTS = enc.PLAYER_COUNTS
DEFAULT_PLAYERS = 4
TILESETS = {"double_nine": DOUBLE_NINE, "double_twelve": DOUBLE_TWELVE}
MISSING_SET = ("next_lower", "redeal")
MATCHES = ("descending", "longer", "one_hand")
#: CK12: the penalty for being caught with the [0-0]
ZERO_ZERO_PENALTY = 50
#: CK2: at most 20 tiles a hand, and at least 7 left in the yard
MAX_HAND, YARD_KEPT = 20, 7
#: name -> (default, what is allowed), the page's "Options" table
OPTIONS = {
    "tileset": ("double_nine", '"double_nine" or "double_twelve" (CK1)'),
    "missing_set": ("next_lower", '"next_lower" or "redeal" (CK5)'),
    "match": ("descending", '"descending", "longer" or "one_hand" (CK13)'),
    "target_score": (None, "None only: Chickenfoot has no target score, the number of hands is fixed (CK13)"),
}


def hand_size_for(num_tiles: int, num_players: int) -> int:
    """CK2: k = min(20, (N - 7) // n)."""
    return min(MAX_HAND, (num_tiles - YARD_KEPT) // num_players)


@dataclass(frozen=True)
class ChickenfootRules(TileSetRules):
    """Chickenfoot's options (the page's "Options" table) and what follows from them."""

    TILESETS = TILESETS

    num_players: int = DEFAULT_PLAYERS
    tileset: str = "double_nine"
    missing_set: str = "next_lower"
    match: str = "descending"
    target_score: None = None
    game: str = field(default=GAME, init=False)
    matching: str = field(default="equal", init=False)
    max_seats: int = field(default=enc.MAX_SEATS, init=False)
    teams: bool = field(default=False, init=False)

    @property
    def num_arms(self) -> int:
        """CK7: the most toes a hand can have, 6 + 2M."""
        return enc.num_arms_for(self.max_pip)

    @property
    def hand_size(self) -> int:
        return hand_size_for(self.num_tiles, self.num_players)

    @property
    def num_hands(self) -> int:
        """CK13: M+1 (descending), 2M+1 (longer) or 1 hand."""
        m = self.max_pip
        return {"descending": m + 1, "longer": 2 * m + 1, "one_hand": 1}[self.match]

    @property
    def num_actions(self) -> int:
        return enc.num_actions(self)

    def set_number(self, hand_index: int) -> int:
        """CK4: the nominal set double of hand ``hand_index`` (0-based)."""
        m = self.max_pip
        return m - hand_index if hand_index <= m else hand_index - m

    def options(self) -> dict:
        return {"tileset": self.tileset, "missing_set": self.missing_set, "match": self.match}


def make_chickenfoot_rules(num_players: int | None = None, **options) -> ChickenfootRules:
    """Checked rules; an unknown option or a bad value raises ValueError naming what is allowed."""
    num_players = checked_players(num_players, PLAYER_COUNTS, DEFAULT_PLAYERS,
                                  "Chickenfoot is played by 2 to 8 players (CK1)")
    check_option_names(options, OPTIONS, "Chickenfoot has no option %r (hand sizes are fixed by CK2, no teams)")
    values = {}
    for name, allowed in (("tileset", tuple(TILESETS)), ("missing_set", MISSING_SET), ("match", MATCHES)):
        value = options.get(name, OPTIONS[name][0])
        if not isinstance(value, str) or value not in allowed:
            raise ValueError(f"{name} must be {OPTIONS[name][1]}, got {value!r}")
        values[name] = value
    if options.get("target_score") is not None:
        raise ValueError(f"target_score must be {OPTIONS['target_score'][1]}, got {options['target_score']!r}")
    return ChickenfootRules(num_players, **values)


def make_rules(game: str = GAME, num_players: int | None = None, **options) -> ChickenfootRules:
    """``rules.make_rules("chickenfoot", ...)``'s Chickenfoot part."""
    check_game(game, GAME, "nos_env.family.chickenfoot")
    return make_chickenfoot_rules(num_players, **options)


def deal_order(rng: SplitMix64, num_tiles: int) -> list[int]:
    """CK3: the identity list shuffled by Fisher-Yates from the top."""
    order = list(range(num_tiles))
    for i in range(num_tiles - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def find_set(rules: ChickenfootRules, hands, hand_index: int) -> tuple[int, int] | None:
    """CK4/CK5: (the set double's number, its holder) for this deal, or None: deal again."""
    double_of = rules.tiles.DOUBLE_OF
    holder = {int(t): s for s, h in enumerate(hands) for t in h}
    d = rules.set_number(hand_index)
    candidates = [d] if rules.missing_set == "redeal" else range(d, -1, -1)
    for c in candidates:
        s = holder.get(int(double_of[c]))
        if s is not None:
            return c, s
    return None


@dataclass
class Toe:
    """One toe (CK7): its open number, its tiles, its last tile (None while empty)."""

    open: int
    count: int = 0
    last: int | None = None
    #: (tile, seat) from the root outwards, for the views
    tiles: list = field(default_factory=list)


class ChickenfootHand:
    """One hand: the hands, the yard, the layout of toes, the pending foot, whose turn."""

    def __init__(self, rules: ChickenfootRules, hands, yard, set_number: int, setter: int, number: int):
        self.rules = rules
        self.number = number
        n = rules.num_players
        self.hands = [set(h) for h in hands]
        self.yard = list(yard)
        self.placer: dict[int, int] = {}
        self.tile_arm: dict[int, int] = {}
        self.void = [set() for _ in range(n)]
        self.history: list[tuple[int, int]] = []
        self.over = False
        self.blocked = False
        self.went_out: int | None = None
        self.drawn = False
        # CK4: the holder places the set double (F12); CK6: its six toes wait for the set's number.
        t = int(rules.tiles.DOUBLE_OF[set_number])
        self.hands[setter].remove(t)
        self.set_tile, self.set_number, self.setter = t, set_number, setter
        self.placer[t] = setter
        self.tile_arm[t] = -1
        self.toes = [Toe(set_number) for _ in range(6)]
        self.foot_number = set_number
        self.foot_queue = list(range(6))  # CK6: filled in order
        self.to_move = (setter + 1) % n
        self.penalties: list[int] | None = None
        self._check_end(setter)

    @property
    def boneyard(self) -> list[int]:
        """The yard under the family's name (top first)."""
        return self.yard

    @boneyard.setter
    def boneyard(self, tiles) -> None:
        self.yard = list(tiles)

    @property
    def foot_left(self) -> int:
        return len(self.foot_queue)

    def foot_toe(self) -> int | None:
        return self.foot_queue[0] if self.foot_queue else None

    # ------------------------------------------------------------- the rules
    def playable_toes(self) -> list[int]:
        """CK6/CK7: the pending foot's next toe only; else every toe."""
        if self.foot_queue:
            return [self.foot_queue[0]]
        return list(range(len(self.toes)))

    def fits(self, t: int, k: int) -> bool:
        low, high = self.rules.tiles.tiles[t]
        return self.toes[k].open in (low, high)

    def places(self, t: int) -> list[int]:
        return [k for k in self.playable_toes() if self.fits(t, k)]

    def fitting_all(self) -> set[int]:
        """F of CK15: every tile of the set that fits a place open now."""
        return {t for t in range(self.rules.num_tiles) if self.places(t)}

    def legal_actions(self) -> list[int]:
        """CK8: the plays if any; else DRAW (not yet drawn, yard not empty); else PASS."""
        if self.over:
            return []
        rules = self.rules
        plays = [enc.play_index(t, k, rules=rules) for t in self.hands[self.to_move] for k in self.places(t)]
        if plays:
            return sorted(plays)
        if not self.drawn and self.yard:
            return [enc.draw_index(rules)]
        return [enc.pass_index(rules)]

    def apply(self, action: int) -> None:
        """A legal action of the seat to move (checked by the caller)."""
        rules, p = self.rules, self.to_move
        self.history.append((p, action))
        kind, t, k, _ = enc.action_parts(action, rules)
        if kind == "draw":  # CK8: one tile; CK15: stuck, so void = F
            self.void[p] = self.fitting_all()
            self.hands[p].add(self.yard.pop(0))
            self.drawn = True
            self._check_end(p)
            return
        if kind == "pass":  # CK15
            self.void[p] |= self.fitting_all()
            self._next()
            self._check_end(p)
            return
        self.hands[p].remove(t)
        toe = self.toes[k]
        low, high = rules.tiles.tiles[t]
        toe.open = high if toe.open == low else low
        toe.count += 1
        toe.last = t
        toe.tiles.append((t, p))
        self.placer[t] = p
        self.tile_arm[t] = k
        if self.foot_queue:
            self.foot_queue.pop(0)
        elif low == high:  # CK7: toe k goes on beyond the double, two new toes
            a = len(self.toes)
            self.toes += [Toe(low), Toe(low)]
            self.foot_number = low
            self.foot_queue = [k, a, a + 1]
        if not self.hands[p]:
            self.went_out = p
            self._finish()
            return
        self._next()
        self._check_end(p)

    def _next(self) -> None:
        self.to_move = (self.to_move + 1) % self.rules.num_players
        self.drawn = False

    def _check_end(self, mover: int) -> None:
        """CK11: blocked when the yard is empty and no tile in any hand fits a place open now."""
        if self.yard:
            return
        if any(self.places(t) for h in self.hands for t in h):
            return
        self.blocked = True
        self._finish()

    def _finish(self) -> None:
        """CK12: each seat's pips, +50 with the [0-0]."""
        self.over = True
        pips = self.rules.tiles.PIPS
        zero = int(self.rules.tiles.DOUBLE_OF[0])
        self.penalties = [int(sum(int(pips[t]) for t in h)) + (ZERO_ZERO_PENALTY if zero in h else 0)
                          for h in self.hands]


class ChickenfootGame:
    """A Chickenfoot match (the API of ``FamilyGame``)."""

    def __init__(self, rules: ChickenfootRules, seed: int | None = None):
        if not isinstance(rules, ChickenfootRules):
            raise ValueError(f"rules must be ChickenfootRules (make_chickenfoot_rules), got {type(rules).__name__}")
        self.rules = rules
        self.seed = None
        self.rng: SplitMix64 | None = None
        self.reset(seed)

    # ------------------------------------------------------------- the deal
    def reset(self, seed: int | None = None) -> None:
        """A new match: from a new stream seeded with ``seed``, or the current stream (None)."""
        restart_stream(self, seed)
        self._from_deal = None
        self._start_match(None)
        self.hand = self._deal_hand(0)

    def _start_match(self, scores) -> None:
        n = self.rules.num_players
        self.scores = [0] * n if scores is None else [int(x) for x in scores]
        self.hands_finished = 0
        self.done = False
        self.hand_over = False
        self.winner: int | None = None
        self.winners: list[int] = []
        self.actions: list[int] = []
        self.finished_hands: list[ChickenfootHand] = []

    def _deal_hand(self, index: int) -> ChickenfootHand:
        rules = self.rules
        n, k, N = rules.num_players, rules.hand_size, rules.num_tiles
        while True:  # CK5: deal again until the set can be placed
            order = deal_order(self.rng, N)
            hands = [order[s * k:(s + 1) * k] for s in range(n)]
            found = find_set(rules, hands, index)
            if found is not None:
                return ChickenfootHand(rules, hands, order[n * k:], found[0], found[1], index)

    @classmethod
    def from_deal(cls, rules: ChickenfootRules, hands, boneyard, setter=None, scores=None,
                  hand_number: int = 0) -> "ChickenfootGame":
        """A match from a given deal of hand ``hand_number`` (tests, search): ``hands`` (any
        sizes) and the yard (front first) hold every tile once; the set double and its holder
        follow from CK4/CK5 (``setter``, if given, must be that holder). Later hands are dealt
        from the stream of seed 0."""
        game = cls.__new__(cls)
        game.rules = rules
        n, N = rules.num_players, rules.num_tiles
        hands = [[int(t) for t in h] for h in hands]
        yard = [int(t) for t in boneyard]
        if len(hands) != n:
            raise ValueError(f"from_deal needs {n} hands, got {len(hands)}")
        if sorted([t for h in hands for t in h] + yard) != list(range(N)) or not all(hands):
            raise ValueError(f"the hands and the yard must hold every tile 0..{N - 1} exactly once, "
                             f"every hand at least one")
        if isinstance(hand_number, bool) or not isinstance(hand_number, int) \
                or not 0 <= hand_number < rules.num_hands:
            raise ValueError(f"hand_number must be 0..{rules.num_hands - 1}, got {hand_number!r}")
        found = find_set(rules, hands, hand_number)
        if found is None:
            raise ValueError(f"nobody holds the set double of hand {hand_number} "
                             f"({rules.set_number(hand_number)}-{rules.set_number(hand_number)}; CK5)")
        if setter is not None and setter != found[1]:
            raise ValueError(f"the setter is the holder of the set double, seat {found[1]} (CK4), got {setter!r}")
        if scores is not None and (len(scores) != n or not all(isinstance(x, (int, np.integer)) for x in scores)):
            raise ValueError(f"scores must be {n} integers, got {scores!r}")
        game.seed, game.rng, game.stream_state = 0, SplitMix64(0), None
        game._start_match(scores)
        game.hands_finished = hand_number
        game._from_deal = dict(hands=hands, boneyard=yard, scores=None if scores is None else list(scores),
                               hand_number=hand_number)
        game.hand = ChickenfootHand(rules, hands, yard, found[0], found[1], hand_number)
        game._settle([0] * n)
        return game

    # ---------------------------------------------------------------- API
    @property
    def hand_number(self) -> int:
        """The current hand's index in the match (0-based)."""
        return self.hand.number

    @property
    def to_move(self) -> int | None:
        return None if self.done else self.hand.to_move

    @property
    def num_actions(self) -> int:
        return self.rules.num_actions

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        return self.hand.legal_actions()

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.rules.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def step(self, action: int) -> list[int]:
        """Apply a legal action; returns each seat's points gained (minus its penalties, CK12).
        An illegal action raises ValueError naming the legal ones and changes nothing."""
        if self.done:
            raise ValueError("the match is over; reset() to play again")
        legal = self.hand.legal_actions()
        if isinstance(action, bool) or not hasattr(action, "__index__") or int(action) not in legal:
            shown = ", ".join(f"{a} ({enc.describe(a, self.rules)})" for a in legal)
            raise ValueError(f"illegal action {action!r} for seat {self.to_move}; legal: {shown}")
        action = int(action)
        self.actions.append(action)
        self.hand_over = False
        points = [0] * self.rules.num_players
        self.hand.apply(action)
        self._settle(points)
        return points

    def _settle(self, points: list[int]) -> None:
        """A finished hand is scored (CK12); the match ends after its last hand (CK13), else
        the next hand is dealt in the same step (contract choice 6)."""
        while self.hand.over and not self.done:
            self.hand_over = True
            self.finished_hands.append(self.hand)
            for s, pen in enumerate(self.hand.penalties):
                self.scores[s] += pen
                points[s] -= pen
            self.hands_finished += 1
            if self.hands_finished >= self.rules.num_hands:
                self.done = True
                low = min(self.scores)
                self.winners = [s for s, x in enumerate(self.scores) if x == low]
                if len(self.winners) > 1:  # CK13: a shared lowest total, no winner (as F15)
                    self.winners = []
                self.winner = self.winners[0] if self.winners else None
                return
            self.hand = self._deal_hand(self.hands_finished)

    def observe(self, seat: int, dtype: str = "float32", score_scale: float = 100.0) -> np.ndarray:
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) \
                or not 0 <= seat < self.rules.num_players:
            raise ValueError(f"seat must be 0..{self.rules.num_players - 1}, got {seat!r}")
        return enc.encode(self, int(seat), dtype, score_scale)

    def record(self) -> dict:
        """JSON: the game, its options, the seed (or the deal) and the actions; ``from_record``
        replays it exactly."""
        record = {"version": 1, "game": GAME, "num_players": self.rules.num_players, "options": self.rules.options(),
                  "seed": self.seed, "actions": list(self.actions), "scores": list(self.scores), "done": self.done}
        if self._from_deal is not None:
            record["deal"] = self._from_deal
        return record

    @classmethod
    def from_record(cls, record: dict) -> "ChickenfootGame":
        if not isinstance(record, dict) or record.get("game") != GAME or not {"options", "actions"} <= set(record) \
                or not isinstance(record["options"], dict) or not isinstance(record["actions"], list):
            raise ValueError(f"a Chickenfoot record is a dict with game={GAME!r}, num_players, options (a dict), "
                             f"seed and actions (a list); got {str(record)[:200]}")
        rules = make_chickenfoot_rules(record.get("num_players"), **record["options"])
        deal = record.get("deal")
        if deal is not None:
            game = cls.from_deal(rules, deal["hands"], deal["boneyard"], scores=deal.get("scores"),
                                 hand_number=deal.get("hand_number", 0))
        else:
            game = cls(rules, seed=record.get("seed", 0))
        for a in record["actions"]:
            game.step(a)
        return game
