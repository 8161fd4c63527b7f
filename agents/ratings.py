"""A persistent leaderboard of every agent and saved model ever evaluated, per game.

    nos-ratings                                   # print runs/leaderboard.json
    nos-ratings --leaderboard PATH --plot ratings.png

Ratings are openskill's Plackett-Luce model (``openskill.models.PlackettLuce``), which rates
games of any number of players from their finishing order, ties included. Every hand a
tournament plays is one game: its seats are ranked by the hand's chip change (more chips,
better rank; equal chips tie). In duplicate mode each rotation of a deal is a separate
game, and all of them are rated. A tournament's hands are rated one after another in a
fixed order (by deal, then rotation), so the same results always give the same ratings.

Identity. A built-in agent is its registry name plus the options it was built with
(``search`` and ``search{"rollouts": 8}`` are different entries). Its seed is not part of
it: a tournament derives every agent's seed from ``--seed``, and a seed changes tie-breaks,
not strength; the tournament's seed is recorded with the tournament instead. A saved model
is its resolved path plus the SHA-256 of the zip, so a model retrained at the same path
is a new entry. An agent object handed to :func:`agents.tournament.run_tournament` is its
class and ``name``.

The same agent in several seats of one game (``model tactics tactics tactics``): each seat
is rated as its own player from the agent's rating before the game, and the agent's new
rating is the mean of its seats' results, so a game among copies of one agent tells it
nothing about itself and the copies do not multiply its update.

The file is JSON (default ``runs/leaderboard.json``, else ``$NOS_LEADERBOARD``, else
``--leaderboard PATH``). Updates hold a lock on ``PATH.lock``, re-read the file, and replace
it atomically (a temporary file in the same folder, then ``os.replace``), so a crash or a
parallel tournament never leaves half a file. Each tournament is applied once: its id is a
hash of its game, agents and every hand's result, and ids already applied are skipped. A
file that is not a leaderboard is refused with an error naming it, and left as it was.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: Where the leaderboard lives unless ``--leaderboard`` or this environment variable says otherwise.
ENV_VAR = "NOS_LEADERBOARD"
DEFAULT_PATH = Path("runs") / "leaderboard.json"
FORMAT = "nos-env leaderboard"
VERSION = 1
#: The conservative rating is mu minus this many sigmas (openskill's and TrueSkill's usual 3).
CONSERVATIVE_SIGMAS = 3.0


class LeaderboardError(ValueError):
    """A leaderboard file that cannot be read or used; the message names the file."""


def default_path() -> Path:
    """``$NOS_LEADERBOARD`` if set (and not empty), else ``runs/leaderboard.json``."""
    env = os.environ.get(ENV_VAR)
    return Path(env) if env else DEFAULT_PATH


def _model():
    from openskill.models import PlackettLuce

    return PlackettLuce()


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat().replace("+00:00", "Z")


# ------------------------------------------------------------------ identity
def file_sha256(path: str | Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


@dataclass(frozen=True)
class AgentIdentity:
    """Who an agent is on the leaderboard: ``key`` (unique per game) and what it is made of."""

    key: str
    label: str  # shown in tables and plots
    info: dict  # kind, name, options / path, sha256 ...


def _options_suffix(info: dict, options: dict) -> str:
    """A saved model's identity suffix for the options it plays with (a space and their JSON; ""
    for none), the options recorded in ``info``."""
    if not options:
        return ""
    info["options"] = options
    return f" {json.dumps(options, sort_keys=True)}"


def agent_identity(spec, options: dict | None = None) -> AgentIdentity:
    """The leaderboard identity of an agent spec (``agents.registry``) or agent object."""
    from .registry import (AGENTS, ENSEMBLE_PREFIX, MODEL_PREFIX, RLLIB_PREFIX, SEARCH_PRIOR_PREFIX,
                           ensemble_paths, search_prior_spec)

    options = dict(options or {})
    if isinstance(spec, str) and spec.startswith(SEARCH_PRIOR_PREFIX):
        # Search with a trained model as its prior: the model's identity (its files' hashes), and
        # the options, which are the search's.
        prior = agent_identity(search_prior_spec(spec))
        info = {"kind": "search+prior", "prior": prior.info}
        suffix = _options_suffix(info, options)
        return AgentIdentity(f"search+{prior.key}{suffix}", f"search+{prior.label}{suffix}", info)
    if isinstance(spec, str) and spec.startswith(RLLIB_PREFIX):
        # A module checkpoint is a folder: its identity is the hash of its files, names and bytes.
        path = Path(spec[len(RLLIB_PREFIX):]).resolve()
        if not path.is_dir():
            raise ValueError(f"no RLlib module checkpoint folder at {str(path)!r} to rate (agent {spec!r})")
        digest = hashlib.sha256()
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            digest.update(str(f.relative_to(path)).encode() + b"\0" + file_sha256(f).encode())
        sha = digest.hexdigest()
        info = {"kind": "rllib", "path": str(path), "sha256": sha}
        return AgentIdentity(f"rllib:{path}@sha256:{sha}", f"rllib:{path.name}@{sha[:8]}", info)
    if isinstance(spec, str) and spec.startswith(MODEL_PREFIX):
        path = Path(spec[len(MODEL_PREFIX):]).resolve()
        if not path.is_file():
            raise ValueError(f"no trained model at {str(path)!r} to rate (agent {spec!r})")
        sha = file_sha256(path)
        info = {"kind": "model", "path": str(path), "sha256": sha}
        suffix = _options_suffix(info, options)
        return AgentIdentity(f"model:{path}@sha256:{sha}{suffix}", f"model:{path.name}@{sha[:8]}{suffix}", info)
    if isinstance(spec, str) and spec.startswith(ENSEMBLE_PREFIX):
        # Its members' files, in order (the same members in another order play the same moves, but
        # the leaderboard keeps what was asked for).
        paths = [Path(p).resolve() for p in ensemble_paths(spec)]
        missing = [str(p) for p in paths if not p.is_file()]
        if missing:
            raise ValueError(f"no trained model at {missing} to rate (agent {spec!r})")
        shas = [file_sha256(p) for p in paths]
        info = {"kind": "ensemble", "paths": [str(p) for p in paths], "sha256": shas}
        suffix = _options_suffix(info, options)
        key = ",".join(f"{p}@sha256:{sha}" for p, sha in zip(paths, shas))
        short = ",".join(f"{p.name}@{sha[:8]}" for p, sha in zip(paths, shas))
        return AgentIdentity(f"ensemble:{key}{suffix}", f"ensemble:{short}{suffix}", info)
    if isinstance(spec, str):
        if spec not in AGENTS:
            raise ValueError(f"unknown agent {spec!r}; known: {sorted(AGENTS)}, model:PATH, ensemble:PATH,PATH[,...], "
                             f"rllib:PATH or search+model:PATH (search+ensemble:...)")
        suffix = json.dumps(options, sort_keys=True, separators=(",", ":")) if options else ""
        info = {"kind": "builtin", "name": spec}
        if options:
            info["options"] = options
        return AgentIdentity(spec + suffix, spec + suffix, info)
    cls = type(spec)
    name = getattr(spec, "name", cls.__name__)
    where = f"{cls.__module__}.{cls.__qualname__}"
    return AgentIdentity(f"object:{where}:{name}", str(name), {"kind": "object", "class": where, "name": str(name)})


# ------------------------------------------------------------------- ranking
def ranks_from_chips(chips) -> list[int]:
    """Competition ranks of one game's seats, 1 = most chips; equal chips share a rank."""
    chips = [float(c) for c in chips]
    return [1 + sum(other > mine for other in chips) for mine in chips]


