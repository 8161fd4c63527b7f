"""What each of the 17 games and each of the 76 announcements is worth to the setter, with intervals.

    python -m agents.announce survey --hands 500 --seed 1 --json runs/s1.json
    python -m agents.announce survey --hands 500 --seed 2 --json runs/s2.json
    python -m agents.announce_values runs/s1.json runs/s2.json --md values.md --png values.png

The survey (``agents/announce.py``) plays every legal announcement of each random hand on
the same sampled deals and writes, per hand, the setter's mean chips of every announcement
(``means``, over its rollouts) and every game's cross-validated value (``game_values``). This
module reads one or more such files (independent runs: different seeds, the same players,
rollouts and agents), and tabulates per announcement, and per (hand-feature bucket, game):

- the **value to the setter**: his mean chips of the hand under that announcement (game);
- the **advantage**: that value minus the hand's average announcement (the mean over the
  hand's legal announcements), a difference on the same deals;
- the share of hands where the game (announcement) is the hand's best.

Intervals: the hands are independent samples (random deals, their own sampled rollouts), so a
cell's 95% interval is 1.96 standard errors of its per-hand values over the hands where it is
legal (``agents.tournament.mean_ci``). Each per-hand value is itself a mean over a few rollouts;
its noise is part of the spread between hands, so the interval covers it. Shares get the Wilson
score interval (good also near 0% and 100%).
"""

from __future__ import annotations

import argparse
import json
import math
from dataclasses import dataclass

import numpy as np

from nos_env.announcements import ALL_ANNOUNCEMENTS, GAME_NAMES

from .announce import ANN_GAME, BUCKETS, GAMES, NUM_ANN, SurveyResult, _clean
from .tournament import Z95, mean_ci

