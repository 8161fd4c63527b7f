"""Distilling a teacher agent into the policy before PPO: the config's ``distill`` section.

Why: PPO learns from the outcome of a whole hand, and in the family games the margin to find
over Greedy (the 1 to 3 points a hand the determinized Search wins) is smaller than a hand's
noise; hinted PPO runs of 3M steps ended level with Greedy (docs/family.md). A teacher that
already plays better gives a signal at every decision instead: what it would play here.

Two steps, run by ``train.trainer.train`` on a new run (never on ``--resume``: the checkpoint
holds the distilled network already):

1. :func:`collect_labels`: the teacher (``distill.teacher``, an agent of the game, e.g. the
   family's ``search``) plays the learner's seat of a :class:`train.selfplay.SelfPlayVecEnv`
   built like the training one (the same opponents, hint and observation), on tables of their
   own seed. At every learner decision with more than one legal action it records the
   observation exactly as the policy will read it (hint and critic tail included), the mask
   and the teacher's choice. Forced decisions teach nothing and are skipped.
2. :func:`behaviour_clone`: cross-entropy of the policy's masked distribution toward the
   teacher's choices (the actor and the shared first layer; the critic's own layers are left
   to PPO), with a held-out share to report how well the student matches the teacher.

PPO then goes on from the distilled network (``run.total_timesteps`` may be 0 to keep the
distilled policy as it is). The table of what each game reached is in docs/family.md.
"""

from __future__ import annotations

import time

import numpy as np
import torch as th

from agents.base import BatchContext

#: The collection tables deal from ``run.seed + LABEL_SEED_OFFSET + b``: never the PPO tables'
#: deals (``run.seed + b``), and never an evaluation's (the tournament's own streams).
LABEL_SEED_OFFSET = 7_000_001


def raw_observation_size(env) -> int:
    """The floats of the game's own observation in ``env``'s rows (without the hint, the action
    points, the closing features and the critic-only tail that follow it): what an agent is shown."""
    hint = 1 if env.hint_agent is not None else 0
    return (int(env.observation_space.shape[0]) - hint - int(getattr(env, "points_size", 0))
            - int(getattr(env, "features_size", 0)) - int(getattr(env, "closing_size", 0))
            - int(env.privileged_size))


def collect_labels(env, teacher, decisions: int, values: bool = False, log=None) -> dict:
    """Play ``env``'s tables with ``teacher`` in the learner's seat until ``decisions`` learner
    decisions with more than one legal action are recorded; returns ``obs`` (as the policy reads
    them; compact, read as float32 rows: train/label_store.py), ``masks`` (compact, read as bool
    rows), ``actions`` (int64, the teacher's choices),
    ``hint`` (int64, the Greedy/Tactics hint's choice, -1 without a hint) and ``seconds``.

    The teacher is asked once per step for every table, with a ``BatchContext`` naming the
    tables and the learner's seats (Search reads the public structure of the table from it).
    With ``values`` it is asked row by row instead, and ``values`` [N, actions] (float32, NaN
    where not a candidate) keeps each decision's action values from its ``last_search``
    (Search's mean rollout value of each legal action: the acting seat's points in the rest of
    the hand minus the mean of the others'; compact, for the legal moves only)."""
    if decisions < 1:
        raise ValueError(f"decisions must be positive, got {decisions}")
    if values and not hasattr(teacher, "last_search"):
        raise ValueError(f"the teacher {getattr(teacher, 'name', teacher)!r} reports no action values "
                         f"(last_search): use target 'choice', or a Search teacher")
    B = env.num_envs
    size = raw_observation_size(env)
    rows = np.arange(B)

    def choose(obs, masks, take):
        seats = env.learner.copy()
        choice = masks.sum(axis=1) > 1
        if not values:
            context = BatchContext(tables=env.tables, table_index=rows, seats=seats)
            return np.asarray(teacher.act_batch(obs[:, :size], masks, context), np.int64), None
        # one row at a time, to read each decision's values
        actions = masks.argmax(axis=1).astype(np.int64)  # forced rows: their one legal action
        table = np.full((len(take), masks.shape[1]), np.nan, np.float32)
        for j, b in enumerate(take):
            context = BatchContext(tables=env.tables, table_index=rows[b: b + 1], seats=seats[b: b + 1])
            actions[b] = int(teacher.act_batch(obs[b: b + 1, :size], masks[b: b + 1], context)[0])
            found = teacher.last_search
            table[j, np.asarray(found["candidates"])] = np.asarray(found["values"], np.float32)
        for b in np.flatnonzero(choice)[len(take):]:  # past the count: played, not kept
            context = BatchContext(tables=env.tables, table_index=rows[b: b + 1], seats=seats[b: b + 1])
            actions[b] = int(teacher.act_batch(obs[b: b + 1, :size], masks[b: b + 1], context)[0])
        return actions, table

    def illegal(actions, masks):
        b = int(np.flatnonzero(~masks[rows, actions])[0])
        return f"the teacher {getattr(teacher, 'name', teacher)!r} chose the illegal action {actions[b]} at table {b}"

    data = label_decisions(env, decisions, choose, illegal, log)
    data["hint"] = (data["obs"].column(size).astype(np.int64) if env.hint_agent is not None
                    else np.full(len(data["actions"]), -1, np.int64))
    return data


