"""The versioned modules of the family games (``nos_env/<game>_v0.py``), written from the rules.

Each module opens with PettingZoo's table (agents, action space with its blocks,
observation slices with shapes and meanings, rewards, options with defaults, the
rules page). The numbers come from the rules objects and the encoding, so they are
written by this script rather than by hand, and ``tests/test_family_env.py`` fails
when a module no longer matches what this script writes (after a deliberate change:
``python -m nos_env.family_docs``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .family_backends import encoding_module, rules_for

#: What each observation slice means (family contract, "Observation"); Blind documents its own.
SLICE_MEANINGS = {
    "num_players": "one-hot of the player count",
    "phase": "one-hot: opening (a set is pending), play, drawn (has drawn this turn), continuing (Fours turn, F23 extra play)",
    "hand": "the observer's tiles",
    "on_table": "tiles on the layout (the set tile included)",
    "placer": "who placed each tile, by seat offset (0: the observer)",
    "tile_arm": "the arm each tile lies on; last column: the set tile",
    "set_tile": "the set tile, one-hot",
    "arm_exists": "the arm is open on the table",
    "arm_open": "each arm's open number, one-hot",
    "arm_count": "tiles on each arm",
    "arm_playable": "the arm takes a tile now (Cross's fill rule, ...)",
    "arm_double_end": "its last tile is a double with nothing beyond",
    "seat_present": "the seat is at the table",
    "seat_to_move": "the seat to move",
    "seat_hand_size": "tiles in each hand",
    "seat_partner": "teams: the observer's partner",
    "seat_void": "public evidence (F24): tiles the seat is known not to hold",
    "boneyard_size": "tiles in the boneyard",
    "boneyard_drawable": "tiles that may still be drawn (above the reserve)",
    "seat_score": "match scores / score_scale",
    "target": "the target score / score_scale (0: a single hand)",
    # Blind (BD3: nobody sees a tile before it is turned up, his own included)
    "turned_up": "the tile just turned up, that the player decides on",
    "seat_unseen": "tiles of the seat's row never turned up",
    "row_seen": "tile t has been seen and lies in the seat's row",
    "row_place": "its place there, 1 = front (the next to turn up)",
    "unseen": "tiles never turned up (in some row, or set aside)",
    "set_aside": "how many tiles are set aside (BD2)",
}

#: Mexican Train's slices (nos_env/family/mexican_train_encoding.py has the full table).
MEXICAN_TRAIN_MEANINGS = {
    "phase": "one-hot: opening (never), play, drawn (has drawn, not played since), continuing (owes the tile after a double, MT7/MT8); all 0 when not his turn",
    "on_table": "tiles on the table, the engine included",
    "set_tile": "the round's engine double, one-hot",
    "arm_exists": "train by seat offset (0 his own), the Mexican train last: its seat is at the table",
    "arm_open": "each train's open number, one-hot (the engine's while empty)",
    "arm_count": "tiles on each train",
    "arm_playable": "the observer may play on it now (MT5, MT7)",
    "arm_double_end": "it ends in an unsatisfied double (MT7)",
    "arm_marked": "its owner's marker is out (MT6)",
    "seat_void": "public evidence (MT12): tiles the seat is known not to hold",
    "rounds_left": "rounds of the match after this one (MT1)",
    "seat_score": "minus the seat's pip total (MT11) / score_scale",
    "target": "always 0 (the match is a number of rounds, MT1)",
}

#: Where Blind's slices mean something else (nos_env/family/blind_encoding.py has the full table).
BLIND_MEANINGS = {
    "phase": "one-hot: opening (never), play (the turn's first tile is up), drawn (never), continuing (he has played a tile this turn)",
    "arm_playable": "the turned-up tile fits the arm",
    "seat_hand_size": "tiles in the seat's row (the turned-up one included)",
    "seat_score": "1 for the winner once the game is over, / score_scale",
    "target": "always 0 (one hand, BD8)",
}

#: Where Chickenfoot's slices mean something else, or are its own (chickenfoot_encoding.py has the full table).
CHICKENFOOT_MEANINGS = {
    "phase": "one-hot: play, or drawn (the mover has drawn this turn); opening and continuing never occur",
    "tile_arm": "the toe each tile lies on; last column: the set tile",
    "arm_exists": "the toe has been created (0..5 with the set, two more with each later double, CK7)",
    "arm_open": "each toe's open number, one-hot",
    "arm_count": "tiles on each toe (a double on it included)",
    "arm_playable": "the toe takes a tile now (only the pending foot's next toe, CK6/CK7)",
    "arm_double_end": "the toe's last tile is a double (its straight toe waits for a tile)",
    "seat_partner": "always 0 (no teams)",
    "seat_void": "public evidence (CK15): tiles the seat is known not to hold",
    "boneyard_size": "tiles in the chicken yard",
    "boneyard_drawable": "the yard has a tile",
    "foot_left": "toes of the pending foot still to fill (6: the double chickenfoot, 3: a chickenfoot, 0: none)",
    "foot_number": "one-hot: the number the pending foot needs",
    "foot_toe": "one-hot: the toe to fill next",
    "hand_number": "hands finished so far in the match",
    "hands_left": "hands still to play, the current one included",
    "seat_score": "penalty totals (CK12; lower is better) / score_scale",
    "target": "always 0 (no target score, CK13)",
}

REWARDS_TEXT = """\
The points of each step (plays that score, the end of a hand) become rewards by the
option `reward`: `"relative"` (default: the seat's points minus the mean of the other
seats' points, zero-sum), `"points"` (the seat's own points) or `"win"` (0 until the
episode ends, then +1 to the winning side and -1/(G-1) to every other seat, G sides;
no winner: 0). Team games pay both partners alike. An episode is a match to
`target_score`, or one hand with `target_score=None`."""

ENV_ARGS_TEXT = """\
Environment arguments (every family game): `num_players`, `render_mode` (`"human"`,
`"ansi"`, `"rgb_array"`), `backend` (`"fast"` default, `"reference"`), `reward`,
`observation_dtype` (`"float32"` default, `"uint8"`: the compact form),
`score_scale` (100.0), `render_viewer` (a seat, default 0; `"omniscient"` shows every
hand, for people only); `vector_env(num_envs, seed=None, reward=..., observation_dtype="uint8",
copy_observations=False, num_threads=None, ...)` takes the same game options."""


def _title(game: str) -> str:
    return {"fives_and_threes": "Fives and Threes", "double_nine_cross": "Double-Nine Cross",
            "all_fives": "All Fives", "five_up": "Five Up", "mexican_train": "Mexican Train"}.get(game, game.title())


def _cell(text: str) -> str:
    return str(text).replace("|", "/")


def action_blocks(rules, encoding) -> list[tuple[str, str, str]]:
    """(block, ids, meaning) of the game's Discrete action space."""
    n, a = rules.num_tiles, rules.num_arms
    p = encoding.set_index(0, rules=rules)
    if rules.game == "chickenfoot":
        return [("play", f"0-{p - 1}", f"`tile*{a} + toe`: the tile on toe 0..{a - 1} (toes in order of creation, CK7)"),
                ("set", f"{p}-{p + n - 1}", "never legal: the holder of the set double places it (CK4)"),
                ("draw", str(encoding.draw_index(rules)), "draw one tile when nothing fits (CK8)"),
                ("pass", str(encoding.pass_index(rules)), "after a draw that does not fit, or with an empty yard")]
    if rules.game == "blind":
        return [("play", f"0-{p - 1}", "`tile*2 + arm`: the turned-up tile on L0 (0) or L1 (1) (BD5)"),
                ("set", f"{p}-{p + n - 1}", "never legal: the set is the starter's first tile (BD4)"),
                ("draw", str(encoding.draw_index(rules=rules)), "never legal: Blind has no drawing"),
                ("pass", str(encoding.pass_index(rules=rules)), "decline the tile (only with `optional_play`, BD5)")]
    if rules.game == "mexican_train":
        return [("play", f"0-{p - 1}", "`tile*9 + train`: train 0 his own, 1..7 the train of the seat that many places "
                                      "to his left, 8 the Mexican train (MT13)"),
                ("set", f"{p}-{p + n - 1}", "never legal: the engine places itself (MT1)"),
                ("draw", str(encoding.draw_index(rules=rules)), "draw one tile when nothing fits (MT6, MT7)"),
                ("pass", str(encoding.pass_index(rules=rules)), "pass and put the marker on his train (MT6)")]
    if rules.matching == "seven":
        play = ("play", f"0-{p - 1}", f"`(tile*{a} + arm)*2 + side`: side 0 the tile's lower number faces outward, "
                                      "1 the higher (F6, MA3)")
    else:
        play = ("play", f"0-{p - 1}", f"`tile*{a} + arm` (tile 0..{n - 1} low-major: 0-0, 0-1, ...; arm 0..{a - 1}, F7)")
    return [play, ("set", f"{p}-{p + n - 1}", "`P + tile`: set this tile (opening='free')"),
            ("draw", str(encoding.draw_index(rules=rules)), "draw from the boneyard"),
            ("pass", str(encoding.pass_index(rules=rules)), "pass (also ends a Fours turn / an F23 extra play)")]


