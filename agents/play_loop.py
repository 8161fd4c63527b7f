"""One play loop for tournaments, announcement research and self-play: :class:`PlayLoop`.

Every batch of fast-engine tables is played the same way: group the tables by the agent
whose seat is to move, ask each agent once for all its rows (``Agent.act_batch`` with a
:class:`~agents.base.BatchContext` naming the tables and seats), step every table at once,
and hand the step's rewards and finished episodes to the caller. Who plays which seat is
an array ``seat_agent``: one agent index per seat (``[n]``, the same at every table) or per
table and seat (``[B, n]``: tournaments rotate the agents by table, self-play draws new
opponents per episode). The loop reads it, and the agent list, at every decision, so the
caller may change them in place between steps.

Rows no agent is asked for (``ask`` False) either play their first legal action
(``rest="first_legal"``: a tournament table done with its deals plays on, unrecorded) or
wait (``rest="idle"``: ``FastTables.IDLE``, the table is left exactly as it is; self-play
steps only the opponents' rows and the learner acts elsewhere).

Agents are asked in ascending agent index, each once per step with its rows in table
order: the order the three loops this one replaces used, so seeded runs play the same
games as before.

The tables are Nos's ``FastTables`` or a family game's ``FamilyTables``
(``nos_env/family_tables.py``, the same accessors). The two ``step`` methods return their
results in different orders and the family's pays points, not chips: :meth:`PlayLoop.step`
gives both as one :class:`StepResult` (for a family game ``rewards`` are the points each seat
gained in the step and ``final_chips`` the finished episodes' scores, ``FamilyTables.final_scores``,
which include what an opening scored before any step, e.g. All Fives' forced set).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from nos_env.fast_engine import FastTables

from .base import Agent, BatchContext

RESTS = ("first_legal", "idle")


@dataclass
class StepResult:
    """What one :meth:`PlayLoop.step` did. The arrays are the engine's reused buffers (valid until
    the next step; copy what you keep), except ``actions``, the loop's own."""

    actions: np.ndarray  # int64 [B] the actions taken (FastTables.IDLE where a table waited)
    rewards: np.ndarray  # int [B, 5] chip changes by seat (family games: points gained, [B, S])
    terminated: np.ndarray  # bool [B] an episode ended at the table in this step
    final_chips: np.ndarray  # int [B, 5] the finished episode's chips (rows that terminated; family: scores [B, S])
    current: np.ndarray  # int [B] the seat to move after the step (-1: a finished table waiting)


def is_family_tables(tables) -> bool:
    """Whether ``tables`` is a family game's FamilyTables or Blind's BlindTables (the same API;
    looked up only among modules already loaded, so Nos never imports them)."""
    import sys

    for module_name, class_name in (("nos_env.family_tables", "FamilyTables"), ("nos_env.blind_tables", "BlindTables"),
                                    ("nos_env.chickenfoot_tables", "ChickenfootTables"),
                                    ("nos_env.mexican_train_tables", "MexicanTrainTables")):
        module = sys.modules.get(module_name)
        if module is not None and isinstance(tables, getattr(module, class_name)):
            return True
    return False


