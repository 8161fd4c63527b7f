"""Training throughput: RLlib PPO with 1 and 2 env runners against the SB3 path, in one run,
for Nos and a family game.

    python benchmarks/bench_ray.py                       # Nos and Draw, about 10 minutes on 2 cores
    python benchmarks/bench_ray.py --games draw --seconds 60

Each engine trains for a warm-up, then for a timed window of whole iterations (updates
included), on the same game settings (4 players; Nos: auto_forced, baselines
random/greedy/tactics 0.4/0.4/0.2; a family game: one hand an episode, relative points,
baselines random/greedy 0.5/0.5; a 256-128 tanh policy, 3 epochs, minibatch 1,024). Printed per
game and engine:

- decisions/s at all seats (what the engine stepped: the learner's and the opponents');
- learner decisions/s (the samples PPO trains on);
- for RLlib, also the sampling alone (``EnvRunner.sample()`` in the driver, no update).

The machine is shared and noisy: compare the ratios of one run, not figures across runs.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def game_settings(game: str) -> dict:
    """The config sections both engines share for ``game``."""
    if game == "nos":
        return {"env": {"num_players": 4}, "opponents": {"baselines": {"random": 0.4, "greedy": 0.4, "tactics": 0.2}}}
    return {"env": {"game": game, "num_players": 4, "reward_scale": 0.05},
            "opponents": {"baselines": {"random": 0.5, "greedy": 0.5}}}


def bench_sb3(game: str, seconds: float) -> dict:
    import torch as th

    from train.config import from_dict
    from train.trainer import make_env, make_model

    shared = game_settings(game)
    config = from_dict({"env": {**shared["env"], "num_envs": 512, "num_threads": 1},
                        "opponents": shared["opponents"],
                        "ppo": {"n_steps": 8, "batch_size": 1024, "n_epochs": 3},
                        "policy": {"width": 256, "pi": [128], "vf": [128]}})
    th.set_flush_denormal(True)
    env, _ = make_env(config)
    model = make_model(config, env)
    model.learn(4096 * 2)  # warm-up: compile, first updates
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        model.learn(4096 * 4, reset_num_timesteps=False)
        steps += 4096 * 4
    elapsed = time.perf_counter() - start
    learner = steps / elapsed
    # Every learner decision comes with the opponents' decisions in between: n - 1 seats of n.
    return {"engine": "sb3 (1 process)", "all_seats": learner * config.env.num_players, "learner": learner}


def bench_rllib(game: str, runners: int, seconds: float) -> dict:
    import ray
    from ray.tune.registry import register_env

    from nos_env.rllib_env import NosTableEnv
    from train.config import from_dict
    from train.rllib_trainer import League, build_config

    config = from_dict({"run": {"engine": "rllib"}, **game_settings(game),
                        "ppo": {"batch_size": 1024, "n_epochs": 3},
                        "policy": {"width": 256, "pi": [128]},
                        "rllib": {"num_env_runners": runners, "num_cpus": 3, "tables_per_runner": 128,
                                  "rollout_fragment_length": 32}})
    ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        register_env("nos_tables", lambda c: NosTableEnv({**c, "tables": 1}))
        algo = build_config(config, League(config), env_seed=0).build_algo()
        algo.train()  # warm-up
        first = algo.train()
        env0 = first["env_runners"]["num_env_steps_sampled_lifetime"]
        learner0 = first["env_runners"]["num_module_steps_sampled_lifetime"]["learner"]
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            last = algo.train()
        elapsed = time.perf_counter() - start
        env_steps = last["env_runners"]["num_env_steps_sampled_lifetime"] - env0
        learner = last["env_runners"]["num_module_steps_sampled_lifetime"]["learner"] - learner0
        algo.stop()
    finally:
        ray.shutdown()
    return {"engine": f"rllib, {runners} env runner(s)", "all_seats": env_steps / elapsed,
            "learner": learner / elapsed}


def bench_rllib_sampling(game: str, seconds: float) -> dict:
    import ray
    import torch
    from ray.tune.registry import register_env

    from nos_env.rllib_env import NosTableEnv
    from train.config import from_dict
    from train.rllib_trainer import League, build_config

    config = from_dict({"run": {"engine": "rllib"}, "ppo": {"batch_size": 1024}, **game_settings(game),
                        "rllib": {"num_env_runners": 0, "tables_per_runner": 128, "rollout_fragment_length": 32}})
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    try:
        register_env("nos_tables", lambda c: NosTableEnv({**c, "tables": 1}))
        algo = build_config(config, League(config), env_seed=0).build_algo()
        torch.set_num_threads(1)  # as in a runner actor (Ray gives a 1-CPU actor one thread)
        runner = algo.env_runner
        runner.sample()
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < seconds:
            steps += sum(e.env_steps() for e in runner.sample())
        elapsed = time.perf_counter() - start
        algo.stop()
    finally:
        ray.shutdown()
    return {"engine": "rllib sampling only, 1 runner (no update)", "all_seats": steps / elapsed,
            "learner": float("nan")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30.0, help="timed window per engine")
    parser.add_argument("--games", nargs="+", default=["nos", "draw"], help="nos and/or family games")
    args = parser.parse_args()
    for game in args.games:
        rows = [bench_sb3(game, args.seconds), bench_rllib(game, 1, args.seconds),
                bench_rllib(game, 2, args.seconds), bench_rllib_sampling(game, args.seconds / 2)]
        base = rows[0]["all_seats"]
        print(f"\n{game}")
        print(f"{'engine':44s} {'decisions/s (all seats)':>24s} {'learner decisions/s':>20s} {'vs sb3':>8s}")
        for r in rows:
            learner = "" if np.isnan(r["learner"]) else f"{r['learner']:,.0f}"
            print(f"{r['engine']:44s} {r['all_seats']:24,.0f} {learner:>20s} {r['all_seats'] / base:8.3f}",
                  flush=True)


if __name__ == "__main__":
    main()
