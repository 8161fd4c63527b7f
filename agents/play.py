"""A person takes a seat at Nos against agents, in the terminal: ``nos-play``.

    nos-play --seat 0 --agents tactics search greedy [--seed 7] [--hints] [--save hand.json]
    python -m agents.play --seat 2 --agents random random model:runs/quick/model.zip

One agent per other seat (2 to 4 of them: 3 to 5 players), in seat order. The
screen shows only what the person's seat may see (D17): the table as
``nos_env/render.py`` writes it for that seat (the layout and open ends, the
own tiles, the others' tile counts, chips, the announced game, the last
actions with their payments), then the legal moves, numbered. A move is chosen
by its number or by typing its text in the engine's grammar
(``nos_env/actions.py``, e.g. ``play 2-6 L1`` or ``draw``). A play that may
also close is listed once; choosing it by number asks ``close?``. The
announcement is picked from a list that says what each game is. ``--hints``
shows what Tactics (or ``--hints search``, any agent) would do, and at the
announcement each game's expected chips by the research tool's rollouts
(``agents/announce.py``). At the end of the hand: every hand face up, the
hand's ledger, and its record (``nos_env/record.py``; ``nos-view`` shows it)
saved to ``--save`` or a timestamped file. ``q`` quits (the record so far is
saved only where ``--save`` names a file).

The terminal output uses ``rich``: small, well kept, already a dependency of
much of the Python tooling, and it prints plain lines that scroll like any
console program, so the game reads the same in a terminal, over ssh, in tmux
(the end-to-end test drives it there) or in a log. A full-screen framework
(textual) would redraw the screen for a game that is one question at a time.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, replace

from nos_env.actions import Action, format_action
from nos_env.announcements import describe_announcement
from nos_env.encoding import action_to_index, index_to_action
from nos_env.extras import MissingExtraError
from nos_env.family_env import FAMILY_GAMES
from nos_env.record import hand_record, save
from nos_env.tiles import tile_str

from .registry import AGENTS, FAMILY_AGENTS, agent_label, check_agent_spec

QUIT = ("q", "quit", "exit")
HELP = ("?", "help")


@dataclass
class Choice:
    """One numbered line: a move, and with ``closing`` the same play with a close (asked for)."""

    action: Action
    closing: Action | None = None

    def label(self) -> str:
        a = self.action
        if a.kind == "announce":
            return f"announce {a.announcement}   ({describe_announcement(a.announcement)})"
        return format_action(a) + ("   (may close)" if self.closing is not None else "")


def choices(legal: list[Action]) -> list[Choice]:
    """The legal moves as numbered choices: a play legal with and without a close is one choice
    (``closing`` set); a play legal only with a close is listed as it is."""
    out: list[Choice] = []
    for a in legal:
        if a.kind == "play" and a.close and replace(a, close=False) in legal:
            continue  # listed with its plain twin below
        choice = Choice(a)
        if a.kind == "play" and not a.close:
            closing = replace(a, close=True)
            if closing in legal:
                choice.closing = closing
        out.append(choice)
    return out


class Game:
    """One hand at ``seat`` against ``agents`` (specs, one per other seat, in seat order)."""

    def __init__(self, seat: int, agents: list[str], seed: int, hints: str | None = None, console=None,
                 hint_samples: int = 100):
        import nos_env
        from rich.console import Console

        from .aec import AECPlayer

        n = len(agents) + 1
        if not 3 <= n <= 5:
            raise ValueError(f"give 2 to 4 agents (3 to 5 players with you), got {len(agents)}")
        if not 0 <= seat < n:
            raise ValueError(f"--seat must be 0..{n - 1} at a table of {n}, got {seat}")
        for spec in agents + ([hints] if hints else []):
            check_agent_spec(spec)
        self.seat, self.n, self.seed = seat, n, seed
        others = [s for s in range(n) if s != seat]
        self.players = {s: AECPlayer(spec, seed=seed * 1009 + s) for s, spec in zip(others, agents)}
        self.names = {s: agent_label(spec) for s, spec in zip(others, agents)}
        self.names[seat] = "you"
        self.hint_player = AECPlayer(hints, seed=seed) if hints else None
        self.hint_name = agent_label(hints) if hints else None
        self.hint_samples = hint_samples
        # The reference backend: env.unwrapped.hand is the live hand, nothing rebuilt per step.
        self.env = nos_env.env(num_players=n, render_mode="ansi", render_viewer=seat, backend="reference")
        self.env.reset(seed=seed)
        self.console = console or Console(highlight=False)
        self.shown_events = 0

    @property
    def hand(self):
        return self.env.unwrapped.hand

    def to_move(self) -> int:
        return self.env.unwrapped.agent_name_mapping[self.env.agent_selection]

    def play(self) -> bool:
        """Play the hand to its end; False if the person quit."""
        from rich.rule import Rule

        c = self.console
        c.print(Rule(f"Nos, {self.n} players, seed {self.seed}: you are seat {self.seat}"))
        c.print("Seats: " + ", ".join(f"{s} {self.names[s]}" for s in range(self.n)))
        while not self.hand.over:
            seat = self.to_move()
            if seat == self.seat:
                action = self.ask()
                if action is None:
                    return False
                index = action_to_index(action)
            else:
                index = self.players[seat](self.env)
            before = set(self.hand.hands[self.seat])
            self.env.step(index)
            self.report_events()
            drawn = set(self.hand.hands[self.seat]) - before  # the log hides a drawn tile; the drawer sees it
            if drawn:
                self.console.print(f"  you drew {' '.join(tile_str(t) for t in sorted(drawn))}", markup=False)
        return True

    def report_events(self) -> None:
        """Print the actions since the last report (public: a draw does not show the tile)."""
        events = self.hand.events
        for e in events[self.shown_events:]:
            pays = "; ".join(f"{p.payer}->{p.payee} {p.amount} {p.reason}" for p in e.payments)
            who = f"seat {e.seat} ({self.names[e.seat]})"
            self.console.print(f"  {who}: {e.action}" + (" (automatic)" if e.automatic else "")
                               + (f"   [{pays}]" if pays else ""), markup=False)
        self.shown_events = len(events)

    def ask(self) -> Action | None:
        """Show the seat's view and the numbered moves; read a number or an action's text."""
        from rich.panel import Panel
        from rich.text import Text

        c, hand = self.console, self.hand
        listed = choices(hand.legal_actions())
        c.print(Panel(Text(self.env.render()), title=f"seat {self.seat}'s view", expand=False))
        values = self.announcement_values() if self.hint_player is not None and hand.phase == "announce" else {}
        for k, choice in enumerate(listed, 1):
            value = values.get(str(choice.action.announcement)) if choice.action.kind == "announce" else None
            c.print(f"  {k:3d}  {choice.label()}" + (f"   {value}" if value else ""), markup=False)
        if values:
            c.print(f"  expected chips of each game for you: {self.hint_samples} deals of the tiles you cannot "
                    f"see, played out by tactics (nos-announce hand)", markup=False)
        if self.hint_player is not None:
            hint = index_to_action(self.hint_player(self.env), hand)
            c.print(f"  hint: {self.hint_name} would {format_action(hint)}", markup=False)
        while True:
            try:
                text = c.input(f"decision {len(hand.actions) + 1}, your move (number, action text, ? or q)> ").strip()
            except EOFError:
                return None
            if text.lower() in QUIT:
                return None
            if not text and len(listed) == 1 and listed[0].closing is None:  # Enter takes the only move
                return listed[0].action
            if text.lower() in HELP or not text:
                c.print("Type a number from the list, or an action as the engine writes it: draw, set a-b, "
                        "play a-b ARM [out N] [close], pass, ... (nos_env/actions.py); q quits.", markup=False)
                continue
            if text.isdigit():
                k = int(text)
                if not 1 <= k <= len(listed):
                    c.print(f"no move {k}: choose 1..{len(listed)}", markup=False)
                    continue
                choice = listed[k - 1]
                if choice.closing is None:
                    return choice.action
                answer = self.ask_close()
                if answer is None:
                    return None
                return choice.closing if answer else choice.action
            try:
                action = hand.resolve(text)
            except ValueError as exc:
                c.print(f"not understood: {exc}", markup=False)
                continue
            if action not in hand.legal_actions():
                c.print(f"{format_action(action)} is not legal now; choose from the list", markup=False)
                continue
            return action

    def announcement_values(self) -> dict[str, str]:
        """Each legal announcement's expected chips for the setter, by the research tool's
        rollouts (agents/announce.py evaluate_hand): from the setter's own dealt tiles and the
        set tile only, every hidden tile sampled (D17)."""
        from .announce import evaluate_hand

        hand = self.hand
        evaluation = evaluate_hand(list(hand.deal.hands[self.seat]), hand.set_tile, num_players=self.n,
                                   setter=self.seat, samples=self.hint_samples, seed=self.seed)
        rows = evaluation.summary()["announcements"]
        best = rows[0]["announcement"]
        return {r["announcement"]: f"expected {r['setter_mean']:+.1f} ± {r['setter_ci95']:.1f}"
                                   + ("  best" if r["announcement"] == best else "") for r in rows}

    def ask_close(self) -> bool | None:
        while True:
            try:
                text = self.console.input("close? (y/n)> ").strip().lower()
            except EOFError:
                return None
            if text in QUIT:
                return None
            if text in ("y", "yes", "n", "no"):
                return text.startswith("y")
            self.console.print("answer y or n", markup=False)

    def finish(self) -> None:
        """The hand face up, and its ledger with every seat's net."""
        from rich.panel import Panel
        from rich.table import Table
        from rich.text import Text

        from nos_env.render import render_text

        hand, c = self.hand, self.console
        c.print(Panel(Text(render_text(hand, None)), title="the hand is over: every hand face up", expand=False))
        table = Table(title="Ledger")
        for column in ("#", "payer", "payee", "chips", "reason"):
            table.add_column(column, justify="right" if column in ("#", "chips") else "left")
        for k, p in enumerate(hand.ledger, 1):
            table.add_row(str(k), f"seat {p.payer} ({self.names[p.payer]})", f"seat {p.payee} ({self.names[p.payee]})",
                          str(p.amount), p.reason)
        c.print(table)
        for s in range(self.n):
            change = hand.chips[s] - hand.chips_start[s]
            c.print(f"  seat {s} ({self.names[s]}): {change:+d} chips, now {hand.chips[s]}", markup=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="nos-play", description="Play a hand of Nos against agents in the terminal.")
    parser.add_argument("--seat", type=int, default=0, help="your seat (0 = the first; default 0)")
    parser.add_argument("--game", default="nos",
                        help="nos (default) or a family game: " + ", ".join(FAMILY_GAMES))
    parser.add_argument("--agents", nargs="+", default=None,
                        help=f"one agent per other seat, in seat order: Nos (2 to 4) from {sorted(AGENTS)}, a family "
                             f"game (its player counts less one) from {list(FAMILY_AGENTS)}, model:PATH or ensemble:PATH,PATH "
                             "(default: three tactics; a family game: greedy for its default table)")
    parser.add_argument("--seed", type=int, default=None, help="the deal's seed (default: a random one, printed)")
    parser.add_argument("--hints", nargs="?", const="", default=None, metavar="AGENT",
                        help="show what an agent (default: tactics for Nos, greedy for a family game; e.g. search) "
                             "would do at each of your moves, and at Nos's announcement each game's expected chips "
                             "by rollouts")
    parser.add_argument("--match", action="store_true",
                        help="a family game: play a match to the page's target score (default: one hand)")
    parser.add_argument("--save", metavar="PATH",
                        help="where the record goes (default: nos-hand-YYYYMMDD-HHMMSS.json, a family game "
                             "GAME-YYYYMMDD-HHMMSS.json, here)")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    if args.game != "nos":
        return family_main(parser, args, seed)
    if args.match:
        parser.error("--match is for the family games (a Nos hand is one hand)")
    args.agents = args.agents or ["tactics", "tactics", "tactics"]
    args.hints = "tactics" if args.hints == "" else args.hints
    try:
        game = Game(args.seat, args.agents, seed, hints=args.hints)
    except (ValueError, MissingExtraError) as exc:  # e.g. an unknown agent, model:PATH without the train extra
        parser.error(str(exc))
    finished = game.play()
    path = args.save
    if finished:
        game.finish()
        path = path or time.strftime("nos-hand-%Y%m%d-%H%M%S.json")
    if path:
        save(hand_record(game.hand), path)
        game.console.print(f"record saved: {path} (nos-view {path} -o page.html shows it)", markup=False)
    if not finished:
        game.console.print("quit: the hand was left unfinished", markup=False)
    return 0


def family_main(parser, args, seed: int) -> int:
    """``nos-play --game GAME``: the same session on a family game (``agents/play_family.py``)."""
    from .play_family import FamilySession

    if args.game not in FAMILY_GAMES:
        parser.error(f"unknown game {args.game!r}; known: nos, {', '.join(FAMILY_GAMES)}")
    if args.agents is None:
        from .family.games import make_rules

        args.agents = ["greedy"] * (make_rules(args.game).num_players - 1)
    hints = "greedy" if args.hints == "" else args.hints
    try:
        session = FamilySession(args.game, args.seat, args.agents, seed, hints=hints, match=args.match)
    except (ValueError, MissingExtraError) as exc:
        parser.error(str(exc))
    finished = session.play()
    path = args.save
    if finished:
        session.finish()
        path = path or time.strftime(f"{args.game}-%Y%m%d-%H%M%S.json")
    if path:
        session.save(path)
        session.console.print(f"record saved: {path} (nos-view {path} -o page.html shows it)", markup=False)
    if not finished:
        session.console.print("quit: the game was left unfinished", markup=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
