"""The reference engine of the ten non-Blind family games: one hand (:class:`Hand`) and a
match of hands (:class:`FamilyGame`), in plain Python beside docs/rules/family.md and the
game pages.

The random stream (contract, "The deal and the random stream"): one ``SplitMix64(seed)`` per
game, created at ``reset(seed)``. For each hand: the deal (a Fisher-Yates shuffle of 0..N-1
from the top; seat s gets ``order[s*k:(s+1)*k]``, the boneyard is the rest with
``order[n*k]`` on top), dealt again while an opening by the highest (lowest) double finds no
double (F4, BE2), then under ``opening="free"`` the first hand's setter ``below(n)`` unless
``first_seat`` names him. Nothing else draws from the stream.

A turn (F8..F10): a player who holds a fitting tile must play (Matador MA5 may also draw);
one who cannot draws as the draw rule says, else passes. Fours keeps the turn while a tile
fits (FO3, FO6); ``play_on_double`` gives one extra tile on one's own double (F23). A hand ends
on going out or at once when blocked (F13); the match at the target (F18).
"""

from __future__ import annotations

from ..kernels.tilesets import tile_set
from ..rng import SplitMix64
from . import scoring
from .encoding import action_parts, draw_index, pass_index, play_index, set_index
from .layout import Layout
from .rules import FamilyRules, make_rules

#: phases, as the observation's one-hot (contract "Observation")
OPENING, PLAY, DRAWN, CONTINUING = range(4)