#: ``labels.npz`` of compact labels (train/label_store.py) holds ``format`` = this; the files
#: written before it hold dense float32 ``obs``, ``masks`` and ``values`` (still read).
LABELS_FORMAT = 2


def compact_labels(data: dict) -> dict:
    """``data`` with dense ``obs``, ``masks`` and ``values`` arrays replaced by their compact stores
    (train/label_store.py; the ones already compact are kept): the same values, read the same way."""
    from .label_store import CompactObservations, PackedMasks, PackedValues

    out = dict(data)
    if not isinstance(out["obs"], CompactObservations):
        out["obs"] = CompactObservations.from_dense(out["obs"])
    if not isinstance(out["masks"], PackedMasks):
        out["masks"] = PackedMasks.from_dense(out["masks"])
    if "values" in out and not isinstance(out["values"], PackedValues):
        out["values"] = PackedValues.from_dense(out["values"], out["masks"])
    return out


def dense_labels(data: dict) -> dict:
    """``data`` with its compact ``obs``, ``masks`` and ``values`` as dense numpy arrays (float32,
    bool, float32 with NaN where illegal): for small sets, tests and diagnostics."""
    return {key: np.asarray(value) if key in ("obs", "masks", "values") else value for key, value in data.items()}


def labels_nbytes(data: dict) -> int:
    """The bytes the labels hold in memory (observations, masks, values, actions, hints)."""
    return sum(int(data[key].nbytes) for key in ("obs", "masks", "values", "actions", "hint") if key in data)


def save_labels(path, data: dict) -> None:
    """Write collected labels, compact (train/label_store.py) and compressed."""
    data = compact_labels(data)
    masks = data["masks"]
    extra = {"values": data["values"].values} if "values" in data else {}
    np.savez_compressed(path, format=np.int64(LABELS_FORMAT), **data["obs"].arrays("obs"),
                        legal_indptr=masks.indptr, legal_actions=masks.actions, num_actions=np.int64(masks.shape[1]),
                        actions=data["actions"], hint=data["hint"], seconds=np.float64(data["seconds"]), **extra)


def load_labels(path, env, limit: int | None = None) -> dict:
    """Labels written by :func:`save_labels` (or, dense, before the compact format), checked against
    ``env``'s observation and action sizes, compact in memory; the first ``limit`` of them if given.
    Labels without ``env``'s privileged critic tail (``env.privileged_size`` floats) get it as zeros."""
    from .label_store import CompactObservations, PackedMasks, PackedValues

    n = None if limit is None else int(limit)
    with np.load(path) as f:
        data = {key: f[key][:n] for key in ("actions", "hint")}
        data["seconds"] = float(f["seconds"])
        if "format" not in f.files:  # dense float32 rows, as written before the compact format
            data.update({key: f[key][:n] for key in ("obs", "masks", "values") if key in f.files})
            data = compact_labels(data)
        else:
            obs = CompactObservations.from_arrays(f, "obs")
            masks = PackedMasks(f["legal_indptr"], f["legal_actions"], int(f["num_actions"]))
            data["obs"] = obs if n is None else obs.head(n)
            if "values" in f.files:
                data["values"] = PackedValues(masks, f["values"])
                if n is not None:
                    data["values"] = data["values"].head(n)
            data["masks"] = masks if n is None else masks.head(n)
            if "values" in data:
                data["masks"] = data["values"].masks
    size, actions = int(env.observation_space.shape[0]), int(env.action_space.n)
    tail = int(getattr(env, "privileged_size", 0))
    closing = int(getattr(env, "closing_size", 0))
    if closing and data["obs"].shape[1] == size - closing - tail:
        data["obs"] = _zero_closing_tail(path, data["obs"], data["masks"], closing)
    elif getattr(env, "settlement_features", False):
        # Labels of a run with the closing features but not the settlement ones: their two rows
        # come last (feature-major), so zeros appended stand for them, on the same terms.
        from agents.policy import closing_size

        missing = closing - closing_size()
        if data["obs"].shape[1] == size - missing - tail:
            data["obs"] = _zero_closing_tail(path, data["obs"], data["masks"], missing)
    if tail and data["obs"].shape[1] == size - tail:
        # Labels of a run without the privileged critic's tail: zeros stand for it (the fit trains
        # the actor, which never reads it; train/label_store.py ZeroTail).
        from .label_store import ZeroTail

        data["obs"] = ZeroTail(data["obs"], tail)
    if data["obs"].shape[1] != size or data["masks"].shape[1] != actions:
        raise ValueError(f"{path} holds observations of {data['obs'].shape[1]} floats and {data['masks'].shape[1]} "
                         f"actions; this run's are {size} and {actions} (another game, hint or critic tail)")
    return data


