"""nos-announce: which announcement is worth most, estimated by rollouts.

    python -m agents.announce hand --tiles "6-6 6-4 2-5 0-3" --set 6-6 --samples 200
    python -m agents.announce survey --hands 500 --rollouts 8 --png survey.png --json survey.json
    python -m agents.announce compare --announcer-a tactics --announcer-b greedy --play tactics --deals 500

Three questions (see ``docs/announce.md``):

``hand``
    For one setter's hand and set tile, the expected chips of every legal
    announcement. The hidden tiles (other hands, the boneyard order) are
    sampled uniformly from the tiles the setter cannot see; each sampled deal
    is played once per announcement (common random numbers), with the set and
    the announcement forced and every later decision taken by the chosen agents.
``survey``
    The same for many random hands (a few rollouts each), tabulated by hand
    features: which announcement, and which of the 17 games, comes out best.
``compare``
    Two announcers with tile play held fixed: on the same deals the setter's set
    and announcement come from agent X or agent Y (:class:`AnnounceWith`), every
    other decision from one play agent.

All three step one fast-engine table per (deal, announcement or announcer), in
batches, asking each agent for its rows at once, as ``agents.tournament`` does.
The set follows the later-hand rule of a one-hand episode (docs/rules/nos.md §2,
D20): a setter holding doubles sets one of them; one without draws the top
boneyard tile and sets it. Results are chip changes of the hand, the set payment
included (it is the same for every announcement of a hand, so it cancels in the
paired differences).
"""

from __future__ import annotations

import argparse
import json
import math
import re
import time
from dataclasses import dataclass, field

import numpy as np

from nos_env.deal import Deal, check_num_players, hand_size
from nos_env.encoding import ANNOUNCE0, DECLARE, DRAW, SET0
from nos_env.extras import MissingExtraError
from nos_env.fast_engine import FastTables
from nos_env.announcements import (
    ALL_ANNOUNCEMENTS,
    GAME_NAMES,
    Announcement,
    describe_announcement,
    legal_announcements,
)
from nos_env.tiles import (ALL_TILES, MATADORS, TILE_INDEX, Tile, is_double, make_tile, parse_tile, tile_str,
                           tiles_mask)

from .base import Agent, BatchContext
from .play_loop import PlayLoop
from .registry import make_agent
from .tactics import announcement_scores
from .tournament import mean_ci

NUM_ANN = len(ALL_ANNOUNCEMENTS)
ANN_GAME = np.array([a.game for a in ALL_ANNOUNCEMENTS], np.int64)
GAMES = tuple(range(1, 18))
#: Tables stepped at once by default (observations take about 4 kB each).
DEFAULT_TABLES = 4096


# --------------------------------------------------------------- input checks
def parse_tiles(text: str) -> list[Tile]:
    """Tiles written ``"6-6 6-4 2-5"`` (spaces or commas between them)."""
    tokens = [tok for tok in re.split(r"[\s,]+", text.strip()) if tok]
    if not tokens:
        raise ValueError("no tiles given (write them like '6-6 6-4 2-5 0-3')")
    tiles = []
    for tok in tokens:
        try:
            tiles.append(parse_tile(tok))
        except ValueError as exc:
            raise ValueError(f"bad tile {tok!r} in {text!r}: {exc}") from None
    return tiles


def _as_tile(tile) -> Tile:
    """A tile from ``"a-b"`` or ``(a, b)``, low number first."""
    return parse_tile(tile) if isinstance(tile, str) else make_tile(*tile)


def _as_tiles(tiles) -> list[Tile]:
    return parse_tiles(tiles) if isinstance(tiles, str) else [_as_tile(t) for t in tiles]


