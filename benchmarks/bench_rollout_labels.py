"""Speed of the rollout-advantage labels (train/rollout_advantage.py): labelled learner decisions a
second, the learner playing Greedy against three Greedy players on B tables (in Nos: Tactics against
three Tactics, the playouts by the compiled Tactics, train/rollout_advantage_nos.py), every legal move
of each decision played out to the end of the hand.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_rollout_labels.py --game chickenfoot --tables 512 --decisions 3000
    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_rollout_labels.py --game nos --phases set announce
    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_rollout_labels.py --game nos --phases endgame --samples 8
    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_rollout_labels.py --game five_up --action-points
    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/bench_rollout_labels.py --game blind --action-features

prints the labels a second, the batched playout steps (Nos: the playouts a second), the legal moves
per decision and the load.
"""

from __future__ import annotations

import argparse
import os
import time



def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="draw")
    parser.add_argument("--tables", type=int, default=512)
    parser.add_argument("--decisions", type=int, default=20_000)
    parser.add_argument("--capacity", type=int, default=4096)
    parser.add_argument("--phases", nargs="*", default=[], help="Nos: label only these phases' decisions "
                                                               "(e.g. set announce, the openings)")
    parser.add_argument("--samples", type=int, default=0, help="Nos: average each label over this many deals "
                                                                "of the hidden tiles (0: the real table)")
    parser.add_argument("--action-points", action="store_true",
                        help="a scoring game: the env also computes each action's immediate points (env.action_points)")
    parser.add_argument("--action-features", action="store_true",
                        help="Blind: the env also computes each action's features (env.action_features)")
    args = parser.parse_args()
    # after the arguments: --help works on the core install, without the train extra
    from agents.family.games import make_rules
    from agents.registry import make_agent
    from agents.tournament import family_options
    from train.rollout_advantage import RolloutLabeler, collect_advantage_labels
    from train.selfplay import OpponentPool, SelfPlayVecEnv

    if args.game == "nos":
        nos(args, collect_advantage_labels)
        return
    options = family_options(args.game, {})
    rules = make_rules(args.game, 4, **options)
    pool = OpponentPool(seed=1)
    pool.add(make_agent("greedy", seed=2, game=args.game, rules=rules), 1.0)  # (Blind's Greedy for Blind)
    env = SelfPlayVecEnv(args.tables, pool, num_players=4, seed=5, game=args.game, greedy_hint=True,
                         game_options=options, threads=1, action_points=args.action_points,
                         action_features=args.action_features)
    labeler = RolloutLabeler(rules, capacity=args.capacity)
    start = time.perf_counter()
    data = collect_advantage_labels(env, labeler, args.decisions)
    seconds = time.perf_counter() - start
    points = " (with the action points)" if args.action_points else ""
    points += " (with the action features)" if args.action_features else ""
    print(f"{args.game}{points}: {args.decisions:,} labels in {seconds:.1f} s ({args.decisions / seconds:,.0f}/s), "
          f"{labeler.playout_steps:,} batched playout steps, {data['masks'].legal_counts().mean():.2f} legal moves a "
          f"decision, {args.tables} tables, load {os.getloadavg()[0]:.1f}")


def nos(args, collect_advantage_labels) -> None:
    """Nos: the labels against Tactics (the compiled Tactics at the other seats, the Tactics hint)."""
    from agents.tactics import TacticsAgent
    from train.rollout_advantage import make_labeler
    from train.selfplay import OpponentPool, SelfPlayVecEnv

    pool = OpponentPool(seed=1)
    pool.add(TacticsAgent(seed=2, compiled=True), 1.0)
    env = SelfPlayVecEnv(args.tables, pool, num_players=4, seed=5, tactics_hint=True, num_threads=1)
    labeler = make_labeler(env, args.capacity, samples=args.samples)
    start = time.perf_counter()
    data = collect_advantage_labels(env, labeler, args.decisions, phases=args.phases)
    seconds = time.perf_counter() - start
    what = f"the {'/'.join(args.phases)} decisions" if args.phases else "every decision"
    if args.samples:
        what += f", {args.samples} deals of the hidden tiles each"
    print(f"nos ({what}): {args.decisions:,} labels in {seconds:.1f} s ({args.decisions / seconds:,.0f}/s), "
          f"{labeler.playouts:,} playouts ({labeler.playouts / seconds:,.0f}/s), "
          f"{data['masks'].legal_counts().mean():.2f} legal moves a decision, {args.tables} tables, "
          f"load {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
