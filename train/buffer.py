"""A rollout buffer for MaskablePPO that moves less memory: :class:`CompactMaskableRolloutBuffer`.

sb3-contrib keeps action masks as float32 and copies every minibatch twice
(numpy fancy indexing, then ``torch.tensor``). With 1,041-float observations
and 557 actions that copying is a fifth of an update on this CPU. Here masks
are bool, and minibatches, fresh arrays already, become tensors without a
second copy. The samples are the same.

With ``compressed=True`` (the trainer's setting) the update's minibatches carry no dense
observations and masks at all: once per rollout, when the update starts, the observations
are read into compressed rows (:class:`agents.sparse_linear.SparseRows`, about 50 of 1,041
entries set) and the masks into each row's legal actions
(:class:`agents.masked_categorical.LegalActions`, about 8 of 557); a minibatch gathers its
rows of those. Before, each minibatch copied 8,192 dense observations (34 MB) and masks, and
the policy scanned both again, at every epoch: a quarter of the quick config's update. The
policy computes the same numbers from either form (``tests/test_policy_kernels.py``). A
rollout too dense for the compressed rows (or with a row without a legal action) is handed
out dense, as before.
"""

from __future__ import annotations

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer, MaskableRolloutBufferSamples
from stable_baselines3.common.buffers import RolloutBuffer

from agents.masked_categorical import LegalActions
from agents.sparse_linear import SparseRows


#: The arrays a rollout fills (``add`` and ``compute_returns_and_advantage``) and an update reads.
ROLLOUT_ARRAYS = ("observations", "actions", "rewards", "returns", "episode_starts", "values", "log_probs",
                  "advantages", "action_masks")


class CompactMaskableRolloutBuffer(MaskableRolloutBuffer):
    def __init__(self, *args, compressed: bool = False, **kwargs):
        self.compressed = bool(compressed)
        self.storage: dict[str, np.ndarray] | None = None  # see keep_in
        super().__init__(*args, **kwargs)

    def keep_in(self, storage: dict[str, np.ndarray]) -> None:
        """Collect every rollout into ``storage``'s arrays (shaped as ``reset`` makes them), reused
        from one rollout to the next: train/learner_process.py gives arrays in shared memory, which
        the learner process reads without a copy. ``reset`` then allocates nothing and clears
        nothing: every entry is written before it is read (``add`` writes each step's row of every
        array, ``compute_returns_and_advantage`` the returns and advantages)."""
        for name in ROLLOUT_ARRAYS:
            mine = getattr(self, name)
            if storage[name].shape != mine.shape or storage[name].dtype != mine.dtype:
                raise ValueError(f"storage {name!r} is {storage[name].dtype}{storage[name].shape}; this buffer "
                                 f"needs {mine.dtype}{mine.shape}")
        self.storage = storage
        self.reset()

    def read_collected(self, storage: dict[str, np.ndarray]) -> None:
        """Take ``storage``'s arrays as a full rollout, collected elsewhere (the learner process
        reads the main process's rollout so), ready for ``get``."""
        self.__dict__.update({name: storage[name] for name in ROLLOUT_ARRAYS})
        self.pos, self.full, self.generator_ready = self.buffer_size, True, False
        self._rows = self._legal = None
        self._packed = False

    def compute_returns_and_advantage(self, last_values: th.Tensor, dones: np.ndarray) -> None:
        super().compute_returns_and_advantage(last_values, dones)
        if self.storage is not None:  # SB3 makes the returns a new array: into the kept one
            self.storage["returns"][...] = self.returns
            self.returns = self.storage["returns"]

    def reset(self) -> None:
        if self.storage is not None:
            self.__dict__.update({name: self.storage[name] for name in ROLLOUT_ARRAYS})
            self.pos, self.full, self.generator_ready = 0, False, False
            self._rows = self._legal = None
            self._packed = False
            return
        if isinstance(self.action_space, spaces.Discrete):
            # sb3-contrib's reset fills a float32 mask array (36 MB for a quick-config rollout, about
            # 3 µs per learner decision) that the line below replaces at once: skip it.
            self.mask_dims = int(self.action_space.n)
            RolloutBuffer.reset(self)
        else:
            super().reset()
        self.action_masks = np.ones((self.buffer_size, self.n_envs, self.mask_dims), dtype=bool)
        self._rows = self._legal = None
        self._packed = False

    def to_torch(self, array: np.ndarray, copy: bool = True) -> th.Tensor:
        # Every array reaching here is a fresh copy (``_get_samples`` indexes the buffer).
        return th.as_tensor(array, device=self.device)

    def get(self, batch_size: int | None = None):
        """sb3-contrib's ``get`` (the same permutation, the same flattening), the rollout packed
        once when ``compressed``."""
        assert self.full, ""
        indices = np.random.permutation(self.buffer_size * self.n_envs)
        self.pack()
        if batch_size is None:
            batch_size = self.buffer_size * self.n_envs
        for start in range(0, self.buffer_size * self.n_envs, batch_size):
            yield self._get_samples(indices[start : start + batch_size])

    def pack(self) -> None:
        """Flatten the rollout (steps and tables into one axis, as ``get`` does) and, when
        ``compressed``, pack it, once per rollout. Also done by ``get``; the overlapped update's
        log-probability refresh (``train/overlap.py``) calls it first to read the packed rows too."""
        assert self.full, ""
        if not self.generator_ready:
            for name in ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks"):
                self.__dict__[name] = self.swap_and_flatten(self.__dict__[name])
            self.generator_ready = True
        if self.compressed and not self._packed:  # once per rollout
            obs = self.observations.reshape(len(self.observations), -1)
            self._rows = SparseRows.of_dense(obs) if obs.dtype == np.float32 else None
            self._legal = LegalActions.of_masks(self.action_masks)
            self._packed = True

    def packed_samples(self, batch_inds: np.ndarray):
        """(observations, action_masks) of ``batch_inds`` as the update's minibatches carry them:
        packed rows and legal lists where the rollout is packed, else dense arrays."""
        samples = self._get_samples(batch_inds)
        return samples.observations, samples.action_masks

    def _get_samples(self, batch_inds: np.ndarray, env=None) -> MaskableRolloutBufferSamples:
        if not self._packed or (self._rows is None and self._legal is None):
            return super()._get_samples(batch_inds, env)
        data = (
            self._rows.take(batch_inds) if self._rows is not None else self.to_torch(self.observations[batch_inds]),
            self.to_torch(self.actions[batch_inds]),
            self.to_torch(self.values[batch_inds].flatten()),
            self.to_torch(self.log_probs[batch_inds].flatten()),
            self.to_torch(self.advantages[batch_inds].flatten()),
            self.to_torch(self.returns[batch_inds].flatten()),
            self._legal.take(batch_inds) if self._legal is not None
            else self.to_torch(self.action_masks[batch_inds].reshape(-1, self.mask_dims)),
        )
        return MaskableRolloutBufferSamples(*data)