def docstring(game: str) -> str:
    from .family import rules as R  # every game's counts and options, the three own ones included

    rules = rules_for(game, None, {})
    encoding = encoding_module(game)
    layout = encoding.observation_layout(rules)
    size = max(stop for _, stop, _ in layout.values())
    compact = encoding.observation_size(rules, "uint8")
    counts = R.player_counts(game)
    options = R.options_table(game)
    lines = [
        f"# {_title(game)}",
        "",
        "| | |",
        "|---|---|",
        f"| Import | `from nos_env import {game}_v0; env = {game}_v0.env()` (or `nos_env.env(game=\"{game}\")`) |",
        "| Actions | Discrete |",
        "| Parallel API | No |",
        "| Manual Control | No |",
        f"| Agents | `agents = ['player_0', ..., 'player_{{n-1}}']`, n in {', '.join(map(str, counts))} "
        f"(default {rules.num_players}) |",
        "| Action Shape | (1,) |",
        f"| Action Values | Discrete({rules.num_actions}) ({rules.num_tiles} tiles, {rules.num_arms} arms) |",
        f"| Observation Shape | `{{\"observation\": ({size},) float32 or ({compact},) uint8, "
        f"\"action_mask\": ({rules.num_actions},) int8}}` |",
        "| Observation Values | flags and one-hots in {0, 1}; counts >= 0; scores / score_scale |",
        "| Rewards | points gained per step, relative to the others by default (see Rewards) |",
        "",
        f"The rules: `docs/rules/{game}.md` (and `docs/rules/family.md`, F1..F24, for what the",
        "games share). This module only names the game; the environment is",
        "`nos_env.family_env` (AEC) and `nos_env.family_vector` (many tables).",
        "",
        "### Action space",
        "",
        "| block | ids | meaning |",
        "|---|---|---|",
    ]
    lines += [f"| {b} | {i} | {m} |" for b, i, m in action_blocks(rules, encoding)]
    lines += ["", "Legal actions are the mask's ones; `env.unwrapped.action_to_text(i)` and",
              f"`text_to_action(\"{'play 12-5 on own' if game == 'mexican_train' else 'play 3-5 on L1'}\")` convert.", "",
              "### Observation space", "",
              f"From the observer's seat (offset 0); `env.unwrapped.observation_layout` maps each slice to "
              f"`(start, stop, shape)`.",
              "",
              "| slice | shape | meaning |", "|---|---|---|"]
    meanings = dict(SLICE_MEANINGS, **{"blind": BLIND_MEANINGS, "chickenfoot": CHICKENFOOT_MEANINGS,
                                       "mexican_train": MEXICAN_TRAIN_MEANINGS}.get(game, {}))
    lines += [f"| {name} | {shape} | {_cell(meanings.get(name, ''))} |" for name, (_, _, shape) in layout.items()]
    lines += ["", "### Rewards", "", REWARDS_TEXT]
    if game == "mexican_train":
        lines += ["", "A step that ends a round pays every seat minus its pips left (MT11: lowest total wins), so "
                  "rewards and scores are negative; an episode is the match of `rounds` rounds (`rounds=1`: one "
                  "round)."]
    if game == "blind":
        lines += ["", "Blind is one hand: the winner (who empties his row, else the unique lowest count) "
                  "scores 1 (BD8)."]
    if game == "chickenfoot":
        lines += ["", "Chickenfoot scores penalties (CK12): the engines' points are minus the pips left in hand "
                  "(and minus 50 for the [0-0]) when a hand ends, so every reward mode favours the lower total. "
                  "An episode is the whole match (`match`: 10 hands by default, CK13)."]
    lines += ["", "### Options", "",
              "Game options (the page's \"Options\" table):", "",
              "| option | default | allowed |", "|---|---|---|"]
    lines += [f"| `{name}` | `{default!r}` | {_cell(allowed)} |" for name, (default, allowed) in options.items()]
    lines += ["", ENV_ARGS_TEXT, "", "### Version History", "", "* v0: first release.", ""]
    return "\n".join(lines)


