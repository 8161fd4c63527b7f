"""Playthroughs (after OpenSpiel): whole episodes with every decision pinned.

A playthrough file holds one episode of one game, played through the AEC
environment by a seeded uniformly random policy, and for every decision:

- the agent to move, the action index and its text;
- the legal action indices (the mask);
- a digest of every agent's observation before the decision (dtype, shape
  and bytes, so a changed encoding shows up even when the values do not);
- every agent's reward after the step, and whether the episode ended.

The file also carries the game, its parameters and both seeds, so one
generic recorder writes every file and one generic check replays every file:
a change of rules, of the action encoding or of the observation encoding
fails the check at the first decision it touches, naming the field. Rules
changes and encoding changes are then deliberate: regenerate and review the
diff. ::

    python -m nos_env.playthrough regenerate tests/playthroughs   # every file, from its own header
    python -m nos_env.playthrough record --game nos --param num_players=5 --seed 3 -o FILE
    python -m nos_env.playthrough family tests/playthroughs      # every family game and option value
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np

FORMAT = "nos-env-playthrough/1"


class PlaythroughMismatch(AssertionError):
    """The environment no longer plays a recorded playthrough; names the step and the field."""


def make_env(game: str, params: dict, backend: str | None = None):
    """The AEC environment of ``game`` with ``params`` (and a backend, where the game has two)."""
    from .registry import env

    kwargs = dict(params)
    if backend is not None:
        kwargs["backend"] = backend
    return env(game=game, **kwargs)


def observation_digest(observation) -> str:
    """A short digest of an observation's dtype, shape and bytes."""
    array = np.ascontiguousarray(observation)
    h = hashlib.sha256(f"{array.dtype.str}{array.shape}".encode())
    h.update(array.tobytes())
    return h.hexdigest()[:16]


def _episode(env, seed: int, policy_seed: int, actions: list[int] | None = None):
    """Yield one record per decision; with ``actions`` the recorded actions are replayed."""
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = np.random.default_rng(policy_seed)
    k = 0
    for agent in env.agent_iter():
        _, _, termination, truncation, _ = env.last()
        if termination or truncation:
            env.step(None)
            continue
        mask = env.observe(agent)["action_mask"]
        legal = [int(i) for i in np.flatnonzero(mask)]
        digests = {a: observation_digest(env.observe(a)["observation"]) for a in env.agents}
        if actions is None:
            action = int(rng.choice(legal))
        else:
            if k >= len(actions):
                raise PlaythroughMismatch(f"step {k}: the episode goes on after the recorded {len(actions)} steps")
            action = actions[k]
        text = raw.action_to_text(action) if action in legal else None
        env.step(action)
        yield {
            "agent": agent,
            "action": action,
            "text": text,
            "legal": legal,
            "observations": digests,
            "rewards": [float(env.rewards[a]) for a in env.possible_agents],
            "done": all(env.terminations[a] or env.truncations[a] for a in env.possible_agents),
        }
        k += 1


def record(game: str, params: dict, seed: int, policy_seed: int, comment: str = "", backend: str | None = None) -> dict:
    """Play one episode with a seeded random policy and pin every decision (on ``backend``, where
    the game has two: the family files are recorded on the reference engine)."""
    env = make_env(game, params, backend)
    steps = list(_episode(env, seed, policy_seed))
    return {
        "format": FORMAT,
        "game": game,
        "params": dict(params),
        "seed": seed,
        "policy_seed": policy_seed,
        "comment": comment,
        "agents": list(env.possible_agents),
        "steps": steps,
        "returns": [float(sum(s["rewards"][i] for s in steps)) for i in range(len(env.possible_agents))],
    }


def check(data: dict, backend: str | None = None) -> None:
    """Replay a playthrough and raise :class:`PlaythroughMismatch` at the first difference."""
    if data.get("format") != FORMAT:
        raise PlaythroughMismatch(f"not a playthrough of format {FORMAT!r}: {data.get('format')!r}")
    env = make_env(data["game"], data["params"], backend)
    want = data["steps"]
    got = list(_episode(env, data["seed"], data["policy_seed"], [s["action"] for s in want]))
    for i, (w, g) in enumerate(zip(want, got)):
        for key in ("agent", "legal", "text", "observations", "rewards", "done"):
            if w[key] != g[key]:
                raise PlaythroughMismatch(f"step {i} ({w['agent']}, {w['text']!r}): {key} was {w[key]!r}, "
                                          f"now {g[key]!r}")
    if len(got) != len(want):
        raise PlaythroughMismatch(f"the episode now ends after {len(got)} steps, the record has {len(want)}")


