# noqa: D212, D415
"""
# Chickenfoot

| | |
|---|---|
| Import | `from nos_env import chickenfoot_v0; env = chickenfoot_v0.env()` (or `nos_env.env(game="chickenfoot")`) |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']`, n in 2, 3, 4, 5, 6, 7, 8 (default 4) |
| Action Shape | (1,) |
| Action Values | Discrete(1377) (55 tiles, 24 arms) |
| Observation Shape | `{"observation": (2847,) float32 or (2884,) uint8, "action_mask": (1377,) int8}` |
| Observation Values | flags and one-hots in {0, 1}; counts >= 0; scores / score_scale |
| Rewards | points gained per step, relative to the others by default (see Rewards) |

The rules: `docs/rules/chickenfoot.md` (and `docs/rules/family.md`, F1..F24, for what the
games share). This module only names the game; the environment is
`nos_env.family_env` (AEC) and `nos_env.family_vector` (many tables).

### Action space

| block | ids | meaning |
|---|---|---|
| play | 0-1319 | `tile*24 + toe`: the tile on toe 0..23 (toes in order of creation, CK7) |
| set | 1320-1374 | never legal: the holder of the set double places it (CK4) |
| draw | 1375 | draw one tile when nothing fits (CK8) |
| pass | 1376 | after a draw that does not fit, or with an empty yard |

Legal actions are the mask's ones; `env.unwrapped.action_to_text(i)` and
`text_to_action("play 3-5 on L1")` convert.

### Observation space

From the observer's seat (offset 0); `env.unwrapped.observation_layout` maps each slice to `(start, stop, shape)`.

| slice | shape | meaning |
|---|---|---|
| num_players | (7,) | one-hot of the player count |
| phase | (4,) | one-hot: play, or drawn (the mover has drawn this turn); opening and continuing never occur |
| hand | (55,) | the observer's tiles |
| on_table | (55,) | tiles on the layout (the set tile included) |
| placer | (55, 8) | who placed each tile, by seat offset (0: the observer) |
| tile_arm | (55, 25) | the toe each tile lies on; last column: the set tile |
| set_tile | (55,) | the set tile, one-hot |
| arm_exists | (24,) | the toe has been created (0..5 with the set, two more with each later double, CK7) |
| arm_open | (24, 10) | each toe's open number, one-hot |
| arm_count | (24,) | tiles on each toe (a double on it included) |
| arm_playable | (24,) | the toe takes a tile now (only the pending foot's next toe, CK6/CK7) |
| arm_double_end | (24,) | the toe's last tile is a double (its straight toe waits for a tile) |
| seat_present | (8,) | the seat is at the table |
| seat_to_move | (8,) | the seat to move |
| seat_hand_size | (8,) | tiles in each hand |
| seat_partner | (8,) | always 0 (no teams) |
| seat_void | (8, 55) | public evidence (CK15): tiles the seat is known not to hold |
| boneyard_size | (1,) | tiles in the chicken yard |
| boneyard_drawable | (1,) | the yard has a tile |
| foot_left | (1,) | toes of the pending foot still to fill (6: the double chickenfoot, 3: a chickenfoot, 0: none) |
| foot_number | (10,) | one-hot: the number the pending foot needs |
| foot_toe | (24,) | one-hot: the toe to fill next |
| hand_number | (1,) | hands finished so far in the match |
| hands_left | (1,) | hands still to play, the current one included |
| seat_score | (8,) | penalty totals (CK12; lower is better) / score_scale |
| target | (1,) | always 0 (no target score, CK13) |

### Rewards

The points of each step (plays that score, the end of a hand) become rewards by the
option `reward`: `"relative"` (default: the seat's points minus the mean of the other
seats' points, zero-sum), `"points"` (the seat's own points) or `"win"` (0 until the
episode ends, then +1 to the winning side and -1/(G-1) to every other seat, G sides;
no winner: 0). Team games pay both partners alike. An episode is a match to
`target_score`, or one hand with `target_score=None`.

Chickenfoot scores penalties (CK12): the engines' points are minus the pips left in hand (and minus 50 for the [0-0]) when a hand ends, so every reward mode favours the lower total. An episode is the whole match (`match`: 10 hands by default, CK13).

### Options

Game options (the page's "Options" table):

| option | default | allowed |
|---|---|---|
| `tileset` | `'double_nine'` | "double_nine" or "double_twelve" (CK1) |
| `missing_set` | `'next_lower'` | "next_lower" or "redeal" (CK5) |
| `match` | `'descending'` | "descending", "longer" or "one_hand" (CK13) |
| `target_score` | `None` | None only: Chickenfoot has no target score, the number of hands is fixed (CK13) |

Environment arguments (every family game): `num_players`, `render_mode` (`"human"`,
`"ansi"`, `"rgb_array"`), `backend` (`"fast"` default, `"reference"`), `reward`,
`observation_dtype` (`"float32"` default, `"uint8"`: the compact form),
`score_scale` (100.0), `render_viewer` (a seat, default 0; `"omniscient"` shows every
hand, for people only); `vector_env(num_envs, seed=None, reward=..., observation_dtype="uint8",
copy_observations=False, num_threads=None, ...)` takes the same game options.

### Version History

* v0: first release.
"""

from .family_env import env as _env
from .family_env import raw_env as _raw_env
from .family_vector import vector_env as _vector_env

GAME = "chickenfoot"


def env(**options):
    """The Chickenfoot environment with PettingZoo's order checks (options above)."""
    return _env(GAME, **options)


def raw_env(**options):
    """The bare Chickenfoot environment."""
    return _raw_env(GAME, **options)


def vector_env(num_envs: int, num_players: int | None = None, **options):
    """``num_envs`` tables of Chickenfoot on the fast engine (``nos_env.family_vector``); ``num_players``
    may come second, as in ``nos_env.vector_env(8, 3, game="chickenfoot")``."""
    return _vector_env(num_envs, game=GAME, num_players=num_players, **options)


__all__ = ["GAME", "env", "raw_env", "vector_env"]