MODULE_CODE = '''
from .family_env import env as _env
from .family_env import raw_env as _raw_env
from .family_vector import vector_env as _vector_env

GAME = "{game}"


def env(**options):
    """The {title} environment with PettingZoo's order checks (options above)."""
    return _env(GAME, **options)


def raw_env(**options):
    """The bare {title} environment."""
    return _raw_env(GAME, **options)


def vector_env(num_envs: int, num_players: int | None = None, **options):
    """``num_envs`` tables of {title} on the fast engine (``nos_env.family_vector``); ``num_players``
    may come second, as in ``nos_env.vector_env(8, 3, game="{game}")``."""
    return _vector_env(num_envs, game=GAME, num_players=num_players, **options)


__all__ = ["GAME", "env", "raw_env", "vector_env"]
'''


def module_text(game: str) -> str:
    doc = docstring(game)
    return '# noqa: D212, D415\n"""\n' + doc + '"""\n' + MODULE_CODE.format(game=game, title=_title(game))


def module_path(game: str) -> Path:
    return Path(__file__).resolve().parent / f"{game}_v0.py"


def main(argv: list[str] | None = None) -> int:
    import argparse

    from .family_env import FAMILY_GAMES

    parser = argparse.ArgumentParser(prog="python -m nos_env.family_docs", description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", metavar="GAME",
                        help=f"the games whose module to write (default: every one of {', '.join(FAMILY_GAMES)})")
    parser.add_argument("--check", action="store_true", help="write nothing; fail if a module differs")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.games) - set(FAMILY_GAMES))
    if unknown:
        parser.error(f"unknown game(s) {', '.join(unknown)}; the family games are {', '.join(FAMILY_GAMES)}")
    stale = []
    for game in args.games or FAMILY_GAMES:
        if args.check:
            if module_path(game).read_text() != module_text(game):
                stale.append(game)
            continue
        module_path(game).write_text(module_text(game))
        print(f"wrote {module_path(game)}")
    if stale:
        print(f"stale: {', '.join(stale)} (run python -m nos_env.family_docs)")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
