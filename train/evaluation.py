"""Evaluating a policy through the tournament harness, and the run's CSV logs (used by the
trainer and the final report)."""

from __future__ import annotations

import csv
from pathlib import Path

from agents.tournament import run_tournament

#: Evaluations use their own deals, the same at every evaluation, so the curve compares like with like.
EVAL_SEED = 1_000_003


def evaluate(policy, opponent: str, deals: int, num_players: int, seed: int = EVAL_SEED,
             num_threads: int | str | None = None, game: str = "nos", game_options: dict | None = None) -> dict:
    """The model (deterministic) in one seat against ``num_players - 1`` copies of ``opponent``,
    duplicate deals with every rotation. Chips per hand for the model, and its head-to-head
    difference to the opponent's seats (the tournament's "model vs <opponent>"). For a family
    ``game`` the same in points per hand (the keys keep their names)."""
    from agents.model import PolicyAgent  # torch and SB3 (the train extra): not needed by the rllib engine

    agent = PolicyAgent(policy, seed=seed, deterministic=True)
    result = run_tournament([agent] + [opponent] * (num_players - 1), deals, seed=seed, progress=False,
                            num_threads=num_threads, game=game, game_options=game_options)
    s = result.summary()
    model = s["agents_by_name"]["model"]
    versus = s["head_to_head_by_name"][f"model vs {opponent}"]
    return {"opponent": opponent, "deals": deals, "hands": s["hands"],
            "model_chips_per_hand": model["mean_chips_per_hand"], "model_ci95": model["ci95"],
            "difference": versus["mean_difference"], "difference_ci95": versus["ci95"]}


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
