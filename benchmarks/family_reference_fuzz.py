"""Long self-play run of the family reference engine (nos_env/family): invariants and speed.

    python benchmarks/family_reference_fuzz.py [--hands 2000] [--seed 0] [--games block draw ...]

For every game and player count, plays single hands (target_score=None) with uniformly random
legal actions, checking after every step what tests/test_family_engine.py checks on a few
hands: the tiles are conserved (hands + boneyard + table = the set), the legal list is sorted
and not empty, points are never negative and add up to the scores (from those at reset), and every record replays to
the same scores. Prints hands, decisions per second and milliseconds per hand, and fails loudly
on the first broken invariant. The machine is shared: compare figures of the same run.
"""

from __future__ import annotations

import argparse
import random
import time

from nos_env.family.engine import FamilyGame
from nos_env.family.record import replay
from nos_env.family.rules import GAMES, make_rules, player_counts


def run(game_id: str, n: int, hands: int, seed: int) -> tuple[int, float]:
    rules = make_rules(game_id, n, target_score=None)
    rnd = random.Random(seed)
    decisions = 0
    start = time.perf_counter()
    for h in range(hands):
        game = FamilyGame(rules, seed=seed * 1_000_003 + h)
        gained = list(game.scores)  # a forced set may score at reset (All Fives [5-5], Bergen)
        while not game.done:
            legal = game.legal_actions()
            assert legal and legal == sorted(legal), (game_id, n, h)
            points = game.step(rnd.choice(legal))
            assert min(points) >= 0
            gained = [a + b for a, b in zip(gained, points)]
            decisions += 1
            hand = game.hand
            tiles = sorted([t for x in hand.hands for t in x] + hand.boneyard + hand.layout.on_table())
            assert tiles == list(range(rules.num_tiles)), (game_id, n, h)
        assert gained == game.scores, (game_id, n, h, gained, game.scores)
        if h % 50 == 0:
            assert replay(game.record()).scores == game.scores
    return decisions, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", nargs="*", default=list(GAMES))
    args = parser.parse_args()
    print(f"{'game':<18} {'n':>2} {'hands':>6} {'decisions/s':>12} {'ms/hand':>8}")
    for game_id in args.games:
        for n in player_counts(game_id):
            decisions, elapsed = run(game_id, n, args.hands, args.seed)
            print(f"{game_id:<18} {n:>2} {args.hands:>6} {decisions / elapsed:>12,.0f} "
                  f"{1000 * elapsed / args.hands:>8.2f}", flush=True)


if __name__ == "__main__":
    main()
