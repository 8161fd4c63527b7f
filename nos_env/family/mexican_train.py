"""Mexican Train, the reference engine: plain Python beside [rules/mexican_train.md](../../docs/rules/mexican_train.md).

A match is a series of rounds (MT1), each with its own engine double, personal trains per
seat and the Mexican train (MT4). :class:`Round` is one round (the family's "hand"),
:class:`MexicanTrainGame` the match with the API of ``FamilyGame`` (family contract).

The random stream (``nos_env.rng.SplitMix64``, created by ``reset(seed)``; a plain
``reset()`` goes on with the same stream), for each round, in this order (MT3):

1. the deal: the N - 1 tiles other than the round's engine, in tile order, shuffled by
   Fisher-Yates from the top (``for i in N-2..1: j = below(i+1); swap``); seat s holds
   ``order[s*k:(s+1)*k]``, the boneyard is ``order[n*k:]`` with ``order[n*k]`` drawn first;
2. the first round only: the starter, ``first_seat`` if given, else ``below(n)``.

Round r's starter is (first starter + r) mod n. Nothing else draws from the stream.

Actions (``mexican_train_encoding``): PLAY(t, j) with trains by seat offset from the
player to move (MT13: 0 his own, 8 the Mexican train), DRAW, PASS. Points (MT11): a step
that ends a round reports minus each seat's pips left; ``scores`` are minus the totals.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kernels.tilesets import DOUBLE_NINE, DOUBLE_TWELVE
from ..rng import SplitMix64
from . import mexican_train_encoding as enc
from .own_rules import (TileSetRules, check_game, check_option_names, checked_players, checked_seat_or_none,
                        restart_stream)
from .own_rules import is_int as _is_int
from .own_rules import tile_index  # noqa: F401  (this module's tile_index, as before)

GAME = "mexican_train"
PLAYER_COUNTS = enc.PLAYER_COUNTS
DEFAULT_PLAYERS = 4
MEXICAN = enc.MEXICAN
ENGINE_ARM = enc.NUM_ARMS  # tile_arm of the engine itself
TILESETS = {"double_twelve": DOUBLE_TWELVE, "double_nine": DOUBLE_NINE}
#: MT2: hand size by player count 2..8, per set
HAND_SIZES = {
    "double_twelve": {2: 12, 3: 11, 4: 10, 5: 12, 6: 11, 7: 10, 8: 9},
    "double_nine": {2: 12, 3: 11, 4: 10, 5: 7, 6: 7, 7: 6, 8: 5},
}
#: name -> (default, what is allowed), the page's "Options" table
OPTIONS = {
    "tileset": ("double_twelve", '"double_twelve" or "double_nine" (MT1)'),
    "rounds": (None, "None (the full match: 13 rounds on double-twelve, 10 on double-nine) or 1..that (MT1)"),
    "first_seat": (None, "None (a random first starter) or a seat 0..n-1 (MT3)"),
}
# Turn states (MT7, MT8): what the player to move owes.
OWE_NONE, OWE_SECOND, OWE_THIRD = 0, 1, 2


@dataclass(frozen=True)
class MexicanTrainRules(TileSetRules):
    """Mexican Train's options (the page's "Options" table) and what follows from them."""

    TILESETS = TILESETS

    num_players: int = DEFAULT_PLAYERS
    tileset: str = "double_twelve"
    rounds: int | None = None
    first_seat: int | None = None
    game: str = field(default=GAME, init=False)
    num_arms: int = field(default=enc.NUM_ARMS, init=False)
    matching: str = field(default="equal", init=False)
    max_seats: int = field(default=enc.MAX_SEATS, init=False)
    target_score: None = field(default=None, init=False)

    @property
    def hand_size(self) -> int:
        return HAND_SIZES[self.tileset][self.num_players]

    @property
    def num_rounds(self) -> int:
        """MT1: the rounds of a match (the full M + 1 unless ``rounds`` says fewer)."""
        return self.max_pip + 1 if self.rounds is None else self.rounds

    @property
    def num_actions(self) -> int:
        return enc.num_actions(self)

    def engine_of(self, round_index: int) -> int:
        """MT1: round r's engine, the double (M - r)."""
        return int(self.tiles.DOUBLE_OF[self.max_pip - round_index])

    def options(self) -> dict:
        return {"tileset": self.tileset, "rounds": self.rounds, "first_seat": self.first_seat}


