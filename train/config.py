"""Training configurations: YAML files checked against typed, documented defaults.

A config file overrides any of the fields below, section by section; every
field not given keeps its default. Unknown sections or keys, wrong types and
out-of-range values are errors that name the file, the key and what is
allowed. ``python -m train --print-defaults`` prints the full default config.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents.registry import known_agents
from nos_env.threads import check_num_threads


class ConfigError(ValueError):
    """A config file that cannot be used, with the reason."""


@dataclass
class RunConfig:
    name: str = "run"  # the run's folder under output_dir
    seed: int = 0  # seeds the tables, the opponents, the rotation and torch
    total_timesteps: int = 2_000_000  # learner decisions, summed over tables
    output_dir: str = "runs"
    # "sb3" (MaskablePPO in this process, the default) or "rllib" (RLlib PPO on Ray, the `ray`
    # extra: the `rllib` section below, docs/ray.md). With rllib, total_timesteps counts decisions
    # at every seat (RLlib's env steps), not only the learner's.
    engine: str = "sb3"
    # "" (a fresh network) or a model saved by this command (model.zip or a checkpoint): PPO starts
    # from its policy's weights, critic included, with a fresh optimizer, e.g. to fine-tune a model
    # against other opponents. The config's network and observation settings must build the same
    # policy (train/trainer.py start_from); sb3 engine only, not with a distill teacher
    init_from: str = ""


@dataclass
class EnvConfig:
    game: str = "nos"  # "nos" or a family game (nos_env.family.rules.GAMES: block, draw, all_fives, ...)
    game_options: dict = field(default_factory=dict)  # a family game's options (its rules page's Options table)
    num_envs: int = 1024  # tables stepped at once
    num_players: int = 4
    learner_seat: Any = "rotate"  # "rotate" or a fixed seat number
    reward_scale: float = 0.01  # reward = chips * reward_scale
    auto_forced: bool = True  # D12: decisions with one legal action are applied, not asked
    tactics_hint: bool = False  # append Tactics' choice to the observation (agents/policy.py)
    greedy_hint: bool = False  # a family game's: append its Greedy's choice to the observation (the same way)
    # a scoring game's, with greedy_hint: each action's immediate points follow the hint, and the policy
    # adds policy.points_weight * points to each logit (agents/policy.py action_points)
    action_points: bool = False
    # Blind, with greedy_hint: each action's features follow the points (agents/family/blind_features.py:
    # whether the rows' next tiles fit the ends a move leaves), and the policy adds
    # policy.features_weight @ features[a] to each logit (agents/policy.py action_features)
    action_features: bool = False
    # Nos, with tactics_hint: each play's closing features follow the hint (unseen tiles that would fit
    # after it, my own fit, the closing's probability of being correct, its expected payment), and the
    # policy adds learned multiples of them to the play's logits (agents/policy.py closing_features)
    closing_features: bool = False
    # with closing_features: two more per play follow them, what the final count would pay (the
    # settlement of a correct closing with the play, and of the hand ending after it; agents/policy.py)
    settlement_features: bool = False
    # the critic also reads the other seats' hands (Nos: and the boneyard's next draw and bottom two)
    # during training (train/privileged.py); the policy never does, and a saved model plays without them.
    # Nos and the family games but Blind; not the rllib engine
    privileged_critic: bool = False
    num_threads: Any = "auto"  # the fast engine's threads: "auto" or 1..NUMBA_NUM_THREADS (nos_env/threads.py)


@dataclass
class OpponentsConfig:
    baselines: dict = field(default_factory=lambda: {"tactics": 0.6, "greedy": 0.3, "random": 0.1})
    snapshot_weight: float = 0.0  # total weight of the learner's frozen snapshots (shared equally)
    snapshot_every: int = 500_000  # timesteps between snapshots
    max_snapshots: int = 5  # the oldest is dropped beyond this
    snapshot_deterministic: bool = False  # snapshots sample from their policy by default


@dataclass
class PPOConfig:
    n_steps: int = 8  # decisions per table per rollout: rollout = num_envs * n_steps
    batch_size: int = 8192
    n_epochs: int = 3
    learning_rate: float = 3e-4
    # null: learning_rate throughout; a number in [0, learning_rate]: the rate falls linearly from
    # learning_rate at timestep 0 to this at run.total_timesteps (train/schedules.py)
    learning_rate_end: Any = None
    gamma: float = 1.0  # chips at the end of a hand count fully
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: Any = None  # a float stops an update's epochs early
    # each update runs beside the next rollout's collection, which the policy one update behind
    # collects (train/overlap.py; docs/training.md "Faster training")
    overlap: bool = False
    # with overlap: the update first recomputes the rollout's log-probabilities with the policy it
    # starts from, so PPO's clip is centred on it (train/overlap.py); false keeps the collecting policy's
    overlap_refresh: bool = True
    # with overlap: where the update runs, "thread" (train/overlap.py) or "process", a learner
    # process with its own interpreter lock (train/learner_process.py)
    overlap_in: str = "thread"
    # with overlap_refresh: each decision's advantage also weighted by π_updated / π_collecting
    # (decoupled PPO; train/overlap.py refresh_log_probs)
    overlap_reweight: bool = False
    # the update's MLPs in bfloat16 (autocast; loss, ratios, weights and Adam stay float32):
    # agents/policy.py NosPolicy.evaluate_actions; docs/training.md "bf16 updates"
    bf16: bool = False


@dataclass
class PolicyConfig:
    width: int = 256  # the shared first layer
    pi: list = field(default_factory=lambda: [128])  # actor layers after it
    vf: list = field(default_factory=lambda: [128])  # critic layers after it
    activation: str = "tanh"  # tanh or relu (after the first layer, which is ReLU)
    hint_weight: float = 3.0  # the hint's starting logit bonus (with env.tactics_hint or env.greedy_hint)
    points_weight: float = 0.0  # with env.action_points: the points' starting logit weight (learned), per point
    features_weight: float = 0.0  # with env.action_features: each feature's starting logit weight (learned)
    # with env.action_features: hidden widths of an MLP over each action's features instead of the weights
    features_hidden: list = field(default_factory=list)
    # with env.closing_features: the starting weights (learned) of fit_unseen, own_fits, p_correct, close_chips
    # (and close_settle, settle_now with env.settlement_features); null: agents.closing_input.CLOSING_WEIGHTS
    # (only the expected payment, a logit per 10 chips), then SETTLEMENT_WEIGHTS (1, 0)
    closing_weights: Any = None
    hint_trainable: bool = True  # false keeps the bonus fixed, so the network must learn to depart
    # Nos: blocks of actions (nos_env.encoding.ACTION_BLOCKS) where the policy always plays the Tactics
    # hint, e.g. [declare, decline, play, pass] for a model fitted on the openings only (distill.phases)
    hint_kept: list = field(default_factory=list)
    # Nos: blocks of hint_kept where the network chooses after all in the endgame (no tile left to draw;
    # nos_env.encoding.ENDGAME_COLUMN), e.g. [play] for a model fitted on the endgame's plays too
    hint_freed_in_endgame: list = field(default_factory=list)
    # Nos: the hint's logit bonus in the hint_kept blocks: 1000 plays the hint always; a few logits make
    # it a strong prior that PPO may overrule (e.g. PPO after a fit of the openings)
    kept_bonus: float = 1000.0


@dataclass
class EvalConfig:
    every: int = 500_000  # timesteps between evaluations against `opponent` (0: never)
    deals: int = 200  # duplicate deals per evaluation
    opponent: str = "tactics"  # the model plays one seat against num_players - 1 of these
    final_deals: int = 1000  # duplicate deals per final opponent
    final_opponents: list = field(default_factory=lambda: ["random", "greedy", "tactics"])
    # Hand records each evaluation keeps in the run's evaluations/ folder (every deal's seeds and
    # agents are always kept): none, all, worst[:K] / best[:K] (the model's K worst or best
    # deals), or deal numbers N,M,... as in evaluations/*/tournament.json
    records: str = "none"


@dataclass
class OutputConfig:
    checkpoint_every: int = 500_000  # timesteps between checkpoints (0: only the final model)
    tensorboard: bool = True
    progress_bar: bool = True


@dataclass
class RLlibConfig:
    """Used when run.engine is "rllib" (docs/ray.md)."""

    address: Any = None  # null: start a local Ray in the command; "auto" or "ray://host:10001": join a cluster
    num_cpus: int = 2  # the local Ray's CPUs (ignored with an address)
    num_env_runners: int = 1  # 0: sample in the driver; each runner is a Ray actor with 1 CPU
    tables_per_runner: int = 64  # tables each runner steps in one engine call
    rollout_fragment_length: int = 32  # engine steps per table per sample
    num_learners: int = 0  # 0: the learner runs in the driver; N: N learner actors (GPUs on a cluster)


@dataclass
class DistillConfig:
    """Distilling a teacher into the policy before PPO (train/distill.py): off while teacher is "none"."""

    # "none", or an agent of the game that plays the learner's seat and labels it (e.g. search), or
    # "rollout_advantage": every legal move played out on the real table, Greedy after it (Tactics
    # in Nos), labelled with its exact gain over the hinted move (train/rollout_advantage.py)
    teacher: str = "none"
    teacher_options: dict = field(default_factory=dict)  # the teacher's own keyword options, e.g. {rollouts: 96}
    decisions: int = 20_000  # labelled learner decisions (those with more than one legal action)
    # "choice": clone the teacher's choices; "values": its action values (Search's), softmax at `temperature`;
    # "advantage": regress logit(a) - logit(Greedy's move) on the values' advantage over Greedy's / `temperature`
    target: str = "choice"
    temperature: float = 1.0  # in the game's points: the values' softmax temperature (target "values")
    num_envs: int = 64  # tables the teacher plays at once while collecting
    epochs: int = 10  # passes over the labels
    batch_size: int = 512
    learning_rate: float = 1e-3  # Adam's, for the cloning only (PPO's optimizer is left as it is)
    holdout: float = 0.1  # the share of labels (the last collected) never trained on: the agreement reported
    # "" collects new labels (saved in the run's distill/labels.npz); a path reuses a run's labels.npz
    # (the same game, hint and observation), e.g. to try other cloning settings without the teacher's time
    labels_from: str = ""
    # target "advantage": the margins (points) Greedy's move may be given before the policy leaves it;
    # the one of best held-out gain is kept (train/distill.py: choose_margin)
    margins: list = field(default_factory=lambda: [0.0, 0.25, 0.5, 1.0, 2.0, 4.0])
    patience: int = 3  # target "advantage": stop after this many epochs without a lower held-out loss (0: never)
    # rollout_advantage in Nos: label only the decisions of these phases (e.g. [set, announce], the
    # openings, where a search gains most over Tactics); empty: every decision
    phases: list = field(default_factory=list)
    # target "advantage": how the margin is chosen. "holdout": the best held-out gain of the labels (it assumes
    # Greedy after a single departure); "tournament": the best mean of a short duplicate tournament of the
    # fitted policy at each margin, in one seat against Greedy (train/distill.py: choose_margin_by_tournament)
    margin_by: str = "holdout"
    margin_deals: int = 300  # margin_by "tournament": its duplicate deals (own seed: MARGIN_SEED + run.seed)


@dataclass
class TrainConfig:
    run: RunConfig = field(default_factory=RunConfig)
    env: EnvConfig = field(default_factory=EnvConfig)
    opponents: OpponentsConfig = field(default_factory=OpponentsConfig)
    ppo: PPOConfig = field(default_factory=PPOConfig)
    policy: PolicyConfig = field(default_factory=PolicyConfig)
    eval: EvalConfig = field(default_factory=EvalConfig)
    output: OutputConfig = field(default_factory=OutputConfig)
    rllib: RLlibConfig = field(default_factory=RLlibConfig)
    distill: DistillConfig = field(default_factory=DistillConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.run.output_dir) / self.run.name

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


SECTIONS = {f.name: f.default_factory for f in dataclasses.fields(TrainConfig)}

#: Defaults that differ for a family game (env.game other than "nos"): its agents are Random,
#: Greedy and Search (agents/family/), so the opponents and evaluations use Greedy and Random.
FAMILY_DEFAULTS = {
    ("opponents", "baselines"): {"greedy": 0.7, "random": 0.3},
    ("eval", "opponent"): "greedy",
    ("eval", "final_opponents"): ["random", "greedy"],
}


def _fail(where: str, message: str) -> None:
    raise ConfigError(f"{where}: {message}")


def _suggest(key: str, known) -> str:
    close = difflib.get_close_matches(key, list(known), n=1)
    return f" (did you mean {close[0]!r}?)" if close else f"; known: {', '.join(sorted(known))}"


def _check_type(where: str, value, default):
    """Values take the default's type; ints are accepted for floats."""
    if isinstance(default, bool):
        if not isinstance(value, bool):
            _fail(where, f"must be true or false, got {value!r}")
    elif isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, int):
            _fail(where, f"must be an integer, got {value!r}")
    elif isinstance(default, float):
        if isinstance(value, str):  # YAML 1.1 reads 3e-4 (no dot) as a string
            try:
                value = float(value)
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(where, f"must be a number, got {value!r}")
        value = float(value)
        if not math.isfinite(value):
            _fail(where, f"must be a finite number, got {value!r}")
    elif isinstance(default, str):
        if not isinstance(value, str):
            _fail(where, f"must be a string, got {value!r}")
    elif isinstance(default, list):
        if not isinstance(value, list):
            _fail(where, f"must be a list, got {value!r}")
    elif isinstance(default, dict):
        if not isinstance(value, dict):
            _fail(where, f"must be a mapping, got {value!r}")
    return value


