"""The reference rules engine: one hand of Nos, exactly as docs/rules/nos.md says.

A :class:`Hand` moves through phases::

    set -> announce -> declare -> immediate -> play -> over

and at every point :meth:`Hand.legal_actions` lists what the player to move
(:attr:`Hand.to_move`) may do. :meth:`Hand.step` applies one action, pays
what it causes into :attr:`Hand.ledger` and moves on. Automatic steps (the
waits of section 6, the draw after a correct closing, and with the D12 option
every decision that has only one legal action) are applied by the engine and
logged in :attr:`Hand.events` with ``automatic=True``.

This engine is written for clarity: it is the oracle the fast engine and the
environments are tested against. Section numbers and decisions (Dnn) refer to
``docs/rules/nos.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .actions import Action, format_action, parse_action
from .deal import Deal, check_num_players
from .announcements import Announcement, game_spec, legal_announcements
from .layout import Layout, Placed
from .options import (DEFAULT_CHIPS, HAND_CHIP_LIMIT, Options, check_bool, check_chips, check_chips_in_guard,
                      check_int, check_seat, check_seed)
from .tiles import ALL_TILES, Tile, count_value, double_rank, double_value, is_double, tile_str

#: Section 5: (players, doubles as dealt) -> what each other player pays.
DECLARED_DOUBLES = {(3, 4): 200, (3, 5): 500, (4, 3): 25, (4, 4): 250, (5, 3): 50}

NOS_PAYMENT = 5
CLOSE_PAYMENT = 20
WRONG_CLOSE_PAYMENT = 40
PENALTY_PAYMENT = 40  # D16, penalty option

PHASES = ("set", "announce", "declare", "immediate", "play", "over")
END_REASONS = ("out", "close", "blocked")
#: How a D16 penalised attempt is kept in :attr:`Hand.actions` (and in records).
ILLEGAL_PREFIX = "illegal "  # D23: the three ways a hand ends


class IllegalActionError(ValueError):
    """An action outside the legal set (D16). The hand is left unchanged."""

    def __init__(self, action: object, legal: list[str], seat: int | None, phase: str):
        self.action = action
        self.legal = legal
        shown = ", ".join(legal) if legal else "none (the hand is over)"
        super().__init__(
            f"illegal action {action!s} for seat {seat} in phase {phase!r}; legal: {shown}"
        )


@dataclass(frozen=True)
class Payment:
    payer: int
    payee: int
    amount: int
    reason: str  # set, declared, immediate, double, nos, close, wrong_close, settlement, penalty

    def to_list(self) -> list:
        return [self.payer, self.payee, self.amount, self.reason]


@dataclass
class Event:
    """One applied step, as a public log entry (a draw does not show the tile)."""

    seat: int
    action: str
    payments: list[Payment] = field(default_factory=list)
    automatic: bool = False


class Hand:
    """One hand of Nos, started from a :class:`~nos_env.deal.Deal`."""

    def __init__(
        self,
        deal: Deal,
        on_set: int | None = None,
        chips: list[int] | None = None,
        first_hand: bool = False,
        options: Options | None = None,
    ):
        if not isinstance(deal, Deal):
            raise ValueError(f"deal must be a Deal (Deal.from_tiles or Deal.random), got {type(deal).__name__}")
        n = check_num_players(deal.num_players)
        first_hand = check_bool("first_hand", first_hand)
        if options is not None and not isinstance(options, Options):
            raise ValueError(f"options must be an Options or None, got {type(options).__name__}")
        # Chips are checked first: a wrong count or range is reported as itself (options.py).
        chips = check_chips([DEFAULT_CHIPS] * n if chips is None else chips, n, limit=HAND_CHIP_LIMIT)
        self.num_players = n
        self.deal = deal
        self.first_hand = first_hand
        self.options = options or Options()
        if on_set is not None:
            on_set = check_seat("on_set", on_set, n)
        if first_hand:
            # Section 2: the holder of the highest double is on set and sets it.
            holder, double = _highest_double(deal)
            if holder is None:
                raise ValueError("first-hand rule: nobody holds a double; reshuffle and deal again")
            if on_set is not None and on_set != holder:
                raise ValueError(
                    f"first-hand rule: seat {holder} holds the highest double "
                    f"{tile_str(double)}, so seat {on_set} cannot be on set"
                )
            on_set = holder
        if on_set is None:
            raise ValueError("on_set is required (or use first_hand=True)")
        self.on_set = on_set
        self.chips_start = chips
        self.chips = list(self.chips_start)

        self.hands: list[list[Tile]] = [list(h) for h in deal.hands]
        self.boneyard: list[Tile] = list(deal.boneyard)  # index 0 is the top
        self.phase = "set"
        self.to_move: int | None = self.on_set
        self.set_tile: Tile | None = None
        self.set_drawn: Tile | None = None  # a tile drawn for the set (later-hand rule)
        self.announcement: Announcement | None = None
        self.layout: Layout | None = None
        self.ledger: list[Payment] = []
        self.events: list[Event] = []
        self.actions: list[str] = []  # the decisions taken by the players, in order
        self.declared = [False] * n
        self.out = [False] * n
        self.nos_seat: int | None = None
        self.end_reason: str | None = None
        self.counts: list[int] | None = None
        self.losers: list[int] | None = None
        self.waits_owed: list[list[int]] = [[] for _ in range(n)]  # arms of owed doubles
        # Public evidence (section 12). When a player passes, none of his tiles fits
        # anywhere (a fact, and final: he can never draw again); when he draws, maybe
        # none fits (a hint: drawing may be voluntary). Kept two ways: the open numbers
        # of the arms that could take a tile, and the exact tiles that would have fitted.
        self.passed_on: list[set[int]] = [set() for _ in range(n)]
        self.drew_on: list[set[int]] = [set() for _ in range(n)]
        self.passed_tiles: list[set[Tile]] = [set() for _ in range(n)]
        self.drew_tiles: list[set[Tile]] = [set() for _ in range(n)]
        self._queue: list[int] = []  # declare / immediate windows: seats still to ask
        self._set_placed: Placed | None = None
        # D13: the tile placed in the immediately preceding turn, and whether it
        # was its player's last tile; None after a pass or a wait.
        self._prev_play: tuple[Placed, bool] | None = None
        self._passes_in_row = 0
        self._legal_cache: list[Action] | None = None
        self._advance_automatic()

    # ------------------------------------------------------------------ queries
    @property
    def over(self) -> bool:
        return self.phase == "over"

    def left_of(self, seat: int) -> int:
        return (seat + 1) % self.num_players

    def in_game(self, seat: int) -> bool:
        return not self.out[seat]

    def holders(self) -> list[int]:
        return [s for s in range(self.num_players) if self.hands[s]]

    def dealt_doubles(self, seat: int) -> int:
        """D8: doubles counted over the tiles as dealt."""
        return sum(1 for t in self.deal.hands[seat] if is_double(t))

    def public_doubles(self, seat: int) -> list[Tile]:
        """D9: a declarer's doubles still in his hand lie face up."""
        if not self.declared[seat]:
            return []
        return [t for t in self.deal.hands[seat] if is_double(t) and t in self.hands[seat]]

    def pending_claim(self) -> tuple[int | None, int] | None:
        """Section 8: the preceding turn's tile that a double placed now would be
        paid for: ``(arm holding it, or None for the set tile, its player)``.
        None when no claim is live (a pass or wait came between, or its player
        went out with it)."""
        if self._prev_play is None or self.phase == "over":
            return None
        placed, went_out = self._prev_play
        if went_out:
            return None
        if placed is self._set_placed:
            return (None, placed.seat)
        arm = next(i for i, cells in enumerate(self.layout.arms) if cells and cells[-1] is placed)
        return (arm, placed.seat)

    def legal_actions(self) -> list[Action]:
        """Every legal action of the player to move ([] once the hand is over)."""
        if self.phase == "over":
            return []
        # Cached between changes: the environment asks for the mask, then steps.
        if self._legal_cache is None:
            self._legal_cache = getattr(self, f"_legal_{self.phase}")()
        return list(self._legal_cache)

    def legal_action_texts(self) -> list[str]:
        return [format_action(a) for a in self.legal_actions()]

    def copy(self) -> "Hand":
        new = Hand.__new__(Hand)
        new.__dict__.update(self.__dict__)
        new.hands = [list(h) for h in self.hands]
        new.boneyard = list(self.boneyard)
        new.chips = list(self.chips)
        new.layout = self.layout.copy() if self.layout is not None else None
        new.ledger = list(self.ledger)
        new.events = list(self.events)
        new.actions = list(self.actions)
        new.declared = list(self.declared)
        new.out = list(self.out)
        new.waits_owed = [list(w) for w in self.waits_owed]
        new.passed_on = [set(x) for x in self.passed_on]
        new.drew_on = [set(x) for x in self.drew_on]
        new.passed_tiles = [set(x) for x in self.passed_tiles]
        new.drew_tiles = [set(x) for x in self.drew_tiles]
        new._queue = list(self._queue)
        new._legal_cache = None  # a copy may be edited (e.g. hidden tiles permuted) before use
        new.counts = list(self.counts) if self.counts is not None else None
        new.losers = list(self.losers) if self.losers is not None else None
        return new

    # ----------------------------------------------------------- legal actions
    def _legal_set(self) -> list[Action]:
        hand = self.hands[self.on_set]
        if self.first_hand:
            return [Action("set", tile=_highest_double_in(hand))]
        if self.set_drawn is not None:
            return [Action("set", tile=self.set_drawn)]
        doubles = [t for t in hand if is_double(t)]
        if doubles:
            return [Action("set", tile=t) for t in sorted(doubles)]
        return [Action("draw")]

    def _legal_announce(self) -> list[Action]:
        return [Action("announce", announcement=a) for a in legal_announcements(self.set_tile)]

    def _legal_declare(self) -> list[Action]:
        # D25: every seat is asked; one without the table's count of doubles (D8) can only
        # say no-declare, so being asked reveals nothing.
        if self.can_declare(self.to_move):
            return [Action("declare"), Action("no-declare")]
        return [Action("no-declare")]

    def can_declare(self, seat: int) -> bool:
        """Section 5 / D8: the doubles as dealt make a declaration (e.g. 3 of them with 4 players)."""
        return (self.num_players, self.dealt_doubles(seat)) in DECLARED_DOUBLES

    def _legal_immediate(self) -> list[Action]:
        return self._immediate_options(self.to_move) + [Action("decline")]

    def _immediate_options(self, seat: int) -> list[Action]:
        layout = self.layout
        options = []
        for tile in sorted(self.hands[seat]):
            for arm in range(len(layout.arms)):
                for out in layout.immediate_outs(arm, tile):
                    options.append(Action("immediate", tile=tile, arm=layout.arm_name(arm), out=out))
        return options

    def _plays(self, seat: int) -> list[Action]:
        layout = self.layout
        plays = []
        for tile in sorted(self.hands[seat]):
            for arm, out in layout.placements(tile):
                name = layout.arm_name(arm)
                plays.append(Action("play", tile=tile, arm=name, out=out))
                plays.append(Action("play", tile=tile, arm=name, out=out, close=True))
        return plays

    def _legal_play(self) -> list[Action]:
        # Section 7: DRAW iff >2 in the boneyard; PASS iff no play and <=2.
        can_draw = len(self.boneyard) > 2
        plays = self._plays(self.to_move)
        legal = [Action("draw")] if can_draw else []
        legal += plays
        if not plays and not can_draw:
            legal.append(Action("pass"))
        return legal

    # ------------------------------------------------------------------ acting
    def resolve(self, action: Action | str) -> Action:
        """Turn text into an action, filling in an implied outward number (D3)."""
        if isinstance(action, str):
            action = parse_action(action)
        if not isinstance(action, Action):
            raise TypeError(f"an action must be an Action or its text, got {type(action).__name__}")
        if action.kind in ("play", "immediate") and action.out is None:
            matches = [
                a
                for a in self.legal_actions()
                if (a.kind, a.tile, a.arm, a.close) == (action.kind, action.tile, action.arm, action.close)
            ]
            if len(matches) == 1:
                return matches[0]
            if len(matches) > 1:
                raise ValueError(
                    f"{format_action(action)} is ambiguous: name the outward number, one of "
                    + ", ".join(format_action(a) for a in matches)
                )
        return action

    def step(self, action: Action | str) -> list[Payment]:
        """Apply one decision of the player to move; returns the payments it caused.

        Automatic steps that follow (waits, D12 forced decisions) are applied
        too; their payments are in :attr:`events` and :attr:`ledger`.
        """
        if self.phase == "over":
            raise IllegalActionError(action, [], None, "over")
        if isinstance(action, str) and action.startswith(ILLEGAL_PREFIX):
            return self.refuse(action[len(ILLEGAL_PREFIX):])  # a recorded D16 penalty, replayed
        if self.options.illegal == "penalty":  # D16 penalties are unbounded: never let chips wrap (options.py)
            check_chips_in_guard(self.chips, "penalty mode")
        action = self.resolve(action)
        legal = self.legal_actions()
        if action not in legal:
            return self.refuse(action)
        self.actions.append(format_action(action))
        payments = self._apply(action, automatic=False)
        self._advance_automatic()
        return payments

    def refuse(self, action: Action | str) -> list[Payment]:
        """D16 for an attempt the caller has found illegal: raise :class:`IllegalActionError`
        (the hand unchanged), or with the penalty option charge it. An environment calls this
        for an action index outside the mask even where the index's text names a legal action
        (a double's second-side index, which the mask leaves out)."""
        if self.phase == "over":
            raise IllegalActionError(action, [], None, "over")
        if isinstance(action, str):
            action = parse_action(action)
        if self.options.illegal != "penalty":
            raise IllegalActionError(action, self.legal_action_texts(), self.to_move, self.phase)
        check_chips_in_guard(self.chips, "penalty mode")  # D16 penalties are unbounded (options.py)
        return self._penalise(action)

    def _penalise(self, action: Action) -> list[Payment]:
        seat = self.to_move
        # Recorded as "illegal <action>", so a replay repeats the penalty even for an attempt
        # whose text alone would be legal (see refuse).
        self.actions.append(ILLEGAL_PREFIX + format_action(action))
        pays = [self._pay(seat, other, PENALTY_PAYMENT, "penalty") for other in self._others(seat)]
        self.events.append(Event(seat, f"illegal {format_action(action)}", pays))
        return pays

    def _apply(self, action: Action, automatic: bool) -> list[Payment]:
        seat = self.to_move
        self._legal_cache = None
        mark = len(self.ledger)
        event = Event(seat, format_action(action), automatic=automatic)
        self.events.append(event)
        getattr(self, f"_do_{self.phase}")(seat, action)
        event.payments = self.ledger[mark:]
        return event.payments

    def _advance_automatic(self) -> None:
        """D12: with auto_forced, apply every decision that has one legal action."""
        if not self.options.auto_forced:
            return
        while not self.over:
            legal = self.legal_actions()
            if len(legal) != 1:
                return
            self._apply(legal[0], automatic=True)

    # ------------------------------------------------------------- payments
    def _pay(self, payer: int, payee: int, amount: int, reason: str) -> Payment:
        payment = Payment(payer, payee, amount, reason)
        self.chips[payer] -= amount
        self.chips[payee] += amount
        self.ledger.append(payment)
        return payment

    def _others(self, seat: int) -> list[int]:
        """Every other player, in seat order."""
        return [s for s in range(self.num_players) if s != seat]

    # ----------------------------------------------------------------- the set
    def _do_set(self, seat: int, action: Action) -> None:
        if action.kind == "draw":
            self.set_drawn = self.boneyard.pop(0)
            self.hands[seat].append(self.set_drawn)
            return
        tile = action.tile
        self.hands[seat].remove(tile)
        self.set_tile = tile
        self._set_placed = Placed(tile, seat, out=-1)
        # Section 8: the set tile counts as the setter's turn for the first normal turn.
        self._prev_play = (self._set_placed, False)
        if self.set_drawn is None:
            amount = double_value(tile)  # a double from the hand: v from each
            for other in self._others(seat):
                self._pay(other, seat, amount, "set")
        elif is_double(tile):
            amount = 14 if tile == (0, 0) else 2 * tile[0]  # D19: a drawn [0-0] earns 14
            for other in self._others(seat):
                self._pay(other, seat, amount, "set")
        else:
            for other in self._others(seat):
                self._pay(seat, other, tile[0] + tile[1], "set")
        self.phase = "announce"

    # --------------------------------------------------------- the announcement
    def _do_announce(self, seat: int, action: Action) -> None:
        self.announcement = action.announcement
        self.layout = Layout(game_spec(action.announcement), self.set_tile)
        # D9, D25: every player is asked, in turn order from left of the setter, setter last.
        self._queue = [(self.on_set + i) % self.num_players for i in range(1, self.num_players + 1)]
        self.phase = "declare"
        self._next_declarer()

    # ------------------------------------------------------ declared doubles
    def _next_declarer(self) -> None:
        if self._queue:
            self.to_move = self._queue.pop(0)
            return
        self.phase = "immediate"
        # D10: the window asks in turn order from left of the setter; the setter is not asked.
        self._queue = [(self.on_set + i) % self.num_players for i in range(1, self.num_players)]
        self._next_immediate()

    def _do_declare(self, seat: int, action: Action) -> None:
        if action.kind == "declare":
            self.declared[seat] = True
            amount = DECLARED_DOUBLES[(self.num_players, self.dealt_doubles(seat))]
            for other in self._others(seat):
                self._pay(other, seat, amount, "declared")
        self._next_declarer()

    # ------------------------------------------- doubles played at once (sec. 6)
    def _next_immediate(self) -> None:
        # D25: every player but the setter is asked, whatever he holds (one with no fitting
        # double has the single action decline), and asked again after each double he places.
        if self._queue:
            self.to_move = self._queue[0]
            return
        self._start_play()

    def _do_immediate(self, seat: int, action: Action) -> None:
        if action.kind == "decline":
            self._queue.pop(0)
        else:
            arm = self.layout.arm_index(action.arm)
            self.hands[seat].remove(action.tile)
            self.layout.arms[arm].append(Placed(action.tile, seat, action.out, immediate=True))
            self._pay(self.on_set, seat, double_value(action.tile), "immediate")
            self.waits_owed[seat].append(arm)
            # A player cannot empty his hand here: 3+ tiles are dealt and at most
            # two doubles fit a fresh layout, but guard the rule all the same.
            if not self.hands[seat]:
                self._goes_out(seat)
        self._next_immediate()

    # -------------------------------------------------------------- normal play
    def _start_play(self) -> None:
        self.phase = "play"
        self.to_move = self._next_in_game(self.on_set)
        self._begin_turn()

    def _next_in_game(self, seat: int) -> int:
        """The next player clockwise who still holds tiles."""
        for i in range(1, self.num_players + 1):
            s = (seat + i) % self.num_players
            if not self.out[s]:
                return s
        raise AssertionError("no player left in the game")

    def _begin_turn(self) -> None:
        """Take owed waits automatically (D11) until a player has a real decision."""
        while self.phase == "play":
            seat = self.to_move
            arm = next((a for a in self.waits_owed[seat] if not self.layout.locked(a)), None)
            if arm is None:
                return
            self.waits_owed[seat].remove(arm)
            self.events.append(Event(seat, "wait", automatic=True))
            self._prev_play = None  # section 8: a wait between breaks the claim
            self._passes_in_row = 0  # D23: a wait breaks a run of passes
            self.to_move = self._next_in_game(seat)

    def _do_play(self, seat: int, action: Action) -> None:
        if action.kind == "draw":
            numbers, tiles = self.public_fits()
            self.drew_on[seat] |= numbers
            self.drew_tiles[seat] |= tiles
            self.hands[seat].append(self.boneyard.pop(0))
            return
        if action.kind == "pass":
            numbers, tiles = self.public_fits()
            self.passed_on[seat] |= numbers
            self.passed_tiles[seat] |= tiles
            self._prev_play = None
            self._passes_in_row += 1
            if self._passes_in_row >= len(self.holders()):
                self._end_hand("blocked")  # (c) everyone still in has passed in succession
                return
            self.to_move = self._next_in_game(seat)
            self._begin_turn()
            return
        self._place(seat, action)

    def _place(self, seat: int, action: Action) -> None:
        layout = self.layout
        arm = layout.arm_index(action.arm)
        tile = action.tile
        cells = layout.arms[arm]
        touched = cells[-1] if cells else self._set_placed
        self.hands[seat].remove(tile)
        placed = Placed(tile, seat, action.out)
        cells.append(placed)
        # Section 8 / D13: a double next to the tile of the immediately preceding
        # turn is paid by that tile's player, unless it was his last tile.
        if is_double(tile) and self._prev_play is not None:
            prev, prev_went_out = self._prev_play
            if prev is touched and not prev_went_out:
                self._pay(prev.seat, seat, double_value(tile), "double")
        went_out = not self.hands[seat]
        if went_out:
            self._goes_out(seat)
        self._prev_play = (placed, went_out)
        self._passes_in_row = 0
        if action.close:
            self._close(seat)
            if self.over:
                return
        if len(self.holders()) <= 1:
            self._end_hand("out")  # (a) only one player still holds tiles
            return
        self.to_move = self._next_in_game(seat)
        self._begin_turn()

    def _goes_out(self, seat: int) -> None:
        self.out[seat] = True
        if self.nos_seat is None:  # the first to empty his hand has nos
            self.nos_seat = seat
            for other in self._others(seat):
                self._pay(other, seat, NOS_PAYMENT, "nos")

    def _close(self, closer: int) -> None:
        holders = self.holders()
        if len(holders) == 1:
            # D21: the closing tile left one player holding tiles: always correct.
            self._pay(holders[0], closer, CLOSE_PAYMENT, "close")
            self._end_hand("close")
            return
        if self.closing_is_correct():
            for s in holders:
                if s != closer:
                    self._pay(s, closer, CLOSE_PAYMENT, "close")
            drawer = self._next_in_game(closer)
            drawn = max(0, len(self.boneyard) - 2)
            self.hands[drawer].extend(self.boneyard[:drawn])
            del self.boneyard[:drawn]
            self.events.append(Event(drawer, f"draws {drawn}", automatic=True))
            self._end_hand("close")
            return
        # Wrong: the closer pays 40 to each opponent, those already out included.
        for other in self._others(closer):
            self._pay(closer, other, WRONG_CLOSE_PAYMENT, "wrong_close")

    def public_fits(self) -> tuple[set[int], set[Tile]]:
        """What fits now, from public information only: the open numbers of the
        arms that could take some tile not yet on the layout, and those tiles."""
        layout = self.layout
        placed = set(layout.tiles())
        numbers: set[int] = set()
        tiles: set[Tile] = set()
        for t in ALL_TILES:
            if t in placed:
                continue
            for arm, _ in layout.placements(t):
                numbers.add(layout.open_end(arm))
                tiles.add(t)
        return numbers, tiles

    def closing_is_correct(self) -> bool:
        """D14: no tile in a hand still in the game, nor in the boneyard but its
        last two, has a legal placement in the current position."""
        candidates = [t for s in self.holders() for t in self.hands[s]]
        candidates += self.boneyard[: max(0, len(self.boneyard) - 2)]
        return not any(self.layout.placements(t) for t in candidates)

    # --------------------------------------------------------------- the end
    def _end_hand(self, reason: str) -> None:
        self.end_reason = reason
        self.phase = "over"
        self.to_move = None
        # Settlement: each player pays every player with a lower count the difference.
        counts = [sum(count_value(t) for t in hand) for hand in self.hands]
        self.counts = counts
        n = self.num_players
        for i in range(n):
            for j in range(i + 1, n):
                if counts[i] > counts[j]:
                    self._pay(i, j, counts[i] - counts[j], "settlement")
                elif counts[j] > counts[i]:
                    self._pay(j, i, counts[j] - counts[i], "settlement")
        top = max(counts)
        self.losers = [s for s in range(n) if counts[s] == top]  # D2: ties broken by the session

    # ------------------------------------------------------------- reporting
    def tiles_accounted(self) -> list[Tile]:
        """Every tile somewhere: hands, boneyard, layout (for invariant checks)."""
        tiles = [t for h in self.hands for t in h] + list(self.boneyard)
        if self.layout is not None:
            tiles += self.layout.tiles()
        elif self.set_tile is not None:
            tiles.append(self.set_tile)
        return tiles

    def __repr__(self) -> str:
        return (
            f"<Hand {self.num_players}p phase={self.phase} to_move={self.to_move} "
            f"announcement={self.announcement} chips={self.chips}>"
        )


