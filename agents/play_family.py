"""A person takes a seat at a family game (issue 15) against agents: ``nos-play --game GAME``.

    nos-play --game draw --agents greedy search random [--seat 0] [--seed 7] [--hints [search]] [--match]

The same loop as Nos's (``agents/play.py``: one agent per other seat, the seat's own view,
numbered moves or typed text, ``q`` quits, a saved record), on the family environment
(``nos_env.env(game=...)``, reference backend). The screen is the environment's ``ansi``
rendering for the person's seat (``nos_env/family_view.py``: the layout with its open ends,
his hand, the others' hand sizes, the scores and target, the last actions), and after every
decision the points it scored. Moves are chosen by number or by their text in the family
grammar (``nos_env.family.encoding.parse``: ``play 3-5 on L1``, ``set 6-6``, ``draw``,
``pass``; Blind's own words in ``nos_env.family.blind_encoding``). ``--hints`` shows what
Greedy (or any family agent, ``--hints search``) would do. The episode is one hand unless
``--match`` plays to the page's target score. At the end every hand face up, the result,
and the family record (``FamilyGame.record()``, Blind's ``BlindGame.record()``; ``nos-view``
shows it) saved to ``--save`` or a timestamped file.

Search agents need a fast-engine table holding the position (they copy its public structure
and sample the hidden tiles, F24): one table of ``FamilyTables`` (``BlindTables``) follows the
reference game decision by decision, from the same seed (the engines play the same game,
contract "The deal and the random stream"); it is checked to agree at every decision.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from .registry import agent_label, check_agent_spec, make_agent

QUIT = ("q", "quit", "exit")
HELP = ("?", "help")


def has_target(game: str) -> bool:
    """Whether ``game``'s page has a target score (a match); Blind is always one game."""
    from nos_env.family_backends import rules_for

    return "target_score" in rules_for(game, None, {}).options()