def from_dict(data: dict | None, source: str = "config") -> TrainConfig:
    config = TrainConfig()
    if data is None:
        data = {}
    if not isinstance(data, dict):
        _fail(source, f"must be a mapping of sections ({', '.join(SECTIONS)}), got {type(data).__name__}")
    for section, values in data.items():
        if section not in SECTIONS:
            _fail(source, f"unknown section {section!r}{_suggest(section, SECTIONS)}")
        if values is None:
            continue
        if not isinstance(values, dict):
            _fail(f"{source}: {section}", f"must be a mapping of keys, got {values!r}")
        target = getattr(config, section)
        known = {f.name for f in dataclasses.fields(target)}
        for key, value in values.items():
            where = f"{source}: {section}.{key}"
            if key not in known:
                _fail(f"{source}: {section}", f"unknown key {key!r}{_suggest(key, known)}")
            default = getattr(target, key)
            if (section, key) == ("eval", "records") and isinstance(value, int) and not isinstance(value, bool):
                value = str(value)  # one deal number, which YAML reads as an integer
            if default is not None and key not in ("learner_seat", "target_kl", "num_threads", "address"):
                value = _check_type(where, value, default)
            setattr(target, key, value)
    given = {(section, key) for section, values in data.items() if isinstance(values, dict) for key in values}
    if config.env.game != "nos":  # Tactics plays Nos only: a family game's defaults use its own agents
        for (section, key), value in FAMILY_DEFAULTS.items():
            if (section, key) not in given:
                setattr(getattr(config, section), key, copy.deepcopy(value))
    validate(config, source)
    return config


