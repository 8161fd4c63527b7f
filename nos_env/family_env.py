"""The PettingZoo AEC environment of every family game (``docs/rules/family.md``).

One class for the eleven games; each game's versioned module (``nos_env/<game>_v0.py``)
opens with its own table of agents, actions, observation slices, rewards and options,
and [family.md](../docs/family.md) shows them side by side.

    env = nos_env.env(game="draw", num_players=2, reward="relative", target_score=None)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        env.step(None if terminated or truncated else policy(obs["observation"], obs["action_mask"]))

Arguments: ``game`` (a family game id), ``num_players`` (None: the page's default),
``render_mode`` (``"human"``, ``"ansi"``, ``"rgb_array"`` or None), ``backend``
(``"fast"``, the default: ``FamilyTables``; ``"reference"``: the readable engine),
``reward`` (``"relative"``, ``"points"`` or ``"win"``: :mod:`nos_env.family_rewards`),
``observation_dtype`` (``"float32"``, the default, or ``"uint8"``: the compact form,
``nos_env.family.encoding.decode_compact`` turns it back into floats),
``render_viewer`` (a seat, default 0, or ``"omniscient"``: every hand, for people
only), and the game's page options (``docs/rules/<game>.md``, "Options": ``opening``,
``target_score``, ``teams``, ...), checked by the rules (ValueError naming the allowed
values). Every argument is checked before anything is built.

Agents are ``player_0..player_{n-1}`` (seat i); an observation is ``{"observation":
vector, "action_mask": int8}`` from the observer's seat (offset 0 is the observer),
the mask all zeros for a seat not to move. ``step`` takes an action index (an int or
numpy integer; floats, strings and bools are refused, never converted); an illegal one
raises ValueError naming the legal ones and changes nothing (F22). ``reset(seed)``
starts a new episode (a match to ``target_score``, or one hand with
``target_score=None``). ``reset(seed=s)`` plays the game the engines play from seed s
(``FamilyGame(rules, seed=s)``, table seed s of ``FamilyTables``); a plain ``reset()``
then plays the episode of the next seed of ``SplitMix64(s)`` (fresh entropy before any
seed), so a seeded environment replays the same episodes on either backend.
"""

from __future__ import annotations

import warnings

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .family_backends import BACKENDS, encoding_module, rules_for
from .family_rewards import check_reward, sides, step_rewards
from .options import check_action_index, check_scale, check_seed
from .rng import SplitMix64
from .render import DEFAULT_VIEWER, OMNISCIENT, check_viewer

#: The family games, in the order of ``docs/rules/README.md``.
FAMILY_GAMES = ("block", "draw", "cross", "double_nine_cross", "matador", "all_fives", "fives_and_threes",
                "five_up", "bergen", "fours", "blind", "chickenfoot")
OBSERVATION_DTYPES = ("float32", "uint8")
RENDER_MODES = ["human", "ansi", "rgb_array"]
#: Episode seeds drawn by plain resets are below 2**62 (any engine takes them as int64).
SEED_MASK = (1 << 62) - 1


def env(game: str = "draw", **kwargs) -> AECEnv:
    """A family game's environment with PettingZoo's order checks wrapped around it (the action
    range check is ``raw_env.step``'s own, stricter and with a message naming what is allowed)."""
    return wrappers.OrderEnforcingWrapper(raw_env(game, **kwargs))


def check_game(game: object) -> str:
    if not isinstance(game, str) or game not in FAMILY_GAMES:
        raise ValueError(f"game must be one of the family games {list(FAMILY_GAMES)}, got {game!r}")
    return game


