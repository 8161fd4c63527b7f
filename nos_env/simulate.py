"""Play many hands with uniformly random legal actions and print statistics.

    python -m nos_env.simulate --hands 5000 --players 4 --seed 0

The hands form one session (chips carried over, the loser sets the next
hand). Prints each seat's chips, how often each of the 17 games was
announced, how hands ended and how fast the reference engine ran.
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np

from .announcements import GAME_NAMES
from .session import Session


def run(num_hands: int, num_players: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    session = Session(num_players, num_hands=num_hands, seed=seed)
    games: collections.Counter[int] = collections.Counter()
    reasons: collections.Counter[str] = collections.Counter()
    decisions = 0
    start = time.perf_counter()
    for _ in range(num_hands):
        hand = session.start_hand()
        while not hand.over:
            legal = hand.legal_actions()
            hand.step(legal[int(rng.integers(len(legal)))])
            decisions += 1
        games[hand.announcement.game] += 1
        reasons[hand.end_reason] += 1
    elapsed = time.perf_counter() - start
    return {
        "chips": session.finish(),
        "games": games,
        "reasons": reasons,
        "seconds": elapsed,
        "decisions": decisions,
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=5000, help="hands to play (default 5000)")
    parser.add_argument("--players", type=int, default=4, choices=(3, 4, 5))
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.hands < 1:
        parser.error("--hands must be at least 1")

    result = run(args.hands, args.players, args.seed)
    n, hands = args.players, args.hands
    print(f"{hands} random hands, {n} players, seed {args.seed}, one session from 500 chips each")
    print("\nchips per seat at the end:")
    for seat, chips in enumerate(result["chips"]):
        print(f"  seat {seat}: {chips:8d}   ({chips - 500:+d})")
    print(f"  total:  {sum(result['chips']):8d}")
    print("\nannouncements by game:")
    for game in range(1, 18):
        count = result["games"][game]
        print(f"  {game:2d} {GAME_NAMES[game]:42s} {count:6d}  {100 * count / hands:5.1f}%")
    print("\nhow hands ended:")
    for reason in ("out", "close", "blocked"):
        count = result["reasons"][reason]
        print(f"  {reason:8s} {count:6d}  {100 * count / hands:5.1f}%")
    ms = 1000 * result["seconds"] / hands
    print(f"\n{result['seconds']:.2f} s, {ms:.2f} ms per hand, {result['decisions'] / hands:.1f} decisions per hand")


if __name__ == "__main__":
    main()