def _zero_closing_tail(path, obs, masks, closing: int):
    """Labels of a run without the closing features (agents.policy.closing_features) for a run with
    them (or without the settlement features for a run with them): zeros stand for them, which is
    exact when no label has a legal close variant (the features are all 0 there,
    nos_env/games/nos/closing.py), as for labels of the openings only
    (``distill.phases: [set, announce]``). Labels of plays in turn are refused: their features must
    be computed when they are collected."""
    from nos_env.encoding import PASS, PLAY0

    from .label_store import ZeroTail

    legal = np.asarray(masks.actions[: masks.indptr[-1]], np.int64)
    closes = int(((legal >= PLAY0) & (legal < PASS) & ((legal - PLAY0) % 2 == 1)).sum())
    if closes:
        raise ValueError(f"{path} holds labels of plays in turn ({closes} legal close variants) without the closing "
                         f"features this run reads: collect them afresh (distill.labels_from: \"\")")
    return ZeroTail(obs, closing)


def _mode(policy, obs: th.Tensor, masks: np.ndarray) -> np.ndarray:
    """The policy's deterministic choices (its masked argmax) for a batch."""
    with th.no_grad():
        dist = policy.get_distribution(obs, action_masks=masks)
        return dist.mode().numpy().astype(np.int64)


def soft_targets(values: np.ndarray, masks: np.ndarray, temperature: float) -> np.ndarray:
    """[N, actions]: softmax of the teacher's action values / ``temperature`` over each row's
    legal actions (0 elsewhere). With a temperature above the values' noise the softmax is near
    linear in them, so fitting it over many similar positions averages the noise away, and the
    fitted distribution's argmax is the action of best expected value."""
    v = np.where(masks, np.nan_to_num(values, nan=0.0), -np.inf) / temperature
    v = v - v.max(axis=1, keepdims=True)
    e = np.where(masks, np.exp(v), 0.0)
    return (e / e.sum(axis=1, keepdims=True)).astype(np.float32)


def soft_loss(policy, obs: th.Tensor, masks: np.ndarray, soft: th.Tensor) -> th.Tensor:
    """The mean cross-entropy of the policy's masked distribution toward ``soft`` [B, actions]
    (0 where illegal). Computed over each row's list of legal actions (FastMaskedCategorical's
    packed log-probabilities), not the full [B, actions] ``log_p``: that one's padding repeats
    the row's first legal action, whose gradient would then count once more per pad."""
    dist = policy.get_distribution(obs, action_masks=masks)
    weights = soft.gather(1, dist.index)
    if dist.valid is not None:
        weights = weights * dist.valid
    return -(weights * dist.packed_log_p).sum(dim=1).mean()


def hint_weight_of(policy) -> th.nn.Parameter:
    """The hinted policy's weight on Greedy's move (``agents.policy.HintHead``)."""
    head = getattr(policy, "action_net", None)
    if head is None or not isinstance(getattr(head, "weight", None), th.nn.Parameter) or head.weight.dim() != 0:
        raise ValueError("target 'advantage' needs a hinted policy (env.greedy_hint: true)")
    return head.weight


def hint_bonus_of(policy, hint: th.Tensor, obs) -> th.Tensor:
    """Each row's logit bonus on its hinted move (``hint`` long [B]; ``obs`` the rows'
    observations), without gradient: the hint weight, plus the policy's kept bonus where the
    hinted move is in a ``hint_kept`` block (and not freed in the row's endgame)."""
    hint_weight_of(policy)  # (a hinted policy, checked)
    return policy.hint_bonus(hint, obs)


