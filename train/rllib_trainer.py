"""Self-play PPO on RLlib (``run.engine: rllib``; docs/ray.md), for Nos or any other registered
game (``env.game``, ``env.game_options``: the environment is ``nos_env.rllib_env`` for every game,
the baselines the game's agents, the evaluations its duplicate tournaments).

One learning module (``"learner"``, :class:`agents.rllib_module.MaskedPPOModule`) plays one seat
of every hand; the other seats are drawn from a league by the agent-to-module mapping:

- the baseline agents of ``opponents.baselines`` (``"baseline_<name>"``: the project's agents as
  non-trainable RLModules, :class:`agents.rllib_module.AgentModule`), with their weights;
- frozen snapshots of the learner (``"snapshot_<timesteps>"``), one every
  ``opponents.snapshot_every`` timesteps, the newest ``opponents.max_snapshots`` sharing
  ``opponents.snapshot_weight`` (older ones leave the league: ``Algorithm.remove_module``).

Environment: ``rllib.num_env_runners`` env runners (Ray actors), each stepping
``rllib.tables_per_runner`` tables in one fast-engine call (``nos_env.rllib_env``). Ray is local
(started here with ``rllib.num_cpus``) unless ``rllib.address`` names a cluster.

A run writes what the SB3 path writes where it can: ``config.yaml``, ``curve.csv``,
``eval.csv``, the report (``report.md``, ``results.json``, ``learning_curve.png``), and
``checkpoints/step_<N>`` (RLlib algorithm checkpoints) with ``checkpoints/state.json`` (the
league, the marks); ``--resume`` continues from the latest. The trained module is
``rllib_module/`` (``make_agent("rllib:runs/<name>/rllib_module")``), the best evaluated one
``best_rllib_module/``. Evaluations are the project's duplicate tournaments.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from pathlib import Path

import yaml

from nos_env.extras import require

from .config import ConfigError, TrainConfig
from .evaluation import EVAL_SEED, append_csv, evaluate_agent, read_csv

LEARNER = "learner"


def _ray():
    require("ray", "training with run.engine: rllib", ("ray", "torch"))
    import ray

    return ray


def league_mapping(num_players: int, league: list[tuple[str, float]]):
    """The agent-to-module mapping: per episode (hand) one random seat is the learner's, the
    others draw a league member by weight. Drawn from the episode's id, so every seat of a hand
    sees the same draw whenever RLlib asks."""
    ids = [m for m, w in league if w > 0]
    weights = [w for m, w in league if w > 0]
    drawn: dict = {}  # episode id -> (learner seat, draws): RLlib asks per agent and step (5 % of a runner's time)

    def mapping(agent_id, episode, **kwargs):
        key = str(episode.id_)
        if key not in drawn:
            if len(drawn) >= 4096:
                drawn.clear()
            rng = random.Random(key)
            drawn[key] = (rng.randrange(num_players), rng.choices(ids, weights, k=num_players))
        learner_seat, draws = drawn[key]
        seat = int(str(agent_id).rsplit("_", 1)[1])
        return LEARNER if seat == learner_seat else draws[seat]

    return mapping


class League:
    """The opponents: baselines and the learner's frozen snapshots, with weights."""

    def __init__(self, config: TrainConfig):
        self.c = config.opponents
        self.baselines = [(f"baseline_{name}", float(w)) for name, w in self.c.baselines.items()]
        self.snapshots: list[int] = []  # timesteps of the active snapshots, oldest first

    def members(self) -> list[tuple[str, float]]:
        share = self.c.snapshot_weight / len(self.snapshots) if self.snapshots else 0.0
        return self.baselines + [(f"snapshot_{t}", share) for t in self.snapshots]

    def state(self) -> dict:
        return {"snapshots": list(self.snapshots)}