class PlayLoop:
    """Plays ``tables`` with ``agents``; ``seat_agent`` picks the agent of each seat (see the module).

    ``autoreset`` is ``FastTables.step``'s: a finished table starts its next episode at once
    (with False it waits, ``current`` -1, until the caller resets it and calls
    :meth:`refresh`). :attr:`obs` holds the observation of every table's seat to move, kept
    up to date by :meth:`step`; it is what the agents are shown.
    """

    def __init__(self, tables: FastTables, agents: Sequence[Agent], seat_agent: np.ndarray,
                 rest: str = "first_legal", autoreset: bool = True):
        self.family = is_family_tables(tables)
        if not isinstance(tables, FastTables) and not self.family:
            raise TypeError(f"tables must be a FastTables or a FamilyTables, got {type(tables).__name__}")
        if rest not in RESTS:
            raise ValueError(f"rest must be one of {RESTS}, got {rest!r}")
        B, n = tables.num_envs, tables.num_players
        seat_agent = np.asarray(seat_agent)
        if seat_agent.shape not in ((n,), (B, n)) or not np.issubdtype(seat_agent.dtype, np.integer):
            raise ValueError(f"seat_agent must be an integer array of shape ({n},) (an agent per seat) or "
                             f"({B}, {n}) (per table and seat), got {seat_agent.dtype} {seat_agent.shape}")
        if ((seat_agent < 0) | (seat_agent >= len(agents))).any():
            raise ValueError(f"seat_agent values must index the {len(agents)} agents (0..{len(agents) - 1})")
        self.tables = tables
        self.agents = agents
        # Kept as given (no copy) when it is already a per-table int array, so changes the caller
        # makes in place are seen.
        self.seat_agent = seat_agent if seat_agent.ndim == 2 else np.broadcast_to(seat_agent, (B, n))
        self.rest = rest
        self.autoreset = bool(autoreset)
        self.obs: np.ndarray = None  # set by refresh()
        self._actions = np.zeros(B, np.int64)
        self._all = np.arange(B)
        self.refresh()

    def refresh(self, rows=None) -> None:
        """Observe the seat to move again at ``rows`` (all by default): after the caller changed
        those tables outside the loop (``reset_tables``, ``load_deal``)."""
        t = self.tables
        current = t.current_player
        if rows is None and (current >= 0).all():
            self.obs = t.observe(current)
        elif rows is None:  # some table waits with nobody to move: its row is zeros
            self.obs = t.observe_rows(None, current)
        else:
            rows = t.check_rows(rows)
            self.obs[rows] = t.observe_rows(rows, t.current_player[rows])

    def decide(self, ask=None) -> np.ndarray:
        """Every table's action: the agents' at the rows in ``ask`` (a bool mask [B]; None: every
        table), grouped by agent; the rest first-legal or idle. Returns the loop's own int64 [B]
        buffer (the caller may change entries before :meth:`step`)."""
        t, B = self.tables, self.tables.num_envs
        ask = np.ones(B, bool) if ask is None else np.asarray(ask, bool)
        if ask.shape != (B,):
            raise ValueError(f"ask must be a bool mask of shape ({B},), got shape {ask.shape}")
        current = t.current_player.astype(np.int64)
        masks = t.masks
        actions = self._actions
        rest = ~ask
        if self.rest == "idle":
            actions[rest] = FastTables.IDLE
        elif rest.any():
            actions[rest] = masks[rest].argmax(axis=1)  # the first legal action
        if ask.any():
            if (current[ask] < 0).any():
                b = int(np.flatnonzero(ask & (current < 0))[0])
                raise ValueError(f"table {b} has nobody to move (its episode is over and it waits): "
                                 f"it cannot be asked for an action")
            agent_of = self.seat_agent[self._all, np.where(ask, current, 0)]
            for k in np.unique(agent_of[ask]):
                rows = np.flatnonzero(ask & (agent_of == k))
                context = BatchContext(tables=t, table_index=rows, seats=current[rows])
                actions[rows] = self.agents[k].act_batch(self.obs[rows], masks[rows], context)
        return actions

    def step(self, actions: np.ndarray | None = None, allow_idle: bool | None = None) -> StepResult:
        """Step every table with ``actions`` (default: the last :meth:`decide`), observe the seat
        to move where a table moved, and return what happened. ``allow_idle`` (default: with
        ``rest="idle"``) lets ``FastTables.IDLE`` leave a table waiting; without it an idle action
        is refused, as ``FastTables.step`` refuses it."""
        actions = self._actions if actions is None else np.asarray(actions)
        idle = self.rest == "idle" if allow_idle is None else bool(allow_idle)
        if self.family:
            obs, rewards, terminated, current = self.tables.step(
                actions, observe=True, autoreset=self.autoreset, allow_idle=idle)
            final_chips = self.tables.final_scores  # the finished episodes' scores (rows that terminated)
        else:
            rewards, terminated, final_chips, current, obs = self.tables.step(
                actions, observe=True, autoreset=self.autoreset, allow_idle=idle)
        if idle and not self.family:
            # Nos's FastTables writes no observation row of an idle table (its step's docs), so the
            # loop keeps the engine's buffer as its own: after the first step only the idle rows'
            # observations are copied into it, once, and then no row at all (about a tenth of a
            # self-play step's CPU time was this copy). Rows refresh() observes are written into it.
            if self.obs is not obs:
                stale = actions == FastTables.IDLE
                obs[stale] = self.obs[stale]
                self.obs = obs
        elif idle:  # an idle row of the engine's buffer is stale: keep the loop's own
            moved = actions != FastTables.IDLE
            self.obs[moved] = obs[moved]
        elif self.rest == "idle" and not self.family:  # every row written: the engine's buffer, as above
            self.obs = obs
        elif self.rest == "idle":  # the loop's own buffer is kept (the caller may index it)
            self.obs[:] = obs
        else:  # every row was written: the engine's buffer is the observation (no copy)
            self.obs = obs
        return StepResult(actions, rewards, terminated, final_chips, current)

    def run(self, ask: Callable[[], np.ndarray | None], on_step: Callable[[StepResult], None] | None = None,
            before_step: Callable[[np.ndarray], None] | None = None, max_steps: int | None = None) -> int:
        """Play until ``ask()`` returns None; returns the number of steps.

        Each step: ``ask()`` gives the rows the agents decide for (bool [B]), ``before_step(actions)``
        may change the actions in place (e.g. forced actions), the tables step, and
        ``on_step(result)`` sees the result. More than ``max_steps`` steps raise RuntimeError."""
        steps = 0
        while True:
            rows = ask()
            if rows is None:
                return steps
            if max_steps is not None and steps >= max_steps:
                raise RuntimeError(f"the play loop took more than max_steps={max_steps} steps")
            actions = self.decide(rows)
            if before_step is not None:
                before_step(actions)
            result = self.step(actions)
            steps += 1
            if on_step is not None:
                on_step(result)
