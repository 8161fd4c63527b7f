"""The policy network for MaskablePPO on Nos observations: :class:`NosPolicy`.

    observation (1,041 floats) -> Linear(width) + ReLU  (shared by actor and critic)
        actor:  MLP(net_arch["pi"]) -> logits over the 557 actions (+ w * hint)
        critic: MLP(net_arch["vf"]) -> value

The shared first layer is most of the arithmetic (the observation is wide),
so sharing it halves the cost of training on a CPU. The observation may be
followed by a *hint*: the index of the Tactics agent's choice in the same
position (``SelfPlayVecEnv(tactics_hint=True)``). Then ``w`` is added to
that action's logit, ``w`` a learned scalar that starts at
``hint_weight`` (learned, unless ``hint_trainable=False`` keeps it fixed): the
network starts close to Tactics' play and learns where to
depart from it. The hint is computed from the observation alone, so the
policy sees no more than its seat may (D17). Only the actor reads the hint.

A family game's policy (issue 15) may read a hint too: its game's Greedy's choice
(``SelfPlayVecEnv(greedy_hint=True)``). Its sizes cannot say so (a family observation has
any size), so the policy is told: ``hint_source = {"game", "num_players", "options"}``, the
rules the Greedy hint is computed for, saved with the model so that a player rebuilds the
same Greedy (:func:`hint_agent`).

Such a policy may also read each action's *immediate points* (``action_points=True``, the
scoring games only): behind the hint come ``num_actions`` floats, the points each legal move
scores at once by its rules page (:func:`action_points`, 0 where illegal), and the head adds
``points_weight * points[a]`` to each logit, ``points_weight`` a learned scalar. Why: a fit of
the moves' advantages over Greedy's (train/distill.py, target "advantage") cannot tell from the
observation which plays score now, and rated every non-Greedy move about a point too high in Five
Up (docs/family.md). The points are computed from the seat's observation alone, by the same Greedy
that computes the hint, wherever the policy plays (the training env, :class:`agents.model.PolicyAgent`).

The same way, a policy may read a few *features per action* (``action_features=True``, the games
of :data:`agents.family.blind_features.ACTION_FEATURE_GAMES`: Blind): behind the points (if any)
come ``num_actions * K`` floats, K features of each action (:func:`action_features`, 0 where
illegal), and the head adds ``features_weight @ features[a]`` to each logit, ``features_weight`` a
learned vector of K (the points are the one-feature case, kept as they were so that saved models
load); with ``features_hidden`` (layer widths) a small MLP shared by every action, ``g(features[a])``,
replaces the dot product, so features can weigh one another. Why: in Blind the one decision is which two open numbers a tile leaves, and whether the
rows' next tiles fit them is known (or has a known chance) from the public rows, but neither the
observation's encoding nor a linear head could find it (docs/family.md).

A Nos policy with the Tactics hint may read each play's *closing features* (``closing_features=True``,
issue 19 item 2): behind the hint come ``4 x 224`` floats, for each play (tile, arm, side) whose
close variant is legal, the unseen tiles that would fit after it, whether my own hand would, the
closing's probability of being correct (1 exactly where Tactics' proof proves it) and its expected
payment (:func:`closing_features`, ``nos_env/games/nos/closing.py``). The head adds
``w[0] * fit_unseen + w[1] * own_fits`` to both variants of the play and, to the close variant,
``w[2] * p_correct + w[3] * close_chips``, ``w`` four learned scalars (``closing_weights``, their
starting values). Why: Tactics closes only with a proof the network cannot read from its observation,
and the models closed 740-825 times in 1,000 deals to Search's 800-860 (docs/training.md).
With ``settlement_features=True`` two more rows follow (``6 x 224`` floats): the settlement a
correct closing with the play would bring (``close_settle``, times ``p_correct``) and the
settlement if the hand ended after the play (``settle_now``), both from the expected final
counts; the head adds ``w[5] * settle_now`` to both variants and ``w[4] * close_settle`` to the
close one. Why: against Search the closing models won the closings but lost about 0.65 chips a
hand at the final count, which ``close_chips`` leaves out.

It lives in ``agents/`` (it was ``train/policy.py``) because a saved model needs it to play:
``agents.model`` loads models with it, and ``train/`` builds new ones from it. Importing this
module needs the ``train`` extra (torch, sb3-contrib); without it the import stops with
:class:`nos_env.extras.MissingExtraError`, which names the extra. ``agents`` itself never imports
it until a trained model is asked for.
"""

from __future__ import annotations

from nos_env.extras import require

require("train", "the trained-model policy (agents/policy.py)", ("torch", "stable_baselines3", "sb3_contrib"))

import numpy as np  # noqa: E402
import torch as th  # noqa: E402  (after the check above, so a missing extra is named, not a traceback)
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy  # noqa: E402
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor  # noqa: E402
from torch import nn  # noqa: E402

from nos_env.encoding import ENDGAME_COLUMN, NUM_ACTIONS, OBSERVATION_SIZE  # noqa: E402

from .closing_input import CLOSING_WEIGHTS, check_closing_features  # noqa: E402,F401  (the policy's settings, torch-free)
from .legal_logits import chosen_logits  # noqa: E402
from .masked_categorical import FastMaskedCategorical  # noqa: E402  (the policy's distribution)
from .sparse_linear import SparseInputLinear, SparseRows  # noqa: E402


