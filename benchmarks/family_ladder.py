"""The agents' ladder on every family game: Greedy over Random, Search over Greedy.

    python benchmarks/family_ladder.py                       # Greedy vs Random, every game
    python benchmarks/family_ladder.py --step search --deals 150 --seed 14 --threads 1 --games draw all_fives
    python benchmarks/family_ladder.py --step search --games matador --search-options '{"rollouts": 192}'
    python benchmarks/family_ladder.py --step search --games blind --option optional_play=true

Each line is one duplicate tournament (agents/tournament.py) with the two agents in
alternating seats (A B A B, or A B with two players), so every agent plays every seat of
every deal; it prints a markdown row per game with the exact ``nos-tournament`` command
(``run_tournament`` with ``agent_options`` where Search takes options, which the command
line does not), the difference per hand in points (by agent name; Blind: hands won, BD8)
and its 95% interval, whether that interval excludes zero, and the seconds it took.
"""

from __future__ import annotations

import argparse
import json

from agents.family.games import family_games, player_counts
from agents.tournament import parse_options, run_tournament

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
    parser.add_argument("--search-options", default=None, metavar="JSON",
                        help='options of the Search agent, e.g. \'{"rollouts": 192}\' (agents/family/search.py)')
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="a game option for every game listed (nos-tournament's --option), e.g. optional_play=true")
    args = parser.parse_args(argv)
    game_options = parse_options(args.option)
    opts = "".join(f" --option {item}" for item in args.option)
    base, better = STEPS[args.step]
    search_options = json.loads(args.search_options) if args.search_options else {}
    if search_options and args.step != "search":
        parser.error("--search-options is for --step search")
    print(f"| game | command | {better} − {base} (points per hand, 95% CI) | significant | seconds |")
    print("|---|---|---|---|---|")
    for game in args.games or family_games():
        n = args.players if args.players in player_counts(game) else player_counts(game)[-1]
        lineup = [base, better] * (n // 2) + [base] * (n % 2)
        threads = None if args.threads is None else (int(args.threads) if args.threads.isdigit() else args.threads)
        r = run_tournament(lineup, args.deals, seed=args.seed, tables=args.tables, game=game, progress=False,
                           game_options=game_options, num_threads=threads, agent_options={"search": search_options} if search_options else None)
        h = r.summary()["head_to_head_by_name"][f"{better} vs {base}"]
        mean, ci = h["mean_difference"], h["ci95"]
        command = (f"nos-tournament --game {game} --agents {' '.join(lineup)} --deals {args.deals} "
                   f"--seed {args.seed} --tables {args.tables}"
                   + (f" --threads {args.threads}" if args.threads is not None else "") + opts + " --quiet")
        if search_options:  # the tournament command line takes no agent options: this script's own command
            command = (f"python benchmarks/family_ladder.py --step search --games {game} --deals {args.deals} "
                       f"--seed {args.seed} --tables {args.tables}"
                       + (f" --threads {args.threads}" if args.threads is not None else "")
                       + opts + f" --search-options '{args.search_options}'")
        verdict = "yes" if abs(mean) > ci else "no"
        digits = 3 if game == "blind" else 2  # Blind's are shares of hands won (BD8), a few hundredths
        print(f"| {game} | `{command}` | **{mean:+.{digits}f} ± {ci:.{digits}f}** | {verdict} | {r.seconds:.0f} |",
              flush=True)


if __name__ == "__main__":
    main()