def make_mexican_train_rules(num_players: int | None = None, **options) -> MexicanTrainRules:
    """Checked rules; an unknown option or a bad value raises ValueError naming what is allowed."""
    num_players = checked_players(num_players, PLAYER_COUNTS, DEFAULT_PLAYERS,
                                  "Mexican Train is played by 2 to 8 players (MT2)")
    check_option_names(options, OPTIONS, "Mexican Train has no option %r")
    tileset = options.get("tileset", "double_twelve")
    if tileset not in TILESETS:
        raise ValueError(f"tileset must be {OPTIONS['tileset'][1]}, got {tileset!r}")
    most = TILESETS[tileset].max_pip + 1
    rounds = options.get("rounds")
    if rounds is not None and (not _is_int(rounds) or not 1 <= rounds <= most):
        raise ValueError(f"rounds must be None (the full match of {most}) or an integer 1..{most} on the "
                         f"{tileset} set (MT1), got {rounds!r}")
    first_seat = checked_seat_or_none(options.get("first_seat"), num_players, "first_seat", "a random first starter")
    return MexicanTrainRules(num_players, tileset, None if rounds is None else int(rounds), first_seat)


def make_rules(game: str = GAME, num_players: int | None = None, **options) -> MexicanTrainRules:
    check_game(game, GAME, "nos_env.family.mexican_train")
    return make_mexican_train_rules(num_players, **options)