class raw_env(AECEnv):
    metadata = {"render_modes": RENDER_MODES, "name": "family_v0", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, game: str = "draw", num_players: int | None = None, render_mode: str | None = None,
                 backend: str = "fast", reward: str = "relative", observation_dtype: str = "float32",
                 score_scale: float = 100.0, render_viewer: int | str = DEFAULT_VIEWER, **options):
        super().__init__()
        # Everything is checked before anything is built.
        self.game = check_game(game)
        if not isinstance(backend, str) or backend not in BACKENDS:
            raise ValueError(f"backend must be one of {sorted(BACKENDS)}, got {backend!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.reward_mode = check_reward(reward)
        if not isinstance(observation_dtype, str) or observation_dtype not in OBSERVATION_DTYPES:
            raise ValueError(f"observation_dtype must be one of {list(OBSERVATION_DTYPES)}, got {observation_dtype!r}")
        self.score_scale = check_scale("score_scale", score_scale)
        self.rules = rules_for(game, num_players, options)
        self.num_players = n = int(self.rules.num_players)
        self._viewer = check_viewer(render_viewer, n)
        self.metadata = dict(self.metadata, name=f"{game}_v0")
        self.render_mode = render_mode
        self.observation_dtype = observation_dtype
        self.options = dict(options)
        self._encoding = encoding_module(game)
        self.num_actions = int(self.rules.num_actions)
        self.observation_layout = self._encoding.observation_layout(self.rules)
        self.backend = BACKENDS[backend](game, self.rules, observation_dtype, self.score_scale)
        self._seeds: SplitMix64 | None = None  # the stream plain resets draw their seeds from
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agents = self.possible_agents[:]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        self._side_of = sides(n, bool(getattr(self.rules, "teams", False)))
        size = self._observation_size()
        if observation_dtype == "uint8":
            box = spaces.Box(0, 255, (size,), np.uint8)
        else:
            box = spaces.Box(-np.inf, np.inf, (size,), np.float32)
        self._observation_space = spaces.Dict({"observation": box,
                                               "action_mask": spaces.Box(0, 1, (self.num_actions,), np.int8)})
        self._action_space = spaces.Discrete(self.num_actions)
        self._started = False

    def _observation_size(self) -> int:
        if self.observation_dtype == "float32":
            return max(stop for _, stop, _ in self.observation_layout.values())
        return int(self._encoding.observation_size(self.rules, "uint8"))

    # ----------------------------------------------------------------- spaces
    def observation_space(self, agent):
        return self._observation_space

    def action_space(self, agent):
        return self._action_space

    # ---------------------------------------------------------- conversions
    def action_to_text(self, index: int) -> str:
        """The text of an action index ("play 3-5 on L1", "draw", ...)."""
        return self._encoding.describe(int(index), self.rules)

    def text_to_action(self, text: str) -> int:
        """The action index of a text action (ValueError naming the forms otherwise)."""
        return int(self._encoding.parse(text, self.rules))

    # ------------------------------------------------------------------ state
    @property
    def game_state(self):
        """The current game as a reference-engine object (rebuilt on the fast backend)."""
        if not self._started:
            raise RuntimeError("call reset() first")
        return self.backend.game

    @property
    def scores(self) -> list[int]:
        return self.backend.scores

    # ------------------------------------------------------------------ api
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        seed = check_seed(seed)  # before anything changes
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"reset options must be a dict or None, got {type(options).__name__}")
        if options:
            # No reset option is known yet; PettingZoo's api_test passes arbitrary ones, so warn.
            warnings.warn(f"ignoring unknown reset option(s) {sorted(options)}; the family environments take "
                          f"none (game options go to the constructor)", stacklevel=2)
        if seed is not None:
            self._seeds = SplitMix64(seed)
        else:
            if self._seeds is None:
                self._seeds = SplitMix64(int(np.random.SeedSequence().entropy) & SEED_MASK)
            seed = self._seeds.next() & SEED_MASK
        # A forced set may score (All Fives' [5-5]). PettingZoo wants no rewards at reset, so
        # those points are paid with the first step's, and an episode's rewards still add up.
        self._carried = self.backend.reset(seed)
        self._started = True
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = dict(self.rewards)
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self.backend.to_move]
        self._update_infos()

    def _rewards(self, points, done: bool) -> dict:
        winner = self.backend.winner if done and self.reward_mode == "win" else None
        values = step_rewards(self.reward_mode, points, done=done, winner=winner, side_of=self._side_of)
        return {a: float(values[i]) for i, a in enumerate(self.possible_agents)}

    def observe(self, agent: str) -> dict:
        if agent not in self.agent_name_mapping:
            raise ValueError(f"unknown agent {agent!r}; the agents are {self.possible_agents}")
        if not self._started:
            raise RuntimeError("call reset() first")
        seat = self.agent_name_mapping[agent]
        observation = self.backend.observe(seat)
        if self.backend.done or self.backend.to_move != seat:
            mask = np.zeros(self.num_actions, np.int8)
        else:
            mask = self.backend.mask()
        return {"observation": observation, "action_mask": mask}

    def step(self, action) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = check_action_index(action, self.num_actions, agent)
        points = self.backend.step(action)  # an illegal action: ValueError, nothing changed
        if any(self._carried):
            points = [p + c for p, c in zip(points, self._carried)]
        self._carried = [0] * self.num_players
        done = self.backend.done
        if done:
            self.terminations = {a: True for a in self.agents}
        self._cumulative_rewards[agent] = 0.0
        self.rewards = self._rewards(points, done)
        self._accumulate_rewards()
        if not done:
            self.agent_selection = self.possible_agents[self.backend.to_move]
        self._update_infos()
        if self.render_mode == "human":
            self.render()

    def _update_infos(self) -> None:
        scores = self.backend.scores
        for a in self.agents:
            self.infos[a] = {"scores": list(scores)}

    # ------------------------------------------------------------- rendering
    @property
    def render_viewer(self) -> int | str:
        """Whose view rendering shows: a seat, or ``"omniscient"`` (every hand)."""
        return OMNISCIENT if self._viewer is None else self._viewer

    @render_viewer.setter
    def render_viewer(self, viewer: int | str) -> None:
        self._viewer = check_viewer(viewer, self.num_players)

    def render(self):
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' "
                                  "or 'rgb_array'")
            return None
        from .family_view import table_view

        view = table_view(self.game_state, self.game)
        if self.render_mode == "rgb_array":
            from .draw.family import table_array  # Pillow is loaded only for pictures

            return table_array(view, self._viewer)
        from .family_view import render_text

        text = render_text(view, self._viewer)
        if self.render_mode == "ansi":
            return text
        print(text)
        return None

    def close(self) -> None:
        pass