def rate_game(ratings: list[tuple[float, float]], ranks: list[int], model=None) -> list[tuple[float, float]]:
    """One game's new (mu, sigma) per seat, from the seats' ratings before it and their ranks."""
    model = model or _model()
    teams = [[model.rating(mu=mu, sigma=sigma)] for mu, sigma in ratings]
    rated = model.rate(teams, ranks=list(ranks))
    return [(float(team[0].mu), float(team[0].sigma)) for team in rated]


# --------------------------------------------------------------- the file
def _empty() -> dict:
    return {"format": FORMAT, "version": VERSION, "model": "openskill PlackettLuce", "games": {}}


def _check(data, path: Path) -> dict:
    """Raise LeaderboardError naming ``path`` unless ``data`` has the leaderboard's shape."""
    def bad(what: str):
        return LeaderboardError(f"{path} is not a usable leaderboard ({what}); fix or move it, "
                                f"or name another file with --leaderboard or ${ENV_VAR}")

    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise bad(f"expected a JSON object with \"format\": {FORMAT!r}")
    if data.get("version") != VERSION:
        raise bad(f"version {data.get('version')!r}, this nos-env reads version {VERSION}")
    if not isinstance(data.get("games"), dict):
        raise bad("\"games\" is not an object")
    for game, board in data["games"].items():
        if not isinstance(board, dict) or not isinstance(board.get("players"), dict) \
                or not isinstance(board.get("tournaments"), dict):
            raise bad(f"game {game!r} lacks \"players\" and \"tournaments\" objects")
        for key, player in board["players"].items():
            if not isinstance(player, dict) or not all(
                    isinstance(player.get(f), (int, float)) and math.isfinite(player[f]) for f in ("mu", "sigma")) \
                    or not isinstance(player.get("games"), int) or player["sigma"] <= 0:
                raise bad(f"player {key!r} of game {game!r} needs finite mu, positive sigma and a games count")
    return data