def read_sections(path: str | Path, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """A YAML config file's sections as a dict (empty for an empty file), with each
    ``--set section.key=value`` override applied (the value read as YAML). What is wrong (no file,
    bad YAML, a bad override) raises ConfigError; the sections themselves are checked by the
    caller's ``from_dict``. Shared by ``nos-train`` and ``python -m train.distill_nos``."""
    import yaml  # the train extra's; imported here so that train.config's checks load without it

    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None
    if data is None:
        data = {}
    for item in overrides:
        if "=" not in item or "." not in item.split("=", 1)[0]:
            raise ConfigError(f"--set {item!r}: expected section.key=value, e.g. run.total_timesteps=100000")
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: must be a mapping of sections")
        key, value = item.split("=", 1)
        section, name = key.split(".", 1)
        if data.get(section) is None:
            data[section] = {}
        if not isinstance(data[section], dict):
            raise ConfigError(f"--set {item!r}: section {section!r} is not a mapping in the config file")
        data[section][name] = yaml.safe_load(value)
    return data


def load_config(path: str | Path) -> TrainConfig:
    return from_dict(read_sections(path), str(path))


def _positive(where: str, value, allow_zero: bool = False) -> None:
    if value < 0 or (value == 0 and not allow_zero):
        _fail(where, f"must be {'>= 0' if allow_zero else 'positive'}, got {value}")


def validate(c: TrainConfig, source: str = "config") -> None:
    w = lambda key: f"{source}: {key}"  # noqa: E731
    if not c.run.name or "/" in c.run.name or c.run.name in (".", ".."):
        _fail(w("run.name"), f"must be a plain folder name, got {c.run.name!r}")
    _positive(w("run.seed"), c.run.seed, allow_zero=True)
    # 0 keeps a distilled policy as it is (no PPO): only with a teacher
    _positive(w("run.total_timesteps"), c.run.total_timesteps, allow_zero=c.distill.teacher != "none")
    _positive(w("env.num_envs"), c.env.num_envs)
    if c.run.init_from:
        if not Path(c.run.init_from).is_file():
            _fail(w("run.init_from"), f"no saved model at {c.run.init_from!r} (a run's model.zip or checkpoints/step_N.zip, "
                                      f"or \"\" for a fresh network)")
        if c.run.engine != "sb3":
            _fail(w("run.init_from"), "starts MaskablePPO from a saved model: the sb3 engine only")
        if c.distill.teacher != "none":
            _fail(w("run.init_from"), "and distill.teacher both choose the starting weights: use one "
                                      "(distill.teacher: none to start from the saved model)")
    game = c.env.game
    if game == "nos":
        if c.env.num_players not in (3, 4, 5):
            _fail(w("env.num_players"), f"must be 3, 4 or 5, got {c.env.num_players}")
        if c.env.game_options:
            _fail(w("env.game_options"), "are for the family games; Nos takes its options elsewhere (none here)")
        if c.env.greedy_hint:
            _fail(w("env.greedy_hint"), "is a family game's (its Greedy's choice); Nos's hint is env.tactics_hint")
    else:
        _check_family(c, source)
    _check_action_points(c, source)
    _check_action_features(c, source)
    _check_closing_features(c, source)
    if c.policy.hint_kept:
        from nos_env.encoding import ACTION_BLOCKS

        if game != "nos" or not c.env.tactics_hint:
            _fail(w("policy.hint_kept"), "names blocks of Nos's actions where the Tactics hint is played: it needs "
                                         "env.game nos and env.tactics_hint: true")
        if not isinstance(c.policy.hint_kept, list) or any(b not in ACTION_BLOCKS for b in c.policy.hint_kept) \
                or len(set(c.policy.hint_kept)) != len(c.policy.hint_kept):
            _fail(w("policy.hint_kept"), f"must be a list of distinct Nos action blocks ({', '.join(ACTION_BLOCKS)}), "
                                         f"got {c.policy.hint_kept!r}")
    kb = c.policy.kept_bonus
    if isinstance(kb, bool) or not isinstance(kb, (int, float)) or not 0 < kb < float("inf"):
        _fail(w("policy.kept_bonus"), f"must be a positive number of logits, got {kb!r}")
    freed = c.policy.hint_freed_in_endgame
    if freed and (not isinstance(freed, list) or len(set(freed)) != len(freed)
                  or any(b not in c.policy.hint_kept for b in freed)):
        _fail(w("policy.hint_freed_in_endgame"), f"must be a list of distinct blocks of policy.hint_kept "
                                                 f"({', '.join(c.policy.hint_kept) or 'empty'}), got {freed!r}")
    agents = known_agents(game)
    seat = c.env.learner_seat
    if seat != "rotate" and not (isinstance(seat, int) and not isinstance(seat, bool)
                                 and 0 <= seat < c.env.num_players):
        _fail(w("env.learner_seat"), f"must be 'rotate' or a seat 0..{c.env.num_players - 1}, got {seat!r}")
    _positive(w("env.reward_scale"), c.env.reward_scale)
    try:
        check_num_threads(c.env.num_threads, "env.num_threads:")
    except ValueError as exc:
        _fail(source, str(exc))
    if not c.opponents.baselines:
        _fail(w("opponents.baselines"), "needs at least one agent: the pool starts with the baselines "
                                        "(snapshots join it during training)")
    for name, weight in c.opponents.baselines.items():
        if name not in agents:
            _fail(w(f"opponents.baselines.{name}"), f"unknown agent{_suggest(name, agents)}"
                                                    + ("" if game == "nos" else f" (agents of {game})"))
        if isinstance(weight, bool) or not isinstance(weight, (int, float)) or weight < 0:
            _fail(w(f"opponents.baselines.{name}"), f"weight must be a number >= 0, got {weight!r}")
    if c.opponents.baselines and sum(c.opponents.baselines.values()) <= 0:
        _fail(w("opponents.baselines"), "the weights must not all be 0: the pool starts with the baselines")
    _positive(w("opponents.snapshot_weight"), c.opponents.snapshot_weight, allow_zero=True)
    _positive(w("opponents.snapshot_every"), c.opponents.snapshot_every)
    _positive(w("opponents.max_snapshots"), c.opponents.max_snapshots)
    for key in ("n_steps", "batch_size", "n_epochs"):
        _positive(w(f"ppo.{key}"), getattr(c.ppo, key))
    rollout = c.env.num_envs * c.ppo.n_steps
    what = "env.num_envs * ppo.n_steps"
    if c.run.engine == "rllib":  # a train batch: every runner's tables, a fragment each
        rollout = max(1, c.rllib.num_env_runners) * c.rllib.tables_per_runner * c.rllib.rollout_fragment_length
        what = "max(1, rllib.num_env_runners) * rllib.tables_per_runner * rllib.rollout_fragment_length"
    if c.ppo.batch_size > rollout:
        _fail(w("ppo.batch_size"), f"{c.ppo.batch_size} is larger than a rollout ({what} = {rollout})")
    if c.ppo.batch_size < 2 or rollout % c.ppo.batch_size == 1:
        # PPO normalises advantages over a minibatch: one sample has no spread (NaN).
        _fail(w("ppo.batch_size"), f"{c.ppo.batch_size} leaves a minibatch of one sample "
                                   f"(rollout {rollout}); pick a size that divides the rollout")
    _positive(w("ppo.learning_rate"), c.ppo.learning_rate)
    _check_learning_rate_end(c, w("ppo.learning_rate_end"))
    if c.ppo.overlap_in not in ("thread", "process"):
        _fail(w("ppo.overlap_in"), f"must be 'thread' or 'process' (where an overlapped update runs), "
                                   f"got {c.ppo.overlap_in!r}")
    if c.ppo.overlap_reweight and not (c.ppo.overlap and c.ppo.overlap_refresh):
        _fail(w("ppo.overlap_reweight"), "weighs by the refreshed log-probabilities: set ppo.overlap: true and "
                                         "ppo.overlap_refresh: true too")
    if c.ppo.overlap_in == "process" and not c.ppo.overlap:
        _fail(w("ppo.overlap_in"), "says where an overlapped update runs: set ppo.overlap: true too")
    for key in ("gamma", "gae_lambda"):
        value = getattr(c.ppo, key)
        if not 0 < value <= 1:
            _fail(w(f"ppo.{key}"), f"must be in (0, 1], got {value}")
    _positive(w("ppo.clip_range"), c.ppo.clip_range)
    for key in ("ent_coef", "vf_coef"):
        _positive(w(f"ppo.{key}"), getattr(c.ppo, key), allow_zero=True)
    _positive(w("ppo.max_grad_norm"), c.ppo.max_grad_norm)
    if c.ppo.target_kl is not None and (isinstance(c.ppo.target_kl, bool)
                                        or not isinstance(c.ppo.target_kl, (int, float)) or c.ppo.target_kl <= 0):
        _fail(w("ppo.target_kl"), f"must be null or a positive number, got {c.ppo.target_kl!r}")
    _positive(w("policy.width"), c.policy.width)
    for key in ("pi", "vf"):
        layers = getattr(c.policy, key)
        if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in layers):
            _fail(w(f"policy.{key}"), f"must be a list of positive layer sizes, got {layers!r}")
    if c.policy.activation not in ("tanh", "relu"):
        _fail(w("policy.activation"), f"must be 'tanh' or 'relu', got {c.policy.activation!r}")
    _positive(w("eval.every"), c.eval.every, allow_zero=True)
    if c.run.engine == "sb3" and 0 < c.eval.every < c.env.num_envs:
        _fail(w("eval.every"), f"is counted in timesteps, and one step is env.num_envs = {c.env.num_envs} of "
                               f"them: use 0 (never) or at least {c.env.num_envs}")
    _positive(w("eval.deals"), c.eval.deals)
    _positive(w("eval.final_deals"), c.eval.final_deals, allow_zero=True)
    from agents.tournament import RECORDS_FOR

    if c.eval.records.strip() != "none" and not RECORDS_FOR.fullmatch(c.eval.records.strip()):
        _fail(w("eval.records"), f"must be none, all, worst[:K], best[:K] or deal numbers N,M,..., "
                                 f"got {c.eval.records!r}")
    for key, names in (("eval.opponent", [c.eval.opponent]), ("eval.final_opponents", c.eval.final_opponents)):
        for name in names:
            if name not in agents:
                _fail(w(key), f"unknown agent {name!r}{_suggest(str(name), agents)}"
                              + ("" if game == "nos" else f" (agents of {game})"))
    _positive(w("output.checkpoint_every"), c.output.checkpoint_every, allow_zero=True)
    _check_distill(c, source, agents)
    if c.run.engine not in ("sb3", "rllib"):
        _fail(w("run.engine"), f"must be 'sb3' or 'rllib', got {c.run.engine!r}")
    r = c.rllib
    if r.address is not None and not isinstance(r.address, str):
        _fail(w("rllib.address"), f"must be null (a local Ray) or a Ray address string, got {r.address!r}")
    _positive(w("rllib.num_cpus"), r.num_cpus)
    _positive(w("rllib.num_env_runners"), r.num_env_runners, allow_zero=True)
    _positive(w("rllib.tables_per_runner"), r.tables_per_runner)
    _positive(w("rllib.rollout_fragment_length"), r.rollout_fragment_length)
    _positive(w("rllib.num_learners"), r.num_learners, allow_zero=True)
    if c.run.engine == "rllib":
        if c.env.tactics_hint:
            _fail(w("env.tactics_hint"), "is an SB3 policy feature (agents/policy.py); the rllib engine has no hint")
        if c.env.privileged_critic:
            _fail(w("env.privileged_critic"), "is an SB3 policy feature (agents/policy.py); the rllib engine has none")
        if c.env.action_points:
            _fail(w("env.action_points"), "is an SB3 policy feature (agents/policy.py); the rllib engine has none")
        if c.env.action_features:
            _fail(w("env.action_features"), "is an SB3 policy feature (agents/policy.py); the rllib engine has none")
        if c.env.learner_seat != "rotate":
            _fail(w("env.learner_seat"), "the rllib engine seats the learner at random each hand: use 'rotate'")
        for name in c.opponents.baselines:
            if name.startswith("search"):  # it reads the engine's tables (BatchContext); an RLModule sees rows only
                _fail(w(f"opponents.baselines.{name}"), "Search needs the fast engine's tables, which RLlib's "
                                                        "modules do not see: not a baseline of the rllib engine "
                                                        "(evaluations may still use it)")
        if c.distill.teacher != "none":
            _fail(w("distill.teacher"), "distillation trains the SB3 policy (train/distill.py); the rllib engine "
                                        "has none: use teacher: none")
        if r.address is None and r.num_env_runners + 1 > r.num_cpus:
            _fail(w("rllib.num_env_runners"), f"{r.num_env_runners} runners and the driver need "
                                              f"{r.num_env_runners + 1} CPUs; rllib.num_cpus is {r.num_cpus}")


