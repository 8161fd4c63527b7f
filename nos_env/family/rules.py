"""The rules object of the ten non-Blind family games: their options, checked in one place.

Every game page (``docs/rules/<game>.md``) has an "Options" table; :func:`make_rules` takes
exactly the options of that table under the page's names, fills in the page's defaults and
returns a frozen :class:`FamilyRules`. The options a page does not offer keep the fixed value
its rules give (Block's ``draw_rule`` is always ``"none"``, Cross's ``opening`` always
``"highest_double"``, ...), so an engine reads one field per rule and never asks which game
it plays for a setting.

Bad input (an unknown game, an option the page does not offer, a value outside the allowed
ones) raises ``ValueError`` naming what is allowed (F22's spirit: clear errors, nothing
converted: ``"5"`` is not a hand size).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from ..options import is_integer
from .own_games import OWN_GAMES

#: The ten games of this engine, in the order of docs/rules/README.md (Blind adds itself).
GAMES = ("block", "draw", "cross", "double_nine_cross", "matador", "all_fives",
         "fives_and_threes", "five_up", "bergen", "fours")

#: Tiles in a set (F1).
SET_SIZE = {"double_six": 28, "double_nine": 55}
MAX_PIP = {"double_six": 6, "double_nine": 9}

LINE_GAMES = ("block", "draw", "matador", "all_fives", "fives_and_threes", "bergen", "fours")
#: A: the arms of each game's layout (contract "Actions"): a line has L0, L1; Cross's spinner
#: C0..C3; Five Up 2 + 2 per double of double-six (FU3, F7); Double-Nine Cross 4 + 2 per other
#: double of double-nine (DN4).
NUM_ARMS = {**{g: 2 for g in LINE_GAMES}, "cross": 4, "five_up": 16, "double_nine_cross": 22}

_PLAYERS = {"block": (2, 3, 4, 5), "draw": (2, 3, 4, 5), "cross": (2, 3, 4, 5),
            "double_nine_cross": tuple(range(2, 9)), "matador": (2, 3, 4), "all_fives": (2, 3, 4),
            "fives_and_threes": (2, 3, 4), "five_up": (2, 3, 4), "bergen": (2, 3, 4), "fours": (4,)}

# The hand sizes of each page's table, per tile set and player count.
_DRAW_SIZES = {"double_six": {2: 7, 3: 5, 4: 4, 5: 3}, "double_nine": {2: 7, 3: 7, 4: 5, 5: 5}}  # DR2, DR5
_SEVEN_FIVE = {"double_six": {2: 7, 3: 5, 4: 5}}
_HAND_SIZES = {
    "block": {"double_six": {2: 8, 3: 6, 4: 6, 5: 5}, "double_nine": {n: 9 for n in range(2, 6)}},  # BL2
    "draw": _DRAW_SIZES,
    "cross": _DRAW_SIZES,  # CR3
    "double_nine_cross": {"double_nine": {2: 7, 3: 7, **{n: 5 for n in range(4, 9)}}},  # DN1
    "matador": _SEVEN_FIVE, "all_fives": _SEVEN_FIVE, "fives_and_threes": _SEVEN_FIVE,  # AF1
    "five_up": _SEVEN_FIVE,
    "bergen": {"double_six": {n: 6 for n in (2, 3, 4)}},  # BE1
    "fours": {"double_six": {4: 5}},  # FO1
}

# Allowed values of the enumerated options, per game (default first), from each page's
# "Options" table. A game missing from an option's dict does not offer it.
_CHOICES = {
    "opening": {
        **{g: ("highest_double", "highest_tile", "free")
           for g in ("block", "draw", "matador", "all_fives", "fives_and_threes")},
        "five_up": ("free", "highest_double", "highest_tile"),  # FU2
        "fours": ("free", "highest_double", "highest_tile"),  # FO2
        "bergen": ("lowest_double", "lowest_tile", "free"),  # BE2
    },
    "tileset": {g: ("double_six", "double_nine") for g in ("block", "draw", "cross")},
    "draw_rule": {g: ("until_playable", "one") for g in ("draw", "cross", "double_nine_cross")},
    "cross_phase_draw": {g: ("as_draw", "one") for g in ("cross", "double_nine_cross")},  # CR5
    "blocked_scoring": {g: ("difference", "total")
                        for g in ("block", "draw", "cross", "double_nine_cross", "matador", "fours")},
    "hand_scoring": {"block": ("pips", "one_point")},  # BL4
    "team_out": {g: ("one", "both") for g in ("block", "draw", "cross", "double_nine_cross")},
    "multi_play": {"fours": ("must", "may")},  # FO3
    "award_rounding": {g: ("per_opponent", "total") for g in ("all_fives", "five_up")},  # AF7, FU6
    "spinners": {"five_up": ("every", "first")},  # FU3
}
_BOOLEANS = {
    "teams": ("block", "draw", "cross", "double_nine_cross"),  # F20
    "double_counts_one_end": ("block", "draw", "cross", "double_nine_cross", "matador", "all_fives",
                              "fives_and_threes", "five_up", "fours"),  # F14
    "stock_to_winner": ("block", "draw", "cross", "double_nine_cross", "matador", "fours"),  # F17
    "play_on_double": ("block", "draw", "cross", "double_nine_cross"),  # F23
}
_RESERVE_GAMES = ("draw", "cross", "double_nine_cross", "matador", "all_fives", "fives_and_threes",
                  "fours")  # F11
_TARGETS = {"block": 100, "draw": 100, "cross": 100, "double_nine_cross": 100, "matador": 100,
            "all_fives": 100, "fives_and_threes": 100, "five_up": 61, "bergen": 15, "fours": 100}

# The fixed values of options a game does not offer (its own rules).
_FIXED = {
    "opening": "highest_double",  # Cross, Double-Nine Cross: CR2, DN2
    "tileset": "double_six",
    "draw_rule": "until_playable",  # All Fives AF5, Fives & Threes, Five Up FU8, Fours FO4
    "cross_phase_draw": "as_draw",
    "blocked_scoring": "difference",
    "hand_scoring": "pips",
    "team_out": "one",
    "multi_play": "must",
    "award_rounding": "none",  # Fives & Threes FT2: nothing is rounded
    "spinners": "none",
}
_GAME_FIXED = {
    ("block", "draw_rule"): "none",  # BL1
    ("matador", "draw_rule"): "at_will",  # MA5: draw at any point of the turn
    ("bergen", "draw_rule"): "one",  # BE4
    ("double_nine_cross", "tileset"): "double_nine",  # DN1
    ("double_nine_cross", "spinners"): "every_after_cross",  # DN3
    ("cross", "spinners"): "set",  # CR2
}

_DESCRIBE_INT = {
    "hand_size": "None (the page's table) or an integer k >= 1 with num_players*k + boneyard_reserve <= tiles in the set",
    "boneyard_reserve": "an integer r >= 0 (the bottom r tiles are never drawn, F11)",
    "target_score": "a positive integer, or None (a single hand)",
    "first_seat": "None (drawn by lot) or a seat 0..num_players-1, only with opening='free'",
}


@dataclass(frozen=True)
class FamilyRules:
    """The settled rules of one family game (every field a page's option or fixed rule)."""

    game: str
    num_players: int
    opening: str
    first_seat: int | None
    tileset: str
    hand_size: int
    draw_rule: str
    cross_phase_draw: str
    boneyard_reserve: int
    blocked_scoring: str
    hand_scoring: str
    target_score: int | None
    teams: bool
    team_out: str
    double_counts_one_end: bool
    stock_to_winner: bool
    play_on_double: bool
    multi_play: str
    award_rounding: str
    spinners: str
    # derived
    num_tiles: int
    max_pip: int
    num_arms: int
    matching: str
    max_seats: int

    def options(self) -> dict:
        """The options as given to :func:`make_rules` (the page's option names, no derived fields)."""
        return {name: getattr(self, name) for name in option_names(self.game)}

    @property
    def tiles(self) -> tuple[tuple[int, int], ...]:
        """The set's tiles (a, b), a <= b, in index order (kernels/tilesets.py)."""
        from ..kernels.tilesets import tile_set
        return tile_set(self.max_pip).tiles

    @property
    def num_actions(self) -> int:
        sides = 2 if self.matching == "seven" else 1
        return self.num_tiles * self.num_arms * sides + self.num_tiles + 2


def _check_game(game: object) -> str:
    if game not in GAMES:
        raise ValueError(f"game must be one of {', '.join(GAMES)} (blind: nos_env.family.blind), got {game!r}")
    return game


def player_counts(game: str) -> tuple[int, ...]:
    """The numbers of players the game's page allows."""
    if game in OWN_GAMES:
        return tuple(OWN_GAMES[game].rules_module().PLAYER_COUNTS)
    return _PLAYERS[_check_game(game)]


def default_players(game: str) -> int:
    """4 for every game: the pages' default (``players=4``) where they name one, and the
    texts' pub table of four for Block, Draw and the Crosses."""
    if game in OWN_GAMES:
        return OWN_GAMES[game].rules_module().DEFAULT_PLAYERS
    _check_game(game)
    return 4


def one_hand_options(game: str) -> dict:
    """The options that make an episode of ``game`` one hand (tournaments, playthroughs, RLlib):
    Mexican Train plays a number of rounds (MT1), Chickenfoot counts its hands (CK13), every
    other game has a target score."""
    if game in OWN_GAMES:
        return dict(OWN_GAMES[game].one_hand)
    _check_game(game)
    return {"target_score": None}


def option_names(game: str) -> tuple[str, ...]:
    """The options of the game's "Options" table, in a fixed order."""
    _check_game(game)
    names = []
    if game in _CHOICES["opening"]:
        names.append("opening")
        if "free" in _CHOICES["opening"][game]:
            names.append("first_seat")
    for name in ("tileset",):
        if game in _CHOICES[name]:
            names.append(name)
    names.append("hand_size")
    for name in ("draw_rule", "cross_phase_draw"):
        if game in _CHOICES[name]:
            names.append(name)
    if game in _RESERVE_GAMES:
        names.append("boneyard_reserve")
    for name in ("blocked_scoring", "hand_scoring", "award_rounding", "spinners", "multi_play"):
        if game in _CHOICES[name]:
            names.append(name)
    names.append("target_score")
    if game in _BOOLEANS["teams"]:
        names += ["teams", "team_out"]
    for name in ("double_counts_one_end", "stock_to_winner", "play_on_double"):
        if game in _BOOLEANS[name]:
            names.append(name)
    return tuple(names)


def options_table(game: str) -> dict[str, tuple[object, str]]:
    """name -> (default, description of the allowed values), for docs and command lines."""
    if game in OWN_GAMES:
        return dict(OWN_GAMES[game].rules_module().OPTIONS)
    table = {}
    for name in option_names(game):
        if name in _CHOICES:
            values = _CHOICES[name][game]
            table[name] = (values[0], "one of " + ", ".join(repr(v) for v in values))
        elif name in _BOOLEANS:
            table[name] = (False, "True or False" + (" (4 players only)" if name == "teams" else ""))
        elif name == "hand_size":
            table[name] = (None, _DESCRIBE_INT[name])
        elif name == "boneyard_reserve":
            table[name] = (0, _DESCRIBE_INT[name])
        elif name == "first_seat":
            table[name] = (None, _DESCRIBE_INT[name])
        elif name == "target_score":
            default = _TARGETS[game]
            extra = " (default None with hand_scoring='one_point', BL4)" if game == "block" else ""
            table[name] = (default, _DESCRIBE_INT[name] + extra)
    return table


def _choice(game: str, name: str, value: object) -> str:
    values = _CHOICES[name][game]
    if not isinstance(value, str) or value not in values:
        raise ValueError(f"{game}: {name} must be one of {', '.join(map(repr, values))}, got {value!r}")
    return value


def make_rules(game: str, num_players: int | None = None, **options) -> FamilyRules:
    """The rules of ``game`` for ``num_players`` (default :func:`default_players`) with the
    page's options; unknown options and bad values raise ``ValueError`` naming what is allowed."""
    if game in OWN_GAMES:
        return OWN_GAMES[game].make_rules(num_players, options)
    game = _check_game(game)
    allowed = option_names(game)
    unknown = sorted(set(options) - set(allowed))
    if "players" in unknown:  # the pages' tables call it players; the API's name is num_players
        raise ValueError(f"{game}: give the number of players as num_players (the pages' 'players'), "
                         f"one of {', '.join(map(str, _PLAYERS[game]))}")
    if unknown:
        raise ValueError(f"{game} has no option {', '.join(map(repr, unknown))}; its options are "
                         f"{', '.join(allowed)}")
    counts = _PLAYERS[game]
    if num_players is None:
        num_players = default_players(game)
    if not is_integer(num_players) or int(num_players) not in counts:
        raise ValueError(f"{game}: num_players must be one of {', '.join(map(str, counts))}, got {num_players!r}")
    n = int(num_players)

    values = {}
    for name in _CHOICES:
        if name in allowed:
            values[name] = _choice(game, name, options.get(name, _CHOICES[name][game][0]))
        else:
            values[name] = _GAME_FIXED.get((game, name), _FIXED[name])
    for name, games in _BOOLEANS.items():
        value = options.get(name, False)
        if name in allowed and not isinstance(value, bool):
            raise ValueError(f"{game}: {name} must be True or False, got {value!r}")
        values[name] = bool(value)

    if values["teams"] and n != 4:
        raise ValueError(f"{game}: teams=True needs 4 players (F20), got num_players={n}")
    if values["team_out"] != "one" and not values["teams"]:
        raise ValueError(f"{game}: team_out='both' applies only with teams=True (F20)")

    first_seat = options.get("first_seat")
    if first_seat is not None:
        if values["opening"] != "free":
            raise ValueError(f"{game}: first_seat applies only with opening='free' (F4), "
                             f"got opening={values['opening']!r}")
        if not is_integer(first_seat) or not 0 <= int(first_seat) < n:
            raise ValueError(f"{game}: first_seat must be None or a seat 0..{n - 1}, got {first_seat!r}")
        first_seat = int(first_seat)

    reserve = options.get("boneyard_reserve", 0)
    if not is_integer(reserve) or int(reserve) < 0:
        raise ValueError(f"{game}: boneyard_reserve must be {_DESCRIBE_INT['boneyard_reserve']}, got {reserve!r}")
    reserve = int(reserve)

    tileset = values["tileset"]
    num_tiles = SET_SIZE[tileset]
    hand_size = options.get("hand_size")
    if hand_size is None:
        hand_size = _HAND_SIZES[game][tileset][n]
    elif not is_integer(hand_size) or int(hand_size) < 1:
        raise ValueError(f"{game}: hand_size must be {_DESCRIBE_INT['hand_size']}, got {hand_size!r}")
    hand_size = int(hand_size)
    if n * hand_size + reserve > num_tiles:
        raise ValueError(f"{game}: {n} hands of {hand_size} tiles and a reserve of {reserve} need "
                         f"{n * hand_size + reserve} tiles, the {tileset} set has {num_tiles} (F3)")

    default_target = None if values["hand_scoring"] == "one_point" else _TARGETS[game]  # BL4
    target = options.get("target_score", default_target)
    if target is not None and (not is_integer(target) or int(target) < 1):
        raise ValueError(f"{game}: target_score must be {_DESCRIBE_INT['target_score']}, got {target!r}")
    target = None if target is None else int(target)

    return FamilyRules(
        game=game, num_players=n, first_seat=first_seat, hand_size=hand_size,
        boneyard_reserve=reserve, target_score=target, **values,
        num_tiles=num_tiles, max_pip=MAX_PIP[tileset], num_arms=NUM_ARMS[game],
        matching="seven" if game == "matador" else "equal", max_seats=max(counts))


def field_names() -> tuple[str, ...]:
    return tuple(f.name for f in fields(FamilyRules))
