"""How much of a Nos hand's outcome a trained critic explains (and, with a privileged critic, how
much of that comes from the tail of hidden tiles it reads).

    OMP_NUM_THREADS=1 NUMBA_NUM_THREADS=1 python benchmarks/nos_critic_information.py \
        --model runs/nos_openings_ppo/model.zip

Plays ``--steps`` learner decisions at ``--tables`` tables of the training environment (the model
sampling, as in training, with the Tactics hint; Tactics at the other seats; the privileged tail if
the model was trained with ``env.privileged_critic``) and measures, on the decisions whose hand
ended in the window, the explained variance of the hand's remaining chips (gamma 1, in the
training's reward unit ``--reward-scale``): 1 - Var(return - value) / Var(return), as SB3's
``train/explained_variance`` (which pools every decision of the rollouts, finished hand or not).
For a privileged model also with the tail zeroed (what a player fills) and shuffled between tables.
"""

from __future__ import annotations

import argparse

import numpy as np


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", required=True, help="a Nos model.zip trained with the Tactics hint")
    ap.add_argument("--reward-scale", type=float, default=0.01, help="the run's env.reward_scale (its values' unit)")
    ap.add_argument("--tables", type=int, default=256)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--seed", type=int, default=99)
    a = ap.parse_args(argv)

    import torch as th

    from agents.model import load_policy
    from agents.tactics import TacticsAgent
    from train.returns import explained_variance, returns_to_hand_end
    from train.selfplay import OpponentPool, SelfPlayVecEnv

    th.manual_seed(a.seed)  # the model samples its moves: the same seed, the same figures
    policy = load_policy(a.model)
    policy.set_training_mode(False)
    privileged = int(getattr(policy, "privileged", 0))
    pool = OpponentPool(seed=1)
    pool.add(TacticsAgent(seed=2, compiled=True), 1.0)
    env = SelfPlayVecEnv(a.tables, pool, num_players=4, seed=a.seed, tactics_hint=True,
                         privileged_critic=bool(privileged), reward_scale=a.reward_scale, num_threads=1)
    start = env.observation_space.shape[0] - privileged
    obs = env.reset()
    V, Z, S, R, D = [], [], [], [], []
    rng = np.random.default_rng(a.seed)
    for _ in range(a.steps):
        t = th.as_tensor(obs)
        with th.no_grad():
            V.append(policy.predict_values(t).numpy().ravel())
            if privileged:
                zero, shuffled = obs.copy(), obs.copy()
                zero[:, start:] = 0
                shuffled[:, start:] = obs[rng.permutation(len(obs)), start:]
                Z.append(policy.predict_values(th.as_tensor(zero)).numpy().ravel())
                S.append(policy.predict_values(th.as_tensor(shuffled)).numpy().ravel())
            actions = policy.get_distribution(t, action_masks=env.action_masks()).sample().numpy()
        obs, r, d, _ = env.step(actions)
        R.append(r)
        D.append(d)
    V = np.array(V)
    G, m = returns_to_hand_end(R, D)
    y = G[m]

    def ev(pred):
        return explained_variance(y, pred)

    line = f"{a.model}: {m.sum()} decisions whose hand ended in the window; critic EV {ev(V[m]):.3f}"
    if privileged:
        line += f"; tail zeroed {ev(np.array(Z)[m]):.3f}; tail shuffled between tables {ev(np.array(S)[m]):.3f}"
    print(line)


if __name__ == "__main__":
    main()