def _check_learning_rate_end(c: TrainConfig, where: str) -> None:
    """ppo.learning_rate_end: null (a constant rate) or a number from 0 to ppo.learning_rate."""
    end = c.ppo.learning_rate_end
    if end is None:
        return
    if isinstance(end, str):  # YAML 1.1 reads 3e-5 (no dot) as a string
        try:
            end = float(end)
        except ValueError:
            pass
    if isinstance(end, bool) or not isinstance(end, (int, float)) or not math.isfinite(end):
        _fail(where, f"must be null (a constant ppo.learning_rate) or a number, got {c.ppo.learning_rate_end!r}")
    if not 0 <= end <= c.ppo.learning_rate:
        _fail(where, f"the rate falls from ppo.learning_rate ({c.ppo.learning_rate}) to it: it must be in "
                     f"[0, {c.ppo.learning_rate}], got {end}")
    if c.run.engine != "sb3":
        _fail(where, "is the sb3 engine's schedule (train/schedules.py); the rllib engine keeps a constant "
                     "ppo.learning_rate: leave it null")
    c.ppo.learning_rate_end = float(end)


def _check_distill(c: TrainConfig, source: str, agents: list) -> None:
    """The distill section: a teacher the game has, and sizes that make sense."""
    d, w = c.distill, (lambda key: f"{source}: distill.{key}")  # noqa: E731
    from .rollout_advantage import ROLLOUT_TEACHER

    teachers = agents + [ROLLOUT_TEACHER]
    if d.teacher != "none" and d.teacher not in teachers:
        _fail(w("teacher"), f"must be 'none' or an agent of {c.env.game} ({', '.join(teachers)}), got "
                            f"{d.teacher!r}{_suggest(str(d.teacher), teachers)}")
    for key in ("decisions", "num_envs", "batch_size"):
        _positive(w(key), getattr(d, key))
    _positive(w("epochs"), d.epochs, allow_zero=True)
    _positive(w("learning_rate"), d.learning_rate)
    if not 0 <= d.holdout < 1:
        _fail(w("holdout"), f"must be in [0, 1), got {d.holdout}")
    if d.teacher != "none" and round(d.decisions * (1 - d.holdout)) < 1:
        _fail(w("decisions"), f"{d.decisions} labels with holdout {d.holdout} leave none to train on")
    if d.target not in ("choice", "values", "advantage"):
        _fail(w("target"), f"must be 'choice' (the teacher's choices), 'values' (its action values) or 'advantage' "
                           f"(the action values' advantage over Greedy's move), got {d.target!r}")
    if d.target in ("values", "advantage") and d.teacher not in ("none", "search", ROLLOUT_TEACHER):
        _fail(w("target"), f"{d.target!r} needs a teacher that reports action values (search or {ROLLOUT_TEACHER}), "
                           f"not {d.teacher!r}")
    if d.teacher == ROLLOUT_TEACHER and d.target != "advantage":
        _fail(w("target"), f"the {ROLLOUT_TEACHER} teacher's labels are fitted as 'advantage', got {d.target!r}")
    if d.target == "advantage" and d.teacher != "none":
        if c.env.game == "nos" and not c.env.tactics_hint:
            _fail(w("target"), "'advantage' is measured against the hinted move: in Nos it needs env.tactics_hint: true")
        if c.env.game != "nos" and not c.env.greedy_hint:
            _fail(w("target"), "'advantage' is measured against Greedy's move: it needs env.greedy_hint: true")
    if not d.margins or any(isinstance(m, bool) or not isinstance(m, (int, float)) or not m >= 0
                            for m in d.margins):
        _fail(w("margins"), f"must be a non-empty list of numbers >= 0 (points), got {d.margins!r}")
    _positive(w("patience"), d.patience, allow_zero=True)
    if d.phases:
        from nos_env.engine import PHASES

        if c.env.game != "nos" or d.teacher != ROLLOUT_TEACHER:
            _fail(w("phases"), f"choose Nos decisions for the {ROLLOUT_TEACHER} teacher: give env.game nos and "
                               f"distill.teacher {ROLLOUT_TEACHER}, or leave phases empty")
        from .rollout_advantage_nos import PSEUDO_PHASES

        allowed = PHASES[:-1] + tuple(PSEUDO_PHASES)
        if not isinstance(d.phases, list) or any(p not in allowed for p in d.phases):
            _fail(w("phases"), f"must be a list of Nos phases ({', '.join(allowed)}), got {d.phases!r}")
    if d.margin_by not in ("holdout", "tournament"):
        _fail(w("margin_by"), f"must be 'holdout' (the labels' held-out gain) or 'tournament' (a short duplicate "
                              f"tournament against Greedy), got {d.margin_by!r}")
    _positive(w("margin_deals"), d.margin_deals)
    if d.margin_by == "tournament" and d.target != "advantage":
        _fail(w("margin_by"), f"'tournament' chooses the margin of target 'advantage', not of {d.target!r}")
    _positive(w("temperature"), d.temperature)
    if d.labels_from and not Path(d.labels_from).is_file():
        _fail(w("labels_from"), f"no labels file at {d.labels_from!r} (a run's distill/labels.npz, or \"\" to collect)")
    if d.teacher_options and d.teacher == "none":
        _fail(w("teacher_options"), "are the teacher's: give distill.teacher too")
    if d.teacher == ROLLOUT_TEACHER:
        allowed = {"capacity", "samples", "seed"} if c.env.game == "nos" else {"capacity"}
        if set(d.teacher_options) - allowed:
            what = ("capacity (playout rows at once), samples (Nos: average each label over this many deals of "
                    "the hidden tiles drawn from the observation; 0: the real table) and seed (the deals')"
                    if c.env.game == "nos" else "only capacity (playout rows at once)")
            _fail(w("teacher_options"), f"{ROLLOUT_TEACHER} takes {what}, got {d.teacher_options!r}")
        for key, low in (("capacity", 1), ("samples", 0), ("seed", 0)):
            value = d.teacher_options.get(key, low)
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                _fail(w("teacher_options"), f"{key} must be an integer >= {low}, got {value!r}")
    elif d.teacher != "none":
        from agents.registry import make_agent

        try:  # the options are the agent's keywords: an unknown or bad one is named now, not after a run starts
            rules = None
            if c.env.game != "nos":
                from agents.family.games import make_rules
                from agents.tournament import family_options

                rules = make_rules(c.env.game, c.env.num_players, **family_options(c.env.game, c.env.game_options))
            make_agent(d.teacher, seed=0, game=c.env.game, **({"rules": rules} if rules is not None else {}),
                       **d.teacher_options)
        except (TypeError, ValueError) as exc:
            _fail(w("teacher_options"), f"{d.teacher} does not take {d.teacher_options!r}: {exc}")


