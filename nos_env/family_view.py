"""What a person sees of a family table: one plain description, then text.

:func:`table_view` reads a reference engine object (``FamilyGame``, Blind's engine)
into a :class:`TableView`: every hand and the boneyard (the painters hide what the
viewer may not see), the set tile, each arm from its root outwards with its open
number, the scores and the last actions. :func:`render_text` writes it for the
``ansi``/``human`` modes; ``nos_env/draw/family.py`` paints it for ``rgb_array``.
The environments never feed a view to an agent.

``viewer`` is a seat (its own tiles face up, the others' and the boneyard face down,
F24) or None: every tile (the omniscient view, for debugging and teaching).
"""

from __future__ import annotations

from dataclasses import dataclass, field

LAST_ACTIONS = 6


@dataclass(frozen=True)
class Placed:
    """A tile on an arm: its numbers inner (towards the set) and outer, and who placed it."""

    tile: int
    inner: int
    outer: int
    placer: int

    @property
    def double(self) -> bool:
        return self.inner == self.outer


@dataclass(frozen=True)
class Arm:
    index: int
    name: str  # "L0", "C2", "arm 5"
    root: str  # where it starts: "the set" or the spinner double it grows from ("[5-5] on L1")
    tiles: tuple[Placed, ...]
    open: int | None  # the number a tile must match, None while nothing can be played there
    playable: bool


@dataclass
class TableView:
    game: str
    num_players: int
    max_pip: int
    tiles: tuple[tuple[int, int], ...]  # tile id -> (low, high)
    hands: list[list[int]]  # every seat's tiles (hidden from other viewers when shown)
    boneyard: list[int]  # top first
    boneyard_drawable: int
    set_tile: int | None
    setter: int | None
    arms: list[Arm]
    scores: list[int]
    target: int | None
    to_move: int | None
    hand_number: int
    done: bool
    winner: object
    teams: bool
    last_actions: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # game-specific public lines
    #: False in Blind: nobody sees his own row (BD3); rows are then kept in order, front first
    own_tiles_visible: bool = True

    def sees(self, viewer: int | None, seat: int) -> bool:
        """Whether ``viewer`` sees ``seat``'s tiles."""
        return viewer is None or (viewer == seat and self.own_tiles_visible)

    def tile_text(self, tile: int) -> str:
        a, b = self.tiles[tile]
        return f"{a}-{b}"


def _title(game: str) -> str:
    return game.replace("_", " ").title().replace("And", "&")


def status_line(view: TableView) -> str:
    if view.done:
        who = "no winner" if view.winner is None else f"winner: {_winner_text(view.winner)}"
        state = f"over ({who})"
    elif view.to_move is None:  # a match's hand that has ended, the next not yet shown
        state = "hand over"
    else:
        state = f"seat {view.to_move} to move"
    target = "single hand" if view.target is None else f"match to {view.target}"
    if view.game == "chickenfoot":
        target = "a match of hands, lowest total wins"
    return f"{_title(view.game)}, {view.num_players} players, {target} | hand {view.hand_number + 1} | {state}"


def _winner_text(winner) -> str:
    if isinstance(winner, (list, tuple)):
        return "seats " + ", ".join(str(int(w)) for w in winner)
    return f"seat {int(winner)}"


def arm_text(view: TableView, arm: Arm) -> str:
    chain = "  ".join(f"{p.inner}|{p.outer}" for p in arm.tiles) or "-"
    state = f"open {arm.open}" if arm.open is not None else "no open end"
    if not arm.playable:
        state += ", closed for now"
    return f"  {arm.name} from {arm.root} ({state}): {chain}"


def render_text(view: TableView, viewer: int | None = 0) -> str:
    """The table as text, as ``viewer`` (a seat, or None: every tile) sees it."""
    lines = [status_line(view), "view: every hand (omniscient)" if viewer is None else f"view: seat {viewer}"]
    if view.set_tile is None:
        lines.append(f"No tile set yet (seat {view.setter} sets)" if view.setter is not None else "No tile set yet")
    else:
        lines.append(f"Set tile [{view.tile_text(view.set_tile)}] by seat {view.setter}")
        lines.append("Arms (inner|outer, from the set outwards):")
        lines += [arm_text(view, arm) for arm in view.arms]
    bone = f"Boneyard: {len(view.boneyard)} tiles ({view.boneyard_drawable} drawable)"
    if viewer is None and view.boneyard:
        bone += ": " + " ".join(view.tile_text(t) for t in view.boneyard)
    if view.game != "blind":  # Blind has no boneyard: its set-aside tiles are a note
        lines.append(bone)
    lines += view.notes
    lines.append("Seats:")
    for s in range(view.num_players):
        marks = []
        if s == view.to_move and not view.done:
            marks.append("to move")
        if view.teams:
            marks.append(f"team {'AB'[s % 2]}")
        if view.sees(viewer, s):
            tiles = view.hands[s] if not view.own_tiles_visible else sorted(view.hands[s])
            held = " ".join(view.tile_text(t) for t in tiles) or "-"
        else:
            held = f"{len(view.hands[s])} tiles"
        lines.append(f"  seat {s}: score {view.scores[s]:4d}  [{held}]" + (f"  {', '.join(marks)}" if marks else ""))
    if view.last_actions:
        lines.append("Last actions:")
        lines += [f"  {a}" for a in view.last_actions[-LAST_ACTIONS:]]
    return "\n".join(lines)



