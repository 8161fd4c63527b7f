"""Search distillation for Nos (issue 19 item 2): labels from Search's own decisions, then a
policy behaviour-cloned on them.

Two steps, each resumable and seeded:

1. **Labels** (:func:`collect_labels`). Fast-engine tables are played with the teacher (a
   :class:`agents.search.SearchAgent`, any budget) in every seat: every decision with more than
   one legal action is a label, and the states are those of games between Searches, the
   positions the student meets when it plays against Search. Each label keeps the seat's
   observation, its legal actions, the Tactics hint (the compiled Tactics' choice on the same
   observation, as ``SelfPlayVecEnv(tactics_hint=True)`` appends it) and the teacher's choice.
   The teacher sees only what any agent sees (its observation and the tables for its own
   rollouts, D17), so the labels leak nothing hidden into the student. Labels are written in
   parts of ``labels.part_hands`` hands (``labels/part_NNNN.npz``), so a stopped collection keeps
   what it made and ``--resume`` goes on from the next part.
2. **Behaviour cloning** (:func:`fit`). The student is the training config's own network
   (:func:`train.trainer.make_model`: the shared first layer, the actor and critic MLPs and the
   Tactics-hint head), so the result is an ordinary ``model.zip`` that plays as
   ``model:PATH`` and that ``python -m train`` could fine-tune. The actor is trained by
   cross-entropy on the teacher's choice, over the legal actions only. A held-out share of
   the parts (whole parts: no hand is in both) measures agreement with the teacher, beside the
   agreement of the hint alone (Tactics' choice), which is where the student starts.

The teacher's choice differs from Tactics' mostly at the opening (the announcement, searched
with 64 times the play budget) and at key decisions (declares and closings); the hint head
makes the student Tactics at first, so what it has to learn is where Search departs.

**Expert iteration** (``teacher.prior`` and ``student.init_from``). The teacher may be Search
with a trained model as its prior (``teacher.prior: model:PATH`` or ``ensemble:A,B``: the agent
``search+model:PATH``, which keeps the model's move unless its rollouts show a better one), and
the student may start from a trained model (``student.init_from: PATH``) instead of a fresh
network: the student is then fine-tuned towards the search that uses it, on the positions of
games played by that search. With a model prior the target is the teacher's choice
(``fit.target: choice``): the prior is the model's deterministic move, so where the teacher kept
it the label is the model's own move, with no tie-break noise to filter out.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from agents.base import Agent, BatchContext
from agents.play_loop import PlayLoop
from agents.search import SearchAgent
from agents.tactics import TacticsAgent
from nos_env.encoding import NUM_ACTIONS, OBSERVATION_SIZE
from nos_env.extras import MissingExtraError, require
from nos_env.fast_engine import FastTables

from .config import ConfigError, _check_type, _suggest, read_sections


# ------------------------------------------------------------------------------------- config
@dataclass
class DistillRunConfig:
    name: str = "distill"  # the run's folder under output_dir
    seed: int = 0  # seeds the tables, the teacher, the hint and torch
    output_dir: str = "runs"


@dataclass
class TeacherConfig:
    rollouts: int = 128  # SearchAgent(rollouts=...): the play budget (the opening gets 64x, key decisions 16x)
    margin: float = 2.0  # SearchAgent's safeguard (standard errors before it leaves its prior's choice)
    # the move Search keeps unless its rollouts show a better one: "tactics" (Search's own), or a
    # trained model, "model:PATH" or "ensemble:A.zip,B.zip" (the agent search+model:PATH)
    prior: str = "tactics"


@dataclass
class LabelsConfig:
    hands: int = 2000  # hands played by the teacher in every seat (about 20 labels a hand)
    tables: int = 32  # tables stepped at once (Search batches the rows of a step)
    part_hands: int = 200  # hands per labels/part_NNNN.npz (a stopped run keeps its finished parts)
    num_players: int = 4


@dataclass
class FitConfig:
    epochs: int = 10
    batch_size: int = 512
    learning_rate: float = 0.001
    holdout_parts: int = 1  # the last parts are held out to measure agreement (0: none)
    opening_weight: float = 1.0  # loss weight of opening (set/announce) labels, the teacher's largest gain
    # "departures": the teacher's choice where it departed from its prior (or had none), else the
    # hint (Tactics' tie-breaks are noise, see TeacherSearch); "choice": the teacher's choice always
    target: str = "departures"
    # "values": at opening decisions (set, announce: 64 times the play budget) the target is a softmax of
    # Search's value of every candidate (mean chips) at this temperature, not only its choice
    # (one label a hand says little; the ranking of 43-60 announcements says more); elsewhere as
    # "departures". "none": hard targets only.
    opening_values: str = "none"
    value_temperature: float = 5.0  # chips


@dataclass
class StudentConfig:
    # a saved model (.zip) to fine-tune; "" (default): a fresh network of the sizes below, which are
    # then ignored
    init_from: str = ""
    width: int = 256
    pi: list = field(default_factory=lambda: [128])
    vf: list = field(default_factory=lambda: [128])
    activation: str = "tanh"
    hint_weight: float = 3.0


@dataclass
class DistillConfig:
    run: DistillRunConfig = field(default_factory=DistillRunConfig)
    teacher: TeacherConfig = field(default_factory=TeacherConfig)
    labels: LabelsConfig = field(default_factory=LabelsConfig)
    fit: FitConfig = field(default_factory=FitConfig)
    student: StudentConfig = field(default_factory=StudentConfig)

    @property
    def run_dir(self) -> Path:
        return Path(self.run.output_dir) / self.run.name


TARGETS = ("departures", "choice")
SECTIONS = {f.name: f.default_factory for f in dataclasses.fields(DistillConfig)}


def distill_config(data: dict | None, source: str = "config") -> DistillConfig:
    """A :class:`DistillConfig` from a mapping of sections; unknown sections or keys, wrong types and
    out-of-range values raise :class:`train.config.ConfigError` naming the key and what is allowed."""
    config = DistillConfig()
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ConfigError(f"{source}: must be a mapping of sections ({', '.join(SECTIONS)}), got {type(data).__name__}")
    for section, values in data.items():
        if section not in SECTIONS:
            raise ConfigError(f"{source}: unknown section {section!r}{_suggest(section, SECTIONS)}")
        if values is None:
            continue
        if not isinstance(values, dict):
            raise ConfigError(f"{source}: {section}: must be a mapping of keys, got {values!r}")
        target = getattr(config, section)
        known = {f.name for f in dataclasses.fields(target)}
        for key, value in values.items():
            if key not in known:
                raise ConfigError(f"{source}: {section}: unknown key {key!r}{_suggest(key, known)}")
            setattr(target, key, _check_type(f"{source}: {section}.{key}", value, getattr(target, key)))
    _validate(config, source)
    return config


def _validate(c: DistillConfig, source: str) -> None:
    def fail(key, message):
        raise ConfigError(f"{source}: {key}: {message}")

    if not c.run.name or "/" in c.run.name or c.run.name in (".", ".."):
        fail("run.name", f"must be a plain folder name, got {c.run.name!r}")
    for key, value, low in (("run.seed", c.run.seed, 0), ("teacher.rollouts", c.teacher.rollouts, 1),
                            ("labels.hands", c.labels.hands, 1), ("labels.tables", c.labels.tables, 1),
                            ("labels.part_hands", c.labels.part_hands, 1), ("fit.epochs", c.fit.epochs, 0),
                            ("fit.batch_size", c.fit.batch_size, 1), ("fit.holdout_parts", c.fit.holdout_parts, 0),
                            ("student.width", c.student.width, 1)):
        if value < low:
            fail(key, f"must be an integer >= {low}, got {value}")
    if c.labels.num_players not in (3, 4, 5):
        fail("labels.num_players", f"must be 3, 4 or 5, got {c.labels.num_players}")
    if not c.teacher.margin >= 0:
        fail("teacher.margin", f"must be >= 0, got {c.teacher.margin}")
    if not c.fit.learning_rate > 0:
        fail("fit.learning_rate", f"must be positive, got {c.fit.learning_rate}")
    if c.fit.target not in TARGETS:
        fail("fit.target", f"must be one of {', '.join(TARGETS)}, got {c.fit.target!r}")
    if c.fit.opening_values not in ("none", "values"):
        fail("fit.opening_values", f"must be 'none' or 'values', got {c.fit.opening_values!r}")
    if not c.fit.value_temperature > 0:
        fail("fit.value_temperature", f"must be positive, got {c.fit.value_temperature}")
    if not c.fit.opening_weight > 0:
        fail("fit.opening_weight", f"must be positive, got {c.fit.opening_weight}")
    if c.teacher.prior != "tactics":
        from agents.registry import ENSEMBLE_PREFIX, MODEL_PREFIX

        if not c.teacher.prior.startswith((MODEL_PREFIX, ENSEMBLE_PREFIX)):
            fail("teacher.prior", f"must be 'tactics', 'model:PATH' or 'ensemble:A.zip,B.zip', got {c.teacher.prior!r}")
        if c.fit.target != "choice":
            fail("fit.target", "must be 'choice' with a model as the teacher's prior (the model's move is no "
                               f"tie-break noise; 'departures' would teach Tactics' move where it was kept), "
                               f"got {c.fit.target!r}")
    if c.student.init_from and not Path(c.student.init_from).is_file():
        fail("student.init_from", f"no saved model at {c.student.init_from!r}")
    if c.student.activation not in ("tanh", "relu"):
        fail("student.activation", f"must be 'tanh' or 'relu', got {c.student.activation!r}")
    for key in ("pi", "vf"):
        layers = getattr(c.student, key)
        if not all(isinstance(x, int) and not isinstance(x, bool) and x > 0 for x in layers):
            fail(f"student.{key}", f"must be a list of positive layer widths, got {layers!r}")


def load_distill_config(path: str | Path, overrides: list[str] = ()) -> DistillConfig:
    return distill_config(read_sections(path, overrides), str(path))


def _print(*args) -> None:
    print(*args, flush=True)  # a long run's log file shows each part as it ends


# ------------------------------------------------------------------------------------- labels
class TeacherSearch(SearchAgent):
    """:class:`SearchAgent` that also tells, for each row of its last ``act_batch``, its prior's
    action (Tactics' choice with the teacher's own tie-break noise; -1 where no prior was asked:
    one legal action, or one candidate left after the certainly wrong closings were dropped).

    Why: Tactics often has several equally scored actions and breaks the tie by seeded noise, so
    the teacher's choice differs from the student's hint (the same Tactics, other noise) at about
    a fifth of the decisions where Search changed nothing. A label that only says where Search
    *departed* from its prior (``fit.target: departures``) carries no such noise. The choices are
    SearchAgent's own: this class only records what ``_setup`` and ``_decide`` already computed."""

    def act_batch(self, obs, masks, context=None):
        self._setups, self._decided = {}, {}
        actions = super().act_batch(obs, masks, context)
        self.last_priors = np.full(len(actions), -1, np.int64)
        #: a trained model prior's hint on each searched row (-1 elsewhere, or None without one): the
        #: model's own hint agent breaks Tactics' ties by its own noise, so a student fine-tuned from
        #: the model must be given the very hint the model saw where the teacher kept its move
        self.last_prior_hints = None
        searched = (np.asarray(masks) != 0).sum(axis=1) > 1
        if self._prior_is_object and getattr(self.prior, "last_hints", None) is not None and searched.any():
            self.last_prior_hints = np.full(len(actions), -1, np.int64)
            self.last_prior_hints[searched] = self.prior.last_hints
        #: each row's searched value (mean chip change) of every candidate, NaN elsewhere
        self.last_values = np.full((len(actions), NUM_ACTIONS), np.nan, np.float32)
        for i, b in enumerate(np.asarray(context.table_index)):
            setup = self._setups.get(int(b))
            if setup is None or id(setup["candidates"]) not in self._decided:
                continue
            self.last_values[i, setup["candidates"]] = self._decided[id(setup["candidates"])]
            if setup["prior_action"] is not None:
                self.last_priors[i] = int(setup["prior_action"])
        return actions

    def _setup(self, obs, mask, tables, b, seat, prior_action=None):
        setup = super()._setup(obs, mask, tables, b, seat, prior_action)
        self._setups[int(b)] = setup  # one seat moves at a table: the table names the row
        return setup

    def _decide(self, candidates, values, prior_action):
        choice = super()._decide(candidates, values, prior_action)
        # the setup's own candidates array (see act_batch) -> the means _decide computed
        self._decided[id(candidates)] = self.last_search["values"]
        return choice