def _check_switch(c: TrainConfig, source: str, key: str) -> bool:
    """env.<key>: true or false."""
    value = getattr(c.env, key)
    if not isinstance(value, bool):
        _fail(f"{source}: env.{key}", f"must be true or false, got {value!r}")
    return value


def _check_weight(c: TrainConfig, source: str, key: str, what: str) -> None:
    """policy.<key>: a finite number (``what`` says which weight)."""
    weight = getattr(c.policy, key)
    if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight):
        _fail(f"{source}: policy.{key}", f"must be a number ({what}), got {weight!r}")


def _check_greedy_game(c: TrainConfig, source: str, key: str, games, lacking: str, listed: str,
                       needs_hint: str) -> None:
    """env.<key> is true: a per-action input behind a family Greedy hint, so the game must be one
    of ``games`` (else ``lacking``; ``listed`` names them) and env.greedy_hint on (``needs_hint``: why)."""
    where = f"{source}: env.{key}"
    if c.env.game not in games:
        _fail(where, f"{c.env.game}{lacking}; {listed} are {', '.join(games)}")
    if not c.env.greedy_hint:
        _fail(where, f"{needs_hint}: it needs env.greedy_hint: true")


def _check_action_points(c: TrainConfig, source: str) -> None:
    """env.action_points (true or false; true needs a scoring family game's Greedy hint) and
    policy.points_weight (a number)."""
    from agents.family.greedy import SCORING_GAMES

    on = _check_switch(c, source, "action_points")
    _check_weight(c, source, "points_weight", "the points' starting logit weight")
    if on:
        _check_greedy_game(c, source, "action_points", SCORING_GAMES, "'s plays score nothing at once",
                           "the games whose plays score",
                           "the points ride behind the Greedy hint and are computed by its Greedy")