def advantage_loss(policy, obs: th.Tensor, masks: np.ndarray, advantage: th.Tensor, hint: th.Tensor,
                   temperature: float) -> th.Tensor:
    """Mean squared error of ``f(a) - f(hint)`` toward ``advantage[a] / temperature`` over each
    row's legal moves (averaged per row, then over rows; the hint's own term is 0), where ``f``
    is the policy's logits without the hint's bonus. So ``f`` regresses the moves' values (up to
    a constant per position), which depend on the position and the move only, never on which
    move Greedy picked; the hint weight ``w`` (no gradient here) is then a margin of ``w *
    temperature`` points: the deterministic policy leaves Greedy only for a move predicted to gain
    more than that (:func:`choose_margin` sets it). Its softmax weighs moves by exp(A /
    temperature) for PPO after it."""
    dist = policy.get_distribution(obs, action_masks=masks)
    index = dist.index
    valid = th.ones_like(index, dtype=th.bool) if dist.valid is None else dist.valid
    at_hint = (index == hint[:, None]) & valid
    f = dist.masked - hint_bonus_of(policy, hint, obs)[:, None] * at_hint  # [B, K]: the legal moves' logits, bonus removed
    base = (f * at_hint).sum(dim=1, keepdim=True)
    target = advantage.gather(1, index) / temperature
    error = th.where(valid, f - base - target, th.zeros_like(f))
    return ((error * error).sum(dim=1) / valid.sum(dim=1)).mean()


def held_out_gain(advantage: np.ndarray, choices: np.ndarray) -> float:
    """The mean advantage over Greedy of ``choices`` (points per decision): what playing them
    once, here, wins over Greedy's move, by the exact rollout labels."""
    return float(np.mean(advantage[np.arange(len(choices)), choices])) if len(choices) else float("nan")


def margin_choices(predicted: np.ndarray, masks: np.ndarray, hint: np.ndarray, margin: float) -> np.ndarray:
    """The moves played with ``margin`` points more on Greedy's: the argmax of the predicted
    advantage (``predicted``, [N, actions], Greedy's move at 0) where it exceeds ``margin``, else
    Greedy's move."""
    rows = np.arange(len(hint))
    score = np.where(masks, predicted, -np.inf)
    score[rows, hint] += margin
    return score.argmax(axis=1)


#: What the cloning fits: the teacher's choices (cross-entropy), its action values (soft targets),
#: or the rollout labels' advantages over Greedy's move (regression of the logits' differences).
TARGETS = ("choice", "values", "advantage")


