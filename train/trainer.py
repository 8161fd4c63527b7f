"""Self-play MaskablePPO training on the fast engine: :func:`train`.

A run lives in ``<output_dir>/<name>/``:

- ``config.yaml``: the full config used (defaults filled in);
- ``model.zip``: the final model (``make_agent("model:<path>")`` plays it);
- ``best_model.zip``: the model at its best trained evaluation so far (the final report
  measures it again on fresh deals, so its choice does not flatter it);
- ``checkpoints/step_<N>.zip`` and ``checkpoints/state.json`` (timesteps,
  snapshot pool): ``--resume`` continues from the latest;
- ``snapshots/step_<N>.pt``: frozen policies of the self-play pool;
- ``tb/``: TensorBoard logs (SB3's ``rollout/``, ``train/``, ``time/fps``,
  plus ``eval/`` and ``selfplay/``);
- ``curve.csv`` (one row per rollout) and ``eval.csv`` (one row per evaluation);
- ``report.md``, ``results.json`` and ``learning_curve.png`` at the end.
"""

from __future__ import annotations

import copy
import json
import os
import time
from pathlib import Path

import torch as th
import yaml
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback, CallbackList
from stable_baselines3.common.logger import configure
from torch import nn

from agents.model import PolicyAgent, load_model
from agents.policy import NosPolicy
from agents.registry import make_agent

from .buffer import CompactMaskableRolloutBuffer
from .config import TrainConfig
from .evaluation import append_csv, evaluate, read_csv
from .learner_process import learner_process
from .overlap import OVERLAP_ATTRIBUTES, overlap_updates
from .report import final_report
from .runfiles import RESUMABLE, check_resume_config, is_run_folder, truncate_csv  # noqa: F401
from .schedules import learning_rate
from .selfplay import OpponentPool, SelfPlayVecEnv

def make_env(config: TrainConfig) -> tuple[SelfPlayVecEnv, OpponentPool]:
    c = config
    pool = OpponentPool(seed=c.run.seed)
    game_kwargs, table_kwargs = {}, {"auto_forced": c.env.auto_forced, "num_threads": c.env.num_threads}
    if c.env.game != "nos":  # a family game: its agents are built for the tables' rules
        from agents.family.games import make_rules
        from agents.tournament import family_options

        options = family_options(c.env.game, c.env.game_options)
        game_kwargs = {"game": c.env.game, "rules": make_rules(c.env.game, c.env.num_players, **options)}
        table_kwargs = {"game": c.env.game, "game_options": options, "threads": c.env.num_threads}
    for i, (name, weight) in enumerate(c.opponents.baselines.items()):
        # Nos's Tactics opponents decide with the compiled Tactics (the same scores and choices as
        # agents/tactics.py, at engine speed): a third of the environment's time was their numpy code.
        fast = {"compiled": True} if name == "tactics" and c.env.game == "nos" else {}
        pool.add(make_agent(name, seed=c.run.seed * 7919 + i, **game_kwargs, **fast), weight, label=name)
    env = SelfPlayVecEnv(c.env.num_envs, pool, num_players=c.env.num_players, seed=c.run.seed,
                         learner_seat=c.env.learner_seat, reward_scale=c.env.reward_scale,
                         tactics_hint=c.env.tactics_hint, greedy_hint=c.env.greedy_hint,
                         action_points=c.env.action_points, action_features=c.env.action_features,
                         closing_features=c.env.closing_features, settlement_features=c.env.settlement_features,
                         privileged_critic=c.env.privileged_critic, **table_kwargs)
    return env, pool


