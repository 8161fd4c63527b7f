# noqa: D212, D415
"""
# Blind

| | |
|---|---|
| Import | `from nos_env import blind_v0; env = blind_v0.env()` (or `nos_env.env(game="blind")`) |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']`, n in 2, 3, 4, 5 (default 4) |
| Action Shape | (1,) |
| Action Values | Discrete(86) (28 tiles, 2 arms) |
| Observation Shape | `{"observation": (673,) float32 or (700,) uint8, "action_mask": (86,) int8}` |
| Observation Values | flags and one-hots in {0, 1}; counts >= 0; scores / score_scale |
| Rewards | points gained per step, relative to the others by default (see Rewards) |

The rules: `docs/rules/blind.md` (and `docs/rules/family.md`, F1..F24, for what the
games share). This module only names the game; the environment is
`nos_env.family_env` (AEC) and `nos_env.family_vector` (many tables).

### Action space

| block | ids | meaning |
|---|---|---|
| play | 0-55 | `tile*2 + arm`: the turned-up tile on L0 (0) or L1 (1) (BD5) |
| set | 56-83 | never legal: the set is the starter's first tile (BD4) |
| draw | 84 | never legal: Blind has no drawing |
| pass | 85 | decline the tile (only with `optional_play`, BD5) |

Legal actions are the mask's ones; `env.unwrapped.action_to_text(i)` and
`text_to_action("play 3-5 on L1")` convert.

### Observation space

From the observer's seat (offset 0); `env.unwrapped.observation_layout` maps each slice to `(start, stop, shape)`.

| slice | shape | meaning |
|---|---|---|
| num_players | (4,) | one-hot of the player count |
| phase | (4,) | one-hot: opening (never), play (the turn's first tile is up), drawn (never), continuing (he has played a tile this turn) |
| turned_up | (28,) | the tile just turned up, that the player decides on |
| on_table | (28,) | tiles on the layout (the set tile included) |
| placer | (28, 5) | who placed each tile, by seat offset (0: the observer) |
| tile_arm | (28, 3) | the arm each tile lies on; last column: the set tile |
| set_tile | (28,) | the set tile, one-hot |
| arm_exists | (2,) | the arm is open on the table |
| arm_open | (2, 7) | each arm's open number, one-hot |
| arm_count | (2,) | tiles on each arm |
| arm_playable | (2,) | the turned-up tile fits the arm |
| arm_double_end | (2,) | its last tile is a double with nothing beyond |
| seat_present | (5,) | the seat is at the table |
| seat_to_move | (5,) | the seat to move |
| seat_hand_size | (5,) | tiles in the seat's row (the turned-up one included) |
| seat_unseen | (5,) | tiles of the seat's row never turned up |
| row_seen | (5, 28) | tile t has been seen and lies in the seat's row |
| row_place | (5, 28) | its place there, 1 = front (the next to turn up) |
| unseen | (28,) | tiles never turned up (in some row, or set aside) |
| set_aside | (1,) | how many tiles are set aside (BD2) |
| seat_score | (5,) | 1 for the winner once the game is over, / score_scale |
| target | (1,) | always 0 (one hand, BD8) |

### Rewards

The points of each step (plays that score, the end of a hand) become rewards by the
option `reward`: `"relative"` (default: the seat's points minus the mean of the other
seats' points, zero-sum), `"points"` (the seat's own points) or `"win"` (0 until the
episode ends, then +1 to the winning side and -1/(G-1) to every other seat, G sides;
no winner: 0). Team games pay both partners alike. An episode is a match to
`target_score`, or one hand with `target_score=None`.

Blind is one hand: the winner (who empties his row, else the unique lowest count) scores 1 (BD8).

### Options

Game options (the page's "Options" table):

| option | default | allowed |
|---|---|---|
| `tileset` | `'double_six'` | "double_six" or "double_nine" (F1, BD2) |
| `first_seat` | `None` | None (a random starter) or a seat 0..n-1 (F4, BD4) |
| `optional_play` | `False` | False or True: a fitting tile may be declined (BD5) |
| `target_score` | `None` | None only: Blind is one hand (BD8) |

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

GAME = "blind"


def env(**options):
    """The Blind environment with PettingZoo's order checks (options above)."""
    return _env(GAME, **options)


def raw_env(**options):
    """The bare Blind environment."""
    return _raw_env(GAME, **options)


def vector_env(num_envs: int, num_players: int | None = None, **options):
    """``num_envs`` tables of Blind on the fast engine (``nos_env.family_vector``); ``num_players``
    may come second, as in ``nos_env.vector_env(8, 3, game="blind")``."""
    return _vector_env(num_envs, game=GAME, num_players=num_players, **options)


__all__ = ["GAME", "env", "raw_env", "vector_env"]