def behaviour_clone(policy, data: dict, epochs: int, batch_size: int, learning_rate: float,
                    holdout: float = 0.1, seed: int = 0, target: str = "choice", temperature: float = 1.0,
                    log=None, patience: int = 0) -> list[dict]:
    """Fit ``policy``'s masked action distribution to the teacher, for ``epochs`` passes in
    minibatches of ``batch_size``, with its own Adam (PPO's optimizer and its moments are left
    as they are). ``target`` "choice": cross-entropy toward ``data["actions"]``; "values":
    cross-entropy toward :func:`soft_targets` of ``data["values"]`` at ``temperature``.

    The last ``holdout`` share of the labels (in collection order: later hands) is never
    trained on; each epoch's row reports the loss on both parts, how often the policy's argmax
    is the teacher's choice (``holdout_agree``), the same on the held-out decisions where the
    teacher departed from the hint (``holdout_agree_departures``, NaN without a hint or such
    decisions), and with values how often the argmax is the action of best value
    (``holdout_agree_best``). Returns the rows (epoch 0: before any update).

    ``target`` "advantage": :func:`advantage_loss` toward ``values`` minus the value of the
    hinted move (the rollout labels, train/rollout_advantage.py); each row also reports
    ``holdout_gain`` (the held-out mean advantage of the policy's argmax, points per decision),
    ``holdout_departs`` (how often it leaves Greedy) and ``holdout_best_gain`` (the labels'
    best move's, an upper bound). The epoch of lowest held-out loss is kept (early stopping),
    and with ``patience`` > 0 the passes stop after that many epochs without a lower one."""
    if epochs < 0 or batch_size < 1 or not learning_rate > 0 or not 0 <= holdout < 1 or not temperature > 0:
        raise ValueError("epochs >= 0, batch_size >= 1, learning_rate > 0, temperature > 0 and 0 <= holdout < 1 "
                         "are required")
    if target not in TARGETS:
        raise ValueError(f"target must be one of {TARGETS}, got {target!r}")
    if target in ("values", "advantage") and "values" not in data:
        raise ValueError(f"target {target!r} needs labels collected with the teacher's values")
    if target == "advantage" and not (data["hint"] >= 0).all():
        raise ValueError("target 'advantage' needs the Greedy hint (the advantage is over Greedy's move)")
    if patience < 0:
        raise ValueError(f"patience must be >= 0, got {patience}")
    n = len(data["actions"])
    n_hold = int(round(n * holdout))
    n_train = n - n_hold
    if n_train < 1:
        raise ValueError(f"{n} labels leave none to train on with holdout {holdout}")
    # Everything is read one minibatch at a time (rows of the labels as float32 / bool arrays):
    # the labels stay compact (train/label_store.py), and no full-size temporary is made.
    actions = data["actions"]
    hints = np.asarray(data["hint"], np.int64)
    departs = (data["hint"] >= 0) & (data["hint"] != data["actions"])
    with_values = "values" in data
    if target == "advantage":
        from .rollout_advantage import advantages
    # The loss reaches the actor and the shared first layer only; the critic's own layers get no gradient.
    params = [p for p in policy.parameters() if p.requires_grad]
    optimizer = th.optim.Adam(params, lr=learning_rate, eps=1e-5)
    generator = np.random.default_rng([seed, 0xD157])
    policy.set_training_mode(True)

    def batch(part: np.ndarray) -> tuple[th.Tensor, np.ndarray, np.ndarray | None]:
        """The rows ``part``: observations (a tensor), masks, and the advantages over the hint (0
        where illegal) with target "advantage"."""
        obs = th.as_tensor(np.asarray(data["obs"][part], np.float32))
        masks = np.asarray(data["masks"][part], bool)
        advantage = None
        if target == "advantage":
            advantage = advantages(data["values"][part], hints[part])
            advantage[~masks] = 0.0
        return obs, masks, advantage

    def batch_loss(part: np.ndarray) -> th.Tensor:
        obs, masks, advantage = batch(part)
        if advantage is not None:
            return advantage_loss(policy, obs, masks, th.as_tensor(advantage), th.as_tensor(hints[part]), temperature)
        if target == "choice":
            _, log_p, _ = policy.evaluate_actions(obs, th.as_tensor(actions[part]), action_masks=masks)
            return -log_p.mean()
        return soft_loss(policy, obs, masks, th.as_tensor(soft_targets(data["values"][part], masks, temperature)))

    def loss_of(index: np.ndarray) -> float:
        total = 0.0
        with th.no_grad():
            for first in range(0, len(index), 4096):
                part = index[first: first + 4096]
                total += float(batch_loss(part)) * len(part)
        return total / max(1, len(index))

    def held_out_rows(hold_index: np.ndarray) -> dict:
        """The policy's argmax on the held-out rows, and with values the best-valued move, the
        argmax's advantage and the labels' best advantage, per row (in batches)."""
        parts = {"mode": [], "best": [], "gain": [], "best_gain": []}
        for first in range(0, len(hold_index), 4096):
            part = hold_index[first: first + 4096]
            obs, masks, advantage = batch(part)
            mode = _mode(policy, obs, masks)
            parts["mode"].append(mode)
            if with_values:
                held = data["values"][part]
                parts["best"].append(np.where(masks, np.nan_to_num(held, nan=-np.inf), -np.inf).argmax(axis=1))
            if advantage is not None:
                parts["gain"].append(advantage[np.arange(len(mode)), mode])
                parts["best_gain"].append(np.where(masks, advantage, -np.inf).max(axis=1))
        return {key: np.concatenate(value) if value else None for key, value in parts.items()}

    def row(epoch: int, seconds: float) -> dict:
        train_index, hold_index = np.arange(n_train), np.arange(n_train, n)
        out = {"epoch": epoch, "labels": n_train, "holdout": n_hold, "seconds": seconds,
               "train_loss": loss_of(train_index), "holdout_loss": loss_of(hold_index) if n_hold else float("nan")}
        held = held_out_rows(hold_index)
        mode = held["mode"] if n_hold else np.zeros(0, np.int64)
        agree = mode == data["actions"][hold_index]
        out["holdout_agree"] = float(np.mean(agree)) if n_hold else float("nan")
        d = departs[hold_index]
        out["holdout_agree_departures"] = float(np.mean(agree[d])) if d.any() else float("nan")
        out["holdout_departures"] = int(d.sum())
        if with_values:
            out["holdout_agree_best"] = float(np.mean(mode == held["best"])) if n_hold else float("nan")
        if target == "advantage":
            out["holdout_gain"] = float(np.mean(held["gain"])) if n_hold else float("nan")
            out["holdout_departs"] = float(np.mean(mode != data["hint"][hold_index])) if n_hold else float("nan")
            out["holdout_best_gain"] = float(np.mean(held["best_gain"])) if n_hold else float("nan")
        return out

    start = time.perf_counter()
    rows = [row(0, 0.0)]
    if log is not None:
        log(rows[-1])
    early = target == "advantage" and n_hold > 0  # keep the epoch of lowest held-out loss
    best_loss, best_state, best_epoch = rows[0]["holdout_loss"], None, 0
    if early:
        best_state = {k: v.detach().clone() for k, v in policy.state_dict().items()}
    for epoch in range(1, epochs + 1):
        order = generator.permutation(n_train)
        for first in range(0, n_train, batch_size):
            loss = batch_loss(order[first: first + batch_size])
            optimizer.zero_grad()
            loss.backward()
            th.nn.utils.clip_grad_norm_(params, 1.0)
            optimizer.step()
        rows.append(row(epoch, time.perf_counter() - start))
        if log is not None:
            log(rows[-1])
        if early:
            if rows[-1]["holdout_loss"] < best_loss:
                best_loss, best_epoch = rows[-1]["holdout_loss"], epoch
                best_state = {k: v.detach().clone() for k, v in policy.state_dict().items()}
            elif patience and epoch - best_epoch >= patience:
                break
    if early:
        policy.load_state_dict(best_state)
        for r in rows:
            r["kept"] = r["epoch"] == best_epoch
    policy.set_training_mode(False)
    return rows


