# noqa: D212, D415
"""
# Mexican Train

| | |
|---|---|
| Import | `from nos_env import mexican_train_v0; env = mexican_train_v0.env()` (or `nos_env.env(game="mexican_train")`) |
| Actions | Discrete |
| Parallel API | No |
| Manual Control | No |
| Agents | `agents = ['player_0', ..., 'player_{n-1}']`, n in 2, 3, 4, 5, 6, 7, 8 (default 4) |
| Action Shape | (1,) |
| Action Values | Discrete(912) (91 tiles, 9 arms) |
| Observation Shape | `{"observation": (1209,) float32 or (1248,) uint8, "action_mask": (912,) int8}` |
| Observation Values | flags and one-hots in {0, 1}; counts >= 0; scores / score_scale |
| Rewards | points gained per step, relative to the others by default (see Rewards) |

The rules: `docs/rules/mexican_train.md` (and `docs/rules/family.md`, F1..F24, for what the
games share). This module only names the game; the environment is
`nos_env.family_env` (AEC) and `nos_env.family_vector` (many tables).

### Action space

| block | ids | meaning |
|---|---|---|
| play | 0-818 | `tile*9 + train`: train 0 his own, 1..7 the train of the seat that many places to his left, 8 the Mexican train (MT13) |
| set | 819-909 | never legal: the engine places itself (MT1) |
| draw | 910 | draw one tile when nothing fits (MT6, MT7) |
| pass | 911 | pass and put the marker on his train (MT6) |

Legal actions are the mask's ones; `env.unwrapped.action_to_text(i)` and
`text_to_action("play 12-5 on own")` convert.

### Observation space

From the observer's seat (offset 0); `env.unwrapped.observation_layout` maps each slice to `(start, stop, shape)`.

| slice | shape | meaning |
|---|---|---|
| num_players | (7,) | one-hot of the player count |
| phase | (4,) | one-hot: opening (never), play, drawn (has drawn, not played since), continuing (owes the tile after a double, MT7/MT8); all 0 when not his turn |
| hand | (91,) | the observer's tiles |
| on_table | (91,) | tiles on the table, the engine included |
| set_tile | (91,) | the round's engine double, one-hot |
| arm_exists | (9,) | train by seat offset (0 his own), the Mexican train last: its seat is at the table |
| arm_open | (9, 13) | each train's open number, one-hot (the engine's while empty) |
| arm_count | (9,) | tiles on each train |
| arm_playable | (9,) | the observer may play on it now (MT5, MT7) |
| arm_double_end | (9,) | it ends in an unsatisfied double (MT7) |
| arm_marked | (9,) | its owner's marker is out (MT6) |
| seat_present | (8,) | the seat is at the table |
| seat_to_move | (8,) | the seat to move |
| seat_hand_size | (8,) | tiles in each hand |
| seat_void | (8, 91) | public evidence (MT12): tiles the seat is known not to hold |
| boneyard_size | (1,) | tiles in the boneyard |
| rounds_left | (1,) | rounds of the match after this one (MT1) |
| seat_score | (8,) | minus the seat's pip total (MT11) / score_scale |
| target | (1,) | always 0 (the match is a number of rounds, MT1) |

### Rewards

The points of each step (plays that score, the end of a hand) become rewards by the
option `reward`: `"relative"` (default: the seat's points minus the mean of the other
seats' points, zero-sum), `"points"` (the seat's own points) or `"win"` (0 until the
episode ends, then +1 to the winning side and -1/(G-1) to every other seat, G sides;
no winner: 0). Team games pay both partners alike. An episode is a match to
`target_score`, or one hand with `target_score=None`.

A step that ends a round pays every seat minus its pips left (MT11: lowest total wins), so rewards and scores are negative; an episode is the match of `rounds` rounds (`rounds=1`: one round).

### Options

Game options (the page's "Options" table):

| option | default | allowed |
|---|---|---|
| `tileset` | `'double_twelve'` | "double_twelve" or "double_nine" (MT1) |
| `rounds` | `None` | None (the full match: 13 rounds on double-twelve, 10 on double-nine) or 1..that (MT1) |
| `first_seat` | `None` | None (a random first starter) or a seat 0..n-1 (MT3) |

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

GAME = "mexican_train"


def env(**options):
    """The Mexican Train environment with PettingZoo's order checks (options above)."""
    return _env(GAME, **options)


def raw_env(**options):
    """The bare Mexican Train environment."""
    return _raw_env(GAME, **options)


def vector_env(num_envs: int, num_players: int | None = None, **options):
    """``num_envs`` tables of Mexican Train on the fast engine (``nos_env.family_vector``); ``num_players``
    may come second, as in ``nos_env.vector_env(8, 3, game="mexican_train")``."""
    return _vector_env(num_envs, game=GAME, num_players=num_players, **options)


__all__ = ["GAME", "env", "raw_env", "vector_env"]
