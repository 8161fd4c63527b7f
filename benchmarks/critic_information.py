"""How much of a hand's outcome a trained critic explains, and how much more the hidden tiles could.

    python benchmarks/critic_information.py --model runs/draw_priv_1m/model.zip --game draw

Plays ``--steps`` learner decisions at ``--tables`` tables (the model sampling, Greedy at the
other seats, the training environment with the privileged tail) and measures, on the steps
whose hand ended in the window, the explained variance of the hand's remaining relative
points (gamma 1):

- by the critic as trained, with the other hands zeroed and with them shuffled between
  tables (a model trained with ``env.privileged_critic``; how much the critic reads them);
- held out (fitted on half, measured on the other half), by a least-squares fit of the
  critic's value plus each other seat's pip total and tile count, and plus the boneyard's
  next 1, 2 and 4 tiles' pips and its size: how much simple summaries of the hidden tiles add.
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a model.zip trained with env.privileged_critic and the Greedy hint")
    ap.add_argument("--game", required=True)
    ap.add_argument("--reward-scale", type=float, required=True, help="the run's env.reward_scale (its values' unit)")
    ap.add_argument("--tables", type=int, default=256)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=99)
    a = ap.parse_args(argv)

    import torch as th

    from agents.family.games import make_rules
    from agents.family.greedy import FamilyGreedyAgent
    from agents.model import PolicyAgent, load_policy
    from train.returns import explained_variance, returns_to_hand_end
    from train.selfplay import OpponentPool, SelfPlayVecEnv

    policy = load_policy(a.model)
    rules = make_rules(a.game, 4, target_score=None)
    pool = OpponentPool(seed=1)
    pool.add(FamilyGreedyAgent(rules, seed=2), 1.0)
    env = SelfPlayVecEnv(a.tables, pool, num_players=4, seed=a.seed, game=a.game, greedy_hint=True,
                         privileged_critic=True, reward_scale=1.0)
    agent = PolicyAgent(policy, seed=3, deterministic=False)
    start = env.tables.observation_size + 1
    N = rules.num_tiles
    pip = np.array([x + y for x, y in rules.tiles], float)
    obs = env.reset()
    V, Z, S, R, D, tails, bones = [], [], [], [], [], [], []
    rng = np.random.default_rng(a.seed)
    for _ in range(a.steps):
        zero, shuffled = obs.copy(), obs.copy()
        zero[:, start:] = 0
        shuffled[:, start:] = obs[rng.permutation(len(obs)), start:]
        with th.no_grad():
            V.append(policy.predict_values(th.as_tensor(obs)).numpy().ravel() / a.reward_scale)
            Z.append(policy.predict_values(th.as_tensor(zero)).numpy().ravel() / a.reward_scale)
            S.append(policy.predict_values(th.as_tensor(shuffled)).numpy().ravel() / a.reward_scale)
        tails.append(obs[:, start:].copy())
        piles = [env.tables.boneyard_of(b) for b in range(len(obs))]
        bones.append([[pip[p[:1]].sum(), pip[p[:2]].sum(), pip[p[:4]].sum(), len(p)] for p in piles])
        obs, r, d, _ = env.step(agent.act_batch(obs[:, : start - 1], env.action_masks()))
        R.append(r)
        D.append(d)
    V, Z, S = map(np.array, (V, Z, S))
    G, m = returns_to_hand_end(R, D)
    y = G[m]

    def ev(pred):
        return explained_variance(y, pred)

    print(f"{a.model} ({a.game}): {m.sum()} decisions whose hand ended in the window")
    print(f"critic: EV {ev(V[m]):.3f}; other hands zeroed {ev(Z[m]):.3f}; shuffled between tables {ev(S[m]):.3f}")
    tails, bones = np.array(tails), np.array(bones, float)
    cols = [np.ones(m.sum()), V[m]]
    for k in range(3):
        hand = tails[:, :, k * N:(k + 1) * N]
        cols += [(hand @ pip)[m], hand.sum(-1)[m]]
    X = np.stack(cols, 1)
    X2 = np.concatenate([X, bones[m]], 1)
    half = len(y) // 2

    def held_out(X):
        w = np.linalg.lstsq(X[:half], y[:half], rcond=None)[0]
        return 1 - np.var(y[half:] - X[half:] @ w) / np.var(y[half:])

    print(f"held out: critic alone {held_out(X[:, :2]):.3f}; + other hands' pips and sizes {held_out(X):.3f}; "
          f"+ the boneyard's next 1/2/4 tiles' pips and size {held_out(X2):.3f}")


if __name__ == "__main__":
    main()
