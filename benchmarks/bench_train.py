"""Training throughput: SB3's fps (updates included) of MaskablePPO on the self-play VecEnv,
next to the usual recipe (the AEC environment wrapped for DummyVecEnv), in one run.

    python benchmarks/bench_train.py [--configs configs/quick.yaml configs/full.yaml] [--rollouts 6]
                                     [--recipe-seconds 60] [--set ppo.overlap=true ...]

For each config: its env, opponents, policy and PPO settings, evaluations and checkpoints
off; one warm-up rollout, then ``--rollouts`` rollouts timed. Printed: SB3's own
``time/fps`` (learner decisions per second since learn() started, updates included), the
decisions per second of this process's CPU time (``CPU fps``: what the run would reach on
the machine alone, when others share it; all threads' time counts), and where the time goes
per decision, in wall and CPU time: the environment (opponents included), the rest of the
rollout (the policy's forward pass, the buffer) and the PPO update.

The recipe: ``nos_env.env`` (fast backend) as a single-agent gymnasium env (the learner at
seat 0, Random at the other seats), 8 copies in DummyVecEnv, MaskablePPO with SB3's
default MlpPolicy and hyperparameters.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from gymnasium import spaces

ROOT = Path(__file__).resolve().parent.parent


class TimedCalls:
    """Wraps a bound method and adds up its wall time and CPU time (``clock``: this process's, by
    default; ``time.thread_time`` for the calling thread's only)."""

    def __init__(self, fn, clock=time.process_time):
        self.fn, self.seconds, self.cpu, self.clock = fn, 0.0, 0.0, clock

    def __call__(self, *args, **kwargs):
        start, cpu = time.perf_counter(), self.clock()
        try:
            return self.fn(*args, **kwargs)
        finally:
            self.seconds += time.perf_counter() - start
            self.cpu += self.clock() - cpu


def sb3_fps_of(model) -> float:
    """SB3's own time/fps, computed as it logs it: timesteps since learn() began over the time since."""
    elapsed = (time.time_ns() - model.start_time) / 1e9
    return (model.num_timesteps - model._num_timesteps_at_start) / elapsed


def bench_config(path: str, rollouts: int, overrides: list[str] = ()) -> dict:
    from train.config import from_dict, read_sections
    from train.trainer import quiet_model

    config = from_dict(read_sections(path, list(overrides)), path)
    env, model = quiet_model(config)
    per_rollout = config.env.num_envs * config.ppo.n_steps
    model.learn(2 * per_rollout)  # warm-up: numba, torch, first allocations (an overlapped update too)
    env.step_wait = env_time = TimedCalls(env.step_wait)
    overlapped = getattr(model, "wait_for_update", None) is not None
    learner = getattr(model.learn, "__self__", None)
    process = overlapped and hasattr(learner, "update_cpu")
    if process:  # train/learner_process.py: the update runs in another process, which times itself
        learner.collect = collect = TimedCalls(learner.collect)
        update_start = (learner.update_seconds, learner.update_cpu)
        overlapped = False  # this process's CPU is the rollout's alone
    elif overlapped:  # train/overlap.py: the update runs beside the rollout (a thread: wall time only)
        learning = model.learn.__self__
        learning.collect = collect = TimedCalls(learning.collect)
    else:
        model.collect_rollouts = collect = TimedCalls(model.collect_rollouts)
    # An overlapped update's CPU is its own thread's (torch runs on 1 thread there); the rollout's
    # process-wide CPU then includes the update thread's, so only the total CPU fps is shown for it.
    model.train = update = TimedCalls(model.train, time.thread_time if overlapped else time.process_time)
    start, cpu = time.perf_counter(), time.process_time()
    model.learn(per_rollout * rollouts, reset_num_timesteps=False)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    steps = per_rollout * rollouts
    if process:  # the learner process's update time, and its CPU added to this process's
        update.seconds = learner.update_seconds - update_start[0]
        update.cpu = learner.update_cpu - update_start[1]
        cpu += update.cpu
    sb3_fps = sb3_fps_of(model)
    if process:
        model.close_learner()
    return {"config": path, "steps": steps, "seconds": seconds, "fps": steps / seconds, "sb3_fps": sb3_fps,
            "cpu_fps": steps / cpu,
            "us_env": env_time.seconds / steps * 1e6, "us_rollout_other": (collect.seconds - env_time.seconds) / steps * 1e6,
            "us_update": update.seconds / steps * 1e6, "overlap": overlapped or process,
            # process_time counts every thread's CPU: beside an overlapped update it is the whole process's
            "cpu_us": [float("nan") if overlapped else env_time.cpu / steps * 1e6,
                       float("nan") if overlapped else (collect.cpu - env_time.cpu) / steps * 1e6,
                       update.cpu / steps * 1e6]}


class AECAsGym(gym.Env):
    """The usual recipe: one AEC table as a single-agent env, Random at the other seats."""

    def __init__(self, seed: int):
        import nos_env

        self.aec = nos_env.env(num_players=4)
        self.rng = np.random.default_rng(seed)
        self.seed_value = seed
        self.observation_space = self.aec.observation_space("player_0")["observation"]
        self.action_space = spaces.Discrete(557)
        self._mask = None

    def _advance(self) -> float:
        reward = 0.0
        while True:
            obs, _, term, trunc, _ = self.aec.last()
            if term or trunc:
                reward += self.aec._cumulative_rewards["player_0"]
                return reward, obs, True
            if self.aec.agent_selection == "player_0":
                reward += self.aec._cumulative_rewards["player_0"]
                return reward, obs, False
            legal = np.flatnonzero(obs["action_mask"])
            self.aec.step(int(self.rng.choice(legal)))

    def reset(self, seed=None, options=None):
        self.aec.reset(seed=self.seed_value if seed is None else seed)
        self.seed_value += 1000
        _, obs, _ = self._advance()
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"], {}

    def step(self, action):
        self.aec.step(int(action))
        reward, obs, done = self._advance()
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"], reward * 0.01, done, False, {}

    def action_masks(self):
        return self._mask


def bench_recipe(seconds: float) -> dict:
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    venv = DummyVecEnv([lambda i=i: AECAsGym(i) for i in range(8)])
    model = MaskablePPO("MlpPolicy", venv, seed=0, device="cpu", verbose=0)
    model.learn(2048 * 8)  # one default rollout as warm-up
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        model.learn(2048 * 8, reset_num_timesteps=False)
        steps += 2048 * 8
    elapsed = time.perf_counter() - start
    return {"config": "AEC env + DummyVecEnv(8), SB3 defaults", "steps": steps, "seconds": elapsed,
            "fps": steps / elapsed, "sb3_fps": sb3_fps_of(model)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="+", default=[str(ROOT / "configs/quick.yaml"),
                                                           str(ROOT / "configs/full.yaml")])
    parser.add_argument("--rollouts", type=int, default=6)
    parser.add_argument("--recipe-seconds", type=float, default=60.0, help="0 skips the recipe")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="a config override for every config, as nos-train's --set")
    args = parser.parse_args()
    rows = [bench_config(path, args.rollouts, args.set) for path in args.configs]
    if args.recipe_seconds > 0:
        rows.append(bench_recipe(args.recipe_seconds))
    print(f"{'setup':<40} {'decisions':>10} {'s':>6} {'fps':>8} {'SB3 fps':>8} {'CPU fps':>8}  "
          f"env / rollout rest / update (µs per decision: wall; CPU)")
    for r in rows:
        split = (f"{r['us_env']:.1f} / {r['us_rollout_other']:.1f} / {r['us_update']:.1f}; "
                 + " / ".join(f"{v:.1f}" for v in r["cpu_us"]) if "us_env" in r else "")
        sb3 = f"{r['sb3_fps']:>8,.0f}" if r.get("sb3_fps") else f"{'-':>8}"
        cpu = f"{r['cpu_fps']:>8,.0f}" if r.get("cpu_fps") else f"{'-':>8}"
        print(f"{Path(r['config']).name if r['config'].endswith('.yaml') else r['config']:<40} "
              f"{r['steps']:>10,} {r['seconds']:>6.1f} {r['fps']:>8,.0f} {sb3} {cpu}  {split}")
    base = rows[-1]["fps"] if args.recipe_seconds > 0 else None
    if base:
        for r in rows[:-1]:
            print(f"{Path(r['config']).name}: {r['fps'] / base:.1f}x the usual recipe")


if __name__ == "__main__":
    main()