def _check_action_features(c: TrainConfig, source: str) -> None:
    """env.action_features (true or false; true needs the Greedy hint of a game with per-action
    features: Blind), policy.features_weight (a number) and policy.features_hidden (widths)."""
    from agents.family.blind_features import ACTION_FEATURE_GAMES

    on = _check_switch(c, source, "action_features")
    _check_weight(c, source, "features_weight", "the features' starting logit weight")
    hidden = c.policy.features_hidden
    if not isinstance(hidden, list) or any(isinstance(h, bool) or not isinstance(h, int) or h < 1 for h in hidden):
        _fail(f"{source}: policy.features_hidden",
              f"must be a list of positive layer widths (empty: linear weights), got {hidden!r}")
    if hidden and not on:
        _fail(f"{source}: policy.features_hidden", "is the MLP over each action's features: it needs "
                                                  "env.action_features: true")
    if on:
        _check_greedy_game(c, source, "action_features", ACTION_FEATURE_GAMES, " has no per-action features",
                           "the games with them",
                           "the features ride behind the Greedy hint and are computed for its rules")


def _check_closing_features(c: TrainConfig, source: str) -> None:
    """env.closing_features (true or false; true needs Nos with env.tactics_hint),
    env.settlement_features (true or false; true needs env.closing_features) and
    policy.closing_weights (null or 4 numbers, 6 with the settlement features)."""
    from agents.closing_input import check_closing_features  # (torch-free: the rllib engine's configs too)

    value = c.env.closing_features
    if not isinstance(value, bool):
        _fail(f"{source}: env.closing_features", f"must be true or false, got {value!r}")
    settlement = c.env.settlement_features
    if not isinstance(settlement, bool):
        _fail(f"{source}: env.settlement_features", f"must be true or false, got {settlement!r}")
    if settlement and not value:
        _fail(f"{source}: env.settlement_features", "ride behind the closing features: they need "
                                                    "env.closing_features: true")
    try:
        # (only the weights here: the switches are checked above and below, with their keys named)
        check_closing_features(True, c.policy.closing_weights, True, settlement)
    except ValueError as exc:
        _fail(f"{source}: policy.closing_weights", "must " + str(exc).split(" must ", 1)[1])
    if value and (c.env.game != "nos" or not c.env.tactics_hint):
        _fail(f"{source}: env.closing_features", "are Nos's plays' and ride behind the Tactics hint: it needs "
                                                 "env.game nos and env.tactics_hint: true")