def _highest_double_in(tiles) -> Tile | None:
    doubles = [t for t in tiles if is_double(t)]
    return max(doubles, key=double_rank) if doubles else None


def _highest_double(deal: Deal) -> tuple[int | None, Tile | None]:
    best: tuple[int | None, Tile | None] = (None, None)
    for seat, hand in enumerate(deal.hands):
        d = _highest_double_in(hand)
        if d is not None and (best[1] is None or double_rank(d) > double_rank(best[1])):
            best = (seat, d)
    return best


def new_hand(
    num_players: int = 4,
    seed: int | np.random.Generator | None = None,
    chips: list[int] | None = None,
    first_hand: bool = False,
    options: Options | None = None,
) -> Hand:
    """A random one-hand episode.

    D20: by default the player on set is drawn uniformly at random and follows
    the later-hand rule. With ``first_hand=True`` the first-hand rule applies:
    the holder of the highest double sets it, and a deal without any double is
    shuffled again.
    """
    n = check_num_players(num_players)
    if not isinstance(seed, np.random.Generator) and check_seed(seed) is not None:
        check_int("seed", seed, 0)  # numpy's generators take non-negative seeds only
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    while True:
        deal = Deal.random(n, rng)
        if not first_hand:
            on_set = int(rng.integers(n))
            return Hand(deal, on_set=on_set, chips=chips, options=options)
        if _highest_double(deal)[0] is not None:
            return Hand(deal, chips=chips, first_hand=True, options=options)
