"""Write the golden playthroughs in this folder: one recorded hand per game.

    python tests/golden/generate.py

For each of the 17 games it plays seeded hands whose set tile allows that
game, announces it, and keeps the candidate whose record shows the most
distinct kinds of step and payment (immediate doubles, waits, double
payments, nos, closings right and wrong, passes, ...). The players choose
at random but prefer plays to draws and close only when the closing is
correct, most of the time, so hands look like real play.

Run it only when the rules engine changes on purpose; then review the diff
of the JSON files, because tests/test_golden.py treats them as the truth.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))

from nos_env.deal import Deal  # noqa: E402
from nos_env.engine import Hand  # noqa: E402
from nos_env.announcements import ALL_ANNOUNCEMENTS, GAME_NAMES, is_legal_for_set_tile  # noqa: E402
from nos_env.record import hand_record, playthrough, save  # noqa: E402

CANDIDATES = 60


def choose(hand: Hand, rng: np.random.Generator, game: int):
    legal = hand.legal_actions()
    if hand.phase in ("declare", "immediate") and len(legal) == 1:
        # D25's forced no-declare / decline: taken without a random draw, so the goldens
        # written before D25 come out as the same hands with these steps added.
        return legal[0]
    if hand.phase == "announce":
        mine = [a for a in legal if a.announcement.game == game]
        return mine[int(rng.integers(len(mine)))]
    plays = [a for a in legal if a.kind in ("play", "immediate") and not a.close]
    if hand.phase == "play" and plays and rng.random() < 0.9:
        action = plays[int(rng.integers(len(plays)))]
        trial = hand.copy()
        trial.step(action)
        # Close when it would be correct (and now and then when it would not).
        if rng.random() < 0.08 or (not trial.over and trial.closing_is_correct()):
            closing = [a for a in legal if a.close and (a.tile, a.arm, a.out) == (action.tile, action.arm, action.out)]
            return closing[0]
        return action
    return legal[int(rng.integers(len(legal)))]


def _forced_window_step(step: dict) -> bool:
    """D25's one-choice no-declare or decline (not counted as a kind of step: every hand has them)."""
    return step["action"] in ("no-declare", "decline") and len(step["legal"]) == 1


def diversity(record: dict) -> int:
    kinds = {step["action"].split(" ")[0] for step in record["steps"] if not _forced_window_step(step)}
    reasons = {p[3] for step in record["steps"] for p in step["payments"]}
    return 2 * len(reasons) + len(kinds) + (record["phase"] == "over")


def candidate(game: int, seed: int) -> dict | None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 6))
    deal = Deal.random(n, rng)
    hand = Hand(deal, on_set=int(rng.integers(n)))
    while hand.phase == "set":
        hand.step(choose(hand, rng, game))
    if not is_legal_for_set_tile_any(hand.set_tile, game):
        return None
    while not hand.over:
        hand.step(choose(hand, rng, game))
    return playthrough(hand_record(hand))


def is_legal_for_set_tile_any(set_tile, game: int) -> bool:
    return any(a.game == game and is_legal_for_set_tile(a, set_tile) for a in ALL_ANNOUNCEMENTS)


def main() -> None:
    # No options, but --help explains instead of overwriting the golden files.
    import argparse

    summary, _, details = __doc__.partition("\n\n")
    argparse.ArgumentParser(description=summary, epilog=details.split("\n\n", 1)[1]).parse_args()
    by_ending: dict[str, tuple[int, dict]] = {}  # the best hand for each way a hand ends (D23)
    for game in range(1, 18):
        best, best_score, seed, found = None, -1, game * 100_000, 0
        while found < CANDIDATES:
            seed += 1
            record = candidate(game, seed)
            if record is None:
                continue
            found += 1
            ending = record["end_reason"]
            if ending != "close" and diversity(record) > by_ending.get(ending, (-1, None))[0]:
                by_ending[ending] = (diversity(record), dict(record, generator_seed=seed))
            if diversity(record) > best_score:
                best, best_score = record, diversity(record)
                best["generator_seed"] = seed
        path = HERE / f"game{game:02d}.json"
        best["comment"] = f"Golden playthrough for game {game} ({GAME_NAMES[game]}); see generate.py"
        save(best, path)
        reasons = sorted({p[3] for s in best["steps"] for p in s["payments"]})
        print(f"{path.name}: {best['num_players']}p, {best['announcement']!r}, {len(best['steps'])} steps, "
              f"end {best['end_reason']}, payments {reasons}")
    for ending, (_, record) in sorted(by_ending.items()):
        record["comment"] = f"Golden playthrough of a hand that ends '{ending}'; see generate.py"
        save(record, HERE / f"ending_{ending}.json")
        print(f"ending_{ending}.json: {record['num_players']}p, {record['announcement']!r}, {len(record['steps'])} steps")


if __name__ == "__main__":
    main()
