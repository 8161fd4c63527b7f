"""The long Blind differential: BlindTables against the reference engine over many games.

    python benchmarks/differential_blind.py [--games 20000] [--tables 64]

For every player count, tile set and ``optional_play``: ``--tables`` tables step with random
legal actions until ``--games`` games have finished (split over the 16 configurations);
at every step each table's legal actions, seat to move, points, termination, skipped deals
and the compact observation of the seat to move must equal the reference engine's
(``BlindGame(..., skip_decisionless=True)`` followed by plain resets). Prints the games
and decisions compared and the first difference, if any (exit status 1).
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time

import numpy as np

from nos_env.blind_tables import BlindTables
from nos_env.family.blind import BlindGame, make_blind_rules


def run(cfg: dict, tables: int, games: int, seed: int) -> tuple[int, int]:
    fast = BlindTables("blind", tables, seed=seed, threads=1, **cfg)
    rules = make_blind_rules(**cfg)
    ref = [BlindGame(rules, seed=seed + b, skip_decisionless=True) for b in range(tables)]
    rnd = random.Random(seed)
    finished = decisions = 0
    n = cfg["num_players"]
    while finished < games:
        actions = np.array([rnd.choice(g.legal_actions()) for g in ref])
        obs, points, term, cur = fast.step(actions)
        for b, game in enumerate(ref):
            got = game.step(int(actions[b]))
            decisions += 1
            where = f"{cfg} seed {seed + b}, decision {len(game.actions)}"
            if points[b, :n].tolist() != got or bool(term[b]) != game.done:
                raise AssertionError(f"points/termination differ at {where}")
            if game.done:
                finished += 1
                game.reset()
            if cur[b] != game.to_move or fast.legal_actions(b).tolist() != game.legal_actions() \
                    or fast.skipped[b] != game.skipped:
                raise AssertionError(f"seat, legal actions or skipped deals differ at {where}")
            if not (obs[b] == game.observe(game.to_move, "uint8")).all():
                raise AssertionError(f"observations differ at {where}")
    return finished, decisions


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20000)
    parser.add_argument("--tables", type=int, default=64)
    args = parser.parse_args()
    configs = [dict(num_players=n, tileset=ts, optional_play=op)
               for n, ts, op in itertools.product((2, 3, 4, 5), ("double_six", "double_nine"), (False, True))]
    total_games = total_decisions = 0
    t0 = time.perf_counter()
    for i, cfg in enumerate(configs):
        try:
            g, d = run(cfg, args.tables, max(1, args.games // len(configs)), seed=100_000 * (i + 1))
        except AssertionError as error:
            print(f"DIFFERENCE: {error}")
            return 1
        total_games += g
        total_decisions += d
        print(f"{cfg}: {g:,} games, {d:,} decisions, no difference")
    print(f"all: {total_games:,} games, {total_decisions:,} decisions, no difference "
          f"({time.perf_counter() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