def _check_count(name: str, value, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer of at least {minimum}, got {value!r}")
    return int(value)


def check_hand(tiles: list[Tile], num_players: int) -> None:
    """The setter holds 8-n different tiles (docs/rules/nos.md §1)."""
    n = check_num_players(num_players)
    if len(tiles) != hand_size(n):
        raise ValueError(f"with {n} players the setter is dealt {hand_size(n)} tiles, got {len(tiles)}: "
                         + " ".join(tile_str(t) for t in tiles))
    seen = set()
    for t in tiles:
        if t in seen:
            raise ValueError(f"tile {tile_str(t)} appears twice in the hand")
        seen.add(t)


def check_set(tiles: list[Tile], set_tile: Tile) -> bool:
    """Whether ``set_tile`` may be set from this hand; returns True when it is drawn.

    Later-hand rule (section 2, D20): holding doubles, the setter sets one of them;
    holding none, he draws the top boneyard tile and sets it, whatever it is.
    """
    doubles = sorted(t for t in tiles if is_double(t))
    if doubles:
        if set_tile not in doubles:
            raise ValueError(f"set tile {tile_str(set_tile)} is not legal: a setter holding doubles must set one "
                             f"of them ({', '.join(tile_str(d) for d in doubles)}; docs/rules/nos.md §2)")
        return False
    if set_tile in tiles:
        raise ValueError(f"set tile {tile_str(set_tile)} is not legal: a setter without a double draws the top "
                         "boneyard tile and sets it, so the set tile cannot be one of his own tiles")
    return True


def set_prefix(set_tile: Tile, drawn: bool) -> list[int]:
    """The setter's decisions up to the announcement: [draw,] set."""
    return ([DRAW] if drawn else []) + [SET0 + TILE_INDEX[set_tile]]


# -------------------------------------------------------------- hand features
def longest_number(tiles) -> int:
    """Most tiles sharing one pip value (a double counts once for its number)."""
    return max(sum(1 for t in tiles if p in t) for p in range(7))


def hand_features(tiles) -> dict:
    """The features the survey tabulates, over the tiles as dealt to the setter."""
    tiles = _as_tiles(tiles)
    return {
        "doubles": sum(1 for t in tiles if is_double(t)),
        "matadors": sum(1 for t in tiles if t in MATADORS),  # [0-0], [6-1], [5-2], [4-3]
        "blank_double": (0, 0) in tiles,
        "longest": longest_number(tiles),
    }


#: Feature groups and their buckets, in table order.
BUCKETS = {
    "doubles": ("0", "1", "2", "3+"),
    "matadors": ("0", "1", "2+"),
    "[0-0]": ("no", "yes"),
    "longest number": ("1", "2", "3", "4+"),
    "set tile": ("own double", "drawn double", "drawn other"),
}


def feature_buckets(tiles, set_tile: Tile, drawn: bool) -> dict[str, str]:
    f = hand_features(tiles)
    return {
        "doubles": str(f["doubles"]) if f["doubles"] < 3 else "3+",
        "matadors": str(f["matadors"]) if f["matadors"] < 2 else "2+",
        "[0-0]": "yes" if f["blank_double"] else "no",
        "longest number": str(f["longest"]) if f["longest"] < 4 else "4+",
        "set tile": "own double" if not drawn else ("drawn double" if is_double(set_tile) else "drawn other"),
    }


# -------------------------------------------------------------------- sampling
def sample_deal(tiles: list[Tile], set_tile: Tile, drawn: bool, num_players: int, setter: int,
                rng: np.random.Generator) -> Deal:
    """A deal consistent with what the setter knows, the hidden tiles uniformly shuffled.

    The setter holds ``tiles``; a drawn set tile is the boneyard's top. Everything
    else (other hands, the rest of the boneyard in order) is a uniform shuffle.
    """
    known = set(tiles) | ({set_tile} if drawn else set())
    unseen = [t for t in ALL_TILES if t not in known]
    unseen = [unseen[i] for i in rng.permutation(len(unseen))]
    k = hand_size(num_players)
    hands, at = [], 0
    for seat in range(num_players):
        if seat == setter:
            hands.append(list(tiles))
        else:
            hands.append(unseen[at:at + k])
            at += k
    boneyard = ([set_tile] if drawn else []) + unseen[at:]
    return Deal.from_tiles(hands, boneyard)


# -------------------------------------------------------------- composite agent
def _sub_context(context: BatchContext | None, rows: np.ndarray) -> BatchContext | None:
    if context is None:
        return None
    pick = (lambda a: None if a is None else np.asarray(a)[rows])
    return BatchContext(tables=context.tables, table_index=pick(context.table_index), seats=pick(context.seats))


class AnnounceWith(Agent):
    """One agent's set and announcement, another's everything else.

    A row goes to ``announcer`` when some legal action lies in the set or the
    announce block of the action encoding, otherwise to ``player``. (A setter
    without doubles must draw for the set: that row has the draw as its only
    legal action, so it goes to the player, who can only take it.)
    """

    def __init__(self, announcer: Agent, player: Agent, seed: int | None = None):
        super().__init__(seed)
        self.announcer = announcer
        self.player = player
        self.name = f"{getattr(announcer, 'name', 'agent')}+{getattr(player, 'name', 'agent')}"

    @staticmethod
    def announcer_rows(masks: np.ndarray) -> np.ndarray:
        masks = np.asarray(masks)
        return masks[:, SET0:DRAW].any(axis=1) | masks[:, ANNOUNCE0:DECLARE].any(axis=1)

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        route = self.announcer_rows(masks)
        actions = np.empty(len(masks), np.int64)
        for agent, rows in ((self.announcer, np.flatnonzero(route)), (self.player, np.flatnonzero(~route))):
            if len(rows):
                actions[rows] = agent.act_batch(obs[rows], masks[rows], _sub_context(context, rows))
        return actions

    def __repr__(self) -> str:
        return f"AnnounceWith({self.announcer!r}, {self.player!r})"


# --------------------------------------------------------------- playing tables
def _make(spec: str, seed: int) -> Agent:
    """``make_agent(spec)``; Tactics is the compiled one (the same scores and choices as the
    numpy code, tests/test_tactics_kernel.py; only ties break otherwise), which makes rollouts
    several times faster."""
    if spec == "tactics":
        return make_agent(spec, seed=seed, compiled=True)
    return make_agent(spec, seed=seed)


def make_seat_agents(specs, num_players: int, seed: int) -> tuple[list[Agent], np.ndarray]:
    """One agent spec for every seat, or one per seat; one instance per distinct spec.

    Returns the agents and each seat's index into them. Specs go to ``make_agent``
    as they are (so whatever it accepts, trained models included, works here).
    """
    specs = [specs] if isinstance(specs, str) else list(specs)
    if len(specs) == 1:
        specs = specs * num_players
    if len(specs) != num_players:
        raise ValueError(f"give one agent for every seat or one per seat ({num_players}), got {len(specs)}")
    unique = list(dict.fromkeys(specs))
    agents = [_make(spec, seed * 1009 + k) for k, spec in enumerate(unique)]
    return agents, np.array([unique.index(s) for s in specs], np.int64)


@dataclass
class Outcome:
    """The first hand played at each table of a batch."""

    chips: np.ndarray  # [B, n] chip change of every seat
    announcement: np.ndarray  # [B] index into ALL_ANNOUNCEMENTS (EpisodeStats.announcement)
    setter: np.ndarray  # [B] (EpisodeStats.setter)
    set_tile: np.ndarray  # [B] tile index set (-1 if never seen)
    dealt: np.ndarray  # [B, n] each seat's dealt tiles as 28-bit sets, read from the tables
    boneyard: np.ndarray  # [B, 28 - n*k] boneyard tile indices, top first


def load_tables(deals: list[Deal], setters, num_players: int, seed: int) -> FastTables:
    engine = FastTables(len(deals), num_players, seed=seed, observation_dtype="float32")  # agents read float32
    for b, (deal, setter) in enumerate(zip(deals, setters)):
        engine.load_deal(b, deal, on_set=int(setter))
    return engine


def play_out(engine: FastTables, agents: list[Agent], agent_index: np.ndarray, forced: np.ndarray | None = None,
             bar=None) -> Outcome:
    """Play every table's loaded hand to its end.

    ``agent_index[b, seat]`` picks the agent of a seat at table b; ``forced[b]``
    lists actions table b takes first, in order (-1 pads), whatever the agents
    would do. Each step asks every agent once for all its rows. A table that has
    finished starts another hand (autoreset); until the batch is done it plays on
    with its first legal action, unrecorded and without asking any agent.
    """
    B, n = engine.num_envs, engine.num_players
    forced = np.full((B, 0), -1, np.int64) if forced is None else np.asarray(forced, np.int64)
    agent_index = np.asarray(agent_index, np.int64)
    rows_all = np.arange(B)
    out = Outcome(chips=np.zeros((B, n), np.int64), announcement=np.full(B, -1, np.int64),
                  setter=np.full(B, -1, np.int64), set_tile=np.full(B, -1, np.int64),
                  dealt=engine.dealt_tiles, boneyard=engine.boneyard_order(28 - n * hand_size(n)))
    start = engine.chips.astype(np.int64)
    done = np.zeros(B, bool)
    step_of = np.zeros(B, np.int64)  # forced actions taken so far
    width = forced.shape[1]
    pending = np.zeros(B, bool)  # rows whose next action is forced (no agent asked)
    # A finished table plays on with its first legal action (autoreset), unrecorded.
    loop = PlayLoop(engine, agents, agent_index, rest="first_legal")

    def ask():
        if done.all():
            return None
        now = ~done & (step_of < width)
        if width:
            now &= forced[rows_all, np.minimum(step_of, width - 1)] >= 0
        pending[:] = now
        return ~done & ~pending

    def force(actions: np.ndarray) -> None:
        if width:
            upcoming = forced[rows_all, np.minimum(step_of, width - 1)]
            actions[pending] = upcoming[pending]
            step_of[pending] += 1
        sets = ~done & (actions < DRAW)  # only the set block lies below the draw
        out.set_tile[sets] = actions[sets] - SET0

    def record(step) -> None:
        fin = step.terminated & ~done
        if fin.any():
            out.chips[fin] = step.final_chips[fin, :n] - start[fin]
            stats = engine.episode_stats(fin)
            out.announcement[fin] = stats.announcement
            out.setter[fin] = stats.setter
            done[fin] = True
            if bar is not None:
                bar.update(int(fin.sum()))

    loop.run(ask, record, before_step=force)
    return out


def _progress(total: int, desc: str, enabled: bool):
    if not enabled:
        return None
    from tqdm import tqdm

    return tqdm(total=total, unit="hand", desc=desc, leave=False)


def _chunks(count: int, size: int):
    for lo in range(0, count, size):
        yield lo, min(count, lo + size)


def _clean(x):
    """JSON without NaN: NaN becomes null."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    if isinstance(x, np.generic):
        return _clean(x.item())
    return x


def tactics_choice(tiles: list[Tile], set_tile: Tile, num_players: int) -> int:
    """The announcement the Tactics agent's scores pick (index into ALL_ANNOUNCEMENTS)."""
    after_set = tiles_mask(t for t in tiles if t != set_tile)
    scores = announcement_scores(np.array([after_set]), np.array([TILE_INDEX[set_tile]]), np.array([num_players]))
    return int(scores[0].argmax())


# ------------------------------------------------------------------- one hand
@dataclass
class HandEvaluation:
    tiles: list[Tile]
    set_tile: Tile
    drawn: bool
    num_players: int
    setter: int
    agents: list[str]
    seed: int
    announcements: list[Announcement]
    chips: np.ndarray = field(repr=False)  # [samples, announcements, n]
    played: np.ndarray = field(repr=False)  # [samples, announcements] announcement index the engine reports
    dealt: np.ndarray = field(repr=False)  # [samples, announcements, n] dealt tile sets per table
    boneyard: np.ndarray = field(repr=False)  # [samples, announcements, m] boneyard order per table
    seconds: float = 0.0

    @property
    def samples(self) -> int:
        return self.chips.shape[0]

    def setter_chips(self) -> np.ndarray:
        """[samples, announcements]: the setter's chip change."""
        return self.chips[:, :, self.setter]

    def summary(self) -> dict:
        mine = self.setter_chips()
        means = mine.mean(axis=0)
        best = int(means.argmax())
        tactics = tactics_choice(self.tiles, self.set_tile, self.num_players)
        rows = []
        for j in np.argsort(-means, kind="stable"):
            a = self.announcements[j]
            mean, ci = mean_ci(mine[:, j])
            diff, diff_ci = mean_ci(mine[:, j] - mine[:, best])
            seats = [mean_ci(self.chips[:, j, s]) for s in range(self.num_players)]
            rows.append({
                "announcement": str(a), "index": a.index, "game": a.game, "description": describe_announcement(a),
                "setter_mean": mean, "setter_ci95": ci, "diff_to_best": diff, "diff_ci95": diff_ci,
                # Worse than the best beyond doubt: the paired difference's interval excludes 0.
                "worse_than_best": bool(j != best and diff + diff_ci < 0),
                "seat_means": [m for m, _ in seats], "seat_ci95": [c for _, c in seats],
                "tactics_choice": a.index == tactics,
            })
        return {
            "tiles": [tile_str(t) for t in self.tiles], "set_tile": tile_str(self.set_tile), "set_drawn": self.drawn,
            "num_players": self.num_players, "setter": self.setter, "agents": self.agents, "samples": self.samples,
            "seed": self.seed, "seconds": self.seconds, "best": str(self.announcements[best]),
            "tactics_choice": str(ALL_ANNOUNCEMENTS[tactics]), "announcements": rows,
        }

    def table(self, limit: int | None = None) -> str:
        s = self.summary()
        w = max(len(r["announcement"]) for r in s["announcements"])
        head = (f"hand {' '.join(s['tiles'])}, set {s['set_tile']}{' (drawn)' if self.drawn else ''}, "
                f"{self.num_players} players, setter seat {self.setter}, agents {'/'.join(self.agents)}; "
                f"{self.samples} sampled deals x {len(self.announcements)} announcements, seed {self.seed}, "
                f"{self.seconds:.1f} s")
        lines = [head, "setter's chips per hand (95% CI); difference to the best on the same deals "
                       "(* = worse beyond the 95% CI); T = Tactics' choice", "",
                 f"{'#':>3s} {'announcement':{w}s} {'setter chips':>16s} {'vs best':>16s}   game"]
        for i, r in enumerate(s["announcements"][:limit]):
            mark = ("*" if r["worse_than_best"] else " ") + ("T" if r["tactics_choice"] else " ")
            lines.append(f"{i + 1:3d} {r['announcement']:{w}s} {r['setter_mean']:+8.2f} ±{r['setter_ci95']:6.2f} "
                         f"{r['diff_to_best']:+8.2f} ±{r['diff_ci95']:6.2f} {mark} "
                         f"{r['game']:2d} {GAME_NAMES[r['game']]}")
        if limit is not None and len(s["announcements"]) > limit:
            lines.append(f"... {len(s['announcements']) - limit} more (--all to list them)")
        return "\n".join(lines)

    def to_json(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(_clean(self.summary()), f, indent=1)


def evaluate_hand(tiles, set_tile, num_players: int = 4, setter: int = 0, samples: int = 200,
                  agents=("tactics",), seed: int = 0, tables: int = DEFAULT_TABLES,
                  progress: bool = False) -> HandEvaluation:
    """Every legal announcement after ``set_tile`` for the setter holding ``tiles``, by rollouts.

    ``samples`` deals are sampled (hidden tiles uniform over what the setter cannot
    see); each is played once per legal announcement, the set and the announcement
    forced, the rest by ``agents`` (one spec for all seats, or one per seat).
    """
    n = check_num_players(num_players)
    tiles, set_tile = _as_tiles(tiles), _as_tile(set_tile)
    check_hand(tiles, n)
    drawn = check_set(tiles, set_tile)
    if isinstance(setter, bool) or not isinstance(setter, (int, np.integer)) or not 0 <= setter < n:
        raise ValueError(f"the setter's seat must be 0..{n - 1}, got {setter!r}")
    samples = _check_count("samples", samples)
    tables = _check_count("tables", tables)
    agent_list, seat_agent = make_seat_agents(agents, n, seed)
    announcements = legal_announcements(set_tile)
    A = len(announcements)
    rng = np.random.default_rng(seed)
    deals = [sample_deal(tiles, set_tile, drawn, n, setter, rng) for _ in range(samples)]
    prefix = set_prefix(set_tile, drawn)
    # Every table of a sample gets the same forced set and its own announcement.
    forced_one = np.array([prefix + [ANNOUNCE0 + a.index] for a in announcements], np.int64)  # [A, len]
    m = 28 - n * hand_size(n)
    chips = np.zeros((samples, A, n), np.int64)
    played = np.zeros((samples, A), np.int64)
    dealt = np.zeros((samples, A, n), np.int64)
    boneyard = np.zeros((samples, A, m), np.int64)
    bar = _progress(samples * A, "hand", progress)
    start = time.perf_counter()
    per_chunk = max(1, tables // A)
    for lo, hi in _chunks(samples, per_chunk):
        k = hi - lo
        engine = load_tables([d for d in deals[lo:hi] for _ in range(A)], [setter] * (k * A), n, seed + lo)
        forced = np.tile(forced_one, (k, 1))
        out = play_out(engine, agent_list, np.tile(seat_agent, (k * A, 1)), forced, bar)
        chips[lo:hi] = out.chips.reshape(k, A, n)
        played[lo:hi] = out.announcement.reshape(k, A)
        dealt[lo:hi] = out.dealt.reshape(k, A, n)
        boneyard[lo:hi] = out.boneyard.reshape(k, A, m)
    if bar is not None:
        bar.close()
    expected = np.array([a.index for a in announcements])
    if not (played == expected[None, :]).all():
        raise RuntimeError("a table played another announcement than the one forced on it")
    return HandEvaluation(tiles=tiles, set_tile=set_tile, drawn=drawn, num_players=n, setter=setter,
                          agents=[agents] if isinstance(agents, str) else list(agents), seed=seed,
                          announcements=announcements, chips=chips, played=played, dealt=dealt,
                          boneyard=boneyard, seconds=time.perf_counter() - start)


# --------------------------------------------------------------------- survey
@dataclass
class SurveyResult:
    num_players: int
    rollouts: int
    agents: list[str]
    seed: int
    hands: list[list[Tile]]  # the setter's dealt tiles per hand
    set_tiles: list[Tile]
    drawn: np.ndarray  # [H] bool
    chips: np.ndarray = field(repr=False)  # [H, rollouts, 76] setter chips; NaN where not legal
    seconds: float = 0.0

    def means(self, rollouts: np.ndarray | None = None) -> np.ndarray:
        """[H, 76] the setter's mean chips per announcement over the given rollouts (all by
        default); NaN where not legal."""
        chips = self.chips if rollouts is None else self.chips[:, rollouts]
        legal = ~np.isnan(chips[:, 0, :])
        sums = np.where(legal[:, None, :], chips, 0.0).sum(axis=1)
        return np.where(legal, sums / chips.shape[1], np.nan)

    def game_values(self) -> np.ndarray:
        """[H, 17]: the setter's chips under the game's best announcement (NaN: not legal).

        The maximum of a game's announcements' sample means overrates games with many
        variants (game 11 has 32): with noisy means the largest is too large. So the
        rollouts are split in two halves; the variant picked on one half is valued on
        the other, both ways, and the two values averaged. With one rollout there is
        no split and the plain maximum is used.
        """
        R = self.chips.shape[1]
        out = np.full((len(self.hands), 17), np.nan)
        if R < 2:
            folds = [(self.means(), self.means())]
        else:
            even, odd = np.arange(R) % 2 == 0, np.arange(R) % 2 == 1
            folds = [(self.means(even), self.means(odd)), (self.means(odd), self.means(even))]
        rows = np.arange(len(self.hands))
        for g in GAMES:
            cols = np.flatnonzero(ANN_GAME == g)
            legal = ~np.isnan(self.chips[:, 0, cols]).all(axis=1)
            values = []
            for pick_on, value_on in folds:
                pick = np.where(np.isnan(pick_on[:, cols]), -np.inf, pick_on[:, cols]).argmax(axis=1)
                values.append(value_on[rows, cols[pick]])
            out[legal, g - 1] = np.mean(values, axis=0)[legal]
        return out

    def best_game(self) -> np.ndarray:
        """[H] the game (1..17) with the highest (cross-validated) value."""
        return np.where(np.isnan(self.game_values()), -np.inf, self.game_values()).argmax(axis=1) + 1

    def best_announcement(self) -> np.ndarray:
        """[H] the best game's announcement with the highest mean (index into ALL_ANNOUNCEMENTS)."""
        means = np.where(np.isnan(self.means()), -np.inf, self.means())
        means[ANN_GAME[None, :] != self.best_game()[:, None]] = -np.inf
        return means.argmax(axis=1)

    def game_advantage(self) -> np.ndarray:
        """[H, 17]: the game's value minus the hand's average announcement (NaN: not legal)."""
        return self.game_values() - np.nanmean(self.means(), axis=1)[:, None]

    def buckets(self) -> list[dict[str, str]]:
        return [feature_buckets(t, s, bool(d)) for t, s, d in zip(self.hands, self.set_tiles, self.drawn)]

    def tactics_choices(self) -> np.ndarray:
        return np.array([tactics_choice(t, s, self.num_players) for t, s in zip(self.hands, self.set_tiles)])

    def summary(self) -> dict:
        means, values = self.means(), self.game_values()
        average = np.nanmean(means, axis=1)
        best, best_game = self.best_announcement(), self.best_game()
        buckets = self.buckets()

        def stats(rows: np.ndarray) -> dict:
            legal = ~np.isnan(values[rows])  # [hands in bucket, 17]
            share = np.full(17, np.nan)
            advantage = np.full(17, np.nan)
            seen = legal.any(axis=0)  # games legal for some hand of the bucket
            if seen.any():
                share[seen] = (best_game[rows, None] == np.array(GAMES)).mean(axis=0)[seen]
                advantage[seen] = np.nanmean((values[rows] - average[rows, None])[:, seen], axis=0)
            counts = np.bincount(best[rows], minlength=NUM_ANN)
            top = [{"announcement": str(ALL_ANNOUNCEMENTS[i]), "hands": int(counts[i])}
                   for i in np.argsort(-counts, kind="stable")[:3] if counts[i]]
            return {"hands": int(rows.sum()), "best_game_share": share.tolist(),
                    "mean_game_advantage": advantage.tolist(), "top_announcements": top}

        features = {group: {label: stats(np.array([b[group] == label for b in buckets], bool)) for label in labels}
                    for group, labels in BUCKETS.items()}
        tactics = self.tactics_choices()
        rows = np.arange(len(best))
        per_hand = []
        for h, (tiles, set_tile, drawn, bk) in enumerate(zip(self.hands, self.set_tiles, self.drawn, buckets)):
            per_hand.append({
                "tiles": [tile_str(t) for t in tiles], "set_tile": tile_str(set_tile), "set_drawn": bool(drawn), **bk,
                "best": str(ALL_ANNOUNCEMENTS[best[h]]), "best_game": int(best_game[h]),
                "tactics_choice": str(ALL_ANNOUNCEMENTS[tactics[h]]),
                "game_values": [round(float(v), 3) for v in values[h]],
                "means": [round(float(v), 3) for v in means[h]]})
        return {
            "num_players": self.num_players, "rollouts": self.rollouts, "agents": self.agents, "seed": self.seed,
            "hands": len(self.hands), "seconds": self.seconds, "games": {str(g): GAME_NAMES[g] for g in GAMES},
            "all": stats(np.ones(len(best), bool)), "features": features,
            "tactics": {"same_announcement": float((tactics == best).mean()),
                        "same_game": float((ANN_GAME[tactics] == best_game).mean()),
                        "mean_vs_average": float(np.mean(means[rows, tactics] - average))},
            "announcements": [str(a) for a in ALL_ANNOUNCEMENTS], "per_hand": per_hand,
        }

    def table(self) -> str:
        s = self.summary()
        lines = [f"{s['hands']} hands, {self.num_players} players, {self.rollouts} rollouts per announcement, "
                 f"agents {'/'.join(self.agents)}, seed {self.seed}, {self.seconds:.1f} s", "",
                 "which game is best (share of hands where its value is highest) and the mean advantage of",
                 "its best announcement over the hand's average announcement (chips; the best variant is picked",
                 "on half of the rollouts and valued on the other half, so games with many variants are not",
                 "favoured); '-': the game was never legal", "",
                 f"{'game':48s} {'best in':>8s} {'advantage':>10s}"]
        for g in GAMES:
            share, adv = s["all"]["best_game_share"][g - 1], s["all"]["mean_game_advantage"][g - 1]
            lines.append(f"{g:2d} {GAME_NAMES[g]:45s} " + (f"{100 * share:7.1f}% {adv:+10.2f}"
                                                          if not math.isnan(share) else f"{'-':>8s} {'-':>10s}"))
        lines += ["", "by hand features: hands, the three games most often best (share), the most often best "
                      "announcement", ""]
        for group, labels in BUCKETS.items():
            for label in labels:
                st = s["features"][group][label]
                if not st["hands"]:
                    continue
                share = np.array(st["best_game_share"])
                top = ", ".join(f"{g + 1} ({100 * share[g]:.0f}%)" for g in np.argsort(-share, kind="stable")[:3]
                                if share[g] > 0)
                best = st["top_announcements"][0]["announcement"] if st["top_announcements"] else "-"
                lines.append(f"{group + ' ' + label:24s} {st['hands']:6d}  {top:34s} {best}")
        t = s["tactics"]
        lines += ["", f"Tactics' announcement is the rollout best in {100 * t['same_announcement']:.1f}% of hands "
                      f"(same game {100 * t['same_game']:.1f}%), worth {t['mean_vs_average']:+.2f} chips over "
                      "the average announcement"]
        return "\n".join(lines)

    def to_json(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(_clean(self.summary()), f)

    def to_png(self, path: str) -> None:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        s = self.summary()
        labels, share, adv = [], [], []
        for group, names in BUCKETS.items():
            for label in names:
                st = s["features"][group][label]
                if st["hands"]:
                    labels.append(f"{group} {label} ({st['hands']})")
                    share.append(st["best_game_share"])
                    adv.append(st["mean_game_advantage"])
        share, adv = 100 * np.array(share, float), np.array(adv, float)
        fig, axes = plt.subplots(1, 2, figsize=(18, 0.4 * len(labels) + 3))
        limit = np.nanmax(np.abs(adv)) if np.isfinite(adv).any() else 1.0
        panels = ((share, "share of hands where the game is best (%)", "viridis", 0, max(1.0, np.nanmax(share))),
                  (adv, "mean advantage of the game over the average announcement (chips)", "RdBu", -limit, limit))
        for ax, (data, title, cmap, lo, hi) in zip(axes, panels):
            image = ax.imshow(np.ma.masked_invalid(data), aspect="auto", cmap=cmap, vmin=lo, vmax=hi)
            ax.set_xticks(range(17), [f"{g} {GAME_NAMES[g][:22]}" for g in GAMES], rotation=90, fontsize=7)
            ax.set_yticks(range(len(labels)), labels, fontsize=8)
            ax.set_title(title, fontsize=10)
            for (i, j), v in np.ndenumerate(data):
                if not math.isnan(v):
                    ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=6)
            fig.colorbar(image, ax=ax, fraction=0.03)
        fig.suptitle(f"Nos announcements by hand features: {s['hands']} hands, {self.num_players} players, "
                     f"{self.rollouts} rollouts each, agents {'/'.join(self.agents)}")
        fig.tight_layout()
        fig.savefig(path, dpi=110)
        plt.close(fig)


def choose_set_tiles(deals: list[Deal], agent: Agent, seed: int) -> tuple[list[Tile], np.ndarray]:
    """The set tile of seat 0 in each deal: his agent's choice among his doubles, else the drawn top tile."""
    n = deals[0].num_players
    set_tiles: list[Tile] = [d.boneyard[0] for d in deals]
    drawn = np.array([not any(is_double(t) for t in d.hands[0]) for d in deals])
    choosing = np.flatnonzero(~drawn)
    if len(choosing):
        engine = load_tables([deals[i] for i in choosing], [0] * len(choosing), n, seed)
        seats = np.zeros(len(choosing), np.int64)
        context = BatchContext(tables=engine, table_index=np.arange(len(choosing)), seats=seats)
        actions = agent.act_batch(engine.observe(seats), engine.masks.copy(), context)
        for i, a in zip(choosing, actions):
            set_tiles[i] = ALL_TILES[int(a) - SET0]
    return set_tiles, drawn


def _chunk_agents(specs, n: int, seed: int, lo: int) -> tuple[list[Agent], np.ndarray]:
    """A chunk's own agents: the chunk starting at job 0 has the run's seeds, chunk ``lo`` ``seed + lo``'s."""
    return make_seat_agents(specs, n, seed + lo)


def _survey_chunk(specs, n: int, seed: int, lo: int, deals: list, forced: np.ndarray, announcements: np.ndarray,
                  bar=None) -> np.ndarray:
    """Play one chunk of the survey's jobs (deals with their forced set and announcement): the setter's chips."""
    agent_list, seat_agent = _chunk_agents(specs, n, seed, lo)
    engine = load_tables(deals, [0] * len(deals), n, seed + lo)
    out = play_out(engine, agent_list, np.tile(seat_agent, (len(deals), 1)), forced, bar)
    if not (out.announcement == announcements).all():
        raise RuntimeError("a table played another announcement than the one forced on it")
    return out.chips[:, 0]


def _run_chunks(fn, jobs: list, bar, ray: bool, ray_address: str | None) -> list:
    """``fn(*job)`` for every job, here (in order, updating ``bar``) or as Ray tasks (agents/distributed.py)."""
    if not ray:
        return [fn(*job, bar=bar) for job in jobs]
    from .distributed import map_tasks

    def done(result):
        if bar is not None:
            bar.update(len(result[0]) if isinstance(result, tuple) else len(result))
    return map_tasks(fn, jobs, address=ray_address, done=done)


def survey(hands: int = 500, rollouts: int = 8, num_players: int = 4, agents=("tactics",), seed: int = 0,
           tables: int = DEFAULT_TABLES, progress: bool = False, ray: bool = False,
           ray_address: str | None = None) -> SurveyResult:
    """Many random setter hands, every legal announcement played ``rollouts`` times on shared deals.

    The rollouts are played in chunks of ``tables`` tables, each with its own agents seeded from
    the chunk; ``ray`` plays the chunks as Ray tasks (on the cluster at ``ray_address``, or a
    local Ray), with the same results as here for the same arguments."""
    n = check_num_players(num_players)
    hands = _check_count("hands", hands)
    rollouts = _check_count("rollouts", rollouts)
    tables = _check_count("tables", tables)
    agent_list, seat_agent = make_seat_agents(agents, n, seed)
    if ray_address is not None and not ray:
        raise ValueError("ray_address names the cluster for ray=True; give ray=True too")
    rng = np.random.default_rng(seed)
    deals = [Deal.random(n, rng) for _ in range(hands)]  # the setter sits at seat 0
    set_tiles, drawn = choose_set_tiles(deals, agent_list[seat_agent[0]], seed)
    # Jobs: (hand, rollout deal, announcement); the rollout deals of a hand are shared by its announcements.
    jobs_deal, jobs_forced, jobs_slot = [], [], []
    for h, deal in enumerate(deals):
        tiles = list(deal.hands[0])
        prefix = set_prefix(set_tiles[h], bool(drawn[h]))
        anns = legal_announcements(set_tiles[h])
        for r in range(rollouts):
            sample = sample_deal(tiles, set_tiles[h], bool(drawn[h]), n, 0, rng)
            for a in anns:
                jobs_deal.append(sample)
                jobs_forced.append(prefix + [ANNOUNCE0 + a.index])
                jobs_slot.append((h, r, a.index))
    width = max(len(f) for f in jobs_forced)
    forced = np.array([f + [-1] * (width - len(f)) for f in jobs_forced], np.int64)
    slots = np.array(jobs_slot, np.int64)
    chips = np.full((hands, rollouts, NUM_ANN), np.nan)
    bar = _progress(len(jobs_deal), "survey", progress)
    start = time.perf_counter()
    # Each chunk of tables is its own engine and its own agents, seeded from the chunk's first job:
    # independent pieces, the same whether they run here or as Ray tasks (ray=True).
    chunks = list(_chunks(len(jobs_deal), tables))
    jobs = [(agents, n, seed, lo, jobs_deal[lo:hi], forced[lo:hi], slots[lo:hi, 2]) for lo, hi in chunks]
    for (lo, hi), played in zip(chunks, _run_chunks(_survey_chunk, jobs, bar, ray, ray_address)):
        h, r, a = slots[lo:hi].T
        chips[h, r, a] = played
    if bar is not None:
        bar.close()
    return SurveyResult(num_players=n, rollouts=rollouts, agents=[agents] if isinstance(agents, str) else list(agents),
                        seed=seed, hands=[list(d.hands[0]) for d in deals], set_tiles=set_tiles, drawn=drawn,
                        chips=chips, seconds=time.perf_counter() - start)


# -------------------------------------------------------------------- compare
@dataclass
class CompareResult:
    announcer_a: str
    announcer_b: str
    play: str
    num_players: int
    seed: int
    chips_a: np.ndarray  # [deals] setter's chip change with announcer A
    chips_b: np.ndarray
    ann_a: np.ndarray  # [deals] announcement index
    ann_b: np.ndarray
    set_a: np.ndarray  # [deals] set tile index
    set_b: np.ndarray
    seconds: float = 0.0

    def summary(self) -> dict:
        a, ci_a = mean_ci(self.chips_a)
        b, ci_b = mean_ci(self.chips_b)
        diff, ci_d = mean_ci(self.chips_a - self.chips_b)
        same = self.ann_a == self.ann_b
        both = same & (self.set_a == self.set_b)
        differ, ci_differ = mean_ci((self.chips_a - self.chips_b)[~both]) if (~both).any() else (math.nan, math.nan)
        games = {str(g): {"name": GAME_NAMES[g], "a": int((ANN_GAME[self.ann_a] == g).sum()),
                          "b": int((ANN_GAME[self.ann_b] == g).sum())} for g in GAMES}
        return {
            "announcer_a": self.announcer_a, "announcer_b": self.announcer_b, "play": self.play,
            "num_players": self.num_players, "deals": len(self.chips_a), "seed": self.seed, "seconds": self.seconds,
            "setter_mean_a": a, "ci95_a": ci_a, "setter_mean_b": b, "ci95_b": ci_b,
            "difference_a_minus_b": diff, "difference_ci95": ci_d, "significant": bool(abs(diff) > ci_d),
            "same_announcement": float(same.mean()), "same_set_tile": float((self.set_a == self.set_b).mean()),
            "same_set_and_announcement": float(both.mean()),
            "difference_where_choices_differ": differ, "difference_where_choices_differ_ci95": ci_differ,
            "games": games,
        }

    def table(self) -> str:
        s = self.summary()
        mark = " *" if s["significant"] else ""
        lines = [f"{s['deals']} deals, {self.num_players} players, tile play by {self.play}, seed {self.seed}, "
                 f"{self.seconds:.1f} s", "",
                 f"setter's chips per hand, announcer A {self.announcer_a:>12s}: {s['setter_mean_a']:+8.2f} ± "
                 f"{s['ci95_a']:.2f}",
                 f"setter's chips per hand, announcer B {self.announcer_b:>12s}: {s['setter_mean_b']:+8.2f} ± "
                 f"{s['ci95_b']:.2f}",
                 f"paired difference A - B (same deals):          {s['difference_a_minus_b']:+8.2f} ± "
                 f"{s['difference_ci95']:.2f}{mark}",
                 f"same announcement {100 * s['same_announcement']:.1f}%, same set tile "
                 f"{100 * s['same_set_tile']:.1f}%, both {100 * s['same_set_and_announcement']:.1f}%",
                 f"difference where the choices differ: {s['difference_where_choices_differ']:+.2f} ± "
                 f"{s['difference_where_choices_differ_ci95']:.2f}", "",
                 f"{'game announced':48s} {'A':>6s} {'B':>6s}"]
        for g, e in s["games"].items():
            if e["a"] or e["b"]:
                lines.append(f"{int(g):2d} {e['name']:45s} {e['a']:6d} {e['b']:6d}")
        return "\n".join(lines)

    def to_json(self, path: str) -> None:
        with open(path, "w") as f:
            json.dump(_clean(self.summary()), f, indent=1)


def _compare_chunk(announcer_a: str, announcer_b: str, play: str, n: int, seed: int, lo: int, deals: list,
                   setters: np.ndarray, bar=None) -> tuple:
    """One chunk of a comparison: each deal at two tables, A's and B's; the setter's chips,
    announcements and set tiles [k, 2]. The chunk at deal 0 uses the run's seeds, chunk ``lo``
    ``seed + lo``'s."""
    s = seed + lo
    player = _make(play, s * 1009)
    composites = [AnnounceWith(_make(announcer_a, s * 1009 + 1), player),
                  AnnounceWith(_make(announcer_b, s * 1009 + 2), player)]
    k = len(deals)
    # Table 2i plays deal lo+i with announcer A, table 2i+1 the same deal with B.
    engine = load_tables([d for d in deals for _ in range(2)], np.repeat(setters, 2), n, seed + lo)
    out = play_out(engine, composites, np.tile(np.arange(2 * k)[:, None] % 2, (1, n)), bar=bar)
    seat = np.repeat(setters, 2)
    return (out.chips[np.arange(2 * k), seat].reshape(k, 2), out.announcement.reshape(k, 2),
            out.set_tile.reshape(k, 2))


def compare_announcers(announcer_a: str, announcer_b: str, play: str = "tactics", deals: int = 500,
                       num_players: int = 4, seed: int = 0, tables: int = DEFAULT_TABLES,
                       progress: bool = False, ray: bool = False, ray_address: str | None = None) -> CompareResult:
    """The setter's chips when A or B sets and announces, on the same deals, ``play`` doing the rest.

    Deals and setters are random (a one-hand episode, D20); each deal is played at
    two tables, one per announcer. One ``play`` agent serves every other decision
    at both tables, so the tables differ only where the set or the announcement does.
    """
    n = check_num_players(num_players)
    deals = _check_count("deals", deals)
    tables = _check_count("tables", tables)
    if ray_address is not None and not ray:
        raise ValueError("ray_address names the cluster for ray=True; give ray=True too")
    rng = np.random.default_rng(seed)
    deal_list = [Deal.random(n, rng) for _ in range(deals)]
    setters = rng.integers(n, size=deals)
    chips = np.zeros((deals, 2), np.int64)
    anns = np.zeros((deals, 2), np.int64)
    sets = np.zeros((deals, 2), np.int64)
    bar = _progress(2 * deals, "compare", progress)
    start = time.perf_counter()
    # Each chunk of deals is its own engine and its own agents (seeded from the chunk's first deal):
    # independent pieces, the same here or as Ray tasks.
    chunks = list(_chunks(deals, max(1, tables // 2)))
    jobs = [(announcer_a, announcer_b, play, n, seed, lo, deal_list[lo:hi], setters[lo:hi]) for lo, hi in chunks]
    for (lo, hi), (c, a, t) in zip(chunks, _run_chunks(_compare_chunk, jobs, bar, ray, ray_address)):
        chips[lo:hi], anns[lo:hi], sets[lo:hi] = c, a, t
    if bar is not None:
        bar.close()
    return CompareResult(announcer_a=announcer_a, announcer_b=announcer_b, play=play, num_players=n, seed=seed,
                         chips_a=chips[:, 0], chips_b=chips[:, 1], ann_a=anns[:, 0], ann_b=anns[:, 1],
                         set_a=sets[:, 0], set_b=sets[:, 1], seconds=time.perf_counter() - start)


# ------------------------------------------------------------------------ CLI
def _parser() -> tuple[argparse.ArgumentParser, dict]:
    parser = argparse.ArgumentParser(prog="nos-announce",
                                     description="Nos announcements by rollouts on the fast engine")
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser, agents: bool = True, ray: bool = False) -> None:
        p.add_argument("--players", type=int, default=4, help="3, 4 or 5")
        p.add_argument("--seed", type=int, default=0)
        if agents:
            p.add_argument("--agents", nargs="+", default=["tactics"],
                           help="agent for every seat, or one per seat (names for make_agent)")
        p.add_argument("--tables", type=int, default=DEFAULT_TABLES, help="fast-engine tables stepped at once")
        p.add_argument("--json", help="write the results as JSON")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
        if ray:
            p.add_argument("--ray", action="store_true",
                           help="play the chunks of tables as Ray tasks (the ray extra; a local Ray unless "
                                "--ray-address); the results equal the local run's")
            p.add_argument("--ray-address", metavar="ADDRESS",
                           help="the Ray cluster for --ray: 'auto' (this node's cluster) or ray://HEAD:10001")

    hand = sub.add_parser("hand", help="every legal announcement for one hand and set tile")
    hand.add_argument("--tiles", required=True, help="the setter's dealt tiles, e.g. \"6-6 6-4 2-5 0-3\"")
    hand.add_argument("--set", required=True, dest="set_tile", help="the set tile, e.g. 6-6")
    hand.add_argument("--setter", type=int, default=0, help="the setter's seat")
    hand.add_argument("--samples", type=int, default=200, help="sampled deals (each played once per announcement)")
    hand.add_argument("--all", action="store_true", help="list every announcement (default: the best 25)")
    common(hand)
    surv = sub.add_parser("survey", help="best announcements and games over many random hands, by hand features")
    surv.add_argument("--hands", type=int, default=500)
    surv.add_argument("--rollouts", type=int, default=8, help="sampled deals per hand, shared by its announcements")
    surv.add_argument("--png", help="write the feature x game heatmap")
    common(surv, ray=True)
    comp = sub.add_parser("compare", help="two announcers, the same deals, tile play held fixed")
    comp.add_argument("--announcer-a", default="tactics")
    comp.add_argument("--announcer-b", default="greedy")
    comp.add_argument("--play", default="tactics", help="the agent making every other decision")
    comp.add_argument("--deals", type=int, default=500)
    common(comp, agents=False, ray=True)
    return parser, {"hand": hand, "survey": surv, "compare": comp}


def main(argv: list[str] | None = None) -> None:
    parser, subs = _parser()
    args = parser.parse_args(argv)
    progress = not args.quiet
    try:
        if args.command == "hand":
            tiles, set_tile = parse_tiles(args.tiles), parse_tiles(args.set_tile)
            if len(set_tile) != 1:
                raise ValueError(f"--set takes one tile, got {args.set_tile!r}")
            result = evaluate_hand(tiles, set_tile[0], args.players, args.setter, args.samples, args.agents,
                                   args.seed, args.tables, progress)
            print(result.table(limit=None if args.all else 25))
        elif args.command == "survey":
            result = survey(args.hands, args.rollouts, args.players, args.agents, args.seed, args.tables, progress,
                            ray=args.ray, ray_address=args.ray_address)
            print(result.table())
            if args.png:
                result.to_png(args.png)
        else:
            result = compare_announcers(args.announcer_a, args.announcer_b, args.play, args.deals, args.players,
                                        args.seed, args.tables, progress, ray=args.ray,
                                        ray_address=args.ray_address)
            print(result.table())
    except (ValueError, MissingExtraError) as exc:  # e.g. model:PATH without the train extra
        subs[args.command].error(str(exc))
    if args.json:
        result.to_json(args.json)


if __name__ == "__main__":
    main()
