"""Is the rollout-advantage fit calibrated? (train/rollout_advantage.py, train/distill.py target
"advantage"). Collects fresh labels, fits a fresh hinted policy as a config would (10% held out,
early stop on the held-out loss), then on the held-out decisions prints: how often margin 0
leaves Greedy and what that gains, how many of those departures give up points Greedy's move
scores at once (the scoring games), and the actual advantage of the non-Greedy moves binned by
the predicted one (a calibrated fit has the two about equal). A diagnostic, not a speed figure.

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/advantage_calibration.py --game five_up --labels 150000

Five Up, 150,000 labels, temperature 0.5 (2026-11-26, load 2): every predicted bin was about a
point too high (predicted 0 to +0.5: actual -1.14), and 42% of margin 0's departures gave up
points Greedy's move scored (docs/family.md, "Exact advantages over Greedy from the real table").
With each move's immediate points as an input (``--action-points --points-weight 2.0``, the same
run otherwise, load 2): calibrated (predicted 0 to +0.5: actual +0.06; +1 or more: +0.77), margin 0
gains +0.056 per decision at 39% departures, and 7% of its departures give up Greedy's points.
"""

from __future__ import annotations

import argparse

import numpy as np


BINS = ((-99, -4), (-4, -2), (-2, -1), (-1, 0), (0, 0.5), (0.5, 1), (1, 99))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="five_up")
    parser.add_argument("--labels", type=int, default=150_000)
    parser.add_argument("--temperature", type=float, default=0.5, help="points per logit, as the config's")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--action-points", action="store_true",
                        help="the policy reads each action's immediate points (env.action_points)")
    parser.add_argument("--points-weight", type=float, default=0.0, help="their starting weight (policy.points_weight)")
    args = parser.parse_args()
    # (imported after the arguments: --help works without the train extra, tests/test_packaging.py)
    from agents.family.games import make_rules
    from agents.family.greedy import SCORING_GAMES
    from agents.registry import make_agent
    from agents.tournament import family_options
    from train.config import from_dict
    from train.distill import behaviour_clone, margin_choices, predicted_advantage, raw_observation_size
    from train.rollout_advantage import (RolloutLabeler, advantages, collect_advantage_labels,
                                         legal_immediate_points)
    from train.selfplay import OpponentPool, SelfPlayVecEnv
    from train.trainer import make_model

    g = args.game
    options = family_options(g, {})
    rules = make_rules(g, 4, **options)
    greedy = make_agent("greedy", seed=0, game=g, rules=rules)
    pool = OpponentPool(seed=1)
    pool.add(make_agent("greedy", seed=2, game=g, rules=rules), 1.0)
    env = SelfPlayVecEnv(512, pool, num_players=4, seed=5, game=g, greedy_hint=True, game_options=options, threads=1,
                         action_points=args.action_points)
    data = collect_advantage_labels(env, RolloutLabeler(rules), args.labels)
    c = from_dict({"env": {"game": g, "greedy_hint": True, "num_envs": 16, "action_points": args.action_points},
                   "ppo": {"n_steps": 8, "batch_size": 64},
                   "policy": {"hint_weight": 1.5, "width": 256, "points_weight": args.points_weight}})
    policy = make_model(c, env).policy
    rows = behaviour_clone(policy, data, args.epochs, 2048, 1e-3, 0.1, seed=0, target="advantage",
                           temperature=args.temperature, patience=3)
    kept = [r for r in rows if r.get("kept")][0]
    print(f"{g}: {args.labels:,} labels, kept epoch {kept['epoch']}, held-out loss {rows[0]['holdout_loss']:.3f} -> "
          f"{kept['holdout_loss']:.3f}" + (f", points weight {float(policy.action_net.points_weight.detach()):.3f}"
                                           if args.action_points else ""))
    print(f"held-out gain per decision of the best move by the labels (an upper bound): {kept['holdout_best_gain']:+.3f}")
    n = len(data["actions"])
    hold = np.arange(n - n // 10, n)
    masks = data["masks"][hold].astype(bool)
    hint = data["hint"][hold]
    adv = np.where(masks, advantages(data["values"][hold], hint), 0.0)
    pred = predicted_advantage(policy, data["obs"][hold], masks, hint, args.temperature)
    r = np.arange(len(hold))
    for m in (0.25, 0.5, 1.0, 2.0):
        c_m = margin_choices(pred, masks, hint, m)
        print(f"margin {m}: departs {np.mean(c_m != hint):.3f}, gain {adv[r, c_m].mean():+.3f} per decision")
    choice = margin_choices(pred, masks, hint, 0.0)
    departs = choice != hint
    print(f"margin 0: departs {departs.mean():.3f}, gain {adv[r, choice].mean():+.3f} per decision; its departures: "
          f"predicted {pred[r, choice][departs].mean():+.3f}, actual {adv[r, choice][departs].mean():+.3f}")
    if g in SCORING_GAMES:
        obs = data["obs"][hold][:, :raw_observation_size(env)]
        outward = greedy.view.outward(obs)
        chosen = legal_immediate_points(greedy, obs, r, choice, outward[r, choice])
        greedys = legal_immediate_points(greedy, obs, r, hint, outward[r, hint])
        lose = departs & (chosen < greedys)
        print(f"departures giving up points Greedy's move scores at once: {lose.sum() / max(1, departs.sum()):.3f} "
              f"(actual {adv[r, choice][lose].mean():+.3f}); the others: {adv[r, choice][departs & ~lose].mean():+.3f}")
    others = masks.copy()
    others[r, hint] = False
    p, a = pred[others], adv[others]
    for lo, hi in BINS:
        inside = (p >= lo) & (p < hi)
        actual = f"{a[inside].mean():+.3f}" if inside.any() else "-"
        print(f"non-Greedy moves predicted in [{lo}, {hi}): {inside.sum():,}, actual advantage {actual}")


if __name__ == "__main__":
    main()