class LabelRecorder(Agent):
    """Plays as ``teacher`` (a :class:`TeacherSearch`) and keeps, for every row with more than one
    legal action, the observation, the legal actions (packed mask), the Tactics hint (the one a
    trained model prior saw, if the teacher has one; else ``hinter``'s), the teacher's choice and
    its prior's action."""

    name = "label-recorder"

    def __init__(self, teacher: TeacherSearch, hinter: TacticsAgent):
        super().__init__(None)
        self.teacher, self.hinter = teacher, hinter
        self.clear()

    def clear(self) -> None:
        self.obs, self.masks, self.hints, self.labels, self.priors, self.values = [], [], [], [], [], []

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        actions = self.teacher.act_batch(obs, masks, context)
        many = (np.asarray(masks) != 0).sum(axis=1) > 1
        if many.any():
            o, m = np.asarray(obs, np.float32)[many], np.asarray(masks, np.int8)[many]
            self.obs.append(o.copy())
            self.masks.append(np.packbits(m != 0, axis=1))
            prior_hints = self.teacher.last_prior_hints
            hints = self.hinter.act_batch(o, m) if prior_hints is None else prior_hints[many]
            self.hints.append(np.asarray(hints, np.int16))
            self.labels.append(np.asarray(actions[many], np.int16))
            self.priors.append(np.asarray(self.teacher.last_priors[many], np.int16))
            self.values.append(self.teacher.last_values[many].astype(np.float16))
        return actions

    def arrays(self) -> dict:
        if not self.labels:
            return {"obs": np.zeros((0, OBSERVATION_SIZE), np.float32),
                    "masks": np.zeros((0, (NUM_ACTIONS + 7) // 8), np.uint8),
                    **{key: np.zeros(0, np.int16) for key in ("hints", "labels", "priors")},
                    "values": np.zeros((0, NUM_ACTIONS), np.float16)}
        return {"obs": np.concatenate(self.obs), "masks": np.concatenate(self.masks),
                "hints": np.concatenate(self.hints), "labels": np.concatenate(self.labels),
                "priors": np.concatenate(self.priors), "values": np.concatenate(self.values)}


def make_teacher(config: DistillConfig, part: int) -> TeacherSearch:
    seed = config.run.seed * 1_000_003 + part
    prior = config.teacher.prior
    if prior != "tactics":
        from agents.registry import check_agent_spec, make_agent

        check_agent_spec(prior)
        prior = make_agent(prior, seed=seed + 15485863)  # its own seed, as search+model:PATH gives it
    return TeacherSearch(seed=seed, rollouts=config.teacher.rollouts, margin=config.teacher.margin, prior=prior)


def play_part(config: DistillConfig, part: int, teacher: Agent | None = None) -> dict:
    """Part ``part``'s labels: ``labels.part_hands`` hands at ``labels.tables`` tables, the teacher in
    every seat. Its deals and the teacher's seed depend on (run.seed, part) only."""
    c = config
    teacher = make_teacher(c, part) if teacher is None else teacher
    hinter = TacticsAgent(seed=c.run.seed * 7919 + part, compiled=True)
    recorder = LabelRecorder(teacher, hinter)
    n, B = c.labels.num_players, min(c.labels.tables, c.labels.part_hands)
    tables = FastTables(B, n, seed=c.run.seed * 100_003 + part, num_threads=1, observation_dtype="float32")
    tables.reset_tables()  # deal every table's first hand
    loop = PlayLoop(tables, [recorder], np.zeros(n, np.int64), rest="first_legal")
    quota = np.full(B, c.labels.part_hands // B) + (np.arange(B) < c.labels.part_hands % B)
    played = np.zeros(B, np.int64)
    while True:
        ask = played < quota
        if not ask.any():
            break
        loop.decide(ask)
        result = loop.step()
        played += result.terminated & ask  # a table past its quota plays on unrecorded
    return recorder.arrays()


def part_path(run_dir: Path, part: int) -> Path:
    return run_dir / "labels" / f"part_{part:04d}.npz"


def collect_labels(config: DistillConfig, log=_print) -> list[Path]:
    """Every part of the run (``labels.hands / labels.part_hands``, rounded up), skipping parts
    already on disk; returns their paths."""
    c = config
    parts = -(-c.labels.hands // c.labels.part_hands)
    paths = []
    for part in range(parts):
        path = part_path(c.run_dir, part)
        paths.append(path)
        if path.is_file():
            continue
        start = time.perf_counter()
        arrays = play_part(c, part)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp.npz")
        np.savez_compressed(tmp, **arrays)
        tmp.rename(path)
        same = float((arrays["labels"] == arrays["hints"]).mean()) if len(arrays["labels"]) else float("nan")
        departed = float((arrays["labels"] != arrays["priors"]).mean()) if len(arrays["labels"]) else float("nan")
        log(f"part {part + 1}/{parts}: {len(arrays['labels'])} labels in {time.perf_counter() - start:.0f} s "
            f"(teacher = hint at {same:.3f}, teacher departed from its prior at {departed:.3f})")
    return paths


def load_parts(paths) -> dict:
    loaded = [np.load(p) for p in paths]
    if not loaded:
        raise ValueError("no label parts to load")
    keys = ("obs", "masks", "hints", "labels", "priors") + (("values",) if all("values" in d for d in loaded) else ())
    return {key: np.concatenate([d[key] for d in loaded]) for key in keys}


# -------------------------------------------------------------------------------------- fit
def student_train_config(config: DistillConfig):
    """The :class:`train.config.TrainConfig` whose network the student is (Tactics hint on)."""
    from .config import from_dict

    s = config.student
    return from_dict({"run": {"name": config.run.name, "seed": config.run.seed, "output_dir": config.run.output_dir},
                      "env": {"num_envs": 4, "num_players": config.labels.num_players, "tactics_hint": True,
                              "num_threads": 1},
                      "opponents": {"baselines": {"tactics": 1.0}},
                      "ppo": {"batch_size": 32},  # 4 tables x 8 steps (the env gives the spaces only)
                      "policy": {"width": s.width, "pi": list(s.pi), "vf": list(s.vf), "activation": s.activation,
                                 "hint_weight": s.hint_weight}}, "distill student")


def make_student(config: DistillConfig):
    """A fresh MaskablePPO model with the student's network (its env is a 4-table training env,
    only for the spaces and so that ``python -m train`` can fine-tune the saved model), or the
    saved model ``student.init_from``."""
    import torch as th

    from .trainer import make_env, make_model

    th.manual_seed(config.run.seed)
    if config.student.init_from:
        from agents.model import load_model

        return load_model(config.student.init_from, device="cpu")
    env, _ = make_env(student_train_config(config))
    return make_model(student_train_config(config), env)


def targets(data: dict, target: str) -> np.ndarray:
    """The action each label teaches (see ``FitConfig.target``)."""
    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    labels = data["labels"].astype(np.int64)
    if target == "choice":
        return labels
    priors = data["priors"].astype(np.int64)
    departed = (priors < 0) | (labels != priors)
    return np.where(departed, labels, data["hints"].astype(np.int64))


def soft_targets(data: dict, temperature: float) -> tuple[np.ndarray, np.ndarray]:
    """The opening labels that carry Search's values: their rows, and a softmax over each one's
    candidates of value / temperature (float32 [rows, 557], 0 at non-candidates)."""
    from agents import features as F

    if "values" not in data:
        raise ValueError("these labels have no values (collected before values were recorded)")
    values = data["values"].astype(np.float32)
    searched = np.isfinite(values).sum(axis=1) > 1
    rows = np.flatnonzero(searched & np.isin(F.KIND[data["labels"]], (F.SET, F.ANNOUNCE)))
    v = values[rows] / float(temperature)
    v = np.where(np.isfinite(v), v, -np.inf)
    q = np.exp(v - v.max(axis=1, keepdims=True))
    return rows, (q / q.sum(axis=1, keepdims=True)).astype(np.float32)


def openings(data: dict) -> dict:
    """The labels of set and announcement decisions only (where Search departs from Tactics most)."""
    from agents import features as F

    rows = np.flatnonzero(np.isin(F.KIND[data["labels"]], (F.SET, F.ANNOUNCE)))
    return {key: value[rows] for key, value in data.items()}


def departures(data: dict) -> dict:
    """The labels where the teacher left its prior's move (or had no prior): what a student that
    already plays like the prior has to learn."""
    rows = np.flatnonzero((data["priors"] < 0) | (data["labels"] != data["priors"]))
    return {key: value[rows] for key, value in data.items()}


def _batches(n: int, size: int, rng: np.random.Generator | None):
    order = np.arange(n) if rng is None else rng.permutation(n)
    for first in range(0, n, size):
        yield order[first : first + size]


def _input_builder(policy):
    """What builds ``policy``'s input rows from a label's observation, mask and recorded hint
    (agents.model.PolicyAgent.inputs: the hint, and whatever else the policy reads behind it, such
    as a trained closing model's closing features). It leaves the policy in evaluation mode."""
    from agents.model import PolicyAgent

    return PolicyAgent(policy, seed=None)


def _tensors(data: dict, rows: np.ndarray, wanted: np.ndarray, builder):
    """The policy's inputs at ``rows`` (by ``builder``, :func:`_input_builder`), the masks and the targets."""
    import torch as th

    masks = np.unpackbits(data["masks"][rows], axis=1, count=NUM_ACTIONS).astype(bool)
    obs = builder.inputs(data["obs"][rows], masks, hints=data["hints"][rows])
    return th.as_tensor(obs), masks, th.as_tensor(wanted[rows])


def agreement(policy, data: dict, target: str = "choice", batch_size: int = 4096) -> float:
    """The share of labels where the policy's most probable legal action is the target's action
    (``targets(data, target)``)."""
    import torch as th

    wanted = targets(data, target)
    builder = _input_builder(policy)
    right = 0
    with th.no_grad():
        for rows in _batches(len(data["labels"]), batch_size, None):
            obs, masks, labels = _tensors(data, rows, wanted, builder)
            dist = policy.get_distribution(obs, action_masks=masks)
            right += int((dist.get_actions(deterministic=True) == labels).sum())
    return right / max(1, len(data["labels"]))


def fit(config: DistillConfig, model, train: dict, held: dict | None, log=_print) -> list[dict]:
    """Behaviour-clone ``model.policy``'s actor on ``train`` (cross-entropy on the teacher's choice
    over the legal actions); returns one row per epoch (loss, agreement on train and held-out)."""
    import torch as th

    from agents import features as F

    c = config.fit
    policy = model.policy
    builder = _input_builder(policy)
    policy.set_training_mode(True)
    optimizer = th.optim.Adam(policy.parameters(), lr=c.learning_rate)
    wanted = targets(train, c.target)
    opening = np.isin(F.KIND[train["labels"]], (F.SET, F.ANNOUNCE))
    weights = th.as_tensor(np.where(opening, c.opening_weight, 1.0).astype(np.float32))
    soft_of = np.full(len(wanted), -1, np.int64)  # row -> its soft target's index (-1: hard target)
    soft_q = None
    if c.opening_values == "values":
        soft_rows, soft_q = soft_targets(train, c.value_temperature)
        soft_of[soft_rows] = np.arange(len(soft_rows))
        soft_q = th.as_tensor(soft_q)
    rng = np.random.default_rng(config.run.seed)
    history = []
    for epoch in range(c.epochs):
        start, total = time.perf_counter(), 0.0
        policy.set_training_mode(True)
        for rows in _batches(len(train["labels"]), c.batch_size, rng):
            obs, masks, labels = _tensors(train, rows, wanted, builder)
            dist = policy.get_distribution(obs, action_masks=masks)
            log_p = dist.log_prob(labels)
            soft = soft_of[rows]
            if (soft >= 0).any():  # cross-entropy with Search's value softmax at those rows
                where = th.as_tensor(np.flatnonzero(soft >= 0))
                ce = -(soft_q[soft[soft >= 0]] * dist.log_p[where]).sum(dim=1)
                log_p = log_p.index_put((where,), -ce)
            w = weights[rows]
            loss = -(w * log_p).sum() / w.sum()
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(policy.parameters(), 1.0)
            optimizer.step()
            total += float(loss.detach()) * len(rows)
        policy.set_training_mode(False)
        has_held = held is not None and len(held["labels"])
        row = {"epoch": epoch + 1, "loss": total / len(train["labels"]),
               "train_agreement": agreement(policy, train, c.target),
               "held_agreement": agreement(policy, held, c.target) if has_held else None,
               "held_choice_agreement": agreement(policy, held, "choice") if has_held else None,
               "held_opening_agreement": agreement(policy, openings(held), "choice") if has_held else None,
               "held_departure_agreement": agreement(policy, departures(held), "choice") if has_held else None,
               "seconds": time.perf_counter() - start}
        history.append(row)
        log(json.dumps(row))
    return history


def run(config: DistillConfig, log=_print) -> Path:
    """Labels (resumed part by part), then the student; writes ``model.zip`` and ``distill.json`` in
    the run's folder and returns the model's path."""
    import yaml

    c = config
    c.run_dir.mkdir(parents=True, exist_ok=True)
    (c.run_dir / "distill_config.yaml").write_text(yaml.safe_dump(dataclasses.asdict(c), sort_keys=False))
    start = time.perf_counter()
    paths = collect_labels(c, log)
    label_seconds = time.perf_counter() - start
    held_count = min(c.fit.holdout_parts, len(paths) - 1)
    train = load_parts(paths[: len(paths) - held_count])
    held = load_parts(paths[len(paths) - held_count:]) if held_count else None
    summary = {"labels": int(len(train["labels"])), "held_labels": int(len(held["labels"])) if held else 0,
               "hint_agreement_train": float((train["labels"] == train["hints"]).mean()),
               "hint_agreement_held": float((held["labels"] == held["hints"]).mean()) if held else None,
               "target_is_hint_held": float((targets(held, c.fit.target) == held["hints"]).mean()) if held else None,
               "hint_opening_agreement_held": float((lambda o: (o["labels"] == o["hints"]).mean())(openings(held)))
               if held else None,
               "departed_train": float(((train["priors"] < 0) | (train["labels"] != train["priors"])).mean()),
               "label_seconds_this_run": label_seconds}
    log(json.dumps(summary))
    model = make_student(c)
    start = time.perf_counter()
    summary["history"] = fit(c, model, train, held, log)
    summary["fit_seconds"] = time.perf_counter() - start
    path = c.run_dir / "model.zip"
    model.save(path)
    (c.run_dir / "distill.json").write_text(json.dumps(summary, indent=2))
    log(f"saved {path}")
    return path


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Distil Nos's Search into a policy: labels from Search in every "
                                                 "seat, then behaviour cloning (train/distill_nos.py)")
    parser.add_argument("--config", required=True, help="a distillation YAML (configs/distill_*.yaml)")
    parser.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    parser.add_argument("--labels-only", action="store_true", help="collect the labels, do not fit")
    args = parser.parse_args(argv)
    try:
        require("train", "python -m train.distill_nos")
    except MissingExtraError as exc:
        parser.exit(2, f"error: {exc}\n")
    config = load_distill_config(args.config, args.set)
    if args.labels_only:
        collect_labels(config)
        return
    run(config)


if __name__ == "__main__":
    main()
