"""How well the family Search's hidden-tile sampler fits each game's public evidence.

    python benchmarks/family_sampler_evidence.py                 # every game but Blind
    python benchmarks/family_sampler_evidence.py --games matador fours --hands 200

Greedy plays every seat of ``--hands`` hands per game (4 players, one hand each, seeded); at
each decision with two or more legal actions the sampler of ``agents/family/sampler.py`` is
built from the observation of the seat to move and asked for 32 samples. Printed per game:

- decisions, and the share where some other seat has void evidence (``seat_void``);
- the share of samples that rejection (a uniform deal kept if it breaks no void; exactly
  uniform) could not find in its tries, so the constrained fallback (close to uniform, not
  exactly) made them;
- the mean share of the next seat's real tiles that a sample gives it, against the share a
  deal that ignored the evidence would give (its hand size over the unseen tiles): the
  evidence is worth something when the first is higher. (Only this measurement reads the
  real hand, through ``reference_game``; the agents never do.)
"""

from __future__ import annotations

import argparse

import numpy as np

from agents.family.games import family_games, make_rules, player_counts, tables_class
from agents.family.greedy import FamilyGreedyAgent
from agents.family.sampler import FamilySampler


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=None)
    parser.add_argument("--hands", type=int, default=100)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    print("| game | decisions | with void evidence | samples by the fallback | next seat's real tiles in a sample | "
          "without the evidence |")
    print("|---|---|---|---|---|---|")
    for game in args.games or [g for g in family_games() if g != "blind"]:
        n = 4 if 4 in player_counts(game) else player_counts(game)[-1]
        rules = make_rules(game, n, target_score=None)
        tables = tables_class(game)(game, 1, n, seed=args.seed, observation_dtype="float32", **rules.options())
        greedy = FamilyGreedyAgent(rules, seed=0)
        rng = np.random.default_rng(args.seed)
        decisions = with_void = fallback = total = 0
        hit, base = [], []
        hands = 0
        while hands < args.hands:
            seat = int(tables.current_player[0])
            obs = tables.observe_rows(np.array([0]), np.array([seat]))
            mask = tables.masks[:1].copy()
            if mask.sum() > 1:
                sampler = FamilySampler(greedy.view, obs[0])
                decisions += 1
                with_void += bool(~sampler.allowed[:-1].all())
                counter = _count_fallback(sampler, rng, 32)
                fallback += counter
                total += 32
                hands_sampled, _ = sampler.sample(rng, 32)
                nxt = (seat + 1) % n
                real = np.zeros(sampler.view.N, bool)
                real[_hand_of(tables, nxt)] = True
                size = real.sum()
                if size and len(sampler.unseen):
                    hit.append((hands_sampled[:, 1] & real).sum(axis=1).mean() / size)
                    base.append(size / len(sampler.unseen))
            _, _, terminated, _ = tables.step(greedy.act_batch(obs, mask), observe=False, autoreset=True)
            hands += int(terminated[0])
        print(f"| {game} | {decisions} | {with_void / decisions:.0%} | {fallback / total:.1%} | "
              f"{np.mean(hit):.3f} | {np.mean(base):.3f} |", flush=True)


def _hand_of(tables, seat: int) -> np.ndarray:
    """The tiles ``seat`` holds at table 0 (for this measurement only: the agents never read it)."""
    return np.array(sorted(tables.reference_game(0).hand.hands[seat]), np.int64)


def _count_fallback(sampler: FamilySampler, rng, k: int) -> int:
    """How many of k samples rejection leaves to the fallback (the sampler's own test, repeated)."""
    U, H = len(sampler.unseen), len(sampler.seats) + 1
    slots = np.repeat(np.arange(H), sampler.capacity)
    todo = k
    for _ in range(sampler.tries):
        if not todo:
            break
        deal = rng.permuted(np.broadcast_to(slots, (todo, U)), axis=1)
        todo -= int(sampler.allowed[deal, np.arange(U)[None, :]].all(axis=1).sum())
    return todo


if __name__ == "__main__":
    main()
