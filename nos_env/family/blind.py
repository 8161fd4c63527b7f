"""Blind, the reference engine: plain Python beside [rules/blind.md](../../docs/rules/blind.md).

Nobody looks at his own tiles: each hand is a face-down row, turned up one tile at a time
(BD3). The engine turns tiles up, sends a tile that fits neither end to the bottom of its
row and plays a tile that fits one end by itself (F12, the page's "For implementers");
an agent decides only when a tile fits both ends (which arm, BD5) or, with
``optional_play``, whether to play a fitting tile at all (DECLINE). A deal may therefore
be played out without a single decision: ``done`` is then True right after ``reset``
(``BlindGame(..., skip_decisionless=True)`` deals again instead, as the fast engine does).

The random stream (``nos_env.rng.SplitMix64``, created by ``reset(seed)``; a plain
``reset()`` goes on with the same stream), for each game, in this order:

1. the deal: the identity list ``0..N-1`` shuffled by Fisher-Yates from the top
   (``for i in N-1..1: j = below(i+1); swap``); seat s's row is ``order[s*k:(s+1)*k]``
   with ``order[s*k]`` at its front (the first to be turned up), k = ⌊N/n⌋; the N mod n
   tiles ``order[n*k:]`` are set aside (BD2);
2. the starter: ``first_seat`` if given, else ``below(n)`` (BD4).

Nothing else draws from the stream. With ``skip_decisionless`` a deal played out without
a decision is followed at once by steps 1-2 again on the same stream.

Actions: the family space of ``3N + 2`` ids; a decision is PLAY(turned tile, L0 or L1)
(``t*2 + arm``) or, with ``optional_play``, DECLINE (the PASS id ``3N + 1``); SET and DRAW
are never legal. Results (BD8): the winner scores 1, the others 0; ``step`` returns each
seat's points.

What a seat may know (BD3), and so all its observation holds (``blind_encoding.py`` has the
layout with shapes and the compact form; seat offsets relative to the observer):

=================== ===================================================================
slices              meaning
=================== ===================================================================
num_players, phase  player count; play (first tile of the turn) or continuing (has played)
turned_up           the tile just turned up, which the decision is about
on_table, placer,   the line: its tiles, who placed each, its arm (or the set),
tile_arm, set_tile  the set tile
arm_*               each end: exists, open number, tiles on it, fits the turned-up tile,
                    ends in a double
seat_present,       seats; whose turn; each row's length; how many of its tiles were
seat_to_move,       never turned up
seat_hand_size,
seat_unseen
row_seen, row_place every tile seen and still in a row: whose row, its place (1 = front)
unseen, set_aside   the tiles never turned up (as a set: in some row or set aside); how
                    many are set aside
seat_score, target  scores (1 for the winner once over); target always 0
=================== ===================================================================

Nothing about a tile that was never turned up is in it, its owner's own row included (the
same for every seat): ``tests/test_blind_rules.py`` shuffles the unseen tiles and checks
every seat's observation is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..kernels.tilesets import DOUBLE_NINE, DOUBLE_SIX
from ..rng import SplitMix64
from . import blind_encoding as enc
from .own_rules import (TileSetRules, check_game, check_option_names, checked_players, checked_seat_or_none, is_int,
                        restart_stream)
from .own_rules import tile_index  # noqa: F401  (this module's tile_index, as before)

GAME = "blind"
PLAYER_COUNTS = enc.PLAYER_COUNTS
DEFAULT_PLAYERS = 4
TILESETS = {"double_six": DOUBLE_SIX, "double_nine": DOUBLE_NINE}
#: name -> (default, what is allowed), the page's "Options" table
OPTIONS = {
    "tileset": ("double_six", '"double_six" or "double_nine" (F1, BD2)'),
    "first_seat": (None, "None (a random starter) or a seat 0..n-1 (F4, BD4)"),
    "optional_play": (False, "False or True: a fitting tile may be declined (BD5)"),
    "target_score": (None, "None only: Blind is one hand (BD8)"),
}


@dataclass(frozen=True)
class BlindRules(TileSetRules):
    """Blind's options (the page's "Options" table) and what follows from them."""

    TILESETS = TILESETS

    num_players: int = DEFAULT_PLAYERS
    tileset: str = "double_six"
    first_seat: int | None = None
    optional_play: bool = False
    target_score: None = None
    game: str = field(default=GAME, init=False)
    num_arms: int = field(default=enc.NUM_ARMS, init=False)
    matching: str = field(default="equal", init=False)
    max_seats: int = field(default=enc.MAX_SEATS, init=False)

    @property
    def hand_size(self) -> int:
        """BD2: ⌊N/n⌋ tiles a row."""
        return self.num_tiles // self.num_players

    @property
    def set_aside(self) -> int:
        """BD2: N mod n tiles set aside, unseen."""
        return self.num_tiles % self.num_players

    @property
    def num_actions(self) -> int:
        return enc.num_actions(self)

    def options(self) -> dict:
        return {"tileset": self.tileset, "first_seat": self.first_seat, "optional_play": self.optional_play}


def make_blind_rules(num_players: int | None = None, **options) -> BlindRules:
    """Checked rules; an unknown option or a bad value raises ValueError naming what is allowed."""
    num_players = checked_players(num_players, PLAYER_COUNTS, DEFAULT_PLAYERS, "Blind is played by 2 to 5 players")
    check_option_names(options, OPTIONS, "Blind has no option %r (no drawing, hand size, score or teams: BD2, BD8)")
    tileset = options.get("tileset", "double_six")
    if tileset not in TILESETS:
        raise ValueError(f"tileset must be {OPTIONS['tileset'][1]}, got {tileset!r}")
    first_seat = checked_seat_or_none(options.get("first_seat"), num_players, "first_seat", "a random starter")
    optional_play = options.get("optional_play", False)
    if not isinstance(optional_play, (bool, np.bool_)):
        raise ValueError(f"optional_play must be {OPTIONS['optional_play'][1]}, got {optional_play!r}")
    if options.get("target_score") is not None:
        raise ValueError(f"target_score must be {OPTIONS['target_score'][1]}, got {options['target_score']!r}")
    return BlindRules(num_players, tileset, first_seat, bool(optional_play))


class BlindGame:
    """One game of Blind (the API of ``FamilyGame``)."""

    def __init__(self, rules: BlindRules, seed: int | None = None, skip_decisionless: bool = False):
        if not isinstance(rules, BlindRules):
            raise ValueError(f"rules must be BlindRules (make_blind_rules), got {type(rules).__name__}")
        self.rules = rules
        self.skip_decisionless = bool(skip_decisionless)
        #: deals played out without a decision and dealt again (skip_decisionless), since the
        #: last seed
        self.skipped = 0
        self.seed = None
        self.rng: SplitMix64 | None = None
        self.reset(seed)

    # ------------------------------------------------------------- the deal
    def reset(self, seed: int | None = None) -> None:
        """A new game: from a new stream seeded with ``seed``, or the current stream (None)."""
        restart_stream(self, seed)
        if seed is not None:
            self.skipped = 0
        while True:
            self.stream_state = self.rng.state  # where this game's draws begin (record), each deal dealt again
            rules, rng = self.rules, self.rng
            order = list(range(rules.num_tiles))
            for i in range(rules.num_tiles - 1, 0, -1):
                j = rng.below(i + 1)
                order[i], order[j] = order[j], order[i]
            n, k = rules.num_players, rules.hand_size
            rows = [order[s * k:(s + 1) * k] for s in range(n)]
            starter = rules.first_seat if rules.first_seat is not None else rng.below(n)
            self._start(rows, order[n * k:], starter)
            if not (self.skip_decisionless and self.done):
                return
            self.skipped += 1

    @classmethod
    def from_deal(cls, rules: BlindRules, hands, boneyard=(), setter: int | None = None, scores=None) -> "BlindGame":
        """A game on given rows (front first) and set-aside tiles, for tests and search.

        ``setter`` is the starter (default ``rules.first_seat``, else seat 0); ``scores`` the
        scores before the game (default zeros). Every tile of the set must be in exactly one
        row or the set-aside tiles, the rows ⌊N/n⌋ long (BD2)."""
        game = cls.__new__(cls)
        game.rules, game.skip_decisionless, game.skipped, game.seed, game.rng = rules, False, 0, None, None
        game.stream_state = None
        n = rules.num_players
        if len(hands) != n:
            raise ValueError(f"hands must be {n} rows, got {len(hands)}")
        rows = [[tile_index(t, rules) for t in row] for row in hands]
        aside = [tile_index(t, rules) for t in boneyard]
        if any(len(row) != rules.hand_size for row in rows) or len(aside) != rules.set_aside:
            raise ValueError(f"{n} players of the {rules.tiles.name} set hold {rules.hand_size} tiles each with "
                             f"{rules.set_aside} set aside (BD2); got rows of {[len(r) for r in rows]} and "
                             f"{len(aside)} aside")
        every = sorted(sum(rows, []) + aside)
        if every != list(range(rules.num_tiles)):
            raise ValueError("the rows and the set-aside tiles must hold every tile of the set exactly once")
        if setter is None:
            setter = rules.first_seat if rules.first_seat is not None else 0
        if not is_int(setter) or not 0 <= setter < n:
            raise ValueError(f"setter must be a seat 0..{n - 1}, got {setter!r}")
        if scores is not None and (len(scores) != n or not all(isinstance(x, (int, np.integer)) for x in scores)):
            raise ValueError(f"scores must be {n} integers, got {scores!r}")
        game._start(rows, aside, int(setter), scores)
        return game

    def _start(self, rows, aside, starter, scores=None) -> None:
        rules = self.rules
        n_t = rules.num_tiles
        self.rows = [list(r) for r in rows]
        self.aside = list(aside)
        self.dealt = [list(r) for r in rows]
        self.seen = [False] * n_t
        self.placer = [-1] * n_t
        self.tile_arm = [-1] * n_t  # 0/1: L0/L1; 2: the set tile
        self.open_ends = [0, 0]
        self.arm_count = [0, 0]
        self.arm_last = [0, 0]  # the arm's last tile, the set tile while it is empty
        self.scores = [0] * rules.num_players if scores is None else [int(x) for x in scores]
        self.actions: list[int] = []
        self.events: list[tuple] = []
        self.done = False
        self.winner: int | None = None
        self.blocked = False
        self.turned: int | None = None
        self.played_this_turn = False
        self.starter = starter
        self._points = [0] * rules.num_players
        # BD4: the starter turns up his first tile and sets it, whatever it is; L0 is its low side.
        t = self.rows[starter].pop(0)
        self.seen[t] = True
        self.set_tile = t
        self.placer[t] = starter
        self.tile_arm[t] = 2
        low, high = rules.tiles.tiles[t]
        self.open_ends = [low, high]
        self.arm_last = [t, t]
        self.events.append(("set", starter, t))
        self.to_move: int | None = (starter + 1) % rules.num_players  # his turn ends (BD4)
        if self._blocked():  # F13/BD7: checked after every play, the set included
            self._finish_blocked()
        else:
            self._advance()
        #: points of a game played out in reset (no decision): the result is already in scores
        self.reset_points = self._points

    # ------------------------------------------------------------ the rules
    def fits(self, t: int, arm: int) -> bool:
        """Equal matching (BD6): the tile carries the arm's open number."""
        low, high = self.rules.tiles.tiles[t]
        return self.open_ends[arm] in (low, high)

    def _fitting_arms(self, t: int) -> list[int]:
        return [arm for arm in (0, 1) if self.fits(t, arm)]

    def _blocked(self) -> bool:
        """BD7: no tile in any row fits either open end."""
        return not any(self._fitting_arms(t) for row in self.rows for t in row)

    def _advance(self) -> None:
        """Turns tiles up (F12) until a decision or the end (rule 3, BD5)."""
        n = self.rules.num_players
        while not self.done:
            p = self.to_move
            row = self.rows[p]
            t = row[0]  # turned up: everyone sees it (BD3)
            self.seen[t] = True
            arms = self._fitting_arms(t)
            if not arms:  # to the bottom of his row; his turn is over
                row.append(row.pop(0))
                self.events.append(("bottom", p, t))
                self._next_player(n)
            elif len(arms) == 1 and not self.rules.optional_play:  # forced play (F12)
                self._play(p, t, arms[0], auto=True)
            else:
                self.turned = t
                return

    def _next_player(self, n: int) -> None:
        self.to_move = (self.to_move + 1) % n
        self.played_this_turn = False

    def _play(self, p: int, t: int, arm: int, auto: bool) -> None:
        row = self.rows[p]
        assert row[0] == t
        row.pop(0)
        low, high = self.rules.tiles.tiles[t]
        self.open_ends[arm] = high if self.open_ends[arm] == low else low
        self.arm_count[arm] += 1
        self.arm_last[arm] = t
        self.placer[t] = p
        self.tile_arm[t] = arm
        self.played_this_turn = True
        self.turned = None
        self.events.append(("play", p, t, arm, auto))
        if not row:  # rule 4: he played the last tile of his row and wins
            self._finish(p)
        elif self._blocked():
            self._finish_blocked()

    def counts(self) -> list[int]:
        """F14: the pips left in each row."""
        pips = self.rules.tiles.PIPS
        return [int(sum(pips[t] for t in row)) for row in self.rows]

    def _finish_blocked(self) -> None:
        """BD7/F15: the unique lowest count wins; a shared lowest count: nobody."""
        self.blocked = True
        counts = self.counts()
        low = min(counts)
        self._finish(counts.index(low) if counts.count(low) == 1 else None)

    def _finish(self, winner: int | None) -> None:
        self.done = True
        self.winner = winner
        self.to_move = None
        self.turned = None
        self.played_this_turn = False
        if winner is not None:  # BD8
            self.scores[winner] += 1
            self._points[winner] += 1
        self.events.append(("end", winner, self.blocked))

    # ---------------------------------------------------------------- API
    @property
    def hand_over(self) -> bool:
        return self.done

    @property
    def hand_number(self) -> int:
        return 0

    @property
    def hand(self) -> "BlindGame":
        return self

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        t = self.turned
        out = [enc.play_index(t, arm, rules=self.rules) for arm in self._fitting_arms(t)]
        if self.rules.optional_play:
            out.append(enc.pass_index(rules=self.rules))
        return sorted(out)

    def legal_mask(self) -> np.ndarray:
        mask = np.zeros(self.rules.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def step(self, action: int) -> list[int]:
        """Apply a legal action; returns each seat's points gained (BD8). An illegal action
        raises ValueError naming the legal ones and changes nothing."""
        legal = self.legal_actions()
        if self.done:
            raise ValueError("the game is over: no action is legal")
        if not is_int(action) or int(action) not in legal:
            shown = ", ".join(f"{a} ({enc.describe(a, self.rules)})" for a in legal)
            raise ValueError(f"action {action!r} is not legal for seat {self.to_move}; legal: {shown}")
        action = int(action)
        self.actions.append(action)
        self._points = [0] * self.rules.num_players
        p, t = self.to_move, self.turned
        if action == enc.pass_index(rules=self.rules):  # DECLINE (BD5): to the bottom, turn over
            row = self.rows[p]
            row.append(row.pop(0))
            self.turned = None
            self.events.append(("decline", p, t))
            self._next_player(self.rules.num_players)
        else:
            self._play(p, t, action % 2, auto=False)
        self._advance()
        return list(self._points)

    def observe(self, seat: int, dtype: str = "float32", score_scale: float = 100.0) -> np.ndarray:
        if not is_int(seat) or not 0 <= seat < self.rules.num_players:
            raise ValueError(f"seat must be 0..{self.rules.num_players - 1}, got {seat!r}")
        return enc.encode(self, int(seat), dtype, score_scale)

    def record(self) -> dict:
        """JSON: the game, its options, the seed and the stream state at this game's deal, the
        decisions. ``from_record`` replays it exactly."""
        if self.stream_state is None:
            raise ValueError("a game from from_deal has no random stream to record")
        return {"game": GAME, "num_players": self.rules.num_players, "options": self.rules.options(),
                "seed": self.seed, "stream_state": self.stream_state, "actions": list(self.actions)}

    @classmethod
    def from_record(cls, record: dict) -> "BlindGame":
        keys = {"game", "num_players", "options", "seed", "stream_state", "actions"}
        if not isinstance(record, dict) or record.get("game") != GAME or set(record) != keys \
                or not isinstance(record["options"], dict) or not isinstance(record["actions"], list) \
                or isinstance(record["stream_state"], bool) or not isinstance(record["stream_state"], int) \
                or not 0 <= record["stream_state"] < 1 << 64:
            raise ValueError(f"a Blind record is a dict with game={GAME!r}, num_players, options (a dict), seed, "
                             f"stream_state (0..2**64-1) and actions (a list); got {str(record)[:200]}")
        rules = make_blind_rules(record["num_players"], **record["options"])
        game = cls.__new__(cls)
        game.rules, game.skip_decisionless, game.skipped = rules, False, 0
        game.seed = record["seed"]
        game.rng = SplitMix64.from_state(record["stream_state"])
        game.reset()
        for a in record["actions"]:
            game.step(a)
        return game

    # --------------------------------------------- hidden tiles (search: determinizations)
    def hidden_tiles(self) -> list[int]:
        """The tiles never turned up, in slot order: each seat's unseen row tiles in the order
        dealt (an unseen tile has never moved), then the set-aside tiles. As a set this is
        public (the observation's ``unseen``); the order is what nobody knows."""
        rows = [t for row in self.dealt for t in row if not self.seen[t] and self.placer[t] < 0]
        return rows + list(self.aside)

    def with_hidden(self, tiles) -> "BlindGame":
        """The same game with ``tiles`` in the hidden slots (``hidden_tiles``' order), rebuilt
        from the deal and the decisions. Refused (ValueError) if ``tiles`` is not an order of
        the hidden tiles, or if that deal would have played differently (BD7: a deal whose
        rows held no fitting tile at some point would have ended blocked there)."""
        hidden = self.hidden_tiles()
        tiles = [tile_index(t, self.rules) for t in tiles]
        if sorted(tiles) != sorted(hidden):
            raise ValueError(f"tiles must be an order of the {len(hidden)} hidden tiles "
                             f"{sorted(hidden)}, got {tiles!r}")
        place = dict(zip(hidden, tiles))
        rows = [[place.get(t, t) for t in row] for row in self.dealt]
        aside = tiles[len(hidden) - len(self.aside):]
        other = BlindGame.from_deal(self.rules, rows, aside, setter=self.starter,
                                    scores=[a - b for a, b in zip(self.scores, self._points_so_far())])
        try:
            for a in self.actions:
                other.step(a)
        except ValueError:
            other = None
        if other is None or other.events != self.events:
            raise ValueError("that order of the hidden tiles does not fit what everyone saw (BD7: the game would "
                             "have ended blocked, or played differently)")
        other.seed, other.stream_state = self.seed, self.stream_state
        return other

    def sample_hidden(self, rnd, tries: int = 1000) -> "BlindGame":
        """A uniformly random determinization consistent with what everyone saw (rejection
        sampling over ``with_hidden``); ``rnd`` is a ``random.Random``."""
        hidden = self.hidden_tiles()
        for _ in range(tries):
            order = list(hidden)
            rnd.shuffle(order)
            try:
                return self.with_hidden(order)
            except ValueError:
                continue
        raise RuntimeError(f"no consistent order of the hidden tiles found in {tries} tries")

    def _points_so_far(self) -> list[int]:
        """What this game has added to the scores (1 for a winner once over)."""
        return [int(self.done and s == self.winner) for s in range(self.rules.num_players)]

    def describe_events(self) -> list[str]:
        """The game so far as text (turned-up tiles, plays, the end)."""
        out = []
        for e in self.events:
            if e[0] == "end":
                out.append(f"end: {'blocked, ' if e[2] else ''}winner {e[1]}")
            else:
                text = enc.tile_text(e[2], self.rules)
                extra = f" on L{e[3]}{' (forced)' if e[4] else ''}" if e[0] == "play" else ""
                out.append(f"seat {e[1]} {e[0]} {text}{extra}")
        return out


def make_rules(game: str = GAME, num_players: int | None = None, **options) -> BlindRules:
    """``rules.make_rules("blind", ...)``'s Blind part."""
    check_game(game, GAME, "nos_env.family.blind")
    return make_blind_rules(num_players, **options)