def env_config_of(config: TrainConfig, tables: int = 1, seed: int = 0) -> dict:
    """The RLlib environment's ``env_config`` of a run (``nos_env.rllib_books.check_env_config``):
    Nos with D12's forced moves as the config says; another game with its options (one hand an
    episode unless ``target_score`` is given) and relative points, as the SB3 path trains it."""
    c = config.env
    out = {"game": c.game, "num_players": c.num_players, "tables": tables, "seed": seed,
           "reward_scale": c.reward_scale, "num_threads": 1}
    if c.game == "nos":
        out["auto_forced"] = c.auto_forced
    else:
        out.update(game_options=dict(c.game_options), reward="relative")
    return out


def build_config(config: TrainConfig, league: League, env_seed: int):
    """The RLlib ``PPOConfig`` of a run (modules for the baselines and the league's snapshots)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    from agents.rllib_module import AgentModule, MaskedPPOModule
    from nos_env.rllib_env import NosTablesEnvRunner, game_spaces

    c, r, p = config, config.rllib, config.ppo
    env_config = env_config_of(c, tables=r.tables_per_runner, seed=env_seed)
    obs_space, act_space = game_spaces(env_config)
    model = DefaultModelConfig(fcnet_hiddens=[c.policy.width, *c.policy.pi], fcnet_activation=c.policy.activation,
                               vf_share_layers=False)
    learner_spec = RLModuleSpec(module_class=MaskedPPOModule, observation_space=obs_space, action_space=act_space,
                                model_config=model)
    specs = {LEARNER: learner_spec}
    for i, (name, _) in enumerate(c.opponents.baselines.items()):
        specs[f"baseline_{name}"] = RLModuleSpec(module_class=AgentModule, observation_space=obs_space,
                                                 action_space=act_space,
                                                 model_config={"agent": name, "seed": c.run.seed * 7919 + i,
                                                               "game": c.env.game, "num_players": c.env.num_players,
                                                               "game_options": dict(c.env.game_options)})
    for t in league.snapshots:
        specs[f"snapshot_{t}"] = learner_spec
    train_batch = max(1, r.num_env_runners) * r.tables_per_runner * r.rollout_fragment_length
    return (
        PPOConfig()
        .environment(env="nos_tables", env_config=env_config, disable_env_checking=True)
        .env_runners(env_runner_cls=NosTablesEnvRunner, num_env_runners=r.num_env_runners,
                     num_envs_per_env_runner=1, rollout_fragment_length=r.rollout_fragment_length,
                     num_cpus_per_env_runner=1)
        .learners(num_learners=r.num_learners)
        .multi_agent(policies=set(specs), policy_mapping_fn=league_mapping(c.env.num_players, league.members()),
                     policies_to_train=[LEARNER])
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs))
        .training(lr=p.learning_rate, gamma=p.gamma, lambda_=p.gae_lambda, clip_param=p.clip_range,
                  entropy_coeff=p.ent_coef, vf_loss_coeff=p.vf_coef, grad_clip=p.max_grad_norm,
                  num_epochs=p.n_epochs, minibatch_size=p.batch_size, train_batch_size_per_learner=train_batch,
                  use_kl_loss=False, vf_clip_param=float("inf"))
        .debugging(seed=c.run.seed)
        .reporting(metrics_num_episodes_for_smoothing=1000)
    )


def learner_module(algo, config: TrainConfig):
    """A copy of the learner's module with the learner's current weights (not an env runner's)."""
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    module = RLModuleSpec.from_module(algo.get_module(LEARNER)).build() if algo.get_module(LEARNER) is not None \
        else algo.config.rl_module_spec.rl_module_specs[LEARNER].build()
    module.set_state(algo.learner_group.get_weights([LEARNER])[LEARNER])
    module.eval()
    return module


def evaluate_module(module, opponent: str, deals: int, num_players: int, seed: int = EVAL_SEED,
                    num_threads=None, game: str = "nos", game_options: dict | None = None,
                    folder: Path | None = None, records: str = "none", model: str = "") -> dict:
    """As train/evaluation.py's ``evaluate``: the module (deterministic) in one seat against
    ``num_players - 1`` copies of ``opponent``, duplicate deals of ``game`` (a family game: points
    per hand under the chips keys, as there); ``folder`` keeps what replays any of its hands
    (``evaluation.keep_evaluation``: deal seeds, agents, and the records ``records`` names)."""
    from agents.rllib_module import RLlibAgent

    agent = RLlibAgent(module, seed=seed, deterministic=True, name="model")
    return evaluate_agent(agent, opponent, deals, num_players, seed=seed, num_threads=num_threads, game=game,
                          game_options=None if game == "nos" else dict(game_options or {}),
                          folder=folder, records=records, model=model)


def _game(config: TrainConfig) -> dict:
    return {"game": config.env.game, "game_options": dict(config.env.game_options)}


def _save_module(module, path: Path, config: TrainConfig) -> None:
    """The module's checkpoint folder, with the game it plays (``game.json``: ``rllib:PATH`` agents
    check it, since two games may share observation and action sizes)."""
    from agents.rllib_module import GAME_FILE

    if path.exists():
        shutil.rmtree(path)
    module.save_to_path(str(path.resolve()))
    (path / GAME_FILE).write_text(json.dumps({"game": config.env.game, "num_players": config.env.num_players,
                                              "game_options": dict(config.env.game_options)}))


class Marks:
    """When the next snapshot, evaluation and checkpoint are due (in timesteps)."""

    def __init__(self, saved: dict | None = None):
        self.next = dict(saved or {})

    def due(self, key: str, every: int, now: int) -> bool:
        if every <= 0:
            return False
        if key not in self.next:
            self.next[key] = (now // every + 1) * every
        if now >= self.next[key]:
            self.next[key] = (now // every + 1) * every
            return True
        return False


def _metric(result: dict, *path, default=0.0):
    for key in path:
        if not isinstance(result, dict) or key not in result:
            return default
        result = result[key]
    return result


def train_rllib(config: TrainConfig, resume: bool = False, progress: bool = True) -> dict:
    """Train (or resume) the run ``config`` describes with RLlib; returns the final results."""
    from .runfiles import check_resume_config, is_run_folder, truncate_csv

    ray = _ray()
    run_dir = config.run_dir
    state_file = run_dir / "checkpoints" / "state.json"
    if resume and not state_file.exists():
        raise FileNotFoundError(f"nothing to resume: no checkpoint in {run_dir / 'checkpoints'}")
    if not resume and is_run_folder(run_dir):
        raise FileExistsError(f"{run_dir} holds a run already: resume it with --resume, start it again with "
                              f"--overwrite, or pick another run.name")
    if resume:
        check_resume_config(config, yaml.safe_load((run_dir / "config.yaml").read_text()))
    run_dir.mkdir(parents=True, exist_ok=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))

    started_ray = False
    if not ray.is_initialized():
        if config.rllib.address is None:
            ray.init(num_cpus=config.rllib.num_cpus, include_dashboard=False, log_to_driver=False,
                     configure_logging=False)
        else:
            ray.init(address=config.rllib.address, log_to_driver=False)
        started_ray = True
    try:
        return _train(config, resume, progress, run_dir, state_file, truncate_csv)
    finally:
        if started_ray:
            ray.shutdown()


def _train(config, resume, progress, run_dir, state_file, truncate_csv) -> dict:
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.tune.registry import register_env

    from nos_env.rllib_env import NosTableEnv

    register_env("nos_tables", lambda env_config: NosTableEnv({**env_config, "tables": 1}))
    c = config
    league = League(c)
    marks = Marks()
    state = json.loads(state_file.read_text()) if resume else None
    steps_done = 0
    if state:
        league.snapshots = list(state["league"]["snapshots"])
        marks = Marks(state["marks"])
        steps_done = int(state["timesteps"])
    # A resumed run gets new random streams (deals, opponents, sampling), as the SB3 path does.
    algo = build_config(c, league, env_seed=c.run.seed + steps_done).build_algo()
    if state:
        algo.restore_from_path(str((run_dir / "checkpoints" / state["checkpoint"]).resolve()))
        for name in ("curve.csv", "eval.csv"):
            truncate_csv(run_dir / name, steps_done)
    evals = read_csv(run_dir / "eval.csv")
    best = max((e["difference"] for e in evals if e["timesteps"] > 0), default=float("-inf"))
    bar = None
    if progress and c.output.progress_bar:
        from tqdm import tqdm

        bar = tqdm(total=c.run.total_timesteps, initial=steps_done, unit=" decisions", unit_scale=True,
                   desc=f"training {c.run.name} (rllib)", dynamic_ncols=True)

    def run_eval(at: int) -> dict:
        nonlocal best
        module = learner_module(algo, c)
        # as the SB3 trainer: every evaluation keeps its deals' seeds and agents (and eval.records)
        row = evaluate_module(module, c.eval.opponent, c.eval.deals, c.env.num_players,
                              num_threads=c.env.num_threads, **_game(c),
                              folder=run_dir / "evaluations" / f"t{at:012d}-vs-{c.eval.opponent}",
                              records=c.eval.records, model=f"the module at timesteps {at}")
        row["timesteps"] = at
        row["seconds"] = time.perf_counter() - start
        append_csv(run_dir / "eval.csv", row)
        if at > 0 and row["difference"] > best:
            best = row["difference"]
            _save_module(module, run_dir / "best_rllib_module", c)
        if bar is not None:
            bar.set_postfix_str(f"vs {c.eval.opponent}: {row['difference']:+.1f}±{row['difference_ci95']:.1f}")
        return row

    def checkpoint(at: int) -> None:
        folder = run_dir / "checkpoints"
        folder.mkdir(parents=True, exist_ok=True)
        name = f"step_{at}"
        algo.save_to_path(str((folder / name).resolve()))
        (folder / "state.json").write_text(json.dumps(
            {"checkpoint": name, "timesteps": at, "league": league.state(), "marks": marks.next}, indent=1))

    def add_snapshot(at: int) -> None:
        module_id = f"snapshot_{at}"
        weights = algo.learner_group.get_weights([LEARNER])[LEARNER]
        league.snapshots.append(at)
        retired = league.snapshots[:-c.opponents.max_snapshots]
        league.snapshots = league.snapshots[-c.opponents.max_snapshots:]
        mapping = league_mapping(c.env.num_players, league.members())
        algo.add_module(module_id=module_id, module_spec=RLModuleSpec.from_module(learner_module(algo, c)),
                        new_agent_to_module_mapping_fn=mapping)
        algo.set_state({"learner_group": {"learner": {"rl_module": {module_id: weights}}}})
        algo.env_runner_group.sync_weights(from_worker_or_learner_group=algo.learner_group, inference_only=True)
        for t in retired:
            algo.remove_module(f"snapshot_{t}", new_agent_to_module_mapping_fn=mapping)

    start = time.perf_counter()
    timesteps = steps_done
    if not resume and c.eval.every > 0:
        run_eval(0)  # the untrained module: the curve's starting point
    launch_start = timesteps
    try:
        while timesteps < c.run.total_timesteps:
            result = algo.train()
            timesteps = steps_done + int(_metric(result, "env_runners", "num_env_steps_sampled_lifetime"))
            learner_steps = _metric(result, "env_runners", "num_module_steps_sampled", LEARNER)
            chips = _metric(result, "env_runners", "module_episode_returns_mean", LEARNER, default=float("nan"))
            elapsed = time.perf_counter() - start
            append_csv(run_dir / "curve.csv", {
                "timesteps": timesteps, "seconds": elapsed, "fps": (timesteps - launch_start) / max(elapsed, 1e-9),
                # the learner's return per hand, in chips (rewards are chips * reward_scale)
                "episode_chips_mean": chips / c.env.reward_scale, "episodes": learner_steps})
            if bar is not None:
                bar.update(max(0, min(timesteps, bar.total) - bar.n))
            if c.opponents.snapshot_weight > 0 and marks.due("snapshot", c.opponents.snapshot_every, timesteps):
                add_snapshot(timesteps)
            if marks.due("eval", c.eval.every, timesteps):
                run_eval(timesteps)
            if marks.due("checkpoint", c.output.checkpoint_every, timesteps):
                checkpoint(timesteps)
    except KeyboardInterrupt:
        checkpoint(timesteps)
        raise KeyboardInterrupt(f"interrupted: saved a checkpoint at {timesteps}; continue with --resume") from None
    finally:
        if bar is not None:
            bar.close()
    seconds = time.perf_counter() - start
    module = learner_module(algo, c)
    _save_module(module, run_dir / "rllib_module", c)
    checkpoint(timesteps)
    algo.stop()
    return rllib_report(c, module, run_dir, seconds)


def rllib_report(config: TrainConfig, module, run_dir: Path, training_seconds: float) -> dict:
    """The final evaluation and report files, as train/report.py writes them for SB3."""
    from .report import plot_curve, results_table

    n = config.env.num_players
    rows = []
    kept = run_dir / "evaluations"  # what replays any final evaluation hand, as the SB3 report keeps
    if config.eval.final_deals > 0:
        for opponent in config.eval.final_opponents:
            row = evaluate_module(module, opponent, config.eval.final_deals, n, seed=EVAL_SEED + 1,
                                  num_threads=config.env.num_threads, **_game(config),
                                  folder=kept / f"final-vs-{opponent}", records=config.eval.records,
                                  model=str(run_dir / "rllib_module"))
            row["seats"] = n - 1
            rows.append(row)
        best = run_dir / "best_rllib_module"
        if best.exists():
            from agents.rllib_module import load_module

            row = evaluate_module(load_module(best), config.eval.opponent, config.eval.final_deals, n,
                                  seed=EVAL_SEED + 1, num_threads=config.env.num_threads, **_game(config),
                                  folder=kept / f"final-best_rllib_module-vs-{config.eval.opponent}",
                                  records=config.eval.records, model=str(best))
            row["seats"] = n - 1
            row["opponent_label"] = f"{config.eval.opponent} (best_rllib_module)"
            rows.append(row)
    curve = read_csv(run_dir / "curve.csv")
    evals = read_csv(run_dir / "eval.csv")
    png = plot_curve(run_dir, curve, evals, config.eval.opponent)
    fps = [row["fps"] for row in curve]
    results = {"run": config.run.name, "engine": "rllib", "timesteps": int(curve[-1]["timesteps"]) if curve else 0,
               "training_seconds_this_launch": training_seconds, "fps_last": fps[-1] if fps else None,
               "final": rows, "eval_history": evals, "model": str(run_dir / "rllib_module"),
               "learning_curve": str(png)}
    (run_dir / "results.json").write_text(json.dumps(results, indent=1))
    unit = "chips" if config.env.game == "nos" else "points"  # a family game's results are points per hand
    table = results_table(rows, unit) if rows else "(no final evaluation: eval.final_deals is 0 or no final_opponents)"
    fps_text = f"{fps[-1]:,.0f}" if fps else "n/a"
    (run_dir / "report.md").write_text("\n".join([
        f"# Training report: {config.run.name} (RLlib PPO)", "",
        f"- game: {config.env.game}" + (f" {config.env.game_options}" if config.env.game_options else ""),
        f"- timesteps (decisions at every seat): {results['timesteps']:,}; this launch trained for "
        f"{training_seconds:.0f} s at {fps_text} decisions/s (updates included)",
        f"- module: `{run_dir / 'rllib_module'}` (play it with `make_agent(\"rllib:{run_dir / 'rllib_module'}\")`)",
        f"- learning curve: `{png}`", "",
        f"Final evaluation: the module in one seat against {n - 1} copies of each opponent, duplicate deals "
        f"(every deal once per seat rotation), 95% confidence intervals over deals.", "", table, ""]))
    names = ["rllib_module", "best_rllib_module", "report.md", "results.json", "learning_curve.png", "curve.csv",
             "eval.csv", "config.yaml", "checkpoints", "evaluations"]
    results["files"] = [str(run_dir / name) for name in names if (run_dir / name).exists()]
    results["table"] = table
    return results


__all__ = ["ConfigError", "League", "build_config", "evaluate_module", "league_mapping", "train_rllib"]