class Round:
    """One round (the family's hand): trains, markers, hands, boneyard, whose turn and what he owes.

    Trains are kept by absolute arm: seat s's train is arm s, the Mexican train arm 8 (MT13's
    offsets are only the actions' and observations' view)."""

    def __init__(self, rules: MexicanTrainRules, index: int, hands, boneyard, starter: int):
        self.rules = rules
        self.index = index
        self.engine = rules.engine_of(index)
        self.engine_pip = int(rules.tiles.LOW[self.engine])
        n = rules.num_players
        self.hands = [set(h) for h in hands]
        self.dealt = [sorted(h) for h in hands]
        self.boneyard = list(boneyard)
        self.starter = starter
        self.to_move: int | None = starter
        self.open_end = [self.engine_pip] * enc.NUM_ARMS  # MT4: the engine's number while empty
        self.count = [0] * enc.NUM_ARMS
        self.last = [-1] * enc.NUM_ARMS
        self.marker = [False] * enc.MAX_SEATS
        self.placer = [-1] * rules.num_tiles
        self.tile_arm = [-1] * rules.num_tiles
        self.tile_arm[self.engine] = ENGINE_ARM
        self.void = [set() for _ in range(n)]
        self.owe = OWE_NONE
        self.drawn: int | None = None  # the tile drawn in the current obligation (MT6)
        self.over = False
        self.blocked = False
        self.out: int | None = None  # who went out
        self.history: list[tuple] = []

    # ------------------------------------------------------------ the rules
    def fits(self, t: int, arm: int) -> bool:
        tiles = self.rules.tiles
        return self.open_end[arm] in (tiles.LOW[t], tiles.HIGH[t])

    def ends_in_double(self, arm: int) -> bool:
        """MT7: the train's last tile is a double with nothing beyond (unsatisfied)."""
        return self.last[arm] >= 0 and bool(self.rules.tiles.IS_DOUBLE[self.last[arm]])

    def arms(self) -> list[int]:
        return list(range(self.rules.num_players)) + [MEXICAN]

    def accessible(self, seat: int) -> list[int]:
        """The trains ``seat`` may play on now (MT5, MT7, MT8); a seat not to move: as at the
        start of its turn."""
        doubles = [k for k in self.arms() if self.ends_in_double(k)]
        moving = seat == self.to_move and not self.over
        if moving and self.owe == OWE_THIRD:
            return doubles  # MT8: on one of his two doubles
        if not (moving and self.owe == OWE_SECOND) and doubles:
            return doubles  # MT7: the unsatisfied double stops all other play
        return [k for k in self.arms() if k == seat or k == MEXICAN or self.marker[k]]  # MT5

    def _double_follows(self, seat: int, t: int, arm: int) -> bool:
        """MT8: after placing double t on ``arm`` the player holds a tile (not t) that fits one
        of the unsatisfied doubles (his first and t)."""
        ends = {self.open_end[k] for k in self.arms() if self.ends_in_double(k)} | {int(self.rules.tiles.LOW[t])}
        tiles = self.rules.tiles
        return any(u != t and (tiles.LOW[u] in ends or tiles.HIGH[u] in ends) for u in self.hands[seat])

    def plays(self) -> list[tuple[int, int]]:
        """The player to move's legal (tile, absolute arm) plays (MT6, MT7, MT8)."""
        if self.over:
            return []
        p = self.to_move
        candidates = [self.drawn] if self.drawn is not None else sorted(self.hands[p])
        if self.owe == OWE_THIRD:
            candidates = sorted(self.hands[p])  # from his hand, no draw
        out = []
        is_double = self.rules.tiles.IS_DOUBLE
        for t in candidates:
            for k in self.accessible(p):
                if not self.fits(t, k):
                    continue
                if self.owe == OWE_SECOND and is_double[t] and not self._double_follows(p, t, k):
                    continue  # MT8: a second double needs a third tile from his hand
                out.append((t, k))
        return out

    def stuck_tiles(self, seat: int) -> set[int]:
        """MT12's F: every tile that fits a train ``seat`` may play on now."""
        tiles = self.rules.tiles
        ends = {self.open_end[k] for k in self.accessible(seat)}
        return {t for t in range(self.rules.num_tiles) if tiles.LOW[t] in ends or tiles.HIGH[t] in ends}

    def phase(self) -> int:
        """The observation's phase: 1 play, 2 drawn, 3 continuing (owes a tile after a double)."""
        if self.drawn is not None:
            return 2
        return 3 if self.owe != OWE_NONE else 1

    def pips(self) -> list[int]:
        pips = self.rules.tiles.PIPS
        return [int(sum(pips[t] for t in h)) for h in self.hands]

    def is_blocked(self) -> bool:
        """MT10: the boneyard is empty and no hand holds a tile that fits the unsatisfied double,
        or (none) any train's open number."""
        if self.boneyard:
            return False
        doubles = [k for k in self.arms() if self.ends_in_double(k)]
        ends = {self.open_end[k] for k in (doubles or self.arms())}
        tiles = self.rules.tiles
        return not any(tiles.LOW[t] in ends or tiles.HIGH[t] in ends for h in self.hands for t in h)

    # ----------------------------------------------------------- transitions
    def play(self, t: int, k: int) -> None:
        p = self.to_move
        tiles = self.rules.tiles
        self.hands[p].discard(t)
        e = self.open_end[k]
        self.open_end[k] = int(tiles.HIGH[t] if tiles.LOW[t] == e else tiles.LOW[t])
        self.count[k] += 1
        self.last[k] = t
        self.placer[t] = p
        self.tile_arm[t] = k
        if k == p:
            self.marker[p] = False  # MT6: the owner plays on his train
        self.drawn = None
        self.history.append(("play", p, t, k))
        if not self.hands[p]:  # MT10: out, at once
            self.out = p
            self.over = True
            self.to_move = None
            return
        if tiles.IS_DOUBLE[t] and self.owe != OWE_THIRD:
            self.owe = OWE_SECOND if self.owe == OWE_NONE else OWE_THIRD  # MT7, MT8
        else:
            self.end_turn()

    def draw(self) -> None:
        p = self.to_move
        self.void[p] = self.stuck_tiles(p)  # MT12: a stuck draw
        self.drawn = self.boneyard.pop(0)
        self.hands[p].add(self.drawn)
        self.history.append(("draw", p))

    def pass_turn(self) -> None:
        p = self.to_move
        self.void[p] |= self.stuck_tiles(p)  # MT12
        self.marker[p] = True  # MT6
        self.history.append(("pass", p))
        self.end_turn()

    def end_turn(self) -> None:
        self.owe = OWE_NONE
        self.drawn = None
        self.to_move = (self.to_move + 1) % self.rules.num_players
        if self.is_blocked():  # MT10: checked when a turn ends
            self.blocked = True
            self.over = True
            self.to_move = None


