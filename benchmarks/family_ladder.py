"""The agents' ladder on every family game: Greedy over Random, Search over Greedy.

    python benchmarks/family_ladder.py                       # Greedy vs Random, every game
    python benchmarks/family_ladder.py --step search --deals 150 --seed 14 --games draw all_fives

Each line is one duplicate tournament (agents/tournament.py) with the two agents in
alternating seats (A B A B, or A B with two players), so every agent plays every seat of
every deal; it prints a markdown row per game with the exact ``nos-tournament`` command,
the difference per hand in points (by agent name) and its 95% interval.
"""

from __future__ import annotations

import argparse

from agents.family.games import family_games, player_counts
from agents.tournament import run_tournament

STEPS = {"greedy": ("random", "greedy"), "search": ("greedy", "search")}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--step", choices=sorted(STEPS), default="greedy",
                        help="greedy: Greedy over Random; search: Search over Greedy")
    parser.add_argument("--games", nargs="+", default=None, help="default: every family game")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--tables", type=int, default=512)
    parser.add_argument("--threads", default=None)
    args = parser.parse_args(argv)
    base, better = STEPS[args.step]
    print(f"| game | command | {better} − {base} (points per hand, 95% CI) | seconds |")
    print("|---|---|---|---|")
    for game in args.games or family_games():
        n = args.players if args.players in player_counts(game) else player_counts(game)[-1]
        lineup = [base, better] * (n // 2) + [base] * (n % 2)
        threads = None if args.threads is None else (int(args.threads) if args.threads.isdigit() else args.threads)
        r = run_tournament(lineup, args.deals, seed=args.seed, tables=args.tables, game=game, progress=False,
                           num_threads=threads)
        h = r.summary()["head_to_head_by_name"][f"{better} vs {base}"]
        command = (f"nos-tournament --game {game} --agents {' '.join(lineup)} --deals {args.deals} "
                   f"--seed {args.seed} --tables {args.tables} --quiet")
        print(f"| {game} | `{command}` | **{h['mean_difference']:+.2f} ± {h['ci95']:.2f}** | {r.seconds:.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
