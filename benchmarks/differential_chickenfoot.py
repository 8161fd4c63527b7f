"""The long Chickenfoot differential: ChickenfootTables against the reference engine.

    python benchmarks/differential_chickenfoot.py [--hands 2000] [--tables 16] [--seed 0]

For every player count (2..8), tile set, ``missing_set`` and ``match``: ``--tables`` tables
(seeded ``seed + b``) step with random legal actions until about ``--hands`` hands have
finished, split over the configurations; at every step each table's legal actions, seat to
move, points, termination, scores and the compact observation of the seat to move (and of
one other seat) must equal ``ChickenfootGame(rules, seed + b)``'s, followed by plain resets.
Prints the hands and decisions compared and the first difference, if any (exit status 1).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time

import numpy as np

from nos_env.chickenfoot_tables import ChickenfootTables
from nos_env.family.chickenfoot import ChickenfootGame, make_chickenfoot_rules


def run(cfg: dict, tables: int, hands: int, seed: int) -> tuple[int, int]:
    """Compares one configuration; returns (hands finished, decisions compared). Raises
    AssertionError with the place of the first difference."""
    n = cfg["num_players"]
    fast = ChickenfootTables("chickenfoot", tables, seed=seed, threads=1, **cfg)
    rules = make_chickenfoot_rules(**cfg)
    ref = [ChickenfootGame(rules, seed=seed + b) for b in range(tables)]
    done_hands = [0] * tables
    rnd = random.Random(seed)
    decisions = 0
    while sum(done_hands) < hands:
        actions = np.array([rnd.choice(g.legal_actions()) for g in ref], np.int64)
        obs, points, term, cur = fast.step(actions)
        for b, game in enumerate(ref):
            before = game.hands_finished
            got = game.step(int(actions[b]))
            done_hands[b] += game.hands_finished - before
            decisions += 1
            where = f"{cfg} seed {seed + b}, decision {len(game.actions)}"
            assert list(points[b, :n]) == got, f"points differ at {where}: {list(points[b, :n])} vs {got}"
            assert bool(term[b]) == game.done, f"termination differs at {where}"
            if game.done:
                assert fast.final_scores[b, :n].tolist() == [-x for x in game.scores], f"final scores at {where}"
                game.reset()
            assert int(cur[b]) == game.to_move, f"seat to move differs at {where}"
            assert fast.legal_actions(b).tolist() == game.legal_actions(), f"legal actions differ at {where}"
            assert fast.scores[b].tolist() == game.scores, f"scores differ at {where}"
            assert np.array_equal(obs[b], game.observe(game.to_move, "uint8")), f"observation differs at {where}"
            other = (game.to_move + 1 + rnd.randrange(n - 1)) % n
            row = fast.observe_rows(np.array([b]), np.array([other]))[0]
            assert np.array_equal(row, game.observe(other, "uint8")), f"seat {other}'s observation at {where}"
    return sum(done_hands), decisions


def configurations():
    for n, tileset, missing, match in itertools.product(range(2, 9), ("double_nine", "double_twelve"),
                                                       ("next_lower", "redeal"), ("descending", "one_hand")):
        yield dict(num_players=n, tileset=tileset, missing_set=missing, match=match)
    for n in (2, 5):
        yield dict(num_players=n, tileset="double_nine", missing_set="next_lower", match="longer")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    configs = list(configurations())
    per = max(1, args.hands // len(configs))
    start = time.time()
    total_hands = total_decisions = 0
    for cfg in configs:
        try:
            h, d = run(cfg, args.tables, per, args.seed)
        except AssertionError as error:
            print(f"DIFFERENCE: {error}")
            return 1
        total_hands += h
        total_decisions += d
    print(f"chickenfoot differential: {len(configs)} configurations, {total_hands} hands, "
          f"{total_decisions} decisions identical ({time.time() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