def make_model(config: TrainConfig, env: SelfPlayVecEnv) -> MaskablePPO:
    p, c = config.ppo, config
    policy_kwargs = {"width": c.policy.width, "net_arch": {"pi": list(c.policy.pi), "vf": list(c.policy.vf)},
                     "activation_fn": nn.Tanh if c.policy.activation == "tanh" else nn.ReLU,
                     "hint_weight": c.policy.hint_weight, "hint_trainable": c.policy.hint_trainable,
                     **({"hint_kept": list(c.policy.hint_kept)} if c.policy.hint_kept else {}),
                     **({"hint_freed_in_endgame": list(c.policy.hint_freed_in_endgame)}
                        if c.policy.hint_freed_in_endgame else {}),
                     **({"kept_bonus": float(c.policy.kept_bonus)} if c.policy.hint_kept else {}),
                     # a family game's Greedy hint: the rules it is computed for, saved with the model
                     **({"hint_source": env.hint_source} if env.hint_source is not None else {}),
                     # each action's immediate points behind the hint (agents.policy.action_points)
                     **({"action_points": True, "points_weight": c.policy.points_weight} if env.points_size else {}),
                     # each action's features behind them (agents.policy.action_features: Blind)
                     **({"action_features": True, "features_weight": c.policy.features_weight,
                         "features_hidden": list(c.policy.features_hidden)} if env.features_size else {}),
                     # each play's closing features behind the hint (agents.policy.closing_features)
                     **({"closing_features": True,
                         **({"settlement_features": True} if env.settlement_features else {}),
                         **({"closing_weights": list(c.policy.closing_weights)}
                            if c.policy.closing_weights is not None else {})} if env.closing_size else {}),
                     # a privileged critic's tail (train/privileged.py): the critic reads it, the policy never
                     **({"privileged": env.privileged_size} if env.privileged_size else {}),
                     # fused: one kernel for all of Adam's per-parameter updates (CPU since torch 2.4)
                     "optimizer_kwargs": {"eps": 1e-5, "fused": True}}
    return fast_update(config, MaskablePPO(NosPolicy, env, rollout_buffer_class=CompactMaskableRolloutBuffer, learning_rate=learning_rate(c), n_steps=p.n_steps, batch_size=p.batch_size,
                       n_epochs=p.n_epochs, gamma=p.gamma, gae_lambda=p.gae_lambda, clip_range=p.clip_range,
                       ent_coef=p.ent_coef, vf_coef=p.vf_coef, max_grad_norm=p.max_grad_norm, target_kl=p.target_kl,
                       policy_kwargs=policy_kwargs, seed=c.run.seed, device="cpu", verbose=0))


#: constructor settings that may differ between a saved model and the run it starts (run.init_from):
#: the optimizer is fresh, its rate the config's
_FRESH_SETTINGS = ("lr_schedule", "optimizer_class", "optimizer_kwargs")


def start_from(policy: NosPolicy, path: str | Path) -> None:
    """Give ``policy`` (a new run's) the weights of the model saved at ``path`` (run.init_from),
    critic included. The saved policy must be the one this config builds: the same observation and
    action spaces, the same network and features settings, the same weights' names and shapes;
    otherwise a ConfigError names what differs, and ``policy`` is left as it was."""
    from agents.model import load_policy

    from .config import ConfigError

    saved = load_policy(path)
    mine, theirs = policy._get_constructor_parameters(), saved._get_constructor_parameters()
    differ = sorted(k for k in set(mine) | set(theirs)
                    if k not in _FRESH_SETTINGS and mine.get(k) != theirs.get(k))
    if differ:
        raise ConfigError(f"run.init_from: {path} was trained with another policy than this config builds: "
                          + "; ".join(f"{k}: saved {theirs.get(k)!r}, this config {mine.get(k)!r}" for k in differ)
                          + " (set the config's policy and env settings as the saved run's config.yaml has them)")
    weights, state = saved.state_dict(), policy.state_dict()
    if weights.keys() != state.keys() or any(weights[k].shape != state[k].shape for k in weights):
        bad = sorted(k for k in weights.keys() | state.keys()
                     if k not in weights or k not in state or weights[k].shape != state[k].shape)
        raise ConfigError(f"run.init_from: {path}'s weights do not fit this config's policy: {', '.join(bad[:5])}")
    policy.load_state_dict(weights)


def quiet_model(config: TrainConfig) -> tuple[SelfPlayVecEnv, MaskablePPO]:
    """The config's environment and model, ready to ``learn``, with SB3's logging off: what the
    training benchmarks (benchmarks/bench_*.py) time."""
    from stable_baselines3.common.logger import configure

    env, _ = make_env(config)
    model = make_model(config, env)
    model.set_logger(configure(None, []))
    return env, model


def fast_update(config: TrainConfig, model: MaskablePPO) -> MaskablePPO:
    """The trainer's update settings on a new or loaded model: the rollout buffer hands the update
    compressed observations and legal lists (``train/buffer.py``; set on the buffer, not saved
    with the model, so old checkpoints resume with it too), the update's MLPs run in bfloat16 with
    ``ppo.bf16`` (``NosPolicy.bf16_update``, not saved either), torch keeps its thread count
    (:func:`keep_torch_threads`) and, with ``ppo.overlap``, each update runs beside the next
    rollout (``train/overlap.py``; in a learner process with ``ppo.overlap_in: process``,
    ``train/learner_process.py``)."""
    if isinstance(model.rollout_buffer, CompactMaskableRolloutBuffer):
        model.rollout_buffer.compressed = True
    if hasattr(model.policy, "bf16_update"):  # NosPolicy; set per run, never saved with the model
        model.policy.bf16_update = bool(config.ppo.bf16)
    model = keep_torch_threads(model)
    if not config.ppo.overlap:
        return model
    if config.ppo.overlap_in == "process":
        return learner_process(model, config.ppo.overlap_refresh, torch_threads(), config.ppo.overlap_reweight)
    return overlap_updates(model, config.ppo.overlap_refresh, config.ppo.overlap_reweight)