def _arm_start(layout, arm) -> int:
    """The number a tile placed first on ``arm`` must meet (before Matador's sum-to-seven)."""
    a, b = layout.tile(arm.origin)
    if arm.origin == layout.set_tile and a != b:
        return a if arm.number == 0 else b  # L0 is the side of the lower number
    return a  # a double: every arm it opens starts at its number


def _placed_tiles(game_obj, layout, arm, sides: dict) -> tuple[Placed, ...]:
    """The tiles of ``arm`` with their inner and outer numbers, from the root outwards."""
    rules = game_obj.rules
    current = _arm_start(layout, arm)
    out = []
    for t, seat in arm.tiles:
        lo, hi = layout.tile(t)
        if rules.matching == "seven":
            outer = (lo if sides.get(t, 0) == 0 else hi)  # Matador names the outward number (F6)
            inner = hi if outer == lo else lo
        else:
            inner = current
            outer = hi if lo == current else lo
        out.append(Placed(int(t), int(inner), int(outer), int(seat)))
        current = outer
    return tuple(out)


def table_view(game_obj, game: str) -> TableView:
    """The view of a reference engine object of ``game`` (Blind's engine brings its own reader)."""
    if game == "blind":
        return _blind_view(game_obj)
    if game == "chickenfoot":
        return _chickenfoot_view(game_obj)
    from .family.encoding import action_parts, arm_name, describe

    rules = game_obj.rules
    hand = game_obj.hand
    layout = hand.layout
    sides = {}
    last = []
    for seat, action in hand.history:
        parts = action_parts(action, rules)
        if parts[0] == "play":
            sides[parts[1]] = parts[3]
        last.append(f"seat {seat}: {describe(action, rules)}")
    arms = []
    for arm in layout.arms:
        name = arm_name(arm.number, rules)
        if arm.origin == layout.set_tile:
            root = "the set"
        else:  # a later spinner (F7): the double it grows from, and the arm that double lies on
            a, b = layout.tile(arm.origin)
            root = f"[{a}-{b}] on {arm_name(layout.tile_arm[arm.origin], rules)}"
        arms.append(Arm(int(arm.number), name, root, _placed_tiles(game_obj, layout, arm, sides),
                        None if arm.open is None else int(arm.open), bool(layout.arm_playable(arm.number))))
    drawable = 0 if rules.draw_rule == "none" else max(0, len(hand.boneyard) - rules.boneyard_reserve)
    notes = []
    if getattr(hand, "drawn", False):
        notes.append(f"seat {hand.to_move} has drawn this turn")
    if getattr(hand, "placed", False) and rules.game == "fours":
        notes.append(f"seat {hand.to_move} goes on with his turn (Fours)")
    return TableView(
        game=game, num_players=rules.num_players, max_pip=rules.max_pip, tiles=tuple(layout.ts.tiles),
        hands=[sorted(int(t) for t in h) for h in hand.hands], boneyard=[int(t) for t in hand.boneyard],
        boneyard_drawable=drawable, set_tile=layout.set_tile, setter=layout.setter if layout.set_tile is not None
        else hand.to_move, arms=arms, scores=[int(s) for s in game_obj.scores], target=rules.target_score,
        to_move=None if game_obj.done else int(game_obj.to_move), hand_number=int(game_obj.hand_number),
        done=bool(game_obj.done), winner=game_obj.winner, teams=bool(rules.teams), last_actions=last, notes=notes)


def finished_hand_view(game_obj, game: str) -> TableView:
    """The view of a match's last finished hand (``FamilyGame.finished_hands[-1]``) as it ended:
    its table and the scores after it, nobody to move. The engine deals the next hand in the step
    that ends one (contract, engines 6), so without this the end of a hand is never seen."""
    from types import SimpleNamespace

    hand = game_obj.finished_hands[-1]
    ended = SimpleNamespace(rules=game_obj.rules, hand=hand, scores=game_obj.scores, done=False, to_move=0,
                            hand_number=hand.number, winner=None)
    view = table_view(ended, game)
    view.to_move = None
    view.notes = [f"hand {hand.number + 1} is over; the next hand is dealt"]
    return view


