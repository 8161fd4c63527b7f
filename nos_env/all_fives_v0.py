# noqa: D212, D415
"""
# All Fives

| | |
|---|---|
| Import | `from nos_env import all_fives_v0; env = all_fives_v0.env()` (or `nos_env.env(game="all_fives")`) |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']`, n in 2, 3, 4 (default 4) |
| Action Shape | (1,) |
| Action Values | Discrete(86) (28 tiles, 2 arms) |
| Observation Shape | `{"observation": (444,) float32 or (464,) uint8, "action_mask": (86,) int8}` |
| Observation Values | flags and one-hots in {0, 1}; counts >= 0; scores / score_scale |
| Rewards | points gained per step, relative to the others by default (see Rewards) |

The rules: `docs/rules/all_fives.md` (and `docs/rules/family.md`, F1..F24, for what the
games share). This module only names the game; the environment is
`nos_env.family_env` (AEC) and `nos_env.family_vector` (many tables).

### Action space

| block | ids | meaning |
|---|---|---|
| play | 0-55 | `tile*2 + arm` (tile 0..27 low-major: 0-0, 0-1, ...; arm 0..1, F7) |
| set | 56-83 | `P + tile`: set this tile (opening='free') |
| draw | 84 | draw from the boneyard |
| pass | 85 | pass (also ends a Fours turn / an F23 extra play) |

Legal actions are the mask's ones; `env.unwrapped.action_to_text(i)` and
`text_to_action("play 3-5 on L1")` convert.

### Observation space

From the observer's seat (offset 0); `env.unwrapped.observation_layout` maps each slice to `(start, stop, shape)`.

| slice | shape | meaning |
|---|---|---|
| num_players | (3,) | one-hot of the player count |
| phase | (4,) | one-hot: opening (a set is pending), play, drawn (has drawn this turn), continuing (Fours turn, F23 extra play) |
| hand | (28,) | the observer's tiles |
| on_table | (28,) | tiles on the layout (the set tile included) |
| placer | (28, 4) | who placed each tile, by seat offset (0: the observer) |
| tile_arm | (28, 3) | the arm each tile lies on; last column: the set tile |
| set_tile | (28,) | the set tile, one-hot |
| arm_exists | (2,) | the arm is open on the table |
| arm_open | (2, 7) | each arm's open number, one-hot |
| arm_count | (2,) | tiles on each arm |
| arm_playable | (2,) | the arm takes a tile now (Cross's fill rule, ...) |
| arm_double_end | (2,) | its last tile is a double with nothing beyond |
| seat_present | (4,) | the seat is at the table |
| seat_to_move | (4,) | the seat to move |
| seat_hand_size | (4,) | tiles in each hand |
| seat_partner | (4,) | teams: the observer's partner |
| seat_void | (4, 28) | public evidence (F24): tiles the seat is known not to hold |
| boneyard_size | (1,) | tiles in the boneyard |
| boneyard_drawable | (1,) | tiles that may still be drawn (above the reserve) |
| seat_score | (4,) | match scores / score_scale |
| target | (1,) | the target score / score_scale (0: a single hand) |

### Rewards

The points of each step (plays that score, the end of a hand) become rewards by the
option `reward`: `"relative"` (default: the seat's points minus the mean of the other
seats' points, zero-sum), `"points"` (the seat's own points) or `"win"` (0 until the
episode ends, then +1 to the winning side and -1/(G-1) to every other seat, G sides;
no winner: 0). Team games pay both partners alike. An episode is a match to
`target_score`, or one hand with `target_score=None`.

### Options

Game options (the page's "Options" table):

| option | default | allowed |
|---|---|---|
| `opening` | `'highest_double'` | one of 'highest_double', 'highest_tile', 'free' |
| `first_seat` | `None` | None (drawn by lot) or a seat 0..num_players-1, only with opening='free' |
| `hand_size` | `None` | None (the page's table) or an integer k >= 1 with num_players*k + boneyard_reserve <= tiles in the set |
| `boneyard_reserve` | `0` | an integer r >= 0 (the bottom r tiles are never drawn, F11) |
| `award_rounding` | `'per_opponent'` | one of 'per_opponent', 'total' |
| `target_score` | `100` | a positive integer, or None (a single hand) |
| `double_counts_one_end` | `False` | True or False |

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

GAME = "all_fives"


def env(**options):
    """The All Fives environment with PettingZoo's order checks (options above)."""
    return _env(GAME, **options)


def raw_env(**options):
    """The bare All Fives environment."""
    return _raw_env(GAME, **options)


def vector_env(num_envs: int, num_players: int | None = None, **options):
    """``num_envs`` tables of All Fives on the fast engine (``nos_env.family_vector``); ``num_players``
    may come second, as in ``nos_env.vector_env(8, 3, game="all_fives")``."""
    return _vector_env(num_envs, game=GAME, num_players=num_players, **options)


__all__ = ["GAME", "env", "raw_env", "vector_env"]
