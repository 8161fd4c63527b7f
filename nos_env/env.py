# noqa: D212, D415
"""
# Nos

| Import             | `import nos_env; env = nos_env.env(num_players=4)`          |
|--------------------|-------------------------------------------------------------|
| Actions            | Discrete                                                    |
| Parallel API       | No                                                          |
| Manual Control     | Yes: `nos-play` (a person against agents, in a terminal)    |
| Agents             | `agents = ['player_0', ..., 'player_{n-1}']`                |
| Agents             | 3, 4 or 5                                                   |
| Action Shape       | (1,)                                                        |
| Action Values      | Discrete(557)                                               |
| Observation Shape  | `{"observation": (1041,) float32, "action_mask": (557,) int8}` |
| Observation Values | hand, layout and flags in {0, 1}; counts >= 0; chips scaled |
| Rewards            | each agent's chip change at every step (zero-sum), scaled   |

Nos is a Dutch domino game for 3 to 5 players. The player on set lays the
first tile and announces one of 17 games (76 announcements with their
parameters); chips change hands for the set, declared doubles, doubles placed
at once or on the preceding tile, nos (going out first), closing and the
final count. The rules are `docs/rules/nos.md` in the repository; the engine
(`nos_env.engine`) implements them, this module only wraps it.

### Arguments

``nos_env.env(num_players=4, render_mode=None, hands_per_episode=1,
first_hand_rule=None, starting_chips=500, illegal_action="raise",
auto_forced=False, reward_scale=1.0, chip_scale=100.0, render_viewer=None,
render_omniscient=False, backend="fast")``

- `num_players`: 3, 4 or 5.
- `hands_per_episode`: 1 (default, D20) plays one hand; H > 1 plays a session
  of H hands with chips carried over, the loser setting the next hand (at most
  10,000: `nos_env.options.MAX_HANDS_PER_EPISODE`).
- `first_hand_rule`: whether the first hand follows the first-hand rule
  (highest double sets it). Default: False for one-hand episodes (D20: a
  random setter, later-hand rule), True for sessions.
- `starting_chips`: chips of every seat at the start of an episode (an integer
  within +-5e8; docs/fast_engine.md says why).
- `illegal_action`: `"raise"` (D16 default: a clear error naming the action
  and the legal ones, state unchanged) or `"penalty"` (the book's 40 to
  every other player; the same agent acts again).
- `auto_forced`: apply decisions with only one legal action automatically
  (D12); agents then only see real choices.
- `reward_scale`: rewards are chip changes times this.
- `chip_scale`: chips in the observation are divided by this.
- `render_mode`: `"ansi"` (`render()` returns the table as text), `"human"` (prints that
  text after every step) or `"rgb_array"` (`render()` returns the picture of the table, an
  H x W x 3 uint8 array drawn by `nos_env/draw/nos.py`; docs/watching.md shows one).
- `render_viewer`: whose view the rendering shows, in every mode: a seat (default 0: that
  seat's tiles, the others' face down, D17) or `"omniscient"` (every hand, for debugging and
  teaching). It never follows the seat to move, so a person watching sees one seat's tiles
  only. `env.unwrapped.render_viewer` may be changed between renders.
- `render_omniscient`: `True` is the same as `render_viewer="omniscient"` (kept for older code).
- `backend`: `"fast"` (default: the numba engine, `nos_env.fast_engine`) or
  `"reference"` (the readable engine, `nos_env.engine`). Both play the same
  games from the same seed; `env.unwrapped.hand` is always a reference
  `Hand` (rebuilt from the decisions on the fast backend).

The table options (`hands_per_episode` through `chip_scale`, except
`reward_scale`) are `nos_env.options.TableOptions`, checked once and shared
with `vector_env()` and `FastTables`; `env.unwrapped.table_options` holds them.

`reset(seed=None, options=None)` accepts options `deal` (`{"hands": [[tiles]],
"boneyard_top_first": [tiles]}` with tiles as `"a-b"`), `on_set` (a seat) and
`chips` (one integer per seat, within +-5e8: `nos_env.options.CHIP_LIMIT`) to
start from a given position. `seed` is an integer or None. Everything is checked
before anything changes: a refused `reset` (ValueError naming what was wrong and
what is allowed) leaves the environment, its random stream included, as it was.
`step(action)` takes an action index, an int or numpy integer 0..556; floats,
strings and bools are refused with a ValueError, never converted.

### Observation Space

A dict: `observation` is a float32 vector of 1041 values from the observer's
seat (D18: offset 0 is the observer, 1 the player on his left, ...), and
`action_mask` marks the legal actions of the agent to move (all zeros for
the others). `env.unwrapped.observation_layout` maps each slice name to
`(start, stop, shape)`; `nos_env.encoding.decode_observation` reads a vector
back into named values.

| slice | shape | meaning |
|---|---|---|
| num_players | 3 | one-hot 3, 4, 5 |
| phase | 6 | set, announce, declare, immediate, play, over |
| hand | 28 | the observer's tiles (tile index as in `nos_env.tiles.ALL_TILES`) |
| layout_tiles | 28 | tiles on the layout, the set tile included |
| layout_placer | 28 x 5 | who placed each, by seat offset |
| layout_arm | 28 x 5 | which arm holds each (last column: the set tile) |
| layout_immediate | 28 | placed at once on the set tile (section 6) |
| set_tile, set_drawn | 28, 1 | the set tile, and whether it was drawn |
| arm_exists | 4 | arms of the announced layout |
| arm_open | 4 x 7 | open number of each arm |
| arm_rule | 4 x 2 | rule in force: ordinary, matador |
| arm_needs | 4 x 7 | matching, cross_tile, compulsory_double, double_or_matador, matador, blank, nothing_yet |
| arm_locked, arm_dead, arm_count | 4 each | locked by a condition (D4); dead; tiles on it |
| announcement | 76 | one-hot index into `nos_env.announcements.ALL_ANNOUNCEMENTS` |
| game | 17 | the game 1..17 |
| base_rule, condition, condition_side, condition_k, switch | 2, 3, 2, 4, 1 | game 11/12 parameters |
| volapuk_ordinary_arm | 2 | game 12 line: which arm is ordinary |
| layout_kind, double_cross | 3, 1 | line / cross / triangle; a compulsory tile follows |
| seat_present, seat_hand_size, seat_out, seat_nos, seat_waits_owed, seat_on_set, seat_to_move, seat_declared | 5 each | per seat offset |
| seat_face_up | 5 x 7 | declared doubles still in hand (D9), by number |
| seat_chips | 5 | (chips - starting chips) / chip_scale |
| seat_hand_payments | 5 | this hand's net payments / chip_scale |
| seat_passed_on | 5 x 7 | open numbers of the arms that could take a tile when he passed |
| seat_drew_on | 5 x 7 | the same when he drew (a hint: drawing may be voluntary) |
| seat_passed_tiles | 5 x 28 | tiles that would have fitted when he passed: he holds none of them, for good |
| seat_drew_tiles | 5 x 28 | tiles that would have fitted when he drew: a hint |
| claim_arm | 6 | arm holding the preceding turn's tile (column 4: the set tile; 5: no claim) |
| claim_seat | 5 | who placed it: he pays for a double placed on it now (section 8) |
| boneyard_size, boneyard_drawable | 1, 1 | tiles in the boneyard; those above the last two |

### Action Space

| block | indices | action |
|---|---|---|
| set | 0-27 | set tile i |
| draw | 28 | draw from the boneyard |
| announce | 29-104 | announcement i (of 76) |
| declare | 105, 106 | declare doubles, do not declare |
| decline | 107 | place no (more) doubles at once |
| play | 108-555 | `108 + ((tile*4 + arm)*2 + side)*2 + close`: tile 0..27, arm 0..3, side 0 = lower number outward, 1 = higher; close 1 announces a closing. In the immediate-double window this places a double at once. |
| pass | 556 | pass |

`env.unwrapped.action_to_text(i)` and `env.unwrapped.text_to_action("play 2-6 L1 out 6")`
convert between indices and the engine's text form.

### Rewards

After every step each agent's reward is its chip change in that step (every
payment of section 1 moves chips from one player to another, so rewards sum
to zero), times `reward_scale`. Over an episode an agent's rewards add up to
its chip change.

### Version History

* v0: first release.
"""