def predicted_advantage(policy, obs: np.ndarray, masks: np.ndarray, hint: np.ndarray,
                        temperature: float) -> np.ndarray:
    """[N, actions]: the fitted policy's predicted advantage over Greedy's move in points,
    ``(f(a) - f(hint)) * temperature`` with ``f`` its logits without the hint's bonus (0 at the
    hint, -inf where illegal)."""
    out = np.full(masks.shape, -np.inf, np.float32)
    with th.no_grad():
        for first in range(0, len(obs), 4096):
            part = slice(first, first + 4096)
            dist = policy.get_distribution(th.as_tensor(obs[part]), action_masks=masks[part])
            log_p = dist.log_p.numpy().astype(np.float64)
            rows = np.arange(len(log_p))
            h = hint[part]
            log_p[rows, h] -= hint_bonus_of(policy, th.as_tensor(h), obs[part]).numpy()
            out[part] = np.where(masks[part], (log_p - log_p[rows, h][:, None]) * temperature, -np.inf)
    return out


def choose_margin(policy, data: dict, margins, holdout: float, temperature: float) -> dict:
    """Pick, on the held-out labels, the margin (points) Greedy's move is given before the policy
    may leave it: the one whose choices have the highest mean advantage (:func:`held_out_gain`),
    the largest of equals (fewer departures for the same gain). The policy's hint weight becomes margin / temperature, so the
    deterministic policy plays exactly those choices. Returns what each margin gained."""
    n = len(data["actions"])
    hold = np.arange(n - int(round(n * holdout)), n)
    if len(hold) == 0:
        raise ValueError("choosing a margin needs held-out labels (distill.holdout > 0)")
    weight = hint_weight_of(policy)
    from .rollout_advantage import advantages

    # In batches of held-out rows (the labels stay compact): each margin's chosen advantage per row.
    gains, departs = [[] for _ in margins], [[] for _ in margins]
    for first in range(0, len(hold), 4096):
        part = hold[first: first + 4096]
        masks = np.asarray(data["masks"][part], bool)
        hint = np.asarray(data["hint"], np.int64)[part]
        advantage = np.where(masks, advantages(data["values"][part], hint), 0.0)
        predicted = predicted_advantage(policy, np.asarray(data["obs"][part], np.float32), masks, hint, temperature)
        for i, m in enumerate(margins):
            choices = margin_choices(predicted, masks, hint, float(m))
            gains[i].append(advantage[np.arange(len(part)), choices])
            departs[i].append(choices != hint)
    table = []
    for i, m in enumerate(margins):
        table.append({"margin": float(m), "gain": float(np.mean(np.concatenate(gains[i]))),
                      "departs": float(np.mean(np.concatenate(departs[i])))})
    chosen = max(table, key=lambda r: (r["gain"], r["margin"]))
    with th.no_grad():
        weight.fill_(chosen["margin"] / temperature)
    return {"margins": table, "margin": chosen["margin"], "gain": chosen["gain"], "departs": chosen["departs"],
            "hint_weight": float(weight.detach())}


