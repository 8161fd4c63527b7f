"""The policy's action distribution, over each row's legal actions only: :class:`FastMaskedCategorical`.

sb3-contrib's ``MaskableCategoricalDistribution`` builds a torch ``Categorical`` twice per
call (before and after masking), validates it each time, and samples with
``torch.multinomial``, all over the full [batch, 557] logits. A Nos position has about 8
legal actions (at most about 60), so almost every pass over that matrix, forward and
backward, handles probabilities that are exactly 0. The PPO update of the quick config
spent most of its time in those passes (masked fill, log-softmax, softmax, the entropy's
products, their gradients, about 15 passes over an 18 MB matrix per minibatch).

Here the mask is read once into each row's list of legal actions (ascending, padded to the
batch's longest list; :func:`legal_lists`), the logits of those actions are gathered, and
everything else works on that [batch, K] matrix: one log-softmax, the entropy, the log
probability of the chosen actions, Gumbel-max sampling (the same distribution, drawn from
torch's seeded generator) and the mode (the first of the best actions in index order, as an
argmax over the masked full row picks). The gradient flows back to the full logits through
the gather only. ``log_p`` still gives the full [batch, 557] log-probabilities for readers
that want them (``agents.model``), with ``NEG`` at illegal actions.

The results equal sb3-contrib's distribution (``tests/test_train.py``: log-probabilities,
entropy, mode, sampling frequencies). A row with no legal action (never in play) falls back
to a uniform distribution over all actions, as sb3-contrib's masked logits give.
"""

from __future__ import annotations

import numpy as np
import torch as th
from numba import njit
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from torch import nn

from .legal_logits import chosen_logits


@njit(cache=True, nogil=True)
def legal_lists(masks: np.ndarray):
    """Each row's legal actions, ascending, padded with the row's first legal action:
    (index [B, K] int64, valid [B, K] bool, K); K = 0 if some row has no legal action."""
    B, A = masks.shape
    counts = np.zeros(B, np.int64)
    K = 0
    for b in range(B):
        c = 0
        for a in range(A):
            c += masks[b, a] != 0
        counts[b] = c
        if c == 0:
            return np.zeros((B, 0), np.int64), np.zeros((B, 0), np.bool_), 0
        K = max(K, c)
    index = np.empty((B, K), np.int64)
    valid = np.zeros((B, K), np.bool_)
    for b in range(B):
        j = 0
        for a in range(A):
            if masks[b, a] != 0:
                index[b, j] = a
                valid[b, j] = True
                j += 1
        for k in range(j, K):
            index[b, k] = index[b, 0]
    return index, valid, K


class LegalActions:
    """Each row's legal actions as :func:`legal_lists` gives them (``index`` [B, K] int64,
    ``valid`` [B, K] bool): the rollout buffer computes them once per rollout
    (``train/buffer.py``) and hands minibatches of them to :class:`FastMaskedCategorical` in
    place of the [B, actions] mask, which it would scan again at every minibatch."""

    def __init__(self, index: np.ndarray, valid: np.ndarray):
        self.index, self.valid = index, valid

    @classmethod
    def of_masks(cls, masks: np.ndarray) -> "LegalActions | None":
        """The lists of a [B, actions] mask, or None if a row has no legal action."""
        masks = np.ascontiguousarray(masks)
        if masks.dtype != np.bool_:
            masks = masks != 0
        index, valid, K = legal_lists(masks.view(np.uint8))
        return None if K == 0 else cls(index, valid)

    def take(self, rows: np.ndarray) -> "LegalActions":
        """The rows ``rows``, their lists cut to the longest of them (as :func:`legal_lists` of
        those rows' masks gives)."""
        valid = self.valid[rows]
        K = max(int(valid.sum(axis=1).max(initial=0)), 1)
        return LegalActions(np.ascontiguousarray(self.index[rows, :K]), np.ascontiguousarray(valid[:, :K]))