from __future__ import annotations

import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .actions import format_action
from .deal import Deal, check_num_players
from .encoding import (
    ACTION_BLOCKS,
    NUM_ACTIONS,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    action_to_index,
    index_to_action,
)
from .engine import Hand
from .backends import BACKENDS
from .options import TableOptions, check_action_index, check_bool, check_chips, check_scale, check_seat, check_seed
from .render import DEFAULT_VIEWER, OMNISCIENT, check_viewer, render_text

RESET_OPTIONS = ("deal", "on_set", "chips")


def env(**kwargs) -> AECEnv:
    """The Nos environment with PettingZoo's order checks wrapped around it.

    PettingZoo's ``AssertOutOfBoundsWrapper`` is not used: ``raw_env.step`` checks the
    action itself, more strictly (it also refuses ``True``) and with a message that names
    what is allowed, and its check does not vanish under ``python -O``.
    """
    environment = raw_env(**kwargs)
    environment = wrappers.OrderEnforcingWrapper(environment)
    return environment


class raw_env(AECEnv):
    metadata = {
        "render_modes": ["human", "ansi", "rgb_array"],
        "name": "nos_v0",
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        num_players: int = 4,
        render_mode: str | None = None,
        # The table options and their defaults are written once, in TableOptions (options.py).
        hands_per_episode: int = TableOptions.hands_per_episode,
        first_hand_rule: bool | None = TableOptions.first_hand_rule,
        starting_chips: int = TableOptions.starting_chips,
        illegal_action: str = TableOptions.illegal_action,
        auto_forced: bool = TableOptions.auto_forced,
        reward_scale: float = 1.0,
        chip_scale: float = TableOptions.chip_scale,
        render_viewer: int | str | None = None,
        render_omniscient: bool = False,
        backend: str = "fast",
    ):
        super().__init__()
        if not isinstance(backend, str) or backend not in BACKENDS:
            raise ValueError(f"backend must be one of {sorted(BACKENDS)}, got {backend!r}")
        self.num_players = check_num_players(num_players)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, got {render_mode!r}")
        options = TableOptions(hands_per_episode, first_hand_rule, starting_chips, illegal_action, auto_forced,
                               chip_scale)
        reward_scale = check_scale("reward_scale", reward_scale)
        render_omniscient = check_bool("render_omniscient", render_omniscient)
        if render_viewer is None:
            viewer = None if render_omniscient else DEFAULT_VIEWER
        else:
            viewer = check_viewer(render_viewer, self.num_players)
            if render_omniscient and viewer is not None:
                raise ValueError(f"render_omniscient=True shows every hand but render_viewer={render_viewer!r} "
                                 f"names one seat: pass one of them")
        self._viewer = viewer
        self.render_mode = render_mode
        #: the checked table options (TableOptions); the attributes below are their values
        self.table_options = options
        self.hands_per_episode = options.hands_per_episode
        self.first_hand_rule = options.first_hand_rule
        self.starting_chips = options.starting_chips
        self.engine_options = options.engine_options
        self.reward_scale = reward_scale
        self.chip_scale = options.chip_scale

        self.possible_agents = [f"player_{i}" for i in range(self.num_players)]
        self.agents = self.possible_agents[:]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self.observation_layout = OBSERVATION_LAYOUT
        self.action_blocks = ACTION_BLOCKS
        self._observation_space = spaces.Dict(
            {
                "observation": spaces.Box(-np.inf, np.inf, (OBSERVATION_SIZE,), np.float32),
                "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
            }
        )
        self._action_space = spaces.Discrete(NUM_ACTIONS)
        self.backend = BACKENDS[backend](self.num_players, options)
        self._started = False

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # ---------------------------------------------------------- conversions
    def action_to_text(self, index: int) -> str:
        """The engine's text form of an action index, in the current position."""
        return format_action(index_to_action(index, self._require_hand()))

    def text_to_action(self, text: str) -> int:
        """The action index of an engine text action (``out N`` may be implied)."""
        return action_to_index(self._require_hand().resolve(text))

    def _require_hand(self) -> Hand:
        if not self._started:
            raise RuntimeError("call reset() first")
        return self.backend.hand

    @property
    def hand(self) -> Hand:
        """The current hand as a reference-engine ``Hand`` (rebuilt on the fast backend)."""
        return self._require_hand()

    @property
    def chips(self) -> list[int]:
        """Every seat's chips now."""
        return self.backend.chips

    @property
    def episode_chips_start(self) -> list[int]:
        return list(self.backend.episode_chips_start)

    # ------------------------------------------------------------------ api
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        # Everything is checked before anything changes: a refused reset leaves the
        # environment, its random stream included, exactly as it was.
        seed, chips, deal, on_set = self._check_reset(seed, options)
        # Deals, setters and tie-breaks continue the environment's random stream (rng.py),
        # so reset(seed=s) and then plain reset()s replay the same games on either backend.
        paid = self.backend.reset(seed, chips, deal, on_set)
        self._started = True
        self.agents = self.possible_agents[:]
        # With auto_forced (D12) a forced set may already have paid: those chips are rewards too.
        self.rewards = {a: paid[i] * self.reward_scale for i, a in enumerate(self.agents)}
        self._cumulative_rewards = dict(self.rewards)
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.backend.to_move]
        self._update_infos()

    def _check_reset(self, seed, options) -> tuple[int | None, list[int], Deal | None, int | None]:
        """reset()'s arguments checked and normalised: (seed, chips, deal, on_set)."""
        seed = check_seed(seed)
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict or None, got {type(options).__name__}")
        options = dict(options or {})
        unknown = set(options) - set(RESET_OPTIONS)
        if unknown:
            # PettingZoo's api_test passes arbitrary reset options, so these warn rather than raise.
            warnings.warn(f"ignoring unknown reset option(s) {sorted(unknown)}; known: {list(RESET_OPTIONS)}",
                          stacklevel=3)
        n = self.num_players
        chips = check_chips(options.get("chips", [self.starting_chips] * n), n, "reset option 'chips'")
        deal = None
        on_set = options.get("on_set")
        if "deal" in options:
            spec = options["deal"]
            if not isinstance(spec, dict) or set(spec) != {"hands", "boneyard_top_first"}:
                raise ValueError("reset option 'deal' must be {'hands': [...], 'boneyard_top_first': [...]}")
            deal = Deal.from_tiles(spec["hands"], spec["boneyard_top_first"])
            if deal.num_players != n:
                raise ValueError(f"the deal is for {deal.num_players} players, the environment for {n}")
            if on_set is not None:
                on_set = check_seat("reset option 'on_set'", on_set, n)
            # The first hand starts on this deal: let the engine refuse what it would refuse
            # (e.g. the first-hand rule on a deal without a double) now, before any change.
            first_hand = on_set is None and self.first_hand_rule
            Hand(deal, on_set=on_set if on_set is not None or first_hand else 0, chips=chips,
                 first_hand=first_hand)
        elif on_set is not None:
            raise ValueError("reset option 'on_set' needs a 'deal'")
        return seed, chips, deal, on_set

    def observe(self, agent: str) -> dict:
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; the agents are {self.possible_agents}")
        seat = self.agent_name_mapping[agent]
        if not self._started:
            raise RuntimeError("call reset() first")
        observation = self.backend.observe(seat)
        if self.backend.to_move != seat:
            mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        else:
            mask = self.backend.mask()
        return {"observation": observation, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = check_action_index(action, NUM_ACTIONS, agent)
        paid = self.backend.step(action)  # IllegalActionError (D16) leaves everything unchanged
        if self.backend.done:
            self.terminations = {a: True for a in self.agents}
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: paid[i] * self.reward_scale for i, a in enumerate(self.possible_agents)}
        self._accumulate_rewards()
        if not self.backend.done:
            self.agent_selection = self.possible_agents[self.backend.to_move]
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    def _update_infos(self) -> None:
        hand_index = self.backend.hand_index
        for a in self.agents:
            self.infos[a] = {"hand_index": hand_index}

    # ------------------------------------------------------------- rendering
    @property
    def render_viewer(self) -> int | str:
        """Whose view rendering shows: a seat, or ``"omniscient"`` (every hand)."""
        return OMNISCIENT if self._viewer is None else self._viewer

    @render_viewer.setter
    def render_viewer(self, viewer: int | str) -> None:
        self._viewer = check_viewer(viewer, self.num_players)

    @property
    def render_omniscient(self) -> bool:
        """Whether rendering shows every hand (``render_viewer == "omniscient"``)."""
        return self._viewer is None

    @render_omniscient.setter
    def render_omniscient(self, omniscient: bool) -> None:
        # True shows every hand; False goes back to the default seat if every hand was shown.
        if check_bool("render_omniscient", omniscient):
            self._viewer = None
        elif self._viewer is None:
            self._viewer = DEFAULT_VIEWER

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' "
                                  "or 'rgb_array'")
            return None
        hand = self._require_hand()
        if self.render_mode == "rgb_array":
            from .draw.nos import table_array  # Pillow is loaded only for pictures

            return table_array(hand, self._viewer)
        text = render_text(hand, viewer=self._viewer)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