def hint_size(observation_space: spaces.Box, action_space: spaces.Discrete | None = None,
              privileged: int = 0) -> int:
    """0 for plain observations, 1 when the Tactics hint (an action index) follows them. Only Nos
    has the hint. With Nos's action space (557) the observation must be Nos's (1,041 floats, or
    1,042 with the hint, then ``privileged`` floats of a privileged critic's tail,
    train/privileged.py); with another action space it is a family game's (issue 15), any size,
    no hint."""
    size = int(observation_space.shape[0]) - int(privileged)
    nos = action_space is None or int(action_space.n) == NUM_ACTIONS
    if nos and size not in (OBSERVATION_SIZE, OBSERVATION_SIZE + 1):
        tail = f" before the critic's tail of {int(privileged)}" if privileged else ""
        raise ValueError(f"Nos observations have {OBSERVATION_SIZE} floats, or {OBSERVATION_SIZE + 1} "
                         f"with the Tactics hint{tail}; got {size}")
    return size - OBSERVATION_SIZE if nos else 0


def check_hint_source(hint_source) -> dict | None:
    """``None`` (no family hint) or the rules a family policy's Greedy hint is computed for:
    ``{"game": str, "num_players": int, "options": dict}`` (a ValueError names what is missing)."""
    if hint_source is None:
        return None
    keys = {"game", "num_players", "options"}
    if not isinstance(hint_source, dict) or set(hint_source) != keys:
        raise ValueError(f"hint_source must be None or a mapping with exactly the keys {sorted(keys)}, "
                         f"got {hint_source!r}")
    return {"game": str(hint_source["game"]), "num_players": int(hint_source["num_players"]),
            "options": dict(hint_source["options"])}


def hint_agent(hint_source: dict, seed: int | None = 0):
    """The family Greedy agent that computes a family policy's hint (``hint_source``'s rules)."""
    from .family.games import make_rules
    from .registry import make_agent

    source = check_hint_source(hint_source)
    rules = make_rules(source["game"], source["num_players"], **source["options"])
    return make_agent("greedy", seed=seed, game=source["game"], rules=rules)


def endgame_gate(observations) -> th.Tensor:
    """float32 [B]: 1.0 for the Nos observations of the endgame (no tile can be drawn any more:
    :data:`nos_env.encoding.ENDGAME_COLUMN` reads 0), else 0.0. Public information only."""
    if isinstance(observations, SparseRows):
        column = observations.column(ENDGAME_COLUMN)
    else:
        column = th.as_tensor(observations)[:, ENDGAME_COLUMN]
    return (column == 0).to(th.float32)


def _check_greedy_input(name: str, value, hint_source, games, needs_hint: str, lacking: str, listed: str) -> bool:
    """A per-action input behind a family Greedy hint (``name``: action_points, action_features) as a
    bool: refused (ValueError naming what is allowed) unless it is a bool and, when true, the policy
    has a family Greedy hint (``hint_source``) of one of ``games``. ``needs_hint`` says why the hint is
    needed; ``lacking`` what a game outside ``games`` lacks, ``listed`` what ``games`` are."""
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    if not value:
        return False
    source = check_hint_source(hint_source)
    if source is None:
        raise ValueError(f"{name} needs a family game's Greedy hint (hint_source; env.greedy_hint: true): {needs_hint}")
    if source["game"] not in games:
        raise ValueError(f"{name}: {source['game']}{lacking}; {listed} are {', '.join(games)}")
    return True


def check_action_points(action_points, hint_source) -> bool:
    """``action_points`` as a bool, refused (ValueError naming what is allowed) unless it is a bool
    and, when true, the policy has a family Greedy hint (``hint_source``: the rules the points are
    computed for) of a game whose plays score at once (:data:`agents.family.greedy.SCORING_GAMES`)."""
    from .family.greedy import SCORING_GAMES

    return _check_greedy_input("action_points", action_points, hint_source, SCORING_GAMES,
                               "the points are computed by the hint's Greedy", "'s plays score nothing at once",
                               "the games whose plays score")


def check_action_features(action_features, hint_source) -> bool:
    """``action_features`` as a bool, refused (ValueError naming what is allowed) unless it is a
    bool and, when true, the policy has a family Greedy hint (``hint_source``: the rules the
    features are computed for) of a game that has such features
    (:data:`agents.family.blind_features.ACTION_FEATURE_GAMES`)."""
    from .family.blind_features import ACTION_FEATURE_GAMES

    return _check_greedy_input("action_features", action_features, hint_source, ACTION_FEATURE_GAMES,
                               "the features ride behind it and are computed for its rules",
                               " has no per-action features", "the games with them")


def check_features_hidden(features_hidden) -> tuple:
    """The hidden widths of the MLP over each action's features, as a tuple of positive integers
    (empty: the linear weights); anything else is refused naming what is allowed."""
    widths = tuple(features_hidden) if isinstance(features_hidden, (list, tuple)) else None
    if widths is None or any(isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1 for h in widths):
        raise ValueError(f"features_hidden must be a list of positive layer widths (empty: linear weights), "
                         f"got {features_hidden!r}")
    return tuple(int(h) for h in widths)


def features_per_action(hint_source) -> int:
    """K, the features each action has in ``hint_source``'s game (agents.family.blind_features)."""
    from .family.blind_features import NUM_FEATURES

    check_action_features(True, hint_source)
    return NUM_FEATURES