def _check_family(c: TrainConfig, source: str) -> None:
    """A family game's name, player count and options, checked by its rules (make_rules)."""
    from agents.family.games import family_games, make_rules, player_counts

    game = c.env.game
    games = family_games()
    if game not in games:
        _fail(f"{source}: env.game", f"unknown game {game!r}{_suggest(str(game), ['nos'] + games)}")
    counts = player_counts(game)
    if c.env.num_players not in counts:
        _fail(f"{source}: env.num_players", f"{game} is played by {', '.join(map(str, counts))} players, "
                                            f"got {c.env.num_players}")
    try:
        make_rules(game, c.env.num_players, **c.env.game_options)
    except (ValueError, TypeError) as exc:
        _fail(f"{source}: env.game_options", str(exc))
    if c.env.privileged_critic and game == "blind":
        _fail(f"{source}: env.privileged_critic", f"reads the tables' hands; {game}'s tables keep them "
                                                  f"elsewhere (games with it: the other family games)")
    if c.env.tactics_hint:
        _fail(f"{source}: env.tactics_hint", f"is Nos's (the Tactics agent plays Nos only), not {game}'s: "
                                             f"a family game's hint is env.greedy_hint")


def defaults_yaml() -> str:
    import yaml

    return yaml.safe_dump(TrainConfig().to_dict(), sort_keys=False)