#: The margin tournament deals from ``MARGIN_SEED + run.seed``: never the periodic evaluations'
#: (``EVAL_SEED``), the final report's (``EVAL_SEED + 1``) or the fresh-deal checks' (seed 77).
MARGIN_SEED = 3_000_017


def choose_margin_by_tournament(policy, margins, temperature: float, deals: int, num_players: int, game: str,
                                game_options: dict | None = None, seed: int = MARGIN_SEED, opponent: str = "greedy",
                                num_threads: int | str | None = 1) -> dict:
    """Pick the margin (points) by play instead of by the labels: at each margin the fitted policy
    (deterministic, hint weight margin / temperature) plays a duplicate tournament of ``deals``
    deals in one seat against ``opponent`` in the others, the same deals for every margin, and the
    margin of best mean difference (model minus the opponent's seats, points a hand) is kept, the
    largest of equals (fewer departures for the same gain).

    Why: :func:`choose_margin` scores each departure as if Greedy played the rest of the hand; a
    policy that departs often meets positions the labels never saw, and the held-out choice
    overrated Chickenfoot's margin 0 (docs/family.md). A tournament measures the policy as it
    plays. Returns what each margin gained, with its 95% interval."""
    from .evaluation import evaluate

    if deals < 1:
        raise ValueError(f"the margin tournament needs deals >= 1, got {deals}")
    weight = hint_weight_of(policy)
    table = []
    for m in margins:
        with th.no_grad():
            weight.fill_(float(m) / temperature)
        result = evaluate(policy, opponent, deals, num_players, seed=seed, num_threads=num_threads, game=game,
                          game_options=game_options)
        table.append({"margin": float(m), "gain": float(result["difference"]),
                      "ci95": float(result["difference_ci95"])})
    chosen = max(table, key=lambda r: (r["gain"], r["margin"]))
    with th.no_grad():
        weight.fill_(chosen["margin"] / temperature)
    return {"by": "tournament", "deals": deals, "seed": seed, "opponent": opponent, "margins": table,
            "margin": chosen["margin"], "gain": chosen["gain"], "ci95": chosen["ci95"],
            "hint_weight": float(weight.detach())}


def _progress(total: int, every: float = 60.0):
    """A collection log that prints a line a minute (a teacher such as Search labels tens a second)."""
    last = [0.0]

    def log(count: int, seconds: float) -> None:
        if seconds - last[0] >= every or count >= total:
            last[0] = seconds
            print(f"distill: {count:,}/{total:,} labels in {seconds:.0f} s ({count / max(seconds, 1e-9):.0f}/s)",
                  flush=True)

    return log


