"""Evaluating a policy through the tournament harness, and the run's CSV logs (used by the
trainer and the final report)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from agents.tournament import run_tournament

#: Evaluations use their own deals, the same at every evaluation, so the curve compares like with like.
EVAL_SEED = 1_000_003


def evaluate(policy, opponent: str, deals: int, num_players: int, seed: int = EVAL_SEED,
             num_threads: int | str | None = None, game: str = "nos", game_options: dict | None = None,
             folder: Path | None = None, records: str = "none", model: str = "") -> dict:
    """The model (deterministic) in one seat against ``num_players - 1`` copies of ``opponent``,
    duplicate deals with every rotation. Chips per hand for the model, and its head-to-head
    difference to the opponent's seats (the tournament's "model vs <opponent>"). For a family
    ``game`` the same in points per hand (the keys keep their names).

    ``folder``: where the evaluation keeps what replays any of its hands (:func:`keep_evaluation`):
    ``tournament.json`` (every deal's stream seed and index, the agent at every seat, the results)
    and, unless ``records`` is ``"none"``, the records of the deals it names (``eval.records``:
    ``all``, ``worst[:K]``, ``best[:K]`` or deal numbers) in ``records/``. ``model`` says which
    model played (e.g. "timesteps 4096"), written beside the agents."""
    from agents.model import PolicyAgent  # torch and SB3 (the train extra): not needed by the rllib engine

    return evaluate_agent(PolicyAgent(policy, seed=seed, deterministic=True), opponent, deals, num_players,
                          seed=seed, num_threads=num_threads, game=game, game_options=game_options,
                          folder=folder, records=records, model=model)


def evaluate_agent(agent, opponent: str, deals: int, num_players: int, seed: int = EVAL_SEED,
                   num_threads: int | str | None = None, game: str = "nos", game_options: dict | None = None,
                   folder: Path | None = None, records: str = "none", model: str = "") -> dict:
    """:func:`evaluate` for any agent named "model" (an SB3 policy's or an RLlib module's)."""
    keep = folder is not None and records != "none"
    result = run_tournament([agent] + [opponent] * (num_players - 1), deals, seed=seed, progress=False,
                            num_threads=num_threads, game=game, game_options=game_options, keep_hands=keep)
    if folder is not None:
        keep_evaluation(result, Path(folder), records, model)
    s = result.summary()
    model = s["agents_by_name"]["model"]
    versus = s["head_to_head_by_name"][f"model vs {opponent}"]
    return {"opponent": opponent, "deals": deals, "hands": s["hands"],
            "model_chips_per_hand": model["mean_chips_per_hand"], "model_ci95": model["ci95"],
            "difference": versus["mean_difference"], "difference_ci95": versus["ci95"]}


def keep_evaluation(result, folder: Path, records: str = "none", model: str = "") -> str | None:
    """Write ``folder/tournament.json`` (the tournament's JSON: summary and every deal's seeds,
    agents and results; ``model`` names the model that sat as "model") and, unless ``records`` is
    "none", the chosen deals' records in ``folder/records/``. Returns the command that opens the
    most surprising hand of those records in the viewer (None without records)."""
    folder.mkdir(parents=True, exist_ok=True)
    result.to_json(str(folder / "tournament.json"))
    if model:
        data = json.loads((folder / "tournament.json").read_text())
        data["model"] = model
        (folder / "tournament.json").write_text(json.dumps(data, indent=1))
    if records == "none":
        return None
    result.save_records(folder / "records", records)
    deal, place, _ = result.most_surprising(result.choose_deals(records))
    command = f"nos-view {folder / 'records' / f'deal-{deal}.json'} --hand {place} --open"
    (folder / "surprising.txt").write_text(command + "\n")
    return command


def append_csv(path: Path, row: dict) -> None:
    new = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(row))
        if new:
            writer.writeheader()
        writer.writerow(row)


def read_csv(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with path.open() as f:
        return [{k: float(v) if k not in ("opponent",) else v for k, v in row.items()} for row in csv.DictReader(f)]