def _blind_view(g) -> TableView:
    """Blind (``nos_env.family.blind.BlindGame``): rows face down to everyone, the set and two
    arms (BD6), the tile just turned up (BD3)."""
    rules = g.rules
    ts = rules.tiles
    tiles_on = {0: [], 1: []}
    for event in g.events:
        if event[0] == "play":
            tiles_on[event[3]].append((event[2], event[1]))
    low, high = ts.tiles[g.set_tile]
    arms = []
    for k, start in ((0, low), (1, high)):
        placed, current = [], start
        for t, seat in tiles_on[k]:
            a, b = ts.tiles[t]
            outer = b if a == current else a
            placed.append(Placed(int(t), int(current), int(outer), int(seat)))
            current = outer
        arms.append(Arm(k, f"L{k}", "the set", tuple(placed), int(g.open_ends[k]), not g.done))
    notes = []
    if g.turned is not None:
        a, b = ts.tiles[g.turned]
        notes.append(f"seat {g.to_move} turned up [{a}-{b}]: it fits both ends" +
                     (" (or may be declined)" if rules.optional_play else ""))
    notes.append(f"Set aside (never seen): {len(g.aside)} tiles")
    return TableView(
        game="blind", num_players=rules.num_players, max_pip=rules.max_pip, tiles=tuple(ts.tiles),
        hands=[[int(t) for t in row] for row in g.rows], boneyard=[], boneyard_drawable=0,
        set_tile=int(g.set_tile), setter=int(g.starter), arms=arms, scores=[int(s) for s in g.scores],
        target=None, to_move=None if g.done else int(g.to_move), hand_number=0, done=bool(g.done),
        winner=g.winner, teams=False, last_actions=g.describe_events()[-LAST_ACTIONS:], notes=notes,
        own_tiles_visible=False)


def _chickenfoot_view(g) -> TableView:
    """Chickenfoot (``nos_env.family.chickenfoot.ChickenfootGame``): the set double and its toes
    in order of creation (CK6, CK7), each from its root outwards; the pending foot as a note."""
    from .family.chickenfoot_encoding import describe

    rules = g.rules
    ts = rules.tiles
    hand = g.hand
    playable = set(hand.playable_toes()) if not hand.over else set()
    arms = []
    root_of = {k: ("the set", hand.set_number) for k in range(6)}
    for t, k in hand.tile_arm.items():
        if k >= 0 and ts.IS_DOUBLE[t]:  # CK7: a double on toe k opens the next two toes
            first = next(j for j in range(6, len(hand.toes), 2) if j not in root_of)
            root_of[first] = root_of[first + 1] = (f"[{ts.tiles[t][0]}-{ts.tiles[t][1]}] on T{k}", ts.tiles[t][0])
    for k, toe in enumerate(hand.toes):
        root, current = root_of[k]
        placed = []
        for t, seat in toe.tiles:
            a, b = ts.tiles[t]
            outer = b if a == current else a
            placed.append(Placed(int(t), int(current), int(outer), int(seat)))
            current = outer
        arms.append(Arm(k, f"T{k}", root, tuple(placed), int(toe.open), k in playable))
    notes = [f"Hand {hand.number + 1} of {rules.num_hands}: set [{hand.set_number}-{hand.set_number}]"]
    if hand.foot_queue and not hand.over:
        what = "double chickenfoot" if len(hand.toes) == 6 else "chickenfoot"  # the set's is filled first
        notes.append(f"{what} pending: {hand.foot_left} toe(s) need a {hand.foot_number}, next T{hand.foot_toe()}")
    if hand.drawn and not hand.over:
        notes.append(f"seat {hand.to_move} has drawn this turn")
    notes.append("Scores are penalty points: lower is better (CK12)")
    last = [f"seat {seat}: {describe(a, rules)}" for seat, a in hand.history]
    return TableView(
        game="chickenfoot", num_players=rules.num_players, max_pip=rules.max_pip, tiles=tuple(ts.tiles),
        hands=[sorted(int(t) for t in h) for h in hand.hands], boneyard=[int(t) for t in hand.yard],
        boneyard_drawable=len(hand.yard), set_tile=int(hand.set_tile), setter=int(hand.setter), arms=arms,
        scores=[int(s) for s in g.scores], target=None, to_move=None if g.done else int(g.to_move),
        hand_number=int(g.hand_number), done=bool(g.done), winner=g.winner, teams=False, last_actions=last,
        notes=notes)