class FamilySession:
    """One hand (or match, ``match=True``) of ``game`` at ``seat`` against ``agents`` (specs,
    one per other seat, in seat order)."""

    def __init__(self, game: str, seat: int, agents: list[str], seed: int, hints: str | None = None,
                 console=None, match: bool = False):
        import nos_env
        from rich.console import Console

        from .family.games import check_game, player_counts

        check_game(game)
        if game == "nos":
            raise ValueError("FamilySession plays the family games; Nos is agents.play.Game")
        n = len(agents) + 1
        counts = player_counts(game)
        if n not in counts:
            raise ValueError(f"{game} is played by {', '.join(map(str, counts))} players: give "
                             f"{min(counts) - 1} to {max(counts) - 1} agents, got {len(agents)}")
        if not 0 <= seat < n:
            raise ValueError(f"--seat must be 0..{n - 1} at a table of {n}, got {seat}")
        for spec in agents + ([hints] if hints else []):
            check_agent_spec(spec, game)
        options = {} if match or not has_target(game) else {"target_score": None}
        self.game, self.seat, self.n, self.seed = game, seat, n, seed
        self.env = nos_env.env(game=game, num_players=n, backend="reference", render_mode="ansi",
                               render_viewer=seat, **options)
        self.rules = self.env.unwrapped.rules
        others = [s for s in range(n) if s != seat]
        # Built here (not at the first move), so an agent that cannot play this game (Blind has
        # no Search) is refused before the hand starts.
        self.players = {s: make_agent(spec, seed=seed * 1009 + s, game=game, rules=self.rules)
                        for s, spec in zip(others, agents)}
        self.names = {s: agent_label(spec) for s, spec in zip(others, agents)}
        self.names[seat] = "you"
        self.hint_player = make_agent(hints, seed=seed, game=game, rules=self.rules) if hints else None
        self.hint_name = agent_label(hints) if hints else None
        self.env.reset(seed=seed)
        self._mirror = None
        self.console = console or Console(highlight=False)

    # ------------------------------------------------------------------ state
    @property
    def raw(self):
        return self.env.unwrapped

    @property
    def state(self):
        """The reference engine object (``FamilyGame`` or ``BlindGame``)."""
        return self.raw.game_state

    def to_move(self) -> int:
        return self.raw.agent_name_mapping[self.env.agent_selection]

    def legal(self) -> list[int]:
        return [int(a) for a in self.state.legal_actions()]

    def text(self, action: int) -> str:
        return self.raw.action_to_text(action)

    def view(self):
        from nos_env.family_view import table_view

        return table_view(self.state, self.game)

    def mirror(self):
        """The fast-engine table following this game (built when a Search agent first needs it)."""
        if self._mirror is None:
            from nos_env.family_backends import FastBackend

            self._mirror = FastBackend(self.game, self.rules, "float32", self.raw.score_scale)
            self._mirror.reset(self.seed)
            for a in self.state.actions:
                self._mirror.step(int(a))
        return self._mirror

    def decide(self, agent, seat: int) -> int:
        """``agent``'s action for ``seat`` (to move) from that seat's observation and mask."""
        from .base import BatchContext

        view = self.env.observe(f"player_{seat}")
        obs = np.asarray(view["observation"], np.float32)[None, :]
        mask = np.asarray(view["action_mask"], np.int8)[None, :]
        context = None
        from .family.search import FamilySearchAgent

        if isinstance(agent, FamilySearchAgent):  # the only family agent that reads the tables
            tables = self.mirror().tables
            if int(tables.current_player[0]) != seat or not np.array_equal(tables.masks[0], mask[0]):
                raise RuntimeError("the fast-engine table no longer follows the game (engines disagree)")
            context = BatchContext(tables, np.array([0]), np.array([seat]))
        return int(agent.act_batch(obs, mask, context)[0])

    def step(self, action: int) -> list[int]:
        """Apply ``action``; the points each seat scored by it."""
        before = list(self.raw.scores)
        self.env.step(int(action))
        if self._mirror is not None:
            self._mirror.step(int(action))
        return [a - b for a, b in zip(self.raw.scores, before)]

    # ------------------------------------------------------------------ the loop
    def play(self) -> bool:
        """Play to the end of the episode; False if the person quit."""
        from rich.rule import Rule

        c = self.console
        length = "one hand" if self.rules.options().get("target_score") is None else \
            f"a match to {self.rules.target_score}"
        c.print(Rule(f"{self.game}, {self.n} players, {length}, seed {self.seed}: you are seat {self.seat}"))
        c.print("Seats: " + ", ".join(f"{s} {self.names[s]}" for s in range(self.n)))
        if any(self.raw.scores):  # a forced set that scored (All Fives' [5-5])
            c.print("  the forced set scored: " + self.points_text(self.raw.scores), markup=False)
        hand_number = self.hand_number()
        while not self.raw.backend.done:
            seat = self.to_move()
            if seat == self.seat:
                action = self.ask()
                if action is None:
                    return False
            else:
                action = self.decide(self.players[seat], seat)
            mine = set(self.view().hands[self.seat])
            text = self.text(action)
            points = self.step(action)
            extra = f"   [{self.points_text(points)}]" if any(points) else ""
            c.print(f"  seat {seat} ({self.names[seat]}): {text}{extra}", markup=False)
            if self.raw.backend.done:
                break
            view = self.view()
            drawn = set(view.hands[self.seat]) - mine
            if drawn and view.own_tiles_visible and self.hand_number() == hand_number:
                c.print(f"  you drew {' '.join(view.tile_text(t) for t in sorted(drawn))}", markup=False)
            if self.hand_number() != hand_number:
                hand_number = self.hand_number()
                c.print(Rule(f"hand {hand_number + 1}: scores {self.raw.scores}"))
        return True

    def hand_number(self) -> int:
        return int(getattr(self.state, "hand_number", 0))

    def points_text(self, points) -> str:
        return ", ".join(f"seat {s} {p:+d}" for s, p in enumerate(points) if p)

    def ask(self) -> int | None:
        """Show the seat's view and the numbered moves; read a number or an action's text."""
        from rich.panel import Panel
        from rich.text import Text

        c = self.console
        legal = self.legal()
        c.print(Panel(Text(self.env.render()), title=f"seat {self.seat}'s view", expand=False))
        for k, a in enumerate(legal, 1):
            c.print(f"  {k:3d}  {self.text(a)}", markup=False)
        if self.hint_player is not None:
            c.print(f"  hint: {self.hint_name} would {self.text(self.decide(self.hint_player, self.seat))}",
                    markup=False)
        decision = len(self.state.actions) + 1
        while True:
            try:
                text = c.input(f"decision {decision}, your move (number, action text, ? or q)> ").strip()
            except EOFError:
                return None
            if text.lower() in QUIT:
                return None
            if not text and len(legal) == 1:  # Enter takes the only move
                return legal[0]
            if text.lower() in HELP or not text:
                c.print("Type a number from the list, or an action as the list writes it: play a-b on ARM, "
                        "set a-b, draw, pass (nos_env/family/encoding.py); q quits.", markup=False)
                continue
            if text.isdigit():
                k = int(text)
                if not 1 <= k <= len(legal):
                    c.print(f"no move {k}: choose 1..{len(legal)}", markup=False)
                    continue
                return legal[k - 1]
            try:
                action = self.raw.text_to_action(text)
            except ValueError as exc:
                c.print(f"not understood: {exc}", markup=False)
                continue
            if action not in legal:
                c.print(f"{self.text(action)} is not legal now; choose from the list", markup=False)
                continue
            return action

    def finish(self) -> None:
        """Every hand face up, and the result."""
        from rich.panel import Panel
        from rich.text import Text

        from nos_env.family_view import render_text

        c, state = self.console, self.state
        c.print(Panel(Text(render_text(self.view(), None)), title="the game is over: every hand face up",
                      expand=False))
        winner = state.winner
        if winner is None:
            c.print("result: no winner (a tie)", markup=False)
        else:
            seats = [int(w) for w in winner] if isinstance(winner, (list, tuple)) else [int(winner)]
            c.print("result: won by " + ", ".join(f"seat {s} ({self.names[s]})" for s in seats), markup=False)
        for s in range(self.n):
            c.print(f"  seat {s} ({self.names[s]}): score {self.raw.scores[s]}", markup=False)

    def record(self) -> dict:
        return self.state.record()

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.record()) + "\n")