def close_learner(model) -> None:
    """End a learner process the model may have (``ppo.overlap_in: process``), its update finished."""
    close = getattr(model, "close_learner", None)
    if close is not None:
        close()


def wait_for_update(model) -> None:
    """Wait for an overlapped update that may be running (before reading or saving the policy)."""
    wait = getattr(model, "wait_for_update", None)
    if wait is not None:
        wait()


#: torch's thread count when this module was imported, before any engine step (see keep_torch_threads)
_TORCH_THREADS_AT_IMPORT = th.get_num_threads()


def torch_threads() -> int:
    """The torch threads a run asked for: ``OMP_NUM_THREADS`` if set, else torch's own default."""
    value = os.environ.get("OMP_NUM_THREADS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else _TORCH_THREADS_AT_IMPORT


def keep_torch_threads(model: MaskablePPO, threads: int | None = None) -> MaskablePPO:
    """Run the PPO updates and the rollout's forward passes on ``threads`` torch threads
    (default: :func:`torch_threads`).

    Why: the fast engine's parallel kernels run on numba's OpenMP layer, the same libgomp torch
    uses, and starting its thread pool (the first parallel engine call of the process) sets the
    OpenMP thread count that torch reads to numba's threads. From then on torch ran on every
    core, whatever ``OMP_NUM_THREADS`` said. On the shared machine that made the quick config's
    update 3 times slower in wall time (7 s against 20 s at load 17) and 4 times costlier in CPU
    time. So the count is set again before every update and after every environment step.
    """
    threads = torch_threads() if threads is None else int(threads)
    update = model.train

    def train() -> None:
        th.set_num_threads(threads)
        update()

    model.train = train
    env = model.get_env()
    if env is not None:
        step_wait = env.step_wait

        def pinned_step_wait():
            result = step_wait()
            th.set_num_threads(threads)
            return result

        env.step_wait = pinned_step_wait
    th.set_num_threads(threads)
    return model


class SnapshotPool:
    """The learner's frozen snapshots in the opponent pool: the newest ``max_snapshots`` share
    ``snapshot_weight``; older ones are retired (weight 0)."""

    def __init__(self, config: TrainConfig, pool: OpponentPool, run_dir: Path):
        self.c = config.opponents
        self.seed = config.run.seed
        self.pool = pool
        self.dir = run_dir / "snapshots"
        self.entries: list[tuple[int, str, int]] = []  # (timesteps, file, pool index)

    def add(self, policy, timesteps: int, save: bool = True) -> None:
        if hasattr(policy.action_dist, "clear"):
            policy.action_dist.clear()
        frozen = copy.deepcopy(policy)
        path = self.dir / f"step_{timesteps}.pt"
        if save:
            self.dir.mkdir(parents=True, exist_ok=True)
            th.save(frozen.state_dict(), path)
        agent = PolicyAgent(frozen, seed=self.seed * 31 + len(self.entries),
                            deterministic=self.c.snapshot_deterministic, name=f"snapshot@{timesteps}")
        index = self.pool.add(agent, 0.0, label=agent.name)
        self.entries.append((timesteps, path.name, index))
        active = self.entries[-self.c.max_snapshots:]
        for _, _, i in self.entries:
            self.pool.set_weight(i, 0.0)
        for _, _, i in active:
            self.pool.set_weight(i, self.c.snapshot_weight / len(active))

    def restore(self, state: list, policy) -> None:
        for timesteps, name, _ in state:
            if hasattr(policy.action_dist, "clear"):
                policy.action_dist.clear()
            frozen = copy.deepcopy(policy)
            frozen.load_state_dict(th.load(self.dir / Path(name).name, map_location="cpu"))
            self.add(frozen, int(timesteps), save=False)

    def state(self) -> list:
        return [list(e) for e in self.entries]


class TrainingCallback(BaseCallback):
    """Snapshots, evaluations, checkpoints, the learning-curve files and the progress bar."""

    def __init__(self, config: TrainConfig, snapshots: SnapshotPool, run_dir: Path, progress: bool,
                 next_marks: dict | None = None):
        super().__init__()
        self.config = config
        self.snapshots = snapshots
        self.run_dir = run_dir
        self.progress = progress
        self.bar = None
        self.next = next_marks or {}
        evals = read_csv(run_dir / "eval.csv")
        # A resumed run judges its best model as the first launch did: on trained evaluations only,
        # never against the untrained model's step-0 row.
        self.best = max((e["difference"] for e in evals if e["timesteps"] > 0), default=float("-inf"))

    def _due(self, key: str, every: int) -> bool:
        if every <= 0 or (key == "snapshot" and self.config.opponents.snapshot_weight <= 0):
            return False
        if key not in self.next:
            self.next[key] = (self.num_timesteps // every + 1) * every
        if self.num_timesteps >= self.next[key]:
            self.next[key] = (self.num_timesteps // every + 1) * every
            return True
        return False

    def _on_training_start(self) -> None:
        self.start = time.perf_counter()
        self.start_steps = self.num_timesteps
        self.episode_sum, self.episode_count = 0.0, 0
        if self.progress:
            from tqdm import tqdm

            self.bar = tqdm(total=self.config.run.total_timesteps, initial=self.num_timesteps, unit=" decisions",
                            unit_scale=True, desc=f"training {self.config.run.name}", dynamic_ncols=True)

    def _on_step(self) -> bool:
        if self.bar is not None:
            # SB3 rounds the run up to whole rollouts; the bar stops at the configured total.
            self.bar.update(max(0, min(self.model.n_envs, self.bar.total - self.bar.n)))
        for info in self.locals["infos"]:
            if "episode" in info:
                for ended in [info] + info.get("later_episodes", []):
                    self.episode_sum += ended["episode"]["r"]
                    self.episode_count += 1
        c = self.config
        if self.num_timesteps == self.model.n_envs and c.eval.every > 0:
            self.run_eval(at=0)  # the untrained model: the curve's starting point
        if self._due("snapshot", c.opponents.snapshot_every):
            wait_for_update(self.model)
            self.snapshots.add(self.model.policy, self.num_timesteps)
            self.logger.record("selfplay/snapshots", len(self.snapshots.entries))
        if self._due("eval", c.eval.every):
            self.run_eval()
        if self._due("checkpoint", c.output.checkpoint_every):
            save_checkpoint(self.model, self.run_dir, self.snapshots, self.next)
        return True

    def run_eval(self, at: int | None = None) -> dict:
        c = self.config
        wait_for_update(self.model)  # the policy is evaluated with its update finished
        timesteps = int(self.num_timesteps if at is None else at)
        # Every evaluation keeps its deals' seeds and agents (and the records eval.records names):
        # evaluations/t<timesteps>-vs-<opponent>/ (evaluation.keep_evaluation).
        result = evaluate(self.model.policy, c.eval.opponent, c.eval.deals, c.env.num_players,
                          num_threads=c.env.num_threads, game=c.env.game, game_options=c.env.game_options,
                          folder=self.run_dir / "evaluations" / f"t{timesteps:012d}-vs-{c.eval.opponent}",
                          records=c.eval.records, model=f"the model at timesteps {timesteps}")
        result["timesteps"] = timesteps
        result["seconds"] = time.perf_counter() - self.start
        for key in ("model_chips_per_hand", "difference", "difference_ci95"):
            self.logger.record(f"eval/{key}_vs_{c.eval.opponent}", result[key])
        append_csv(self.run_dir / "eval.csv", result)
        # Judged on the evaluation deals (report.py re-measures it on others). The evaluation at step 0
        # is the untrained model, the curve's starting point: never a best model.
        if at is None and result["difference"] > self.best:
            self.best = result["difference"]
            self.model.save(self.run_dir / "best_model.zip", exclude=CHECKPOINT_EXCLUDE)
        if self.bar is not None:
            self.bar.set_postfix_str(f"vs {c.eval.opponent}: {result['difference']:+.1f}"
                                     f"±{result['difference_ci95']:.1f} chips/hand")
        return result

    def _on_rollout_end(self) -> None:
        elapsed = time.perf_counter() - self.start
        count = self.episode_count
        row = {"timesteps": int(self.num_timesteps), "seconds": elapsed,
               "fps": (self.num_timesteps - self.start_steps) / max(elapsed, 1e-9),
               "episode_chips_mean": self.episode_sum / count if count else float("nan"), "episodes": count}
        self.logger.record("rollout/learner_chips_per_hand", row["episode_chips_mean"])
        append_csv(self.run_dir / "curve.csv", row)
        self.episode_sum, self.episode_count = 0.0, 0

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()


#: What a saved model leaves out besides SB3's own exclusions: the last rollout's observations
#: (about 11 MB of a 16 MB checkpoint at 2,048 tables). A resumed run resets its environment.
CHECKPOINT_EXCLUDE = ["_last_obs", "_last_original_obs", "_last_episode_starts",
                      "train",  # keep_torch_threads' wrapper: the class's train() is the one to save
                      *OVERLAP_ATTRIBUTES]  # train/overlap.py's loop, when on


def save_checkpoint(model: MaskablePPO, run_dir: Path, snapshots: SnapshotPool, marks: dict) -> Path:
    wait_for_update(model)
    folder = run_dir / "checkpoints"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"step_{model.num_timesteps}.zip"
    model.save(path, exclude=CHECKPOINT_EXCLUDE)
    # Paths inside the run's folder are kept relative to it, so a run can be moved.
    state = {"checkpoint": path.name, "timesteps": int(model.num_timesteps), "snapshots": snapshots.state(),
             "marks": marks}
    (folder / "state.json").write_text(json.dumps(state, indent=1))
    return path


def train(config: TrainConfig, resume: bool = False, progress: bool = True) -> dict:
    """Train (or, with ``resume``, continue) the run ``config`` describes; returns the final results."""
    run_dir = config.run_dir
    state_file = run_dir / "checkpoints" / "state.json"
    if resume and not state_file.exists():
        raise FileNotFoundError(f"nothing to resume: no checkpoint in {run_dir / 'checkpoints'}")
    if not resume and is_run_folder(run_dir):
        raise FileExistsError(f"{run_dir} holds a run already: resume it with --resume, start it again with "
                              f"--overwrite, or pick another run.name")
    if resume:
        check_resume_config(config, yaml.safe_load((run_dir / "config.yaml").read_text()))
    th.manual_seed(config.run.seed)
    # Adam's moments for rarely active inputs decay into subnormal floats, which are slow on x86.
    th.set_flush_denormal(True)
    env, pool = make_env(config)
    if not resume:
        model = make_model(config, env)
        if config.run.init_from:  # a saved model's weights, a fresh optimizer (a fine-tune); checked
            start_from(model.policy, config.run.init_from)  # before the run folder exists
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    snapshots = SnapshotPool(config, pool, run_dir)
    marks = {}
    if resume:
        state = json.loads(state_file.read_text())
        # load_model: checkpoints saved while NosPolicy lived in train/policy.py load too
        model = fast_update(config, load_model(run_dir / "checkpoints" / Path(state["checkpoint"]).name, env=env,
                                              device="cpu"))
        # The rate from the config (train/schedules.py), not the one pickled in the checkpoint: the same
        # while ppo.learning_rate and learning_rate_end may not change on resume, and read over the new
        # run.total_timesteps by SB3's progress.
        model.learning_rate = learning_rate(config)
        model._setup_lr_schedule()
        # New random streams from here on (deals, opponents, sampling), not a replay of the first launch's.
        model.set_random_seed(config.run.seed + model.num_timesteps)
        snapshots.restore(state["snapshots"], model.policy)
        marks = state["marks"]
        for name in ("curve.csv", "eval.csv"):
            truncate_csv(run_dir / name, model.num_timesteps)
    elif config.distill.teacher != "none":  # the teacher's choices cloned first (train/distill.py)
        from .distill import distill_policy

        distill_policy(config, model.policy, run_dir, make_env)
    formats = ["csv"] + (["tensorboard"] if config.output.tensorboard else [])
    model.set_logger(configure(str(run_dir / "tb" / f"from_{model.num_timesteps}"), formats))
    callback = TrainingCallback(config, snapshots, run_dir, progress and config.output.progress_bar, marks)
    remaining = config.run.total_timesteps - model.num_timesteps
    start = time.perf_counter()
    try:
        if remaining > 0:
            try:
                model.learn(remaining, callback=CallbackList([callback]), reset_num_timesteps=False)
            except KeyboardInterrupt:
                path = save_checkpoint(model, run_dir, snapshots, callback.next)
                raise KeyboardInterrupt(f"interrupted: saved {path}; continue with --resume") from None
    finally:
        close_learner(model)  # its last update is in the model (learn waits for it)
    seconds = time.perf_counter() - start
    model.save(run_dir / "model.zip", exclude=CHECKPOINT_EXCLUDE)
    save_checkpoint(model, run_dir, snapshots, callback.next)
    return final_report(config, model.policy, run_dir, training_seconds=seconds)
