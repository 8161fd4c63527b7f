"""Fair tournaments between agents on the fast engine.

    python -m agents.tournament --agents random greedy tactics search --deals 500 --seed 0 \\
        --json results.json --csv hands.csv --png results.png
    python -m agents.tournament --agents tactics greedy greedy greedy --deals 20000 --ray --shards 8

``--ray`` plays the run's shards (``--shards``: parts of the deal groups, each in its own
engine) as Ray tasks, locally or on a cluster (``--ray-address``); the hands are those of the
local run with the same ``--seed`` and ``--shards`` (docs/ray.md).

Each seat gets an agent. In duplicate mode (the default) every deal is played
``n`` times at ``n`` tables that share one random stream (``nos_env.rng``), with
the agents rotated one seat further at each table, so every agent plays every
seat of every deal and the luck of the deal cancels out. Results are in chips
per hand (one-hand episodes, D20).

Every hand can be pulled up again. The CSV and the JSON name each deal's random
stream (``stream_seed``: the seed given to ``FastTables.seed_tables``; ``stream_index``:
the deal is that stream's deal number ``stream_index``, counted from 0) and the agent at
every seat of every rotation. ``--save-records DIR`` writes the hand records
(``nos_env/record.py``; a family game's: ``nos_env/family/record.py``, Blind's
``BlindGame.record()``) of all deals, of the first agent's worst or best deals, or of
given deal numbers: ``DIR/deal-17.json`` holds deal 17's hands (one per rotation, a JSON
list that ``nos-view DIR/deal-17.json -o page.html`` shows one after the other), and prints
the command that opens the most surprising saved hand (:meth:`TournamentResult.most_surprising`).
A stream's first deal is the stream seed's own game in every engine (a family game's:
``FamilyGame(rules, seed=stream_seed)``).

Statistics: an agent's result for a deal is its mean chip change over the
deal's rotations. Means come with 95% confidence intervals (normal
approximation, 1.96 standard errors over deals); the head-to-head table gives
the mean per-deal difference between two agents with its interval, so
"A beats B" is shown when the interval excludes zero.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from nos_env.fast_engine import FastTables
from nos_env.announcements import ALL_ANNOUNCEMENTS, GAME_NAMES
from nos_env.deal import Deal
from nos_env.encoding import index_to_action
from nos_env.engine import Hand
from nos_env.options import Options
from nos_env.extras import MissingExtraError, require
from nos_env.record import hand_record
from nos_env.threads import check_num_threads, default_threads

from .base import Agent
from .play_loop import PlayLoop
from .registry import AGENTS, FAMILY_AGENTS, agent_label, check_agent_spec, make_agent

Z95 = 1.959963984540054
#: What ``--records-for`` accepts (TournamentResult.choose_deals).
RECORDS_FOR = re.compile(r"all|(worst|best)(:[1-9][0-9]*)?|[0-9]+(,[0-9]+)*")


def mean_ci(values: np.ndarray) -> tuple[float, float]:
    """Mean and half-width of its 95% confidence interval."""
    values = np.asarray(values, np.float64)
    if len(values) < 2:
        return float(values.mean()) if len(values) else math.nan, math.nan
    return float(values.mean()), float(Z95 * values.std(ddof=1) / math.sqrt(len(values)))


@dataclass(frozen=True)
class HandStart:
    """What a hand starts from (engine.Hand's arguments): about 400 bytes, where the Hand
    itself holds about 9 KB, for every hand a run keeps."""

    deal: Deal
    on_set: int
    chips: tuple
    first_hand: bool
    options: Options

    @classmethod
    def of(cls, hand: Hand) -> "HandStart":
        return cls(hand.deal, hand.on_set, tuple(hand.chips_start), hand.first_hand, hand.options)


@dataclass
class TournamentResult:
    """Per-hand records of a tournament and the statistics computed from them."""

    labels: list[str]
    num_players: int
    duplicate: bool
    seed: int
    # One row per hand played: the deal, the rotation, and per seat the agent and chip change.
    deal: np.ndarray = field(repr=False)  # [H]
    seat_agent: np.ndarray = field(repr=False)  # [H, n] agent index per seat
    chips: np.ndarray = field(repr=False)  # [H, n] chip change per seat
    announcement: np.ndarray = field(repr=False)  # [H] index into ALL_ANNOUNCEMENTS
    setter: np.ndarray = field(repr=False)  # [H] seat on set
    end: np.ndarray = field(repr=False)  # [H] 0 out, 1 close, 2 blocked
    close_right: np.ndarray = field(repr=False)  # [H, n] correct closings per seat
    close_wrong: np.ndarray = field(repr=False)  # [H, n] wrong closings per seat
    by_reason: np.ndarray = field(repr=False)  # [H, n, reasons] net chips per seat and reason
    seconds: float = 0.0
    # The deal's random stream: FastTables.seed_tables' seed and the deal's number in it (None: not kept).
    stream_seed: np.ndarray | None = field(default=None, repr=False)  # [H]
    stream_index: np.ndarray | None = field(default=None, repr=False)  # [H]
    # What rebuilds a hand (run_tournament(keep_hands=...)): per hand None or (its start as
    # HandStart, the decisions taken as action indices).
    hands: list | None = field(default=None, repr=False)
    #: ``"nos"`` or a family game (issue 15). A family game's results are points per hand (the
    #: points each seat gained in the hand, as the engine reports them); the Nos-only columns
    #: (announcement, setter, end, closings, payments by reason) are None there.
    game: str = "nos"
    game_options: dict = field(default_factory=dict)

    @property
    def unit(self) -> str:
        return "chips" if self.game == "nos" else "points"

    # ------------------------------------------------------------ per agent
    def agent_chips(self) -> np.ndarray:
        """[H, agents]: each agent's chip change in each hand (agents sit once per hand)."""
        out = np.zeros((len(self.deal), len(self.labels)))
        rows = np.arange(len(self.deal))[:, None]
        out[rows, self.seat_agent] = self.chips
        return out

    def per_deal(self) -> np.ndarray:
        """[deals, agents]: each agent's mean over the deal's rotations."""
        per_hand = self.agent_chips()
        deals = np.unique(self.deal)
        index = np.searchsorted(deals, self.deal)
        sums = np.zeros((len(deals), len(self.labels)))
        np.add.at(sums, index, per_hand)
        counts = np.bincount(index, minlength=len(deals))[:, None]
        return sums / counts

    def summary(self) -> dict:
        per_deal = self.per_deal()
        labels = self.labels
        agents, head_to_head = _means_and_differences(per_deal, labels)
        # The same agent in several seats (e.g. A, B, A, B) is also summed up by name.
        names = [label.split("#")[0] for label in labels]
        unique = list(dict.fromkeys(names))
        by_name = np.stack([per_deal[:, [k for k, m in enumerate(names) if m == name]].mean(axis=1)
                            for name in unique], axis=1)
        agents_by_name, names_head_to_head = _means_and_differences(by_name, unique)
        if self.game != "nos":
            return {"game": self.game, "game_options": dict(self.game_options), "agents": agents,
                    "head_to_head": head_to_head, "agents_by_name": agents_by_name,
                    "head_to_head_by_name": names_head_to_head, "hands": int(len(self.deal)),
                    "deals": int(len(np.unique(self.deal))), "num_players": self.num_players,
                    "duplicate": self.duplicate, "seed": self.seed, "seconds": self.seconds}
        # Announcements: how often each game, and the announcer's mean result.
        games = {}
        game_of = np.array([a.game for a in ALL_ANNOUNCEMENTS])[self.announcement]
        announcer_chips = self.chips[np.arange(len(self.deal)), self.setter]
        announcer_agent = self.seat_agent[np.arange(len(self.deal)), self.setter]
        for g in range(1, 18):
            rows = game_of == g
            entry = {"name": GAME_NAMES[g], "hands": int(rows.sum()), "share": float(rows.mean())}
            if rows.any():
                entry["announcer_mean_chips"], entry["ci95"] = mean_ci(announcer_chips[rows])
                entry["by_agent"] = {labels[k]: int((rows & (announcer_agent == k)).sum()) for k in range(len(labels))}
            games[str(g)] = entry
        closings = {}
        reasons = {}
        for k, label in enumerate(labels):
            mine = self.seat_agent == k
            closings[label] = {"right": int(self.close_right[mine].sum()), "wrong": int(self.close_wrong[mine].sum())}
            per_reason = np.zeros(len(FastTables.REASONS))
            for r in range(len(FastTables.REASONS)):
                per_reason[r] = (self.by_reason[:, :, r] * mine).sum() / len(self.deal)
            reasons[label] = {reason: float(v) for reason, v in zip(FastTables.REASONS, per_reason)}
        ends = {name: int((self.end == i).sum()) for i, name in enumerate(("out", "close", "blocked"))}
        return {
            "agents": agents,
            "head_to_head": head_to_head,
            "agents_by_name": agents_by_name,
            "head_to_head_by_name": names_head_to_head,
            "games": games,
            "closings": closings,
            "payments_by_reason_per_hand": reasons,
            "ends": ends,
            "hands": int(len(self.deal)),
            "deals": int(len(np.unique(self.deal))),
            "num_players": self.num_players,
            "duplicate": self.duplicate,
            "seed": self.seed,
            "seconds": self.seconds,
        }

    # -------------------------------------------------------------- output
    def table(self) -> str:
        s = self.summary()
        game = "" if self.game == "nos" else f"{self.game}{_options_text(self.game_options)}: "
        lines = [f"{game}{s['hands']} hands ({s['deals']} deals{', duplicate' if self.duplicate else ''}), "
                 f"{self.num_players} players, seed {self.seed}, {self.seconds:.1f} s", "",
                 f"{'agent':16s} {self.unit + '/hand':>11s} {'95% CI':>9s}"]
        order = sorted(s["agents"], key=lambda a: -s["agents"][a]["mean_chips_per_hand"])
        for label in order:
            a = s["agents"][label]
            lines.append(f"{label:16s} {a['mean_chips_per_hand']:11.2f} {'±':>2s}{a['ci95']:6.2f}")
        lines += ["", f"head to head (row minus column, {self.unit} per hand; * = 95% CI excludes 0):",
                  " " * 16 + "".join(f"{b:>16s}" for b in self.labels)]
        for a in self.labels:
            cells = []
            for b in self.labels:
                if a == b:
                    cells.append(f"{'-':>16s}")
                else:
                    h = s["head_to_head"][f"{a} vs {b}"]
                    mark = "*" if h["significant"] else " "
                    cells.append(f"{h['mean_difference']:+8.2f}±{h['ci95']:5.2f}{mark}".rjust(16))
            lines.append(f"{a:16s}" + "".join(cells))
        if any("#" in label for label in self.labels):
            lines += ["", "by agent name (seats of the same agent averaged):"]
            for name, a in s["agents_by_name"].items():
                lines.append(f"{name:16s} {a['mean_chips_per_hand']:11.2f} {'±':>2s}{a['ci95']:6.2f}")
            for pair, h in s["head_to_head_by_name"].items():
                a, b = pair.split(" vs ")
                if list(s["agents_by_name"]).index(a) > list(s["agents_by_name"]).index(b):
                    mark = "*" if h["significant"] else ""
                    lines.append(f"{pair:32s} {h['mean_difference']:+9.2f} ± {h['ci95']:.2f} {mark}")
        if self.game != "nos":
            return "\n".join(lines)
        lines += ["", f"{'game':48s} {'hands':>7s} {'share':>6s} {'announcer chips':>16s}"]
        for g, entry in s["games"].items():
            if entry["hands"]:
                lines.append(f"{g:>2s} {entry['name']:45s} {entry['hands']:7d} {100 * entry['share']:5.1f}% "
                             f"{entry['announcer_mean_chips']:+9.2f}±{entry['ci95']:5.2f}")
        lines += ["", "closings (right / wrong):  " + ", ".join(
            f"{k} {v['right']}/{v['wrong']}" for k, v in s["closings"].items())]
        lines += ["", "net chips per hand by reason:", f"{'agent':16s}" + "".join(f"{r:>12s}" for r in FastTables.REASONS)]
        for label, row in s["payments_by_reason_per_hand"].items():
            lines.append(f"{label:16s}" + "".join(f"{row[r]:12.2f}" for r in FastTables.REASONS))
        lines.append("")
        lines.append("hands ended by: " + ", ".join(f"{k} {v}" for k, v in s["ends"].items()))
        return "\n".join(lines)

    def deal_table(self) -> list[dict]:
        """Per deal (in order of deal number): its stream seed and index, and per rotation
        (hand) the agent at each seat and each seat's chip change."""
        out = []
        for d in np.unique(self.deal):
            rows = np.flatnonzero(self.deal == d)
            entry = {"deal": int(d)}
            if self.stream_seed is not None:
                entry["stream_seed"] = int(self.stream_seed[rows[0]])
                entry["stream_index"] = int(self.stream_index[rows[0]])
            entry["hands"] = [{"hand": int(h), "agents": [self.labels[k] for k in self.seat_agent[h]],
                               "chips": [int(c) for c in self.chips[h]]} for h in rows]
            out.append(entry)
        return out

    def to_json(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump({"labels": self.labels, **self.summary(), "deals_played": self.deal_table()}, f, indent=1)

    # ------------------------------------------------------------- records
    def choose_deals(self, which: str) -> list[int]:
        """The deal numbers ``which`` names: ``all``; ``worst`` or ``best`` (``worst:K``, default 5):
        the K deals where the first agent (``labels[0]``) did worst or best, by its mean chips over
        the deal's rotations, worst (best) first; or deal numbers ``N,M,...`` as in the CSV."""
        deals = np.unique(self.deal)
        which = which.strip()
        name, _, count = which.partition(":")
        if name in ("worst", "best"):
            if count and not count.isdigit() or count == "0":
                raise ValueError(f"{which!r}: the count after '{name}:' must be a positive number, e.g. {name}:10")
            k = int(count) if count else 5
            order = np.argsort(self.per_deal()[:, 0], kind="stable")
            order = order if name == "worst" else order[::-1]
            return [int(deals[i]) for i in order[:k]]
        if which == "all":
            return [int(d) for d in deals]
        try:
            chosen = [int(p) for p in which.split(",")]
        except ValueError:
            raise ValueError(f"records for {which!r}: give 'all', 'worst[:K]', 'best[:K]' or deal numbers "
                             f"N,M,... as in the CSV's deal column") from None
        unknown = [d for d in chosen if d not in set(deals.tolist())]
        if unknown:
            raise ValueError(f"deal(s) {unknown} were not played; this run's deals are "
                             f"{', '.join(map(str, deals[:8]))}{', ...' if len(deals) > 8 else ''}")
        return chosen

    def hand_record(self, h: int) -> dict:
        """Hand ``h``'s record (``nos_env/record.py``), rebuilt in the reference engine from its
        start and decisions, checked against the chips the tournament reported for it, with
        the tournament's facts under ``"tournament"`` (a key replay ignores)."""
        if self.hands is None or self.hands[h] is None:
            raise ValueError(f"hand {h}'s decisions were not kept: run the tournament with keep_hands")
        if self.game != "nos":
            return self._family_record(h)
        start, actions = self.hands[h]
        hand = Hand(start.deal, on_set=start.on_set, chips=list(start.chips), first_hand=start.first_hand,
                    options=start.options)
        for a in actions:
            hand.step(index_to_action(int(a), hand))
        record = hand_record(hand)
        change = [c - s for c, s in zip(record["chips"], record["chips_start"])]
        if change != [int(c) for c in self.chips[h]]:  # the two engines disagree: never write such a record
            raise RuntimeError(f"hand {h} rebuilt in the reference engine pays {change}, the tournament "
                               f"reported {self.chips[h].tolist()}")
        record["tournament"] = self._facts(h)
        return record

    def _facts(self, h: int) -> dict:
        """What the tournament knows of hand ``h``: its deal, seed, stream and the agent at every seat."""
        return {
            "deal": int(self.deal[h]), "hand": int(h), "seed": self.seed,
            "agents": [self.labels[k] for k in self.seat_agent[h]],
            **({"stream_seed": int(self.stream_seed[h]), "stream_index": int(self.stream_index[h])}
               if self.stream_seed is not None else {}),
        }

    def _family_record(self, h: int) -> dict:
        """A family (or Blind) episode's record: its start (``family_start``) with the decisions
        taken, replayed on the reference engine and checked against the scores the tournament
        reported."""
        start, actions = self.hands[h]
        from nos_env.family.record import match_points, replay_any

        record = dict(start, actions=list(start["actions"]) + [int(a) for a in actions])
        game = replay_any(record)
        record = game.record()
        scores = match_points(game)
        if scores != [int(c) for c in self.chips[h]] or not game.done:
            raise RuntimeError(f"episode {h} rebuilt in the reference engine ends with scores {scores} "
                               f"(done={game.done}), the tournament reported {self.chips[h].tolist()}")
        record["tournament"] = self._facts(h)
        return record

    def save_records(self, directory: str | Path, which: str = "all") -> list[Path]:
        """Write ``DIR/deal-N.json`` for each deal ``which`` names (:meth:`choose_deals`): the
        deal's hands, one record per rotation, as a JSON list. Returns the files written."""
        deals = self.choose_deals(which)  # checked before anything is written
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        written = []
        for d in deals:
            records = [self.hand_record(int(h)) for h in np.flatnonzero(self.deal == d)]
            path = directory / f"deal-{d}.json"
            path.write_text(json.dumps(records, indent=1))
            written.append(path)
        return written

    def most_surprising(self, deals: list[int] | None = None) -> tuple[int, int, str]:
        """The hand of ``deals`` (default: every deal) that surprises most: the one where the first
        agent (``labels[0]``) got the result furthest from its mean over the run, in its own seat's
        points or chips. Returns (deal, the hand's place among the deal's hands counted from 1,
        a sentence saying why). One number per hand, so a person can check it in the CSV."""
        mine = self.agent_chips()[:, 0]
        mean = float(mine.mean())
        rows = np.flatnonzero(np.isin(self.deal, np.unique(self.deal) if deals is None else deals))
        if not len(rows):
            raise ValueError("no hands among the given deals")
        h = int(rows[np.argmax(np.abs(mine[rows] - mean))])  # ties: the first hand played
        d = int(self.deal[h])
        place = int(np.flatnonzero(self.deal == d).tolist().index(h)) + 1
        seat = int(np.flatnonzero(self.seat_agent[h] == 0)[0])
        why = (f"{self.labels[0]} at seat {seat} got {mine[h]:+g} {self.unit}, its mean over the run "
               f"{mean:+.2f}")
        return d, place, why

    def to_csv(self, path: str) -> None:
        """One row per hand and seat."""
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            if self.game != "nos":  # a family game: points per hand, nothing Nos-specific
                w.writerow(["hand", "deal", "stream_seed", "stream_index", "seat", "agent", "points"])
                for h in range(len(self.deal)):
                    for seat in range(self.num_players):
                        w.writerow([h, int(self.deal[h]), int(self.stream_seed[h]), int(self.stream_index[h]), seat,
                                    self.labels[self.seat_agent[h, seat]], int(self.chips[h, seat])])
                return
            w.writerow(["hand", "deal", "stream_seed", "stream_index", "seat", "agent", "chips", "announcement", "setter", "end",
                        "close_right", "close_wrong"] + [f"net_{r}" for r in FastTables.REASONS])
            for h in range(len(self.deal)):
                for seat in range(self.num_players):
                    stream = ([int(self.stream_seed[h]), int(self.stream_index[h])]
                              if self.stream_seed is not None else ["", ""])
                    w.writerow([h, int(self.deal[h]), *stream, seat, self.labels[self.seat_agent[h, seat]],
                                int(self.chips[h, seat]), str(ALL_ANNOUNCEMENTS[self.announcement[h]]),
                                int(self.setter[h]), ("out", "close", "blocked")[self.end[h]],
                                int(self.close_right[h, seat]), int(self.close_wrong[h, seat])]
                               + [int(v) for v in self.by_reason[h, seat]])

    def to_png(self, path: str) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        s = self.summary()
        order = sorted(s["agents"], key=lambda a: s["agents"][a]["mean_chips_per_hand"])
        means = [s["agents"][a]["mean_chips_per_hand"] for a in order]
        cis = [s["agents"][a]["ci95"] for a in order]
        fig, ax = plt.subplots(figsize=(6, 0.6 * len(order) + 1.5))
        ax.barh(order, means, xerr=cis, capsize=6, color="#4C72B0")
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlabel(f"{self.unit} per hand (95% CI)")
        ax.set_title(f"{'Nos' if self.game == 'nos' else self.game}, {self.num_players} players, {s['hands']} hands"
                     + (" (duplicate)" if self.duplicate else ""))
        fig.tight_layout()
        fig.savefig(path, dpi=120)
        plt.close(fig)


def _means_and_differences(per_deal: np.ndarray, labels: list[str]) -> tuple[dict, dict]:
    """Each column's mean with its CI, and every ordered pair's mean per-deal difference."""
    means = {}
    for k, label in enumerate(labels):
        mean, ci = mean_ci(per_deal[:, k])
        means[label] = {"mean_chips_per_hand": mean, "ci95": ci}
    differences = {}
    for i, a in enumerate(labels):
        for j, b in enumerate(labels):
            if i != j:
                mean, ci = mean_ci(per_deal[:, i] - per_deal[:, j])
                differences[f"{a} vs {b}"] = {"mean_difference": mean, "ci95": ci,
                                              "significant": bool(abs(mean) > ci)}
    return means, differences


def label_agents(names: list[str]) -> list[str]:
    """Names as labels; repeated names get #1, #2, ..."""
    labels = []
    for i, name in enumerate(names):
        if names.count(name) > 1:
            labels.append(f"{name}#{names[: i + 1].count(name)}")
        else:
            labels.append(name)
    return labels


def _options_text(options: dict) -> str:
    return "" if not options else " (" + ", ".join(f"{k}={v}" for k, v in sorted(options.items())) + ")"


def family_options(game: str, options: dict | None) -> dict:
    """A family game's table options for a tournament: ``options`` with ``target_score`` None
    (one hand per episode, so results are points per hand) unless given; Mexican Train's
    ``rounds`` 1 and Chickenfoot's ``match`` ``"one_hand"`` likewise."""
    from .family.games import check_game

    if check_game(game) == "nos":
        raise ValueError("nos is not a family game")
    from nos_env.family.rules import one_hand_options

    # one hand per deal unless a match is asked for (Mexican Train: one round, MT1; Chickenfoot
    # counts hands, CK13)
    return {**one_hand_options(game), **dict(options or {})}


#: Agents of shard k > 0 are seeded this much further than shard 0's (which are the unsharded run's).
SHARD_SEED_STEP = 1_000_003


def _shard_agents(agent_names: list, agent_options: dict, seed: int, shard: int, game_kwargs: dict) -> list:
    """The agents one shard plays with: shard 0 uses the given instances and the usual seeds (so a
    run of one shard is the unsharded run); shard k > 0 copies instances and reseeds every agent."""
    import copy

    agents = []
    for i, spec in enumerate(agent_names):
        if isinstance(spec, Agent):
            if shard == 0:
                agents.append(spec)
                continue
            agent = copy.deepcopy(spec)
            agent.rng = np.random.default_rng([0 if agent.seed is None else agent.seed, shard])
            agents.append(agent)
        else:
            agents.append(make_agent(spec, seed=seed * 1009 + i + SHARD_SEED_STEP * shard, **game_kwargs,
                                     **agent_options.get(spec, {})))
    return agents


def family_start(tables, b: int) -> dict:
    """Table ``b``'s game as a family record (``nos_env/family/record.py``; Blind's
    ``BlindGame.record()``) at the start of its current hand: where a kept hand is replayed from."""
    game = tables.reference_game(b)
    record = game.record()
    if "deal" in record:  # FamilyGame.from_deal: later hands of a match come from the table's stream
        record["deal"] = dict(record["deal"], stream_state=int(game.rng.state))
    return record


def _play_shard(agent_names: list, agent_options: dict, n: int, duplicate: bool, seed: int, shard: int,
                first_group: int, quota: np.ndarray, num_threads, keep_hands: bool, game: str = "nos",
                game_options: dict | None = None, bar=None) -> dict:
    """Deal groups ``first_group .. first_group + len(quota) - 1`` of a tournament, in one engine:
    their records in the order hands ended, and (``keep_hands``) their starts and decisions.
    A group's deals, stream seeds and deal numbers do not depend on the shard it is played in."""
    family = game != "nos"
    rotations = n if duplicate else 1
    groups = len(quota)
    B = groups * rotations
    global_group = first_group + np.arange(groups)
    if family:
        from .family.games import tables_class

        engine = tables_class(game)(game, B, num_players=n, seed=seed, observation_dtype="float32",
                                    threads=num_threads, **(game_options or {}))
        game_kwargs = {"game": game, "rules": engine.rules}
    else:
        engine = FastTables(B, n, seed=seed, num_threads=num_threads, observation_dtype="float32")  # agents read float32
        game_kwargs = {}
    agents = _shard_agents(agent_names, agent_options, seed, shard, game_kwargs)
    # Tables of one group share a stream: the same deals, in the same order (one-hand episodes).
    stream_seed = {int(g): seed * 100_003 + int(g) for g in global_group}
    # The first deal of every stream is the stream seed's own game (Nos: the stream's deal 0; a family
    # game: FamilyGame(rules, seed=stream_seed), which FamilyTables.seed_tables deals at once and
    # BlindTables at its reset: family_backends.seed_and_reset), so (stream_seed, stream_index) in the
    # CSV names a deal in every engine.
    rows = np.arange(B)
    seeds = [stream_seed[int(g)] for g in global_group for _ in range(rotations)]
    if family:
        from nos_env.family_backends import seed_and_reset

        seed_and_reset(engine, rows, seeds)
    else:
        engine.seed_tables(rows, seeds)
        engine.reset_tables()
    # Non-duplicate: the unsharded run seats table b (= group b) at rotation b mod n.
    rotation = np.tile(np.arange(rotations), groups) if duplicate else (global_group % n)
    group = np.repeat(np.arange(groups), rotations)
    played = np.zeros(B, np.int64)  # episodes recorded per table
    records: list[tuple] = []
    kept_hands: list[tuple] = []
    # Agent k sits at seat (k - rotation) mod n of a table: seat s holds agent (s + rotation) mod n.
    seat_agent = (np.arange(n)[None, :] + rotation[:, None]) % n
    # A table done with its deals plays on with its first legal move, no agent asked.
    loop = PlayLoop(engine, agents, seat_agent, rest="first_legal")
    # Hands are rebuilt by replaying their decisions from their start in the reference engine,
    # not with FastTables.reference_hand at their end: the loop's tables start their next deal
    # in the step that ends a hand (autoreset), so the history is gone when the end is seen.
    # The start is the table's fresh hand (reference_hand with no decisions yet), taken when a
    # deal begins; the decisions are the loop's actions, one per step and table.
    # A family game's start is its record before the first decision (FamilyTables.reference_game:
    # the deal, and the stream's state after it for a match's later hands; Blind: the stream's state
    # at the deal), written when the deal begins for the same reason.
    starts = None
    if keep_hands:
        starts = [family_start(engine, b) if family else HandStart.of(engine.reference_hand(b)) for b in range(B)]
    step_actions: list[np.ndarray] = []  # every step's actions, all tables (only with keep_hands)
    first_step = np.zeros(B, np.int64)  # the step at which each table's current hand began

    def ask():
        live = played < quota[group]
        return live if live.any() else None

    def keep(ended: np.ndarray, finished: np.ndarray, start_of) -> None:
        for b in ended:
            decisions = np.array([a[b] for a in step_actions[first_step[b]:]], np.int16)
            kept_hands.append((starts[b], decisions))
        for b in finished:  # their next hand starts now (deals past the quota are not kept)
            first_step[b] = len(step_actions)
            starts[b] = start_of(b) if played[b] + (b in ended) < quota[group[b]] else None

    def record_family(step) -> None:
        # A family episode's result is its final scores (FamilyTables.final_scores): with one-hand
        # episodes the points of the hand, the opening's (a forced set that scores) included.
        if keep_hands:
            step_actions.append(step.actions.astype(np.int16))  # the loop reuses its buffer
        finished = np.flatnonzero(step.terminated)
        ended = finished[played[finished] < quota[group[finished]]]
        if keep_hands:
            keep(ended, finished, lambda b: family_start(engine, b))
        for b in ended:
            g = int(global_group[group[b]])
            records.append((g * 1_000_000 + int(played[b]), stream_seed[g], int(played[b]),
                            (np.arange(n) + rotation[b]) % n, step.final_chips[b, :n].astype(np.int64)))
            played[b] += 1
        if bar is not None and len(ended):
            bar.update(len(ended))

    def record(step) -> None:
        if keep_hands:
            step_actions.append(step.actions.astype(np.int16))  # the loop reuses its buffer
        finished = np.flatnonzero(step.terminated)
        ended = finished[played[finished] < quota[group[finished]]]
        if keep_hands:
            keep(ended, finished, lambda b: HandStart.of(engine.reference_hand(b)))
        if not len(ended):
            return
        stats = engine.episode_stats(ended)
        right, wrong = stats.closings_by_seat()
        for i, b in enumerate(ended):
            g = int(global_group[group[b]])
            seats_agents = (np.arange(n) + rotation[b]) % n
            records.append((g * 1_000_000 + int(played[b]), stream_seed[g], int(played[b]),
                            seats_agents, step.final_chips[b, :n] - engine.starting_chips,
                            int(stats.announcement[i]), int(stats.setter[i]), int(stats.end[i]), right[i], wrong[i],
                            stats.net_by_reason[i]))
            played[b] += 1
        if bar is not None:
            bar.update(len(ended))

    loop.run(ask, record_family if family else record)
    return {"records": records, "hands": kept_hands}


def run_tournament(agent_names: list, deals: int, seed: int = 0, duplicate: bool = True,
                   tables: int = 256, agent_options: dict | None = None, progress: bool = True,
                   num_threads: int | str | None = None, keep_hands: bool = False,
                   game: str = "nos", game_options: dict | None = None, shards: int = 1,
                   ray: bool = False, ray_address: str | None = None) -> TournamentResult:
    """Play ``deals`` deals; with ``duplicate`` each deal once per rotation of the agents.

    Agents are names (``agents.registry``: a baseline, ``model:PATH`` for a trained model,
    ``ensemble:PATH,PATH`` for several of one game as one, or
    ``rllib:PATH`` for a trained RLlib module) or ready-made :class:`Agent` instances, reported
    under their ``name``.
    ``num_threads`` is the engine's threads setting (``nos_env/threads.py``; None: the process default).
    ``keep_hands`` keeps every hand's start and decisions, so :meth:`TournamentResult.hand_record`
    and ``save_records`` can write its record.

    ``game``: ``"nos"`` (the default) or a family game (``nos_env.family.rules.GAMES``) with its
    ``game_options`` (the page's options; ``target_score`` defaults to None here: one hand per
    episode). A family game's tables are ``FamilyTables``, its agents are built for its rules, and
    its results are the points each seat gained per hand. Everything else (duplicate deals,
    seat rotation, the play loop, the statistics) is the same.

    ``shards`` splits the deal groups (``tables // rotations`` of them, each a stream of deals) into
    that many parts, each played in its own engine by its own agents (shard 0's are the unsharded
    run's; the others are reseeded). A deal is the same deal in any shard; agents that draw random
    numbers (tie-breaks, sampling) draw them per batch, so the split is part of the experiment, as
    ``tables`` is. ``ray`` plays the shards as Ray tasks (the ``ray`` extra; on the cluster at
    ``ray_address``, or a local Ray): the result is identical to the local run with the same
    ``seed`` and ``shards``, hand for hand, in the same order.
    """
    n = len(agent_names)
    family = game != "nos"
    if family:
        from .family.games import make_rules, player_counts

        game_options = family_options(game, game_options)
        make_rules(game, n if n in player_counts(game) else None, **game_options)  # bad options: a clear error
        counts = player_counts(game)
        if n not in counts:
            raise ValueError(f"give one agent per seat: {game} is played by {', '.join(map(str, counts))} players, "
                             f"got {n} agents")
    elif game_options:
        raise ValueError(f"Nos takes no game options here, got {sorted(game_options)}")
    elif n not in (3, 4, 5):
        raise ValueError(f"give one agent per seat: 3, 4 or 5 agents, got {n}")
    for spec in agent_names:
        if not isinstance(spec, Agent):
            check_agent_spec(spec, game)
    if deals < 1:
        raise ValueError("deals must be at least 1")
    if num_threads is not None:
        check_num_threads(num_threads)
    agent_options = agent_options or {}
    labels = label_agents([agent_label(spec) for spec in agent_names])
    rotations = n if duplicate else 1
    groups = max(1, min(deals, tables // rotations))
    if isinstance(shards, bool) or not isinstance(shards, (int, np.integer)) or not 1 <= shards <= groups:
        raise ValueError(f"shards must be an integer 1..{groups} (the run's deal groups: "
                         f"min(deals, tables // {rotations})), got {shards!r}")
    if ray_address is not None and not ray:
        raise ValueError("ray_address names the cluster for ray=True; give ray=True too")
    quota = np.array([deals // groups + (1 if g < deals % groups else 0) for g in range(groups)])
    # Shard k plays a contiguous block of groups; the first groups % shards blocks have one more.
    sizes = [groups // shards + (1 if k < groups % shards else 0) for k in range(shards)]
    firsts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    jobs = [(list(agent_names), agent_options, n, duplicate, seed, k, int(firsts[k]),
             quota[firsts[k]:firsts[k] + sizes[k]], num_threads, keep_hands, game, game_options)
            for k in range(shards)]
    total_hands = int(quota.sum()) * rotations
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total_hands, unit="hand", desc="tournament", leave=False)
    start = time.perf_counter()
    if ray:
        from .distributed import map_tasks

        outputs = map_tasks(_play_shard, jobs, address=ray_address,
                            done=(lambda out: bar.update(len(out["records"]))) if bar is not None else None)
    else:
        outputs = [_play_shard(*job, bar=bar) for job in jobs]
    if bar is not None:
        bar.close()
    seconds = time.perf_counter() - start
    records = [r for out in outputs for r in out["records"]]
    kept_hands = [h for out in outputs for h in out["hands"]]
    if family:
        return TournamentResult(
            labels=labels, num_players=n, duplicate=duplicate, seed=seed,
            deal=np.array([r[0] for r in records]), seat_agent=np.array([r[3] for r in records]),
            chips=np.array([r[4] for r in records]), announcement=None, setter=None, end=None,
            close_right=None, close_wrong=None, by_reason=None, seconds=seconds,
            stream_seed=np.array([r[1] for r in records]), stream_index=np.array([r[2] for r in records]),
            hands=kept_hands if keep_hands else None, game=game, game_options=game_options)
    return TournamentResult(
        labels=labels, num_players=n, duplicate=duplicate, seed=seed,
        deal=np.array([r[0] for r in records]), seat_agent=np.array([r[3] for r in records]),
        chips=np.array([r[4] for r in records]), announcement=np.array([r[5] for r in records]),
        setter=np.array([r[6] for r in records]), end=np.array([r[7] for r in records]),
        close_right=np.array([r[8] for r in records]), close_wrong=np.array([r[9] for r in records]),
        by_reason=np.array([r[10] for r in records]), seconds=seconds,
        stream_seed=np.array([r[1] for r in records]), stream_index=np.array([r[2] for r in records]),
        hands=kept_hands if keep_hands else None,
    )


def parse_options(items: list[str]) -> dict:
    """``KEY=VALUE`` strings as a dict: none/null -> None, true/false, integers, numbers, else text."""
    options = {}
    for item in items:
        key, eq, text = item.partition("=")
        if not eq or not key.strip():
            raise ValueError(f"--option takes KEY=VALUE (e.g. target_score=100), got {item!r}")
        value: object = text.strip()
        low = text.strip().lower()
        if low in ("none", "null"):
            value = None
        elif low in ("true", "false"):
            value = low == "true"
        else:
            for cast in (int, float):
                try:
                    value = cast(text)
                    break
                except ValueError:
                    pass
        options[key.strip()] = value
    return options


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Tournament between agents, Nos or a family game (duplicate "
                                                 "deals by default)")
    parser.add_argument("--game", default="nos",
                        help="nos (default) or a family game: block, draw, cross, double_nine_cross, matador, "
                             "all_fives, fives_and_threes, five_up, bergen, fours")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a family game's option (its rules page's Options table), repeatable, e.g. "
                             "--option tileset=double_nine; target_score is None (one hand) unless given")
    parser.add_argument("--agents", nargs="+", default=None,
                        help=f"one agent per seat: for Nos from {sorted(AGENTS)}, for a family game from "
                             f"{list(FAMILY_AGENTS)}, model:PATH for a trained model, ensemble:PATH,PATH for several as one, "
                             f"search+model:PATH (Nos) for Search with a trained model as its prior "
                             f"(default: random greedy tactics search for Nos, random greedy greedy search otherwise)")
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-duplicate", action="store_true", help="play each deal once, seats rotated by table")
    parser.add_argument("--tables", type=int, default=256, help="tables stepped at once")
    parser.add_argument("--json", help="write the summary as JSON")
    parser.add_argument("--csv", help="write every hand and seat as CSV")
    parser.add_argument("--png", help="write a chart of chips per hand with 95%% CIs")
    parser.add_argument("--save-records", metavar="DIR",
                        help="write hand records (for nos-view; Nos's, a family game's or Blind's) as "
                             "DIR/deal-N.json, one file per deal holding its rotations' hands, and print the "
                             "command that opens the most surprising one")
    parser.add_argument("--records-for", default="all", metavar="all|worst[:K]|best[:K]|N,M,...",
                        help="which deals --save-records writes: all (default), the first agent's K worst or "
                             "best deals (K=5 by default), or deal numbers as in the CSV's deal column")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--shards", type=int, default=None,
                        help="split the deal groups into this many parts, each in its own engine with its own "
                             "agents (default 1; with --ray, the cluster's CPUs). The same --seed and --shards "
                             "give the same hands locally and on Ray")
    parser.add_argument("--ray", action="store_true",
                        help="play the shards as Ray tasks (the ray extra; a local Ray unless --ray-address)")
    parser.add_argument("--ray-address", metavar="ADDRESS",
                        help="the Ray cluster for --ray: 'auto' (this node's cluster) or ray://HEAD:10001")
    parser.add_argument("--threads", default=None, metavar="auto|N",
                        help="threads of every fast-engine batch of the run (Search's rollouts too): 'auto' "
                             "(serial beside other busy jobs, every core alone) or a number; "
                             "default: $NOS_ENV_THREADS, else auto")
    # The leaderboard (agents/ratings.py) is on by default, so every agent ever evaluated is rated.
    parser.add_argument("--leaderboard", metavar="PATH",
                        help="rate this run's hands on this leaderboard (nos-ratings prints it); "
                             "default $NOS_LEADERBOARD, else runs/leaderboard.json")
    parser.add_argument("--no-leaderboard", action="store_true", help="leave the leaderboard alone")
    args = parser.parse_args(argv)
    try:
        game_options = parse_options(args.option)
        if args.game != "nos":
            family_options(args.game, game_options)  # an unknown game is refused before anything runs
        elif game_options:
            raise ValueError("--option is for the family games; Nos takes none here")
    except ValueError as exc:
        parser.error(str(exc))
    if args.agents is None:
        args.agents = (["random", "greedy", "tactics", "search"] if args.game == "nos"
                       else ["random", "greedy", "greedy", "search"])
    if not RECORDS_FOR.fullmatch(args.records_for.strip()):  # checked before the run, not after it
        parser.error(f"--records-for must be all, worst[:K], best[:K] or deal numbers N,M,..., "
                     f"got {args.records_for!r}")
    if args.records_for != "all" and not args.save_records:
        parser.error("--records-for chooses what --save-records writes: give --save-records DIR too")
    leaderboard = None
    if not args.no_leaderboard:
        from . import ratings

        leaderboard = args.leaderboard or ratings.default_path()
        try:  # a leaderboard that cannot be updated is reported before the run, not after it;
            ratings.load(leaderboard)  # models are hashed now, as they are when they play
            for spec in args.agents:
                check_agent_spec(spec, args.game)
            identities = [ratings.agent_identity(spec) for spec in args.agents]
        except (ValueError, MissingExtraError) as exc:  # LeaderboardError, an unknown agent, a missing extra
            parser.error(str(exc))
    if args.ray_address and not args.ray:
        parser.error("--ray-address names the cluster for --ray: give --ray too")
    if args.shards is not None and args.shards < 1:
        parser.error(f"--shards must be at least 1, got {args.shards}")
    shards = args.shards or 1
    if args.ray:
        try:
            require("ray", "--ray", ("ray",))
        except MissingExtraError as exc:
            parser.error(str(exc))
        if args.shards is None:
            from .distributed import cluster_cpus

            rotations = len(args.agents) if not args.no_duplicate else 1
            shards = max(1, min(cluster_cpus(args.ray_address), args.deals, args.tables // rotations))
        print(f"nos-tournament: {shards} shard(s) as Ray tasks (a local run gives the same hands with "
              f"--shards {shards})", flush=True)
    threads = args.threads
    if threads is not None:
        threads = int(threads) if threads.isdigit() else threads
        try:
            check_num_threads(threads, "--threads")
        except ValueError as exc:
            parser.error(str(exc))
    try:  # --threads holds for every batch of the run, the agents' own included
        with default_threads(threads) if threads is not None else contextlib.nullcontext():
            result = run_tournament(args.agents, args.deals, args.seed, duplicate=not args.no_duplicate,
                                    tables=args.tables, progress=not args.quiet,
                                    keep_hands=bool(args.save_records), game=args.game,
                                    game_options=game_options, shards=shards, ray=args.ray,
                                    ray_address=args.ray_address)
    except (ValueError, MissingExtraError) as exc:  # e.g. model:PATH without the train extra
        parser.error(str(exc))
    print(result.table())
    if args.json:
        result.to_json(args.json)
    if args.csv:
        result.to_csv(args.csv)
    if args.png:
        result.to_png(args.png)
    if not args.save_records:  # the same command with the same seed plays the same hands again
        deal, place, why = result.most_surprising()
        print(f"the most surprising hand is deal {deal}'s hand {place} ({why}); to open it, run again with "
              f"--save-records DIR --records-for {deal}, then: nos-view DIR/deal-{deal}.json --hand {place} --open")
    if args.save_records:
        try:
            written = result.save_records(args.save_records, args.records_for)
        except ValueError as exc:  # deal numbers this run did not play
            parser.error(str(exc))
        deal, place, why = result.most_surprising(result.choose_deals(args.records_for))
        path = Path(args.save_records) / f"deal-{deal}.json"
        print(f"wrote {len(written)} record file(s) to {args.save_records}; the most surprising hand is "
              f"deal {deal}'s hand {place} ({why}), open it with:\n  nos-view {path} --hand {place} --open")
    if leaderboard is not None:
        try:
            added = ratings.update_from_tournament(leaderboard, result, identities, game=args.game)
        except ratings.LeaderboardError as exc:  # changed on disk during the run
            parser.error(str(exc))
        print(f"leaderboard {leaderboard}: " + (f"rated {len(result.deal)} hands (nos-ratings prints it)" if added
                                                else "these results were rated before, unchanged"))


if __name__ == "__main__":
    main()