def deal_order(rng: SplitMix64, num_tiles: int) -> list[int]:
    """The identity 0..N-1 shuffled by Fisher-Yates from the top (``shuffle28`` generalised, F3)."""
    order = list(range(num_tiles))
    for i in range(num_tiles - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


class Hand:
    """One deal played out. ``hands[s]`` is seat s's tiles (a set), ``boneyard`` the undrawn
    tiles top first, ``layout`` the table, ``history`` the (seat, action) pairs of the hand."""

    def __init__(self, rules: FamilyRules, hands: list[list[int]], boneyard: list[int], setter: int | None,
                 number: int = 0, credit=None):
        self.rules = rules
        #: credit(seats, points): adds points to the seats' scores (FamilyGame checks F18/FU7)
        self.credit = credit
        self.ts = tile_set(rules.max_pip)
        self.hands = [set(h) for h in hands]
        self.boneyard = list(boneyard)
        self.layout = Layout(rules)
        self.number = number
        self.history: list[tuple[int, int]] = []
        n = rules.num_players
        #: F20 team_out="both": who is out
        self.out = [False] * n
        #: public evidence (contract's seat_void rule): per seat, the tiles known not held
        self.void = [set() for _ in range(n)]
        self.drawn = False  # the mover has drawn in this turn
        self.placed = False  # the mover has placed a tile in this turn (Fours FO3)
        self.extra_double: int | None = None  # F23: the double the mover may play on once more
        self.phase = OPENING
        self.over = False
        self.blocked = False
        self.winner_side: int | None = None  # F15 (a seat, or a team 0/1 with teams)
        self.last_placer: int | None = None
        self.end_points = [0] * n
        self.to_move = self._opening_setter(setter)

    @property
    def arms(self):
        """The layout's arms (``layout.arms``), in F7's order."""
        return self.layout.arms

    # -- opening (F4) -----------------------------------------------------------------------
    def _opening_setter(self, setter: int | None) -> int:
        opening = self.rules.opening
        if opening == "free":
            assert setter is not None
            return setter
        doubles = [(t, s) for s, h in enumerate(self.hands) for t in h if self.layout.is_double(t)]
        lowest = opening.startswith("lowest")  # Bergen BE2: F4 with the order reversed
        if doubles:
            t, s = (min if lowest else max)(doubles, key=lambda ts: self.ts.tiles[ts[0]][0])
        else:
            assert opening in ("highest_tile", "lowest_tile"), "a double opening needs a double (redeal)"
            tiles = [(t, s) for s, h in enumerate(self.hands) for t in h]
            t, s = (min if lowest else max)(tiles, key=lambda ts: self.rank(ts[0]))
        self.forced_set = t
        return s

    def rank(self, t: int) -> tuple:
        """F2: doubles by number above every single; singles by pips, then the higher end."""
        a, b = self.ts.tiles[t]
        return (1, a, 0) if a == b else (0, a + b, b)

    forced_set: int | None = None

    # -- who fits what ----------------------------------------------------------------------
    def drawable(self) -> bool:
        """F11: a draw is possible at all (not Block) while the boneyard holds more than r tiles."""
        return self.rules.draw_rule != "none" and len(self.boneyard) > self.rules.boneyard_reserve

    def draw_rule(self) -> str:
        """The draw rule in force: Cross's cross phase may draw one tile only (CR5)."""
        if self.rules.cross_phase_draw == "one" and self.layout.cross_phase:
            return "one"
        return self.rules.draw_rule

    def plays(self, seat: int, arms=None) -> list[int]:
        """The PLAY action ids of seat's tiles on the given arms (all arms by default)."""
        lay = self.layout
        ks = range(len(lay.arms)) if arms is None else arms
        seven = self.rules.matching == "seven"
        out = []
        for t in self.hands[seat]:
            lo, hi = self.ts.tiles[t]
            for k in ks:
                for outward in lay.outward_options(t, k):
                    side = 1 if (seven and outward == hi and lo != hi) else 0  # MA2
                    out.append(play_index(t, k, side, rules=self.rules))
        return out

    def fitting_all(self) -> set[int]:
        """F: every tile of the set (whoever holds it) that fits an arm playable now."""
        return {t for t in range(self.rules.num_tiles) if self.layout.fits_anywhere(t)}

    def legal_actions(self) -> list[int]:
        if self.over:
            return []
        seat, rules = self.to_move, self.rules
        if self.phase == OPENING:
            return sorted(set_index(t, rules=rules) for t in self.hands[seat])
        if self.extra_double is not None:  # F23: one more tile on that double, or PASS
            return sorted(self.plays(seat, self.layout.arms_ending_at(self.extra_double))) + [pass_index(rules)]
        plays = self.plays(seat)
        if self.phase == CONTINUING:  # Fours FO3: entered only while a tile fits
            return sorted(plays) + ([pass_index(rules)] if rules.multi_play == "may" else [])
        rule = self.draw_rule()
        if rule == "at_will":  # Matador MA5: draw at any point of the turn
            acts = sorted(plays) + ([draw_index(rules)] if self.drawable() else [])
            return acts or [pass_index(rules)]
        if plays:  # F8
            return sorted(plays)
        if self.drawable() and (rule == "until_playable" or (rule == "one" and not self.drawn)):
            return [draw_index(rules)]  # F9
        return [pass_index(rules)]  # F10

    # -- applying an action -----------------------------------------------------------------
    def apply(self, action: int) -> list[int]:
        """Apply a legal action (checked by the caller); points go through ``credit``."""
        seat, rules = self.to_move, self.rules
        kind, t, k, side = action_parts(action, rules)
        self.history.append((seat, action))
        lay = self.layout
        if kind == "set":
            self._place_set(t, seat)
            self._after_placement(seat, t, was_extra=False)
        elif kind == "play":
            lo, hi = self.ts.tiles[t]
            was_extra = self.extra_double is not None
            self.hands[seat].remove(t)
            if rules.matching == "seven":  # MA2: the action names the outward number
                lay.place(t, k, hi if side else lo, seat)
            else:
                lay.place(t, k, lay.outward_options(t, k)[0], seat)
            self.last_placer = seat
            self._after_placement(seat, t, was_extra=was_extra)
        elif kind == "draw":
            stuck = self.draw_rule() != "at_will"
            self.void[seat] = self.fitting_all() if stuck else set()  # contract: seat_void
            self.hands[seat].add(self.boneyard.pop(0))
            self.drawn = True
            self.phase = DRAWN
        else:  # pass
            if self.extra_double is None and self.phase != CONTINUING:
                self.void[seat] |= self.fitting_all()  # a stuck pass is public evidence (F24)
            self._next_turn(seat)
        if not self.over:
            self._check_blocked()

    def _place_set(self, t: int, seat: int) -> None:
        self.hands[seat].remove(t)
        self.layout.place_set(t, seat)
        self.last_placer = seat
        self.phase = PLAY

    def apply_forced_set(self) -> None:
        """F4/F12: the set under a double or tile opening is placed without asking."""
        t, seat = self.forced_set, self.to_move
        self._place_set(t, seat)
        self._after_placement(seat, t, was_extra=False)
        if not self.over:
            self._check_blocked()

    def _after_placement(self, seat: int, t: int, was_extra: bool) -> None:
        """After SET or PLAY: play scores, going out (F13, F20), then who moves (F23, FO3)."""
        rules = self.rules
        self.play_score(seat)
        if self.over:  # the match target was reached by the play score (F18)
            return
        if not self.hands[seat]:
            if self._goes_out(seat):
                return
            self._next_turn(seat)
            return
        # (a finished hand keeps the flags of its last turn: the observation's phase reads them)
        self.extra_double = None
        self.placed = True
        if rules.play_on_double and self.layout.is_double(t) and not was_extra:
            self.extra_double = t  # F23: one more tile on this double, a decision
            self.phase = CONTINUING
            return
        if rules.game == "fours":  # FO3/FO6: keep the turn while a tile fits
            if self.plays(seat):
                self.phase = CONTINUING
                return
            self.void[seat] |= self.fitting_all()  # the turn ends because nothing fits (F24)
        self._next_turn(seat)

    def play_score(self, seat: int) -> None:
        """Points made by a placement (the scoring games' pages); the blocking games score none."""
        pts = scoring.play_points(self, seat)
        if pts:
            self.credit(self.side_seats(seat), pts)

    def side_seats(self, seat: int) -> list[int]:
        """The seats that share seat's score (F20: both partners)."""
        return [seat, (seat + 2) % 4] if self.rules.teams else [seat]

    def _goes_out(self, seat: int) -> bool:
        """F13/F20: the seat played its last tile; True if the hand ended."""
        rules = self.rules
        if rules.teams and rules.team_out == "both":
            self.out[seat] = True
            partner = (seat + 2) % 4
            if not self.hands[partner]:
                self._end_hand(out_side=seat % 2)
                return True
            return False
        self._end_hand(out_side=seat % 2 if rules.teams else seat)
        return True

    def _next_turn(self, seat: int) -> None:
        """F5: clockwise to the next player who holds tiles."""
        n = self.rules.num_players
        nxt = (seat + 1) % n
        while not self.hands[nxt]:
            nxt = (nxt + 1) % n
        self.to_move = nxt
        self.phase = PLAY
        self.drawn = False
        self.placed = False
        self.extra_double = None

    def _check_blocked(self) -> None:
        """F13: nobody holding tiles has a fitting tile and nothing can be drawn."""
        if self.drawable():
            return
        lay = self.layout
        if lay.set_tile is None:
            return
        for h in self.hands:
            if any(lay.fits_anywhere(t) for t in h):
                return
        self.blocked = True
        self._end_hand(out_side=None)

    def counts(self) -> list[int]:
        """F14 per seat."""
        return [scoring.hand_count(self.rules, h, self.ts) for h in self.hands]

    def side_counts(self) -> list[int]:
        c = self.counts()
        return [sum(c[s] for s in side) for side in scoring.sides(self.rules)]

    def _end_hand(self, out_side: int | None) -> None:
        self.over = True
        scoring.end_of_hand(self, out_side)



class FamilyGame:
    """A match of hands (or one hand with ``target_score=None``), F18/F19."""

    def __init__(self, rules: FamilyRules | str, seed: int | None = None, **options):
        if isinstance(rules, str):
            rules = make_rules(rules, **options)
        elif options:
            raise ValueError("options go to make_rules; pass either a FamilyRules or a game name with options")
        self.rules = rules
        self.seed = None
        self._from_deal = None
        self.reset(seed if seed is not None else 0)

    # -- setup ------------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        if seed is None:
            seed = self.seed if self.seed is not None else 0
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
        self.seed = seed
        self.rng = SplitMix64(seed)
        self._from_deal = None
        self._start_match()
        self._new_hand(first=True)
        self._settle()

    def _start_match(self, scores=None) -> None:
        n = self.rules.num_players
        self.scores = list(scores) if scores is not None else [0] * n
        self.hand_number = 0
        self.done = False
        self.winner: int | None = None  # the match's winning seat (teams: the lower seat of the team)
        self.winners: list[int] = []
        self.hand_over = False
        self.actions: list[int] = []
        self.finished_hands: list[Hand] = []
        self.last_gained = [0] * n
        self._pending = [0] * n

    def _deal(self) -> tuple[list[list[int]], list[int]]:
        rules = self.rules
        n, k, N = rules.num_players, rules.hand_size, rules.num_tiles
        ts = tile_set(rules.max_pip)
        while True:
            order = deal_order(self.rng, N)
            hands = [order[s * k:(s + 1) * k] for s in range(n)]
            if rules.opening in ("highest_double", "lowest_double"):  # F4: redeal without a double
                if not any(ts.tiles[t][0] == ts.tiles[t][1] for t in order[:n * k]):
                    continue
            return hands, order[n * k:]

    def _new_hand(self, first: bool, hands=None, boneyard=None, setter=None) -> None:
        """Deal (unless given) and open a hand; a forced set (F4, F12) is placed at once."""
        rules = self.rules
        if hands is None:
            hands, boneyard = self._deal()
            if rules.opening == "free":
                if not first:
                    setter = self._next_setter()  # F19
                elif rules.first_seat is not None:
                    setter = rules.first_seat
                else:
                    setter = self.rng.below(rules.num_players)  # F4: the lot
        self.hand = Hand(rules, hands, boneyard, setter, number=self.hand_number, credit=self._credit)
        if rules.opening != "free":
            self.hand.apply_forced_set()

    def _settle(self) -> None:
        """After an action: a finished hand ends the match (F18) or the next is dealt (F19);
        a forced set may end that hand too (a one-tile hand, or the target), hence the loop."""
        while self.hand.over and not self.done:
            self.hand_over = True
            self.finished_hands.append(self.hand)
            if self.rules.target_score is None:
                self.done = True  # a single hand (F18)
                if self.hand.winner_side is not None:
                    self.winners = scoring.sides(self.rules)[self.hand.winner_side]
                    self.winner = min(self.winners)
                return
            self.hand_number += 1
            self._new_hand(first=False)
        if self.done and self.hand not in self.finished_hands:
            self.hand_over = True
            self.finished_hands.append(self.hand)

    def _next_setter(self) -> int:
        """F19 under a free opening: the last hand's winner, else whoever placed its last tile;
        with teams the partner who went out, or the winning team's last placer."""
        last = self.finished_hands[-1]
        rules = self.rules
        if last.winner_side is None:
            return last.last_placer
        if not rules.teams:
            return last.winner_side
        team = (0, 2) if last.winner_side == 0 else (1, 3)
        if not last.blocked:
            outs = [s for s in team if not last.hands[s]]
            # team_out="both": both went out; the one who went out last ended it
            for seat, _ in reversed(last.history):
                if seat in outs:
                    return seat
        for seat, a in reversed(last.history):
            kind = action_parts(a, rules)[0]
            if seat in team and kind in ("set", "play"):
                return seat
        return team[0]

    @classmethod
    def from_deal(cls, rules: FamilyRules, hands, boneyard, setter=None, scores=None) -> "FamilyGame":
        """A game from a given deal (tests, search). ``setter`` is needed under a free opening;
        the random stream (seed 0) is used only for later hands."""
        game = cls.__new__(cls)
        game.rules = rules
        game.seed = 0
        game.rng = SplitMix64(0)
        hands = [sorted(int(t) for t in h) for h in hands]
        boneyard = [int(t) for t in boneyard]
        n, N = rules.num_players, rules.num_tiles
        if len(hands) != n:
            raise ValueError(f"from_deal needs {n} hands, got {len(hands)}")
        every = [t for h in hands for t in h] + boneyard
        if sorted(every) != list(range(N)):
            raise ValueError(f"the hands and the boneyard must hold distinct tiles: every tile 0..{N - 1} exactly once")
        if not all(hands):
            raise ValueError("every hand needs at least one tile")
        if rules.opening == "free":
            if setter is None or not 0 <= setter < n:
                raise ValueError(f"opening='free' needs a setter 0..{n - 1}")
        else:
            if setter is not None:
                raise ValueError(f"opening={rules.opening!r} picks the setter itself; setter must be None")
            ts = tile_set(rules.max_pip)
            if rules.opening in ("highest_double", "lowest_double") and \
                    not any(ts.tiles[t][0] == ts.tiles[t][1] for h in hands for t in h):
                raise ValueError(f"opening={rules.opening!r} needs a double in some hand")
        if scores is not None:
            if len(scores) != n:
                raise ValueError(f"scores must have {n} entries")
        game._start_match(scores)
        game._from_deal = dict(hands=hands, boneyard=boneyard, setter=setter,
                               scores=None if scores is None else list(scores))
        game._new_hand(first=True, hands=hands, boneyard=boneyard, setter=setter)
        game._settle()
        return game

    # -- play -------------------------------------------------------------------------------
    @property
    def num_actions(self) -> int:
        """The size of the game's Discrete action space (contract, "Actions")."""
        return self.rules.num_actions

    def observation_size(self, dtype="float32") -> int:
        from .encoding import observation_size
        return observation_size(self.rules, dtype)

    @property
    def to_move(self) -> int:
        return self.hand.to_move

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        return self.hand.legal_actions()

    def legal_mask(self):
        import numpy as np
        mask = np.zeros(self.rules.num_actions, np.int8)
        mask[self.legal_actions()] = 1
        return mask

    def step(self, action: int) -> list[int]:
        """Apply one action of the player to move; the points each seat gained (F18's events:
        play scores, the end-of-hand award, and a next hand's forced set scoring). An illegal
        action raises ValueError naming the legal ones, and nothing changes (F22)."""
        if self.done:
            raise ValueError("the match is over; reset() to play again")
        legal = self.hand.legal_actions()
        if isinstance(action, bool) or not hasattr(action, "__index__") or int(action) not in legal:
            from .encoding import describe
            shown = ", ".join(f"{a} ({describe(a, self.rules)})" for a in legal)
            raise ValueError(f"illegal action {action!r} for seat {self.to_move}; legal: {shown}")
        action = int(action)
        self.actions.append(action)
        self._pending = [0] * self.rules.num_players
        self.hand_over = False
        self.hand.apply(action)
        self._settle()
        self.last_gained = list(self._pending)
        return list(self.last_gained)

    def _credit(self, seats: list[int], points: int) -> None:
        """Add points to the seats of one side unless the match is over (F18); Five Up's exact
        target: a score that would pass it is not taken (FU7)."""
        if self.done or points == 0:
            return
        target = self.rules.target_score
        total = self.scores[seats[0]] + points
        if target is not None and self.rules.game == "five_up" and total > target:
            return
        for s in seats:
            self.scores[s] += points
            self._pending[s] += points
        if target is not None and total >= target:
            self.done = True
            self.winners = sorted(seats)
            self.winner = self.winners[0]
            self.hand.over = True

    # -- observation and records --------------------------------------------------------------
    def observe(self, seat: int, dtype="float32", score_scale: float = 100.0):
        from .encoding import encode
        return encode(self, seat, dtype=dtype, score_scale=score_scale)

    def record(self) -> dict:
        from .record import game_record
        return game_record(self)

    @classmethod
    def from_record(cls, record: dict) -> "FamilyGame":
        from .record import replay
        return replay(record)