def distill_policy(config, policy, run_dir, make_env) -> dict:
    """The ``distill`` section's two steps for a new run: collect ``distill.decisions`` labels
    with the teacher (on ``distill.num_envs`` tables of their own seed, built by ``make_env``
    from the run's config: the same game, opponents, hint and critic tail), clone them into
    ``policy``, and write ``distill/epochs.csv`` and ``distill/summary.json`` in ``run_dir``.
    Returns the summary."""
    import copy
    import json
    from pathlib import Path

    from agents.registry import make_agent

    from .evaluation import append_csv

    d = config.distill
    folder = Path(run_dir) / "distill"
    folder.mkdir(parents=True, exist_ok=True)
    collect_config = copy.deepcopy(config)
    collect_config.env.num_envs = d.num_envs
    collect_config.run.seed = config.run.seed + LABEL_SEED_OFFSET
    env, _ = make_env(collect_config)
    from .rollout_advantage import ROLLOUT_TEACHER, collect_advantage_labels, make_labeler

    if d.labels_from:
        data = load_labels(d.labels_from, env, limit=d.decisions)  # its first distill.decisions labels
    elif d.teacher == ROLLOUT_TEACHER:
        labeler = make_labeler(env, **d.teacher_options)
        data = collect_advantage_labels(env, labeler, d.decisions, log=_progress(d.decisions), phases=d.phases)
        save_labels(folder / "labels.npz", data)
    else:
        kwargs = {"game": config.env.game}
        if config.env.game != "nos":
            kwargs["rules"] = env.tables.rules
        teacher = make_agent(d.teacher, seed=collect_config.run.seed, **kwargs, **d.teacher_options)
        # "advantage" regresses the teacher's values less its value of the hinted move: both need the values
        data = collect_labels(env, teacher, d.decisions, values=d.target in ("values", "advantage"),
                              log=_progress(d.decisions))
        save_labels(folder / "labels.npz", data)
    env.close()
    rows = behaviour_clone(policy, data, d.epochs, d.batch_size, d.learning_rate, d.holdout, seed=config.run.seed,
                           target=d.target, temperature=d.temperature, patience=d.patience,
                           log=lambda row: append_csv(folder / "epochs.csv", row))
    margin = None
    if d.target == "advantage":
        margin = choose_margin(policy, data, d.margins, d.holdout, d.temperature)
        if d.margin_by == "tournament":  # the held-out gains are kept beside it, for the comparison
            margin = {**choose_margin_by_tournament(
                policy, d.margins, d.temperature, d.margin_deals, config.env.num_players, config.env.game,
                game_options=config.env.game_options, seed=MARGIN_SEED + config.run.seed,
                num_threads=config.env.num_threads), "holdout": margin}
    hinted = data["hint"] >= 0
    nos = config.env.game == "nos"
    summary = {"teacher": d.teacher, "teacher_options": d.teacher_options, "target": d.target,
               # what the advantages are measured against (the hint) and in what
               "hint": "Tactics" if nos else "Greedy", "unit": "chips" if nos else "points",
               "temperature": d.temperature, "labels": len(data["actions"]),
               "labels_from": d.labels_from or str(folder / "labels.npz"),
               "collect_seconds": data["seconds"],
               "labels_per_second": len(data["actions"]) / max(data["seconds"], 1e-9),
               "teacher_departs_from_hint": float(np.mean(data["hint"][hinted] != data["actions"][hinted]))
               if hinted.any() else None,
               "first": rows[0], "last": rows[-1]}
    if margin is not None:
        kept = [r for r in rows if r.get("kept")]
        summary.update(margin=margin, kept=kept[0] if kept else rows[-1])
    (folder / "summary.json").write_text(json.dumps(summary, indent=1))
    return summary


def label_decisions(env, decisions: int, choose, illegal, log=None, keep=None) -> dict:
    """The labelling loop every teacher shares: the learner's seat plays ``choose(obs, masks, take)
    -> (actions [B], values [len(take), actions] or None)`` at every table, and the decisions with
    more than one legal move (``take``, up to ``decisions`` in all; with ``keep(obs) -> bool [B]``
    only the rows it keeps) are kept: ``obs`` (a :class:`train.label_store.CompactObservations`,
    read as float32 rows), ``masks`` (a :class:`~train.label_store.PackedMasks`, read as bool
    rows), ``actions``, ``values`` when ``choose`` gives them (a
    :class:`~train.label_store.PackedValues`: NaN where illegal; a value at an illegal move raises
    ValueError), and ``seconds``. An illegal choice raises RuntimeError with ``illegal(actions,
    masks)``'s message, before the step."""
    # The kept decisions fill arrays of the final size as they come (no list to concatenate), the
    # observations as bytes where they are small integers and the masks and values for the legal
    # moves only (train/label_store.py): a Double-Nine Cross label held 17 KB as float32 rows.
    from .label_store import CompactObservations, LegalMovesBuilder

    start = time.perf_counter()
    obs = env.reset()
    rows = np.arange(env.num_envs)
    masks = env.action_masks()
    kept_obs = CompactObservations(decisions, obs.shape[1])
    kept_moves = LegalMovesBuilder(masks.shape[1])
    kept_actions = np.empty(decisions, np.int64)
    count = 0
    while count < decisions:
        masks = env.action_masks()
        eligible = masks.sum(axis=1) > 1
        if keep is not None:
            eligible &= keep(obs)
        take = np.flatnonzero(eligible)[: decisions - count]
        actions, values = choose(obs, masks, take)
        if not masks[rows, actions].all():
            raise RuntimeError(illegal(actions, masks))
        kept_obs.put(count, obs[take])
        kept_moves.add(masks[take], values)
        kept_actions[count: count + len(take)] = actions[take]
        count += len(take)
        if log is not None:
            log(count, time.perf_counter() - start)
        env.step_async(actions)
        obs, _, _, _ = env.step_wait()
    packed_masks, packed_values = kept_moves.finish()
    data = {"obs": kept_obs, "masks": packed_masks, "actions": kept_actions, "seconds": time.perf_counter() - start}
    if packed_values is not None:
        data["values"] = packed_values
    return data