def load(path: str | Path | None = None) -> dict:
    """The leaderboard at ``path`` (default :func:`default_path`); an empty one if there is no file."""
    path = Path(path) if path is not None else default_path()
    if not path.exists():
        return _empty()
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LeaderboardError(f"cannot read the leaderboard {path}: {exc}") from exc
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LeaderboardError(f"{path} is not a usable leaderboard (not JSON: {exc}); fix or move it, "
                               f"or name another file with --leaderboard or ${ENV_VAR}") from exc
    return _check(data, path)


def _write_atomically(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private (0600); keep the leaderboard's mode, or a new file's usual one.
        os.chmod(tmp, path.stat().st_mode & 0o7777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=1)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def _locked(path: Path):
    """An exclusive lock on ``PATH.lock`` (POSIX), so two updates never interleave."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.with_name(path.name + ".lock"), "a") as lock:
        try:
            import fcntl
        except ImportError:  # not POSIX: the atomic replace still keeps the file whole
            yield
            return
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


# ----------------------------------------------------------------- updates
def tournament_id(game: str, keys: list[str], games: list[tuple[list[int], list[float]]]) -> str:
    """A hash of the game, the agents and every game's seats and chips: equal results, equal id."""
    digest = hashlib.sha256(json.dumps([game, keys], sort_keys=True).encode())
    for seat_agents, chips in games:
        digest.update(json.dumps([list(map(int, seat_agents)), [float(c) for c in chips]]).encode())
    return digest.hexdigest()[:24]


def apply_games(data: dict, identities: list[AgentIdentity], games: list[tuple[list[int], list[float]]],
                game: str = "nos", details: dict | None = None, when: str | None = None) -> bool:
    """Rate ``games`` (each: the agent index of every seat, and every seat's chip change) into
    ``data`` in order. Returns False, changing nothing, if this tournament was applied before."""
    keys = [identity.key for identity in identities]
    if len(set(keys)) != len(keys):
        raise ValueError(f"agents must be distinct identities, got {keys}")
    for g, (seat_agents, chips) in enumerate(games):
        if len(seat_agents) != len(chips) or not 2 <= len(chips) <= 5:
            raise ValueError(f"game {g}: give every seat's agent and chips (2 to 5 seats), "
                             f"got {len(seat_agents)} agents and {len(chips)} chip changes")
        if any(not 0 <= int(a) < len(keys) for a in seat_agents):
            raise ValueError(f"game {g}: agent index out of range 0..{len(keys) - 1}: {list(seat_agents)}")
        if not all(math.isfinite(float(c)) for c in chips):
            raise ValueError(f"game {g}: chip changes must be finite, got {list(chips)}")
    if not games:
        raise ValueError("no games to rate")
    tid = tournament_id(game, keys, games)
    board = data["games"].setdefault(game, {"players": {}, "tournaments": {}})
    if tid in board["tournaments"]:
        return False
    when = when or _now()
    model = _model()
    initial = model.rating()
    current = {}
    for identity in identities:
        player = board["players"].get(identity.key)
        current[identity.key] = (player["mu"], player["sigma"]) if player else (float(initial.mu), float(initial.sigma))
    played = dict.fromkeys(keys, 0)
    for seat_agents, chips in games:
        seat_keys = [keys[int(a)] for a in seat_agents]
        new = rate_game([current[k] for k in seat_keys], ranks_from_chips(chips), model)
        for k in dict.fromkeys(seat_keys):  # an agent in several seats: the mean of its seats' results
            mine = [rating for key, rating in zip(seat_keys, new) if key == k]
            current[k] = (sum(m for m, _ in mine) / len(mine), sum(s for _, s in mine) / len(mine))
            played[k] += 1
    for identity in identities:
        mu, sigma = current[identity.key]
        player = board["players"].setdefault(identity.key, {"label": identity.label, **identity.info,
                                                            "games": 0, "first_seen": when, "history": []})
        player.update(mu=mu, sigma=sigma, games=player["games"] + played[identity.key], last_updated=when)
        player["history"].append({"tournament": tid, "time": when, "mu": mu, "sigma": sigma,
                                  "games": player["games"]})
    board["tournaments"][tid] = {"applied": when, "agents": keys, "games": len(games), **(details or {})}
    return True


def update(path: str | Path | None, identities: list[AgentIdentity], games: list[tuple[list[int], list[float]]],
           game: str = "nos", details: dict | None = None) -> bool:
    """Apply one tournament's games to the leaderboard file (locked, re-read, replaced atomically).
    Returns False if the tournament had been applied already (the file is then not rewritten)."""
    path = Path(path) if path is not None else default_path()
    with _locked(path):
        data = load(path)
        if not apply_games(data, identities, games, game, details):
            return False
        _write_atomically(path, data)
    return True


def tournament_games(result) -> list[tuple[list[int], list[float]]]:
    """Every hand of an :class:`agents.tournament.TournamentResult` as a game, by deal then rotation."""
    order = np.lexsort(tuple(result.seat_agent[:, s] for s in reversed(range(result.num_players))) + (result.deal,))
    return [(result.seat_agent[h].tolist(), result.chips[h].tolist()) for h in order]


def update_from_tournament(path: str | Path | None, result, agents: list,
                           agent_options: dict | None = None, game: str = "nos") -> bool:
    """Rate a tournament's hands on the leaderboard. ``agents``: one per seat, as given to
    ``run_tournament`` (with its ``agent_options``), or their :class:`AgentIdentity` taken before
    the run (so a model is hashed as it was when it played)."""
    agent_options = agent_options or {}
    identities = [spec if isinstance(spec, AgentIdentity) else
                  agent_identity(spec, agent_options.get(spec) if isinstance(spec, str) else None)
                  for spec in agents]
    if len(identities) != result.num_players:
        raise ValueError(f"give one agent per seat: the tournament had {result.num_players}, got {len(identities)}")
    # The same agent in several seats is one player: index the games by distinct identity.
    distinct = list({identity.key: identity for identity in identities}.values())
    index = {identity.key: i for i, identity in enumerate(distinct)}
    to_distinct = [index[identity.key] for identity in identities]
    games = [([to_distinct[a] for a in seats], chips) for seats, chips in tournament_games(result)]
    details = {"seed": int(result.seed), "duplicate": bool(result.duplicate), "num_players": int(result.num_players),
               "deals": int(len(np.unique(result.deal))), "seats": [identity.key for identity in identities]}
    return update(path, distinct, games, game, details)


# ----------------------------------------------------------------- reports
def standings(data: dict, game: str) -> list[dict]:
    """The players of ``game``, best conservative rating (mu - 3 sigma) first."""
    players = data["games"].get(game, {"players": {}})["players"]
    rows = [{"key": key, "label": p.get("label", key), "mu": p["mu"], "sigma": p["sigma"],
             "rating": p["mu"] - CONSERVATIVE_SIGMAS * p["sigma"], "games": p["games"],
             "last_updated": p.get("last_updated", ""), "history": p.get("history", [])}
            for key, p in players.items()]
    return sorted(rows, key=lambda r: (-r["rating"], -r["mu"], r["key"]))


def table(data: dict, game: str | None = None) -> str:
    games = [game] if game else sorted(data["games"])
    if not games:
        return "the leaderboard is empty: run a tournament (nos-tournament) to fill it"
    lines = []
    for g in games:
        rows = standings(data, g)
        board = data["games"].get(g, {"tournaments": {}})
        lines += [f"game {g}: {len(rows)} agents, {len(board['tournaments'])} tournaments "
                  f"(openskill Plackett-Luce; rating = mu - 3 sigma)",
                  f"{'rank':>4s}  {'agent':40s} {'mu':>7s} {'sigma':>6s} {'rating':>7s} {'games':>7s}  last updated"]
        for i, r in enumerate(rows, 1):
            lines.append(f"{i:4d}  {r['label'][:40]:40s} {r['mu']:7.2f} {r['sigma']:6.2f} {r['rating']:7.2f} "
                         f"{r['games']:7d}  {r['last_updated']}")
        lines.append("")
    return "\n".join(lines).rstrip()


def plot(data: dict, path: str | Path, game: str | None = None) -> None:
    """Per game: each agent's mu with its ±3 sigma interval (left) and its rating over updates (right)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    games = [game] if game else sorted(data["games"])
    if not games or not any(standings(data, g) for g in games):
        raise ValueError("the leaderboard has no rated agents to plot")
    height = max(2.5, 0.45 * max(len(standings(data, g)) for g in games) + 1.5)
    fig, axes = plt.subplots(len(games), 2, figsize=(12, height * len(games)), squeeze=False)
    for (left, right), g in zip(axes, games):
        rows = standings(data, g)[::-1]  # best at the top of the bar chart
        labels = [r["label"] for r in rows]
        y = np.arange(len(rows))
        left.errorbar([r["mu"] for r in rows], y, xerr=[CONSERVATIVE_SIGMAS * r["sigma"] for r in rows],
                      fmt="o", capsize=5, color="#4C72B0", label="mu ± 3 sigma")
        left.plot([r["rating"] for r in rows], y, "|", markersize=14, color="#C44E52", label="rating (mu - 3 sigma)")
        left.set_yticks(y, labels)
        left.set_xlabel("openskill rating")
        left.set_title(f"{g}: ratings")
        left.legend(loc="lower right", fontsize=8)
        start = _model().rating()  # every agent starts from the model's prior (update 0)
        for r in rows[::-1]:
            history = [{"mu": start.mu, "sigma": start.sigma}] + r["history"]
            right.plot(range(len(history)),
                       [h["mu"] - CONSERVATIVE_SIGMAS * h["sigma"] for h in history], marker="o", label=r["label"])
        right.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
        right.set_xlabel("update (tournaments the agent played; 0 = the prior)")
        right.set_ylabel("rating (mu - 3 sigma)")
        right.set_title(f"{g}: history")
        right.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description="The leaderboard of every agent and saved model rated by nos-tournament (openskill).")
    parser.add_argument("--leaderboard", metavar="PATH",
                        help=f"the leaderboard file; default ${ENV_VAR}, else {DEFAULT_PATH}")
    parser.add_argument("--game", help="only this game (default: every game on the leaderboard)")
    parser.add_argument("--plot", metavar="PNG", help="draw the ratings with their intervals and histories")
    args = parser.parse_args(argv)
    path = Path(args.leaderboard) if args.leaderboard else default_path()
    try:
        data = load(path)
    except LeaderboardError as exc:
        parser.error(str(exc))
    if args.game and args.game not in data["games"]:
        parser.error(f"no game {args.game!r} on the leaderboard {path}; it has {sorted(data['games'])}")
    print(f"leaderboard {path}")
    print(table(data, args.game))
    if args.plot:
        try:
            plot(data, args.plot, args.game)
        except ValueError as exc:
            parser.error(str(exc))


if __name__ == "__main__":
    main()