def action_features(hinter, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """float32 [B, actions * K]: each action's K features (action-major: action a's are columns
    a*K .. a*K + K - 1), 0 where illegal, computed from the seat's observation and mask only for
    the rules of ``hinter`` (the policy's Greedy, :func:`hint_agent`)."""
    from .family.blind_features import ACTION_FEATURE_GAMES

    rules = hinter.rules
    if rules.game not in ACTION_FEATURE_GAMES:
        raise ValueError(f"{rules.game} has no per-action features; the games with them are "
                         f"{', '.join(ACTION_FEATURE_GAMES)}")
    feats = ACTION_FEATURE_GAMES[rules.game](rules, np.asarray(obs), masks)
    return feats.reshape(feats.shape[0], -1)


def action_points(hinter, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """float32 [B, actions]: the points each legal move scores at once (a play or a set, by its
    rules page's play score on the open ends after it; draws and passes 0), 0 where illegal.
    ``hinter`` is the policy's Greedy (:func:`hint_agent`), which reads the seat's observation only."""
    masks = np.asarray(masks) != 0
    points = hinter.immediate_points(np.asarray(obs, np.float32))
    return np.where(masks, points, 0.0).astype(np.float32)


def closing_size(settlement: bool = False) -> int:
    """The floats of the closing features behind the hint: features x plays (4 x 224; 6 x 224 with
    the settlement features)."""
    from nos_env.fast_engine import CLOSING_FEATURES, CLOSING_PLAYS, SETTLEMENT_FEATURES

    return (len(CLOSING_FEATURES) + (len(SETTLEMENT_FEATURES) if settlement else 0)) * CLOSING_PLAYS


def closing_features(obs: np.ndarray, masks: np.ndarray, settlement: bool = False) -> np.ndarray:
    """float32 [B, 4 * 224] (6 * 224 with ``settlement``): each play's closing features
    (``nos_env.fast_engine.closing_features``, flattened feature-major), from the seat's observation
    (float32 [B, 1041]) and mask only."""
    from nos_env.fast_engine import closing_features as compute

    features = compute(np.asarray(obs, np.float32), masks, settlement=settlement)
    return features.reshape(features.shape[0], -1)


def closing_logits(features: th.Tensor, weights: th.Tensor) -> th.Tensor:
    """[B, NUM_ACTIONS]: what the closing features add to each logit. ``features`` [B, K * 224]
    (:func:`closing_features`), ``weights`` [K], K 4 or 6: ``w0 * fit_unseen + w1 * own_fits`` (and
    ``w5 * settle_now``) on both variants of each play, plus ``w2 * p_correct + w3 * close_chips``
    (and ``w4 * close_settle``) on its close variant."""
    from nos_env.encoding import PASS, PLAY0

    k = int(weights.shape[0])
    play, close = _play_and_close(features.reshape(features.shape[0], k, -1), weights)
    both = th.stack([play, close], dim=2).reshape(features.shape[0], -1)  # (play i, close c) at 2 i + c
    return nn.functional.pad(both, (PLAY0, NUM_ACTIONS - PASS))


def closing_logits_at(features: th.Tensor, weights: th.Tensor, index: th.Tensor) -> th.Tensor:
    """[B, k]: :func:`closing_logits` of the actions ``index`` [B, k] only (0 for an action that is
    not a play), without computing the other plays' (the PPO update reads the legal actions'
    logits only: ``HintHead.chosen``)."""
    from nos_env.encoding import PASS, PLAY0

    k = int(weights.shape[0])
    x = features.reshape(features.shape[0], k, -1)
    offset = index - PLAY0
    is_play = (offset >= 0) & (index < PASS)
    offset = th.where(is_play, offset, th.zeros_like(offset))
    play_of = offset // 2  # action PLAY0 + 2 i + c is play i, close variant c
    g = x.gather(2, play_of[:, None, :].expand(-1, k, -1))  # [B, k, K]: each index action's play's features
    play, close = _play_and_close(g, weights)
    value = th.where(offset % 2 == 1, close, play)
    return th.where(is_play, value, th.zeros_like(value))


def _play_and_close(x: th.Tensor, weights: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
    """[B, n] twice, from the features ``x`` [B, K, n] of n plays: each play's logit and its close
    variant's (:func:`closing_logits`' sums, in its order)."""
    k = int(weights.shape[0])
    w = weights.to(x.dtype)
    play = w[0] * x[:, 0] + w[1] * x[:, 1]
    if k > 4:
        play = play + w[5] * x[:, 5]
    close = play + w[2] * x[:, 2] + w[3] * x[:, 3]
    if k > 4:
        close = close + w[4] * x[:, 4]
    return play, close


def carried(columns: th.Tensor) -> th.Tensor:
    """``columns`` of the observation's tail carried behind the encoded observation (the hint, the
    points, the action and closing features, the endgame gate), detached. No parameter comes
    before them, so no gradient is lost; read attached, each slice made the update's backward pass
    write a zero gradient as wide as the whole tensor it was cut from (commit cb005bc measured half
    the settlement config's update in those fills; the other tail columns cost the same)."""
    return columns.detach()


class CarriedLatent:
    """The actor's latent [B, d] and the tail carried behind it [B, T] (the hint, the points, the
    action and closing features, the endgame gate), kept apart: what :meth:`NosPolicy.evaluate_actions`
    hands :class:`HintHead` in the PPO update instead of their concatenation. The head reads the
    same columns either way; apart, the update never builds the [B, d + T] tensors (about 1,150
    columns with the closing features) nor, in the backward pass, their zero-filled gradients."""

    __slots__ = ("own", "tail")

    def __init__(self, own: th.Tensor, tail: th.Tensor):
        self.own, self.tail = own, carried(tail)

    @property
    def shape(self) -> tuple[int, int]:
        return (self.own.shape[0], self.own.shape[1] + self.tail.shape[1])


class NosEncoder(BaseFeaturesExtractor):
    """The shared first layer; the hint, if any (``hint`` floats: the hint's one, and the action
    points' after it, if any), and the privileged tail, if any, are passed through behind its
    output (in that order), then, with ``gate``, the :func:`endgame_gate` of each row (for
    ``hint_freed_in_endgame``). The layer reads the seat's observation only."""

    def __init__(self, observation_space: spaces.Box, width: int = 256, hint: int | None = None,
                 privileged: int = 0, gate: bool = False):
        self.hint = hint_size(observation_space) if hint is None else int(hint)
        self.privileged = int(privileged)
        self.gate = bool(gate)
        super().__init__(observation_space, width + self.hint + self.privileged + self.gate)
        self.width = width
        # The game's observation size (Nos: 1,041; a family game: its encoding's), then the hint and
        # the privileged tail.
        self.size = int(observation_space.shape[0]) - self.hint - self.privileged
        self.body = nn.Sequential(SparseInputLinear(self.size, width), nn.ReLU())  # observations are 95% zeros

    def encode(self, observations: th.Tensor | SparseRows) -> tuple[th.Tensor, th.Tensor]:
        """The encoded observation [B, width] and the tail passed through behind it [B, hint +
        privileged (+ 1 with ``gate``)], apart."""
        if isinstance(observations, SparseRows):  # the PPO update's minibatch (train/buffer.py)
            rows, tail = observations.split(self.size)
            z = self.body(rows)
        else:
            z = self.body(observations[:, : self.size])
            tail = observations[:, self.size:]
        if self.gate:
            tail = th.cat([tail, endgame_gate(observations)[:, None]], dim=1)
        return z, tail

    def forward(self, observations: th.Tensor | SparseRows) -> th.Tensor:
        z, tail = self.encode(observations)
        return th.cat([z, tail], dim=1) if tail.shape[1] else z


class HintExtractor(nn.Module):
    """Actor and critic MLPs over the encoded observation; the actor's latent carries the
    ``tail`` columns behind it along (the hint, then the action points or the endgame gate if any)."""

    def __init__(self, width: int, net_arch, activation_fn, device, tail: int = 1):
        super().__init__()
        self.width = width
        self.mlp = MlpExtractor(width, net_arch=net_arch, activation_fn=activation_fn, device=device)
        # the hint (1), then the action points or the endgame gate if any: the head reads them behind the latent
        self.latent_dim_pi = self.mlp.latent_dim_pi + tail
        self.latent_dim_vf = self.mlp.latent_dim_vf

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        latent = self.mlp.forward_actor(features[:, : self.width])
        return th.cat([latent, carried(features[:, self.width :])], dim=1)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.mlp.forward_critic(features[:, : self.width])


class PrivilegedExtractor(nn.Module):
    """A privileged critic's MLPs (train/privileged.py): the actor reads the encoded observation
    (and the hint, then the endgame gate if ``gate``, carried along as in :class:`HintExtractor`);
    the critic reads the encoded observation *and* the privileged tail (the other seats' hands).
    Nothing of the tail reaches the actor, so the policy plays from its seat's view alone. The
    features are [encoded (width), hint (hint), tail (privileged), gate (gate)], as
    :class:`NosEncoder` lays them out."""

    def __init__(self, width: int, hint: int, privileged: int, net_arch, activation_fn, device, gate: int = 0):
        super().__init__()
        self.width, self.hint, self.privileged, self.gate = width, hint, privileged, int(gate)
        self.actor = MlpExtractor(width, net_arch={"pi": list(net_arch["pi"]), "vf": []},
                                  activation_fn=activation_fn, device=device)
        self.critic = MlpExtractor(width + privileged, net_arch={"pi": [], "vf": list(net_arch["vf"])},
                                   activation_fn=activation_fn, device=device)
        self.latent_dim_pi = self.actor.latent_dim_pi + hint + self.gate
        self.latent_dim_vf = self.critic.latent_dim_vf

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        latent = self.actor.forward_actor(features[:, : self.width])
        parts = [latent]
        if self.hint:
            parts.append(carried(features[:, self.width : self.width + self.hint]))
        if self.gate:
            parts.append(carried(features[:, self.width + self.hint + self.privileged :]))
        return th.cat(parts, dim=1) if len(parts) > 1 else latent

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        z = features[:, : self.width]
        tail = features[:, self.width + self.hint : self.width + self.hint + self.privileged]
        return self.critic.forward_critic(th.cat([z, tail], dim=1))


#: The logit bonus of a hinted action in one of the policy's ``hint_kept`` blocks by default: the
#: policy then plays the hint there, whatever its network says (exp(-1000) is 0 in float32). A
#: smaller ``kept_bonus`` makes the hint a strong prior there instead, which PPO can overrule.
KEPT_BONUS = 1000.0


def kept_actions(hint_kept) -> th.Tensor:
    """bool [NUM_ACTIONS]: the Nos actions of the blocks named in ``hint_kept`` (names of
    :data:`nos_env.encoding.ACTION_BLOCKS`, checked)."""
    from nos_env.encoding import ACTION_BLOCKS

    names = list(hint_kept)
    unknown = [name for name in names if name not in ACTION_BLOCKS]
    if unknown or len(set(names)) != len(names):
        raise ValueError(f"hint_kept must name distinct Nos action blocks ({', '.join(ACTION_BLOCKS)}), "
                         f"got {names!r}")
    kept = th.zeros(NUM_ACTIONS, dtype=th.bool)
    for name in names:
        first, stop = ACTION_BLOCKS[name]
        kept[first:stop] = True
    return kept


def closing_actions() -> th.Tensor:
    """bool [NUM_ACTIONS]: the Nos plays that announce a closing (close digit 1)."""
    from nos_env.encoding import PASS, PLAY0, play_parts

    closing = th.zeros(NUM_ACTIONS, dtype=th.bool)
    closing[PLAY0:PASS] = th.as_tensor(play_parts(np.arange(PLAY0, PASS))[3] == 1)
    return closing


class HintHead(nn.Module):
    """Action logits: a linear layer over the actor's latent, plus ``weight`` on the hinted action
    (plus :data:`KEPT_BONUS` where the hinted action is one of ``kept``: there the hint is played;
    except, with ``freed``, where the row is in the endgame and the hinted action one of ``freed``:
    there the network chooses), plus, with ``points`` (the number of actions, 0: none),
    ``points_weight`` times each action's immediate points (:func:`action_points`), plus, with
    ``features`` (K per action, 0: none), ``features_weight @ features[a]``
    (:func:`action_features`), or with ``features_hidden`` (widths) ``g(features[a])``, ``g`` an
    MLP of those hidden layers (ReLU) shared by every action, its last layer zero at first; plus, with
    ``closing`` (:func:`closing_size`, 0: none), :func:`closing_logits` of the closing features with
    the learned ``closing_weight``. The latent ends with the hint, then the points if any, then the
    features (``num_actions * K``) if any, then the closing features if any, then the endgame gate if
    ``freed``."""

    def __init__(self, latent_dim: int, hint_weight: float, trainable: bool = True, num_actions: int = NUM_ACTIONS,
                 kept: th.Tensor | None = None, points: int = 0, points_weight: float = 0.0,
                 freed: th.Tensor | None = None, kept_bonus: float = KEPT_BONUS, features: int = 0,
                 features_weight: float = 0.0, features_hidden: tuple | list = (), closing: int = 0,
                 closing_weights=CLOSING_WEIGHTS):
        super().__init__()
        if points not in (0, num_actions):
            raise ValueError(f"points must be 0 or the number of actions ({num_actions}), got {points}")
        if isinstance(features, bool) or not isinstance(features, int) or features < 0:
            raise ValueError(f"features (per action) must be an integer >= 0, got {features!r}")
        sizes = (closing_size(), closing_size(settlement=True))
        if closing not in (0, *sizes) or (closing and num_actions != NUM_ACTIONS):
            raise ValueError(f"closing must be 0 or the closing features' size ({sizes[0]}, or {sizes[1]} with the "
                             f"settlement features; Nos's actions), got {closing}")
        per_feature = sizes[0] // len(CLOSING_WEIGHTS)  # (the plays)
        if closing and len(closing_weights) != closing // per_feature:
            raise ValueError(f"closing_weights must be {closing // per_feature} numbers for closing {closing}, "
                             f"got {len(closing_weights)}")
        self.latent_dim = latent_dim
        self.points = int(points)
        self.num_actions = int(num_actions)
        self.features = int(features)  # K per action
        self.closing = int(closing)
        self.features_hidden = check_features_hidden(features_hidden)
        if self.features_hidden and not self.features:
            raise ValueError("features_hidden is the MLP over each action's features: it needs features (K > 0)")
        if self.features and not self.features_hidden:  # (only then in the state dict: models without load as before)
            self.features_weight = nn.Parameter(th.full((self.features,), float(features_weight)))
        if self.features_hidden:
            layers, width = [], self.features
            for h in self.features_hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            last = nn.Linear(width, 1)
            nn.init.zeros_(last.weight)  # no effect at first, as the linear weights start at 0
            nn.init.zeros_(last.bias)
            self.features_net = nn.Sequential(*layers, last)
        if self.closing:  # (only then in the state dict: models without them load as before)
            self.closing_weight = nn.Parameter(th.tensor([float(w) for w in closing_weights]))
        self.linear = nn.Linear(latent_dim, num_actions)
        self.weight = nn.Parameter(th.tensor(float(hint_weight)), requires_grad=trainable)
        if self.points:  # (only then in the state dict: models without points load as before)
            self.points_weight = nn.Parameter(th.tensor(float(points_weight)))
        extra = th.zeros(num_actions) if kept is None else float(kept_bonus) * kept.float()
        # (not in the state dict: rebuilt from the policy's hint_kept and hint_freed_in_endgame,
        # saved with its other settings)
        self.register_buffer("kept_bonus", extra, persistent=False)
        self.gated = freed is not None
        self.register_buffer("freed", th.zeros(num_actions) if freed is None else freed.float(), persistent=False)

    def bonus(self, hinted: th.Tensor, gate: th.Tensor | None = None) -> th.Tensor:
        """The logit bonus of each row's hinted action (``hinted`` long [B] or [B, 1]; ``gate``
        the rows' :func:`endgame_gate` in the same shape, needed when the head is gated)."""
        if not self.gated:
            return self.weight + self.kept_bonus[hinted]
        if gate is None:
            raise ValueError("this head frees the hint in the endgame: give each row's endgame gate")
        return self.weight + self.kept_bonus[hinted] * (1.0 - gate * self.freed[hinted])

    def _split(self, latent: th.Tensor | CarriedLatent) -> tuple[th.Tensor, th.Tensor]:
        """The latent's own ``latent_dim`` columns and the tail carried behind them (detached):
        from their concatenation (acting, SB3's own paths) or from a :class:`CarriedLatent` (the
        PPO update)."""
        if isinstance(latent, CarriedLatent):
            return latent.own, latent.tail
        return latent[:, : self.latent_dim], carried(latent[:, self.latent_dim :])

    # The tail's columns: the hint, then the points, the features, the closing features, the gate.
    def _hinted(self, tail: th.Tensor) -> th.Tensor:
        return tail[:, :1].long()

    def _points(self, tail: th.Tensor) -> th.Tensor:
        return tail[:, 1 : 1 + self.points]

    def _features(self, tail: th.Tensor) -> th.Tensor:
        """[B, actions, K]: each action's features."""
        at = 1 + self.points
        return tail[:, at : at + self.num_actions * self.features].reshape(
            tail.shape[0], self.num_actions, self.features)

    def _features_term(self, tail: th.Tensor, dtype) -> th.Tensor:
        """[B, actions]: ``features_weight @ features[a]`` (or ``g(features[a])``) for each action."""
        return self._score_features(self._features(tail), dtype)

    def _score_features(self, feats: th.Tensor, dtype) -> th.Tensor:
        """[..., k]: the features term of ``feats`` [..., k, K]."""
        if self.features_hidden:
            return self.features_net(feats.float()).squeeze(-1).to(dtype)
        return feats.to(dtype) @ self.features_weight.to(dtype)

    def _closing(self, tail: th.Tensor) -> th.Tensor:
        at = 1 + self.points + self.num_actions * self.features
        return tail[:, at : at + self.closing]

    def _gate(self, tail: th.Tensor) -> th.Tensor | None:
        at = 1 + self.points + self.num_actions * self.features + self.closing
        return tail[:, at : at + 1] if self.gated else None

    def forward(self, latent: th.Tensor | CarriedLatent) -> th.Tensor:
        own, tail = self._split(latent)
        logits = self.linear(own)
        hinted, gate = self._hinted(tail), self._gate(tail)
        logits = logits.scatter_add(1, hinted, self.bonus(hinted, gate).to(logits.dtype))
        if self.points:
            logits = logits + self.points_weight.to(logits.dtype) * self._points(tail).to(logits.dtype)
        if self.features:
            logits = logits + self._features_term(tail, logits.dtype)
        if self.closing:
            logits = logits + closing_logits(self._closing(tail).to(logits.dtype), self.closing_weight)
        return logits

    def chosen(self, latent: th.Tensor | CarriedLatent, index: th.Tensor, valid: th.Tensor) -> th.Tensor:
        """The logits of ``index``'s actions only (``agents.legal_logits``), the hint's bonus (and
        the points' term) included."""
        own, tail = self._split(latent)
        logits = chosen_logits(own, self.linear.weight, self.linear.bias, index, valid)
        hinted, gate = self._hinted(tail), self._gate(tail)
        logits = logits + self.bonus(hinted, gate) * (index == hinted)
        if self.points:
            logits = logits + self.points_weight * self._points(tail).to(logits.dtype).gather(1, index)
        if self.features:  # the index's actions' features only
            picked = self._features(tail).gather(1, index[:, :, None].expand(-1, -1, self.features))
            logits = logits + self._score_features(picked, logits.dtype)
        if self.closing:  # the index's actions' only
            logits = logits + closing_logits_at(self._closing(tail).to(logits.dtype), self.closing_weight, index)
        return logits


class NosPolicy(MaskableActorCriticPolicy):
    #: The PPO update runs the actor's and critic's MLPs in bfloat16 (``ppo.bf16``; set by the
    #: trainer, never saved with a model, so a saved model always loads and plays in float32). See
    #: :meth:`evaluate_actions`.
    bf16_update = False

    def __init__(self, observation_space, action_space, lr_schedule, net_arch=None, width: int = 256,
                 hint_weight: float = 3.0, hint_trainable: bool = True, hint_source: dict | None = None,
                 privileged: int = 0, hint_kept: list | tuple = (), hint_freed_in_endgame: list | tuple = (),
                 action_points: bool = False, points_weight: float = 0.0, kept_bonus: float = KEPT_BONUS,
                 action_features: bool = False, features_weight: float = 0.0, features_hidden: list | tuple = (),
                 closing_features: bool = False, closing_weights=None, settlement_features: bool = False,
                 **kwargs):
        self.hint_source = check_hint_source(hint_source)
        self.action_points = check_action_points(action_points, self.hint_source)
        self.action_features = check_action_features(action_features, self.hint_source)
        if isinstance(features_weight, bool) or not isinstance(features_weight, (int, float)) \
                or not np.isfinite(features_weight):
            raise ValueError(f"features_weight (the features' starting logit weights) must be a number, "
                             f"got {features_weight!r}")
        self.features_weight = float(features_weight)
        self.features_hidden = list(check_features_hidden(features_hidden))
        if self.features_hidden and not self.action_features:
            raise ValueError("features_hidden is the MLP over each action's features: it needs action_features")
        if isinstance(points_weight, bool) or not isinstance(points_weight, (int, float)) \
                or not np.isfinite(points_weight):
            raise ValueError(f"points_weight (the points' starting logit weight) must be a number, got {points_weight!r}")
        self.points_weight = float(points_weight)
        if isinstance(privileged, bool) or not isinstance(privileged, int) or privileged < 0:
            raise ValueError(f"privileged (the critic-only tail's size) must be an integer >= 0, got {privileged!r}")
        self.privileged = int(privileged)
        if not isinstance(closing_features, (bool, np.bool_)):
            raise ValueError(f"closing_features must be true or false, got {closing_features!r}")
        if not isinstance(settlement_features, (bool, np.bool_)):
            raise ValueError(f"settlement_features must be true or false, got {settlement_features!r}")
        #: Whether the settlement features follow the closing features (two more per play).
        self.settlement_features = bool(settlement_features)
        #: Floats of the closing features behind the hint (and the points), 0 without them.
        self.closing = closing_size(self.settlement_features) if closing_features else 0
        beyond = self.privileged + self.closing  # the floats behind the observation and hint but the points
        self.hint_kept = list(hint_kept)
        if self.hint_kept and (int(action_space.n) != NUM_ACTIONS
                               or hint_size(observation_space, action_space, beyond) != 1):
            raise ValueError("hint_kept names blocks of Nos's actions where the Tactics hint is played: "
                             "it needs a Nos policy with the hint")
        self._kept = kept_actions(self.hint_kept) if self.hint_kept else None
        if isinstance(kept_bonus, bool) or not isinstance(kept_bonus, (int, float)) or not 0 < kept_bonus < np.inf:
            raise ValueError(f"kept_bonus (the hint's logit bonus in the hint_kept blocks) must be a positive number, "
                             f"got {kept_bonus!r}")
        self.kept_bonus = float(kept_bonus)
        self.hint_freed_in_endgame = list(hint_freed_in_endgame)
        loose = [b for b in self.hint_freed_in_endgame if b not in self.hint_kept]
        if loose:
            raise ValueError(f"hint_freed_in_endgame names blocks of hint_kept ({', '.join(self.hint_kept) or 'none'}) "
                             f"whose hint the network may overrule in the endgame, got {self.hint_freed_in_endgame!r}")
        # A closing the hint makes stays kept: Tactics closes only with a proof that the closing is
        # correct (D14, agents/tactics.py), which the network cannot read from its observation.
        self._freed = kept_actions(self.hint_freed_in_endgame) & ~closing_actions() \
            if self.hint_freed_in_endgame else None
        if self.hint_source is not None and int(action_space.n) == NUM_ACTIONS:
            raise ValueError("hint_source is a family game's Greedy hint; Nos's policy reads the Tactics hint "
                             "from its observation size")
        # Nos: the sizes say whether the Tactics hint follows; a family game: hint_source says so.
        self.hint = 1 if self.hint_source is not None else hint_size(observation_space, action_space, beyond)
        #: Floats of the action points behind the hint (0 without them): one per action.
        self.points = int(action_space.n) if self.action_points else 0
        #: Features per action (K; 0 without them) and their floats behind the points (actions * K).
        self.features_k = features_per_action(self.hint_source) if self.action_features else 0
        self.features = int(action_space.n) * self.features_k
        self.closing_features, self.closing_weights = check_closing_features(
            closing_features, closing_weights, self.hint == 1 and self.hint_source is None, self.settlement_features)
        self.width = int(width)
        self.hint_weight = float(hint_weight)
        self.hint_trainable = bool(hint_trainable)
        kwargs.setdefault("features_extractor_class", NosEncoder)
        # (the encoder passes the hint, the points, the features and the closing features through behind its output, as one tail)
        kwargs.setdefault("features_extractor_kwargs", {"width": self.width,
                                                        "hint": self.hint + self.points + self.features + self.closing,
                                                        **({"privileged": self.privileged} if privileged else {}),
                                                        **({"gate": True} if self._freed is not None else {})})
        if net_arch is None:
            net_arch = {"pi": [128], "vf": [128]}
        super().__init__(observation_space, action_space, lr_schedule, net_arch=net_arch, **kwargs)

    def _build_mlp_extractor(self) -> None:
        if self.privileged:
            self.mlp_extractor = PrivilegedExtractor(self.width, self.hint + self.points + self.features + self.closing,
                                                     self.privileged,
                                                     self.net_arch, self.activation_fn, self.device,
                                                     gate=int(self._freed is not None))
            return
        if not self.hint:
            return super()._build_mlp_extractor()
        tail = self.hint + self.points + self.features + self.closing + int(self._freed is not None)
        self.mlp_extractor = HintExtractor(self.features_dim - tail, self.net_arch, self.activation_fn,
                                           self.device, tail=tail)

    def _build(self, lr_schedule) -> None:
        self.action_dist = FastMaskedCategorical(int(self.action_space.n))
        super()._build(lr_schedule)
        if not self.hint:
            return
        head = HintHead(self.mlp_extractor.latent_dim_pi - 1 - self.points - self.features - self.closing
                        - int(self._freed is not None),
                        self.hint_weight, self.hint_trainable, int(self.action_space.n), kept=self._kept,
                        points=self.points, points_weight=self.points_weight, freed=self._freed,
                        kept_bonus=self.kept_bonus, features=self.features_k,
                        features_weight=self.features_weight, features_hidden=self.features_hidden,
                        closing=self.closing, closing_weights=self.closing_weights)
        if self.ortho_init:  # small, as SB3 initialises its action layer, so the hint leads at first
            nn.init.orthogonal_(head.linear.weight, gain=0.01)
            nn.init.zeros_(head.linear.bias)
        self.action_net = head
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def extract_features(self, obs, features_extractor=None):
        # The rollout buffer's compressed minibatch needs no preprocessing (float32 observations
        # from a Box space, which preprocess_obs would only convert to float).
        if isinstance(obs, SparseRows):
            if not self.share_features_extractor:
                return self.pi_features_extractor(obs), self.vf_features_extractor(obs)
            return (features_extractor or self.features_extractor)(obs)
        return super().extract_features(obs, features_extractor)

    def evaluate_actions(self, obs, actions, action_masks=None):
        """sb3-contrib's ``evaluate_actions`` (the PPO update's forward pass). With
        :attr:`bf16_update` the MLPs after the first layer run under bfloat16 autocast: their
        matrix products take half the time on a CPU with AVX512-BF16 (the update's largest dense
        part, docs/training.md "bf16 updates"). Everything else stays float32: the first layer
        and the action head (numba kernels, float32 only), the value head, and so the loss, the
        log-probability ratios, the gradients' accumulation in the float32 weights and Adam's state.

        With the hint (and no privileged critic) the encoded observation and the tail behind it
        stay apart (:class:`CarriedLatent`): the same logits, values and gradients, without the
        wide concatenations and their zero-filled gradients, which took more than half the update
        with the closing features (docs/benchmarks.md, "The tail kept apart")."""
        if isinstance(self.mlp_extractor, HintExtractor) and isinstance(self.features_extractor, NosEncoder) \
                and self.share_features_extractor:
            return self._evaluate_apart(obs, actions, action_masks)
        if not self.bf16_update:
            return super().evaluate_actions(obs, actions, action_masks)
        features = self.extract_features(obs)
        with th.autocast("cpu", dtype=th.bfloat16):
            if self.share_features_extractor:
                latent_pi, latent_vf = self.mlp_extractor(features)
            else:
                pi_features, vf_features = features
                latent_pi = self.mlp_extractor.forward_actor(pi_features)
                latent_vf = self.mlp_extractor.forward_critic(vf_features)
        return self._evaluated(latent_pi.float(), latent_vf.float(), actions, action_masks)

    def _evaluated(self, latent_pi, latent_vf, actions, action_masks):
        """The values, log-probabilities and entropies from the actor's and critic's latents."""
        distribution = self._get_action_dist_from_latent(latent_pi)
        if action_masks is not None:
            distribution.apply_masking(action_masks)
        log_prob = distribution.log_prob(actions)
        values = self.value_net(latent_vf)
        return values, log_prob, distribution.entropy()

    def _evaluate_apart(self, obs, actions, action_masks):
        """:meth:`evaluate_actions` with the tail kept apart from the encoded observation."""
        z, tail = self.features_extractor.encode(obs)
        mlp = self.mlp_extractor.mlp
        if self.bf16_update:
            with th.autocast("cpu", dtype=th.bfloat16):
                latent_pi, latent_vf = mlp.forward_actor(z), mlp.forward_critic(z)
            latent_pi, latent_vf = latent_pi.float(), latent_vf.float()
        else:
            latent_pi, latent_vf = mlp.forward_actor(z), mlp.forward_critic(z)
        return self._evaluated(CarriedLatent(latent_pi, tail), latent_vf, actions, action_masks)

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor):
        # The logits of the legal actions only, computed once the mask is applied (agents/masked_categorical.py).
        return self.action_dist.proba_distribution_from_latent(latent_pi, self.action_net)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(width=self.width, hint_weight=self.hint_weight, hint_trainable=self.hint_trainable)
        if self.hint_source is not None:  # models without it load as before
            data.update(hint_source=self.hint_source)
        if self.privileged:
            data.update(privileged=self.privileged)
        if self.hint_kept:  # models without it load as before
            data.update(hint_kept=self.hint_kept)
        if self.hint_freed_in_endgame:
            data.update(hint_freed_in_endgame=self.hint_freed_in_endgame)
        if self.kept_bonus != KEPT_BONUS:  # models without it load as before
            data.update(kept_bonus=self.kept_bonus)
        if self.action_points:  # models without them load as before
            data.update(action_points=True, points_weight=self.points_weight)
        if self.action_features:  # models without them load as before
            data.update(action_features=True, features_weight=self.features_weight)
            if self.features_hidden:
                data.update(features_hidden=list(self.features_hidden))
        if self.closing_features:  # models without them load as before
            data.update(closing_features=True, closing_weights=list(self.closing_weights))
            if self.settlement_features:
                data.update(settlement_features=True)
        return data

    def hint_bonus(self, hint: th.Tensor, observations) -> th.Tensor:
        """Each row's logit bonus on its hinted action (``hint`` long [B]), without gradient, as
        :class:`HintHead` adds it to the observations' logits (their endgame gate included)."""
        head = self.action_net
        gate = endgame_gate(observations) if head.gated else None
        return head.bonus(hint, gate).detach()