class FastMaskedCategorical(MaskableCategoricalDistribution):
    """sb3-contrib's masked categorical, computed over each row's legal actions (see the module)."""

    NEG = -1e8

    def proba_distribution(self, action_logits: th.Tensor) -> "FastMaskedCategorical":
        """From the full logits [B, actions]."""
        self._full, self._latent, self._head = action_logits.view(-1, self.action_dim), None, None
        self._masks, self._ready = None, False
        return self

    def proba_distribution_from_latent(self, latent: th.Tensor, head: nn.Module) -> "FastMaskedCategorical":
        """From the actor's latent and its action head: only the legal actions' logits get computed
        (``agents.legal_logits``), once the mask is known. ``head`` is an ``nn.Linear``, or a module
        with ``chosen(latent, index, valid)`` (``agents.policy.HintHead``), or anything else (its
        full output is gathered)."""
        self._full, self._latent, self._head = None, latent, head
        self._masks, self._ready = None, False
        return self

    def apply_masking(self, masks) -> None:
        self._masks, self._ready = masks, False
        self._compute()

    @property
    def logits(self) -> th.Tensor:
        """The full logits [B, actions], illegal actions' included."""
        if self._full is None:
            self._full = self._head(self._latent).view(-1, self.action_dim)
        return self._full

    def _rows(self) -> int:
        return (self._full if self._full is not None else self._latent).shape[0]

    def _compute(self) -> None:
        B = self._rows()
        index = valid = None
        masks = self._masks
        if isinstance(masks, LegalActions):
            index, valid = th.from_numpy(masks.index), th.from_numpy(masks.valid)
        elif masks is not None:
            if isinstance(masks, th.Tensor):
                masks = masks.detach().cpu().numpy()
            masks = np.ascontiguousarray(np.asarray(masks).reshape(B, self.action_dim))
            if masks.dtype != np.bool_:
                masks = masks != 0
            index, valid, K = legal_lists(masks.view(np.uint8))
            if K == 0:  # a row with no legal action: every action, as sb3-contrib's masked logits give
                index, valid = None, th.as_tensor(masks)
            else:
                index, valid = th.from_numpy(index), th.from_numpy(valid)
        self._lists = index is not None
        if index is None:  # every action is in the list
            self.index = th.arange(self.action_dim).expand(B, -1)
            chosen = self.logits
        elif self._full is not None:
            self.index = index
            chosen = self._full.gather(1, index)
        else:
            self.index = index
            chosen = self._chosen(index, valid)
        self.valid = valid
        self.masked = chosen if valid is None else chosen.masked_fill(~valid, self.NEG)
        self._packed_log_p = th.log_softmax(self.masked, dim=1)
        self._ready = True

    def _chosen(self, index: th.Tensor, valid: th.Tensor) -> th.Tensor:
        head = self._head
        if type(head) is nn.Linear:
            return chosen_logits(self._latent, head.weight, head.bias, index, valid)
        if hasattr(head, "chosen"):
            return head.chosen(self._latent, index, valid)
        return head(self._latent).view(-1, self.action_dim).gather(1, index)

    @property
    def packed_log_p(self) -> th.Tensor:
        """Log-probabilities of each row's legal actions [B, K] (``index`` names them; ``NEG`` or
        less at the padding)."""
        if not self._ready:
            self._compute()
        return self._packed_log_p

    @property
    def log_p(self) -> th.Tensor:
        """Log-probabilities over all actions [B, actions]: ``NEG`` where illegal."""
        packed = self.packed_log_p
        if self._lists:
            # Padding repeats the row's first legal action: write that action's own value there too.
            packed = th.where(self.valid, packed, packed[:, :1])
        elif self.valid is not None:  # no lists (a row without legal actions): the masked full row
            packed = packed.masked_fill(~self.valid, self.NEG)
        return th.full((packed.shape[0], self.action_dim), self.NEG, dtype=packed.dtype).scatter(1, self.index, packed)

    def clear(self) -> None:
        """Drop the last batch's tensors (before copying the policy: they may carry autograd graphs)."""
        for name in ("_full", "_latent", "_head", "_masks", "index", "valid", "masked", "_packed_log_p"):
            self.__dict__.pop(name, None)
        self._ready = False

    def log_prob(self, actions: th.Tensor) -> th.Tensor:
        log_p = self.packed_log_p
        actions = actions.long().view(-1, 1)
        if not self._lists:  # index is every action in order
            return log_p.gather(1, actions).view(-1)
        found = self.index == actions
        lp = log_p.gather(1, found.to(th.uint8).argmax(dim=1, keepdim=True)).view(-1)
        # An illegal action (never sampled) has about NEG, as in sb3-contrib's masked logits.
        return th.where(found.any(dim=1), lp, th.full_like(lp, self.NEG))

    def entropy(self) -> th.Tensor:
        # softmax, not log_p.exp(): exp of the masked entries' huge negatives takes a slow path.
        log_p = self.packed_log_p
        return -(th.softmax(self.masked, dim=1) * log_p).sum(dim=1)

    def sample(self) -> th.Tensor:
        log_p = self.packed_log_p
        u = th.rand_like(log_p).clamp_(min=1e-20)
        return self.index.gather(1, th.argmax(log_p - th.log(-th.log(u)), dim=1, keepdim=True)).view(-1)

    def mode(self) -> th.Tensor:
        return self.index.gather(1, th.argmax(self.packed_log_p, dim=1, keepdim=True)).view(-1)