def save(data: dict, path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    # One step a line: a regenerated file diffs step by step.
    head = {k: v for k, v in data.items() if k != "steps"}
    lines = [json.dumps(step, separators=(",", ":")) for step in data["steps"]]
    text = json.dumps(head, indent=1)[:-2] + ',\n "steps": [\n  ' + ",\n  ".join(lines) + "\n ]\n}\n"
    assert json.loads(text) == data
    path.write_text(text)


def load(path: Path) -> dict:
    return json.loads(Path(path).read_text())


def regenerate(directory: Path) -> list[Path]:
    """Record every playthrough in ``directory`` again from its own header."""
    paths = sorted(Path(directory).glob("*.json"))
    if not paths:
        raise FileNotFoundError(f"no playthrough files in {directory}")
    for path in paths:
        old = load(path)
        backend = "reference" if old["game"] in FAMILY_RECORD_ON_REFERENCE else None
        save(record(old["game"], old["params"], old["seed"], old["policy_seed"], old.get("comment", ""), backend),
             path)
    return paths


#: Family games are recorded on the reference engine (the readable one); the check replays
#: them on both.
FAMILY_RECORD_ON_REFERENCE = ("block", "draw", "cross", "double_nine_cross", "matador", "all_fives",
                              "fives_and_threes", "five_up", "bergen", "fours", "blind", "chickenfoot",
                              "mexican_train")
#: A value other than the default for each family option (those a game's rules refuse are left out).
FAMILY_VARIANTS = {
    "opening": ("highest_tile", "free", "highest_double", "lowest_tile"),
    "first_seat": (1,),
    "tileset": ("double_nine", "double_twelve"),
    "hand_size": (3,),
    "draw_rule": ("one",),
    "cross_phase_draw": ("one",),
    "boneyard_reserve": (2,),
    "blocked_scoring": ("total",),
    "hand_scoring": ("one_point",),
    "award_rounding": ("total",),
    "spinners": ("first",),
    "multi_play": ("may",),
    "teams": (True,),
    "team_out": ("both",),
    "double_counts_one_end": (True,),
    "stock_to_winner": (True,),
    "play_on_double": (True,),
    "optional_play": (True,),
    "missing_set": ("redeal",),
}


def one_hand(game: str) -> dict:
    """The parameters that make an episode of ``game`` one hand (``rules.one_hand_options``)."""
    from .family.rules import one_hand_options

    return one_hand_options(game)


def family_specs() -> list[tuple[str, str, dict]]:
    """(file name, game, params) of the family playthroughs: per game, one hand for every player
    count, one match with the page's defaults, and one hand for every option value other than
    its default (``FAMILY_VARIANTS``)."""
    from .family_backends import rules_for
    from .registry import game_info

    specs = []
    for game in FAMILY_RECORD_ON_REFERENCE:
        rules = rules_for(game, None, {})
        for n in game_info(game).player_counts:
            specs.append((f"{game}_{n}p", game, {"num_players": n, **one_hand(game)}))
        if rules.target_score is not None:
            specs.append((f"{game}_match", game, {}))
        if game == "mexican_train":  # a match of two rounds on double-nine: the round change, small files
            specs.append((f"{game}_match", game, {"tileset": "double_nine", "rounds": 2}))
        defaults = rules.options()
        for name in defaults:
            for value in FAMILY_VARIANTS.get(name, ()):
                params = {name: value}
                if name == "first_seat" and defaults.get("opening") != "free" and game != "mexican_train":
                    params["opening"] = "free"
                if name == "team_out":
                    params["teams"] = True
                if game == "mexican_train":
                    params.update(one_hand(game))
                else:
                    for key, single in one_hand(game).items():
                        params.setdefault(key, single)
                if value == defaults[name] or not _accepted(game, params):
                    continue
                specs.append((f"{game}_{name}_{str(value).lower()}", game, params))
    return specs


def _accepted(game: str, params: dict) -> bool:
    from .family_backends import rules_for

    try:
        rules_for(game, params.get("num_players"), {k: v for k, v in params.items() if k != "num_players"})
    except ValueError:
        return False
    return True


def record_family(directory: Path, seed: int = 0, policy_seed: int = 0) -> list[Path]:
    """Write every family playthrough of :func:`family_specs` into ``directory``."""
    paths = []
    for name, game, params in family_specs():
        path = Path(directory) / f"{name}.json"
        save(record(game, params, seed, policy_seed, f"family: {name}", backend="reference"), path)
        paths.append(path)
    return paths


def _param(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"a parameter is KEY=VALUE (VALUE in JSON), got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value  # a bare string


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m nos_env.playthrough", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    regen = sub.add_parser("regenerate", help="record every file of a folder again from its own header")
    regen.add_argument("directory", type=Path)
    rec = sub.add_parser("record", help="record one new playthrough")
    rec.add_argument("--game", default="nos")
    rec.add_argument("--param", type=_param, action="append", default=[], metavar="KEY=VALUE",
                     help="an environment parameter, VALUE in JSON (repeatable)")
    rec.add_argument("--seed", type=int, default=0, help="the environment's reset seed")
    rec.add_argument("--policy-seed", type=int, default=0, help="the random policy's seed")
    rec.add_argument("--comment", default="")
    rec.add_argument("-o", "--output", type=Path, required=True)
    fam = sub.add_parser("family", help="record every family playthrough (family_specs) into a folder")
    fam.add_argument("directory", type=Path)
    chk = sub.add_parser("check", help="replay playthrough files and report the first difference")
    chk.add_argument("files", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if args.command == "regenerate":
        for path in regenerate(args.directory):
            print(f"wrote {path}")
    elif args.command == "family":
        for path in record_family(args.directory):
            print(f"wrote {path}")
    elif args.command == "record":
        save(record(args.game, dict(args.param), args.seed, args.policy_seed, args.comment), args.output)
        print(f"wrote {args.output}")
    else:
        for path in args.files:
            check(load(path))
            print(f"ok {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