class MexicanTrainGame:
    """A match of Mexican Train (the API of ``FamilyGame``)."""

    def __init__(self, rules: MexicanTrainRules, seed: int | None = None):
        if not isinstance(rules, MexicanTrainRules):
            raise ValueError(f"rules must be MexicanTrainRules (make_mexican_train_rules), got {type(rules).__name__}")
        self.rules = rules
        self.seed = None
        self.rng: SplitMix64 | None = None
        self.reset(seed)

    # ------------------------------------------------------------- the deal
    def reset(self, seed: int | None = None) -> None:
        """A new match: from a new stream seeded with ``seed``, or the current stream (None)."""
        restart_stream(self, seed)
        self._begin([0] * self.rules.num_players)
        self._deal(0)

    def _begin(self, scores) -> None:
        self.scores = [int(x) for x in scores]
        self.actions: list[int] = []
        self.finished_hands: list[Round] = []
        self.done = False
        #: the last step ended a round (``finished_hands[-1]``; ``hand`` is then the next one)
        self.hand_over = False
        self.winner: int | None = None
        self.first_starter: int | None = None

    def _deal(self, index: int) -> None:
        """MT3: one round's deal from the stream (and the first starter in round 0)."""
        rules, rng = self.rules, self.rng
        engine = rules.engine_of(index)
        order = [t for t in range(rules.num_tiles) if t != engine]
        for i in range(len(order) - 1, 0, -1):
            j = rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
        n, k = rules.num_players, rules.hand_size
        if index == 0:
            self.first_starter = rules.first_seat if rules.first_seat is not None else rng.below(n)
        self.hand = Round(rules, index, [order[s * k:(s + 1) * k] for s in range(n)], order[n * k:],
                          (self.first_starter + index) % n)

    @classmethod
    def from_deal(cls, rules: MexicanTrainRules, hands, boneyard, setter: int | None = None, scores=None,
                  round_index: int = 0) -> "MexicanTrainGame":
        """A match from given hands and boneyard (top first) for round ``round_index``, for tests
        and search. ``setter`` is that round's starter (default ``first_seat``, else 0); later
        rounds are dealt from a stream seeded 0. Every tile but the round's engine must be in
        exactly one hand or the boneyard; hands may have any size >= 1."""
        game = cls.__new__(cls)
        game.rules, game.seed, game.rng = rules, 0, SplitMix64(0)
        game.stream_state = None
        n = rules.num_players
        if not _is_int(round_index) or not 0 <= round_index < rules.num_rounds:
            raise ValueError(f"round_index must be 0..{rules.num_rounds - 1}, got {round_index!r}")
        if len(hands) != n:
            raise ValueError(f"hands must be {n} lists of tiles, got {len(hands)}")
        hands = [[tile_index(t, rules) for t in h] for h in hands]
        boneyard = [tile_index(t, rules) for t in boneyard]
        engine = rules.engine_of(round_index)
        if sorted(sum(hands, []) + boneyard) != [t for t in range(rules.num_tiles) if t != engine] \
                or any(not h for h in hands):
            raise ValueError(f"the hands (each not empty) and the boneyard must hold every tile of the "
                             f"{rules.tiles.name} set but the engine {enc.tile_text(engine, rules)} exactly once")
        if setter is None:
            setter = rules.first_seat if rules.first_seat is not None else 0
        if not _is_int(setter) or not 0 <= setter < n:
            raise ValueError(f"setter must be a seat 0..{n - 1}, got {setter!r}")
        if scores is not None and (len(scores) != n or not all(_is_int(x) for x in scores)):
            raise ValueError(f"scores must be {n} integers, got {scores!r}")
        game._begin(scores if scores is not None else [0] * n)
        game.first_starter = (int(setter) - round_index) % n
        game.hand = Round(rules, round_index, hands, boneyard, int(setter))
        return game

    # ---------------------------------------------------------------- API
    @property
    def to_move(self) -> int | None:
        return None if self.done else self.hand.to_move

    @property
    def hand_number(self) -> int:
        return self.hand.index

    @property
    def rounds_left(self) -> int:
        return self.rules.num_rounds - 1 - self.hand.index

    @property
    def winners(self) -> list[int]:
        return [] if self.winner is None else [self.winner]

    def _to_action(self, t: int, k: int) -> int:
        n = self.rules.num_players
        j = MEXICAN if k == MEXICAN else (k - self.hand.to_move) % n
        return enc.play_index(t, j, rules=self.rules)

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        h = self.hand
        plays = h.plays()
        if plays:
            return sorted(self._to_action(t, k) for t, k in plays)
        if h.owe != OWE_THIRD and h.drawn is None and h.boneyard:
            return [enc.draw_index(rules=self.rules)]
        return [enc.pass_index(rules=self.rules)]

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.rules.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def step(self, action: int) -> list[int]:
        """Apply a legal action; returns each seat's points gained (MT11: minus the pips left, at
        the end of a round). An illegal action raises ValueError naming the legal ones and
        changes nothing."""
        if self.done:
            raise ValueError("the match is over: no action is legal")
        legal = self.legal_actions()
        if not _is_int(action) or int(action) not in legal:
            shown = ", ".join(f"{a} ({enc.describe(a, self.rules)})" for a in legal)
            raise ValueError(f"action {action!r} is not legal for seat {self.to_move}; legal: {shown}")
        action = int(action)
        self.actions.append(action)
        n = self.rules.num_players
        points = [0] * n
        h = self.hand
        self.hand_over = False
        parts = enc.action_parts(action, self.rules)
        if parts[0] == "play":
            j = parts[2]
            h.play(parts[1], MEXICAN if j == MEXICAN else (h.to_move + j) % n)
        elif parts[0] == "draw":
            h.draw()
        else:
            h.pass_turn()
        if h.over:
            for s, p in enumerate(h.pips()):  # MT11
                self.scores[s] -= p
                points[s] -= p
            self.finished_hands.append(h)
            self.hand_over = True
            if h.index + 1 < self.rules.num_rounds:
                self._deal(h.index + 1)  # the next round in the same step (contract choice 6)
            else:
                self.done = True
                best = max(self.scores)
                self.winner = self.scores.index(best) if self.scores.count(best) == 1 else None
        return points

    def observe(self, seat: int, dtype: str = "float32", score_scale: float = 100.0) -> np.ndarray:
        if not _is_int(seat) or not 0 <= seat < self.rules.num_players:
            raise ValueError(f"seat must be 0..{self.rules.num_players - 1}, got {seat!r}")
        return enc.encode(self, int(seat), dtype, score_scale)

    def record(self) -> dict:
        """JSON: the game, its options, the seed and the decisions; ``from_record`` replays it."""
        if self.stream_state is None:
            raise ValueError("a match from from_deal has no random stream to record")
        return {"game": GAME, "num_players": self.rules.num_players, "options": self.rules.options(),
                "seed": self.seed, "stream_state": self.stream_state, "actions": list(self.actions)}

    @classmethod
    def from_record(cls, record: dict) -> "MexicanTrainGame":
        keys = {"game", "num_players", "options", "seed", "stream_state", "actions"}
        if not isinstance(record, dict) or record.get("game") != GAME or set(record) != keys \
                or not isinstance(record["options"], dict) or not isinstance(record["actions"], list) \
                or not _is_int(record["stream_state"]) or not 0 <= record["stream_state"] < 1 << 64:
            raise ValueError(f"a Mexican Train record is a dict with game={GAME!r}, num_players, options (a dict), "
                             f"seed, stream_state (0..2**64-1) and actions (a list); got {str(record)[:200]}")
        rules = make_mexican_train_rules(record["num_players"], **record["options"])
        game = cls.__new__(cls)
        game.rules, game.seed = rules, record["seed"]
        game.rng = SplitMix64.from_state(record["stream_state"])
        game.reset()
        for a in record["actions"]:
            game.step(a)
        return game

    def describe(self, viewer: int | None = None) -> str:
        """The table as text: the engine, each train (open end, marker, tiles), hands (the
        viewer's, or all with viewer None), boneyard size, scores."""
        h, rules = self.hand, self.rules
        n = rules.num_players
        text = lambda t: enc.tile_text(t, rules)  # noqa: E731
        lines = [f"Mexican Train, round {h.index + 1}/{rules.num_rounds}, engine {text(h.engine)}"]
        for k in h.arms():
            tiles = [t for t in range(rules.num_tiles) if h.tile_arm[t] == k]
            tiles.sort(key=lambda t: h.history.index(("play", h.placer[t], t, k)))
            name = "mexican" if k == MEXICAN else f"seat {k}"
            flags = (" [marker]" if k != MEXICAN and h.marker[k] else "") + \
                (" [double open]" if h.ends_in_double(k) else "")
            lines.append(f"  {name:8s} open {h.open_end[k]:2d}{flags}: {' '.join(text(t) for t in tiles)}")
        for s in range(n):
            shown = viewer is None or viewer == s
            held = " ".join(text(t) for t in sorted(h.hands[s])) if shown else f"{len(h.hands[s])} tiles"
            turn = " <- to move" if not self.done and h.to_move == s else ""
            lines.append(f"  seat {s}: {held}   score {self.scores[s]}{turn}")
        lines.append(f"  boneyard {len(h.boneyard)}" + (f"; match over, winner {self.winner}" if self.done else ""))
        return "\n".join(lines)