ANN_INDEX = {str(a): i for i, a in enumerate(ALL_ANNOUNCEMENTS)}


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float, float]:
    """Share, and the low and high ends of its Wilson score interval (NaN without trials)."""
    if trials == 0:
        return math.nan, math.nan, math.nan
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return p, max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class HandValues:
    """Per-hand values of one or more surveys (the rows are hands, all independent)."""

    num_players: int
    rollouts: int
    agents: list[str]
    seeds: list[int]
    seconds: float  # the surveys' play time, summed
    buckets: list[dict[str, str]]  # per hand: feature group -> bucket label
    deals: list[tuple]  # per hand: (the setter's tiles, the set tile), as written "a-b"
    means: np.ndarray  # [H, 76] setter's mean chips per announcement (NaN: not legal)
    game_values: np.ndarray  # [H, 17] cross-validated value of each game (NaN: not legal)
    best_game: np.ndarray  # [H] 1..17
    best: np.ndarray  # [H] the hand's best announcement (index)
    tactics: np.ndarray  # [H] the Tactics scores' announcement (index)

    @property
    def hands(self) -> int:
        return len(self.buckets)

    @classmethod
    def from_summaries(cls, summaries: list[dict]) -> "HandValues":
        """From ``SurveyResult.summary()`` dicts (or their JSON files' contents)."""
        if not summaries:
            raise ValueError("give at least one survey")
        first = summaries[0]
        for s in summaries[1:]:
            for key in ("num_players", "rollouts", "agents"):
                if s[key] != first[key]:
                    raise ValueError(f"surveys differ in {key} ({first[key]!r} and {s[key]!r}); only runs with "
                                     "the same players, rollouts and agents can be combined")
        seeds = [s["seed"] for s in summaries]
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"surveys with the same seed repeat the same hands (seeds {seeds}); give each run "
                             "its own --seed")
        rows = [h for s in summaries for h in s["per_hand"]]
        as_float = (lambda v: np.array([math.nan if x is None else x for x in v], np.float64))
        return cls(num_players=first["num_players"], rollouts=first["rollouts"], agents=list(first["agents"]),
                   seeds=seeds, seconds=float(sum(s["seconds"] for s in summaries)),
                   buckets=[{g: h[g] for g in BUCKETS} for h in rows],
                   deals=[(tuple(h.get("tiles", ())), h.get("set_tile")) for h in rows],
                   means=np.array([as_float(h["means"]) for h in rows]).reshape(len(rows), NUM_ANN),
                   game_values=np.array([as_float(h["game_values"]) for h in rows]).reshape(len(rows), 17),
                   best_game=np.array([h["best_game"] for h in rows], np.int64),
                   best=np.array([ANN_INDEX[h["best"]] for h in rows], np.int64),
                   tactics=np.array([ANN_INDEX[h["tactics_choice"]] for h in rows], np.int64))

    @classmethod
    def from_json(cls, paths: list[str]) -> "HandValues":
        summaries = []
        for p in paths:
            with open(p) as f:
                summaries.append(json.load(f))
        return cls.from_summaries(summaries)

    @classmethod
    def from_survey(cls, result: SurveyResult) -> "HandValues":
        return cls.from_summaries([json.loads(json.dumps(result.summary(), allow_nan=True))])

    # ------------------------------------------------------------ statistics
    def average(self) -> np.ndarray:
        """[H] the hand's average announcement: mean over its legal announcements."""
        return np.nanmean(self.means, axis=1)

    def _cell(self, values: np.ndarray, rows: np.ndarray, is_best: np.ndarray) -> dict:
        """One cell: ``values`` [H] (NaN where not legal) over the hands ``rows``."""
        legal = rows & ~np.isnan(values)
        value, value_ci = mean_ci(values[legal])
        advantage, advantage_ci = mean_ci((values - self.average())[legal])
        share, low, high = wilson(int((is_best & rows).sum()), int(rows.sum()))
        return {"hands": int(rows.sum()), "legal": int(legal.sum()), "value": value, "value_ci95": value_ci,
                "advantage": advantage, "advantage_ci95": advantage_ci, "best_share": share,
                "best_share_ci95": [low, high]}

    def announcement_table(self) -> list[dict]:
        """Per announcement (all 76): its value and advantage over the hands where it is legal, and the
        share of those hands where it is the best announcement."""
        out = []
        for a, ann in enumerate(ALL_ANNOUNCEMENTS):
            legal = ~np.isnan(self.means[:, a])
            cell = self._cell(self.means[:, a], legal, self.best == a)
            out.append({"index": a, "announcement": str(ann), "game": ann.game, **cell})
        return out

    def game_table(self, rows: np.ndarray | None = None) -> list[dict]:
        """Per game (17) over the hands ``rows`` (all by default): its cross-validated value, advantage,
        and the share of the hands where it is the best game."""
        rows = np.ones(self.hands, bool) if rows is None else rows
        return [{"game": g, "name": GAME_NAMES[g],
                 **self._cell(self.game_values[:, g - 1], rows, self.best_game == g)} for g in GAMES]

    def feature_tables(self) -> dict:
        """{group: {bucket label: game_table over the bucket's hands}}."""
        return {group: {label: self.game_table(np.array([b[group] == label for b in self.buckets], bool))
                        for label in labels} for group, labels in BUCKETS.items()}

    def tactics_summary(self) -> dict:
        """What the Tactics scores' own announcement is worth over the hand's average announcement."""
        rows = np.arange(self.hands)
        advantage, ci = mean_ci(self.means[rows, self.tactics] - self.average())
        share, low, high = wilson(int((self.tactics == self.best).sum()), self.hands)
        same_game, glow, ghigh = wilson(int((ANN_GAME[self.tactics] == self.best_game).sum()), self.hands)
        return {"advantage": advantage, "advantage_ci95": ci, "same_announcement": share,
                "same_announcement_ci95": [low, high], "same_game": same_game, "same_game_ci95": [glow, ghigh]}

    def summary(self) -> dict:
        return {"num_players": self.num_players, "rollouts": self.rollouts, "agents": self.agents,
                "seeds": self.seeds, "hands": self.hands, "seconds": self.seconds,
                "interval": "95%: mean +- 1.96 standard errors over hands; shares: Wilson score interval",
                "games": self.game_table(), "announcements": self.announcement_table(),
                "features": self.feature_tables(), "tactics": self.tactics_summary()}

    def paired_games(self, other: "HandValues") -> list[dict]:
        """Per game: ``other``'s advantage minus this one's, on the same hands with the same set tile.

        Runs with the same seeds deal the same hands, and a hand's rollout deals are the same
        whenever its set tile is (``survey`` draws them from one generator, hand after hand), so
        the two agents' values of a hand are paired: the difference's interval is 1.96 standard
        errors of the per-hand differences."""
        if self.seeds != other.seeds or [d[0] for d in self.deals] != [d[0] for d in other.deals] \
                or self.rollouts != other.rollouts or self.num_players != other.num_players:
            raise ValueError("paired values need the same hands: runs with the same seeds, players and rollouts")
        same = np.array([a[1] == b[1] for a, b in zip(self.deals, other.deals)])
        mine = self.game_values - self.average()[:, None]
        theirs = other.game_values - other.average()[:, None]
        out = []
        for g in GAMES:
            rows = same & ~np.isnan(mine[:, g - 1]) & ~np.isnan(theirs[:, g - 1])
            diff, ci = mean_ci(theirs[rows, g - 1] - mine[rows, g - 1])
            a, a_ci = mean_ci(mine[rows, g - 1])
            b, b_ci = mean_ci(theirs[rows, g - 1])
            out.append({"game": g, "name": GAME_NAMES[g], "hands": int(rows.sum()), "advantage": a,
                        "advantage_ci95": a_ci, "other_advantage": b, "other_advantage_ci95": b_ci,
                        "difference": diff, "difference_ci95": ci,
                        "best_share": float(np.mean(self.best_game[same] == g)) if same.any() else math.nan,
                        "other_best_share": float(np.mean(other.best_game[same] == g)) if same.any() else math.nan})
        return out

    def paired_markdown(self, other: "HandValues") -> str:
        rows = self.paired_games(other)
        same = sum(a[1] == b[1] for a, b in zip(self.deals, other.deals))
        mine, theirs = "/".join(self.agents), "/".join(other.agents)
        lines = [f"{same} of {self.hands} hands with the same set tile under both (seeds "
                 f"{', '.join(map(str, self.seeds))}); advantage over the hand's average announcement (95% CI), "
                 "the paired difference, and the share of these hands where the game is best", "",
                 f"| game | hands | {mine} | {theirs} | {theirs} - {mine} | best in ({mine} / {theirs}) |",
                 "|---|---:|---:|---:|---:|---:|"]
        for r in rows:
            if r["hands"]:
                mark = " *" if abs(r["difference"]) > r["difference_ci95"] else ""
                lines.append(f"| {r['game']} {r['name']} | {r['hands']} | {_pm(r['advantage'], r['advantage_ci95'])} "
                             f"| {_pm(r['other_advantage'], r['other_advantage_ci95'])} | "
                             f"{_pm(r['difference'], r['difference_ci95'])}{mark} | "
                             f"{100 * r['best_share']:.1f}% / {100 * r['other_best_share']:.1f}% |")
        return "\n".join(lines) + "\n"

    # ------------------------------------------------------------- rendering
    def markdown(self) -> str:
        """The tables as markdown: games, announcements, and per feature group the games' advantages."""
        head = (f"{self.hands} hands, {self.num_players} players, {self.rollouts} rollouts per announcement, "
                f"agents {'/'.join(self.agents)}, seeds {', '.join(map(str, self.seeds))}; "
                f"{self.seconds:.0f} s of play")
        lines = [head, "", "### The 17 games", "",
                 "| game | legal in | value to setter | advantage | best in (of all hands) |",
                 "|---|---:|---:|---:|---:|"]
        for r in self.game_table():
            lines.append(f"| {r['game']} {r['name']} | {r['legal']} | {_pm(r['value'], r['value_ci95'])} | "
                         f"{_pm(r['advantage'], r['advantage_ci95'])} | {_share(r)} |")
        lines += ["", "### The 76 announcements (the games with their parameters)", "",
                  "| # | announcement | game | legal in | value to setter | advantage "
                  "| best in (of the hands where legal) |",
                  "|---:|---|---:|---:|---:|---:|---:|"]
        for r in self.announcement_table():
            lines.append(f"| {r['index']} | {r['announcement']} | {r['game']} | {r['legal']} | "
                         f"{_pm(r['value'], r['value_ci95'])} | {_pm(r['advantage'], r['advantage_ci95'])} | "
                         f"{_share(r)} |")
        lines += ["", "### By hand features"]
        for group, tables in self.feature_tables().items():
            labels = [label for label, t in tables.items() if t[0]["hands"]]
            lines += ["", f"**{group}**: advantage over the hand's average announcement (95% CI); in "
                          "brackets the hands where the game was legal and the share of the bucket's hands where "
                          "it is best", "",
                      "| game | " + " | ".join(f"{group} {label} ({tables[label][0]['hands']} hands)"
                                               for label in labels) + " |",
                      "|---|" + "---:|" * len(labels)]
            for g in GAMES:
                cells = []
                for label in labels:
                    r = tables[label][g - 1]
                    cells.append("" if not r["legal"] else
                                 f"{_pm(r['advantage'], r['advantage_ci95'])} (n={r['legal']}; "
                                 f"{100 * r['best_share']:.0f}%)")
                if any(cells):
                    lines.append(f"| {g} {GAME_NAMES[g]} | " + " | ".join(cells) + " |")
        t = self.tactics_summary()
        lines += ["", f"The Tactics scores' own announcement: {_pm(t['advantage'], t['advantage_ci95'])} chips over "
                      f"the hand's average announcement; the hand's rollout best in "
                      f"{100 * t['same_announcement']:.1f}% of hands, the best game in {100 * t['same_game']:.1f}%."]
        return "\n".join(lines) + "\n"

    def to_png(self, path: str) -> None:
        """Heatmap: (feature bucket, game) cells coloured by the advantage, with its interval written in."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        labels, adv, ci = [], [], []
        for group, tables in self.feature_tables().items():
            for label, table in tables.items():
                if table[0]["hands"]:
                    labels.append(f"{group} {label} ({table[0]['hands']})")
                    adv.append([r["advantage"] if r["legal"] else math.nan for r in table])
                    ci.append([r["advantage_ci95"] if r["legal"] else math.nan for r in table])
        adv, ci = np.array(adv, float), np.array(ci, float)
        fig, ax = plt.subplots(figsize=(13, 0.36 * len(labels) + 2.6))
        limit = np.nanmax(np.abs(adv)) if np.isfinite(adv).any() else 1.0
        image = ax.imshow(np.ma.masked_invalid(adv), aspect="auto", cmap="RdBu", vmin=-limit, vmax=limit)
        ax.set_xticks(range(17), [f"{g} {GAME_NAMES[g][:24]}" for g in GAMES], rotation=90, fontsize=7)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        for (i, j), v in np.ndenumerate(adv):
            if not math.isnan(v):
                ax.text(j, i, f"{v:+.0f}" + ("" if math.isnan(ci[i, j]) else f"\n±{ci[i, j]:.0f}"), ha="center",
                        va="center", fontsize=6)
        fig.colorbar(image, ax=ax, fraction=0.03, label="chips over the hand's average announcement")
        ax.set_title(f"Nos: each game's advantage to the setter by hand features (95% CI), {self.hands} hands, "
                     f"{self.num_players} players, {self.rollouts} rollouts, agents {'/'.join(self.agents)}",
                     fontsize=8)
        fig.tight_layout()
        fig.savefig(path, dpi=85)
        plt.close(fig)


def _pm(mean: float, ci: float) -> str:
    if math.isnan(mean):
        return "-"
    return f"{mean:+.1f}" + ("" if math.isnan(ci) else f" ± {ci:.1f}")


def _share(r: dict) -> str:
    low, high = r["best_share_ci95"]
    if math.isnan(r["best_share"]):
        return "-"
    return f"{100 * r['best_share']:.1f}% ({100 * low:.1f}-{100 * high:.1f})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m agents.announce_values",
                                     description="tables with 95%% intervals from survey JSON files "
                                                 "(python -m agents.announce survey --json)")
    parser.add_argument("surveys", nargs="+", help="survey JSON files of independent runs (different seeds)")
    parser.add_argument("--md", help="write the markdown tables here (default: print them)")
    parser.add_argument("--png", help="write the (feature bucket, game) heatmap here")
    parser.add_argument("--json", help="write every table as JSON")
    parser.add_argument("--paired", nargs="+", metavar="SURVEY",
                        help="survey files of other agents on the same seeds: tabulate per game the paired "
                             "difference of the advantages (theirs minus the main surveys')")
    args = parser.parse_args(argv)
    try:
        values = HandValues.from_json(args.surveys)
        other = HandValues.from_json(args.paired) if args.paired else None
        text = values.markdown() + ("" if other is None else "\n" + values.paired_markdown(other))
    except (ValueError, OSError, KeyError) as exc:
        parser.error(f"{type(exc).__name__}: {exc}")
    if args.md:
        with open(args.md, "w") as f:
            f.write(text)
    else:
        print(text)
    if args.png:
        values.to_png(args.png)
    if args.json:
        summary = values.summary()
        if other is not None:
            summary["paired"] = {"agents": other.agents, "games": values.paired_games(other)}
        with open(args.json, "w") as f:
            json.dump(_clean(summary), f, indent=1)


if __name__ == "__main__":
    main()
