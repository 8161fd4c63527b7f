"""The PPO update beside the next rollout, on the machine's other core: :class:`OverlappedLearning`.

SB3's PPO alternates: collect a rollout with the policy, then update the policy on it; one
of the two cores idles in the update (single-threaded, ``OMP_NUM_THREADS=1``), and the
update was more than half of a quick-config run's time. With ``ppo.overlap`` the update of
rollout k runs in a second thread while the main thread collects rollout k + 1:

    collect R0 with θ0
    update θ0 -> θ1 on R0     |  collect R1 with θ0 (a copy: the acting policy)
    update θ1 -> θ2 on R1     |  collect R2 with θ1
    ...
    update on the last rollout (alone)

What it does to PPO's on-policy data: every rollout after the first is collected by the
policy *one update behind* the one that is updated on it (θk collects R(k+1), which θ(k+1)
is updated on). With the stored log-probabilities (the collecting policy's), PPO's ratio at
the update's first minibatch is already π_θ(k+1) / π_θk, not 1: the clip, centred on the
collecting policy, leaves the update less room. Measured, that cost about 2 chips a hand
against Tactics at 1.5M decisions (docs/training.md, "Faster training"). So by default
(``refresh=True``, ``ppo.overlap_refresh``) the update first recomputes the rollout's
log-probabilities with the policy it starts from, θ(k+1), one forward pass over the rollout
(in the update's thread): the ratio starts at 1 and the clip is centred on θ(k+1), as in
on-policy PPO, while the data are still θk's (not weighted by π_θ(k+1) / π_θk: the two differ
by one clipped update). The value targets stay the collecting policy's (one update old).
The same number of updates is made on the same number of decisions.

Threads, and what they cost: the update's arithmetic (torch, and the policy's numba
kernels, compiled ``nogil``) runs without Python's interpreter lock, but between those calls
the update thread takes the lock often enough that the rollout, whose engine loop, agents and
bookkeeping are driven from Python, runs at about half speed beside it. Measured on the
quick config this made training slower, not faster (docs/benchmarks.md, "Faster training,
second pass"; ``benchmarks/bench_update_lock.py``), so no config turns it on; ``ppo.overlap_in: process``
runs the same loop with the update in a learner process, which avoids the lock
(``train/learner_process.py``). Reproducible: the update uses numpy's global generator
(the minibatch permutation) and nothing else random; the rollout uses torch's (action
sampling) and its own generators; neither reads what the other writes, so the same seed
gives the same run whatever the threads' timing.

Anything that reads the learner's policy while an update may run (evaluations, snapshots,
checkpoints: ``train/trainer.py``'s callback) first calls ``model.wait_for_update()``.
"""

from __future__ import annotations

import copy
import threading

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.utils import obs_as_tensor

#: What ``model.save`` must leave out once overlapping is on (the trainer's exclusions add these).
OVERLAP_ATTRIBUTES = ["learn", "wait_for_update", "close_learner"]  # the last: train/learner_process.py


class OverlappedLearning:
    """Replaces ``model.learn`` with the overlapped loop (see the module); ``model.wait_for_update()``
    waits for a running update."""

    def __init__(self, model: MaskablePPO, refresh: bool = True, reweight: bool = False):
        if reweight and not refresh:
            raise ValueError("reweight needs refresh: its weights are the refreshed log-probabilities' ratio")
        self.model = model
        self.refresh = bool(refresh)
        self.reweight = bool(reweight)
        policy = model.policy
        if hasattr(policy.action_dist, "clear"):
            policy.action_dist.clear()
        self.acting = copy.deepcopy(policy)  # the policy that collects while the learner updates
        self.acting.set_training_mode(False)
        self.spare = copy.deepcopy(model.rollout_buffer)  # collected into while the other is trained on
        self.thread: threading.Thread | None = None
        self.error: BaseException | None = None
        self.ready = False  # model.rollout_buffer holds a rollout not yet trained on
        model.learn = self.learn
        model.wait_for_update = self.wait

    # ------------------------------------------------------------ the update thread
    def update(self) -> None:
        """One PPO update on ``model.rollout_buffer`` (its log-probabilities refreshed first)."""
        if self.refresh:
            refresh_log_probs(self.model.policy, self.model.rollout_buffer, self.model.batch_size, self.reweight)
        self.model.train()

    def _update(self) -> None:
        try:
            self.update()
        except BaseException as exc:  # raised again in the main thread by wait()
            self.error = exc

    def start_update(self) -> None:
        self.wait()
        self.thread = threading.Thread(target=self._update, name="ppo-update", daemon=True)
        self.thread.start()

    def wait(self) -> None:
        """Wait for the running update, if any (its errors are raised here)."""
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        if self.error is not None:
            error, self.error = self.error, None
            raise error

    # ------------------------------------------------------------ the loop
    def learn(self, total_timesteps: int, callback=None, log_interval: int = 1, tb_log_name: str = "MaskablePPO",
              reset_num_timesteps: bool = True, use_masking: bool = True, progress_bar: bool = False):
        """MaskablePPO.learn with each update beside the next rollout's collection."""
        model = self.model
        iteration = 0
        total_timesteps, callback = model._setup_learn(total_timesteps, callback, reset_num_timesteps, tb_log_name,
                                                       progress_bar)
        callback.on_training_start(locals(), globals())
        try:
            while model.num_timesteps < total_timesteps:
                # θk, every update so far applied, collects; the update of the last rollout runs beside it.
                self.acting.load_state_dict(model.policy.state_dict())
                if self.ready:
                    self.start_update()
                    self.ready = False
                fresh = self.spare
                go_on = self.collect(callback, fresh, model.n_steps, use_masking)
                self.wait()
                if not go_on:
                    break
                self.spare, model.rollout_buffer = model.rollout_buffer, fresh
                self.ready = True
                iteration += 1
                model._update_current_progress_remaining(model.num_timesteps, total_timesteps)
                if log_interval is not None and iteration % log_interval == 0:
                    model.dump_logs(iteration)
            if self.ready:  # the last rollout's update, with nothing left to collect beside it
                self.ready = False
                self.update()
        finally:
            self.wait()
        callback.on_training_end()
        return model

    def collect(self, callback, rollout_buffer, n_rollout_steps: int, use_masking: bool = True) -> bool:
        """sb3-contrib's ``MaskablePPO.collect_rollouts`` with the acting policy in place of the learner's."""
        model, env, policy = self.model, self.model.env, self.acting
        n_steps = 0
        action_masks = None
        rollout_buffer.reset()
        callback.on_rollout_start()
        while n_steps < n_rollout_steps:
            with th.no_grad():
                obs_tensor = obs_as_tensor(model._last_obs, model.device)
                if use_masking:
                    action_masks = get_action_masks(env)
                actions, values, log_probs = policy(obs_tensor, action_masks=action_masks)
            actions = actions.cpu().numpy()
            new_obs, rewards, dones, infos = env.step(actions)
            model.num_timesteps += env.num_envs
            callback.update_locals(locals())
            if not callback.on_step():
                return False
            model._update_info_buffer(infos, dones)
            n_steps += 1
            if isinstance(model.action_space, spaces.Discrete):
                actions = actions.reshape(-1, 1)
            for idx, done in enumerate(dones):  # timeouts bootstrap with the value function (SB3 #633)
                if (done and infos[idx].get("terminal_observation") is not None
                        and infos[idx].get("TimeLimit.truncated", False)):
                    terminal_obs = policy.obs_to_tensor(infos[idx]["terminal_observation"])[0]
                    with th.no_grad():
                        rewards[idx] += model.gamma * policy.predict_values(terminal_obs)[0]
            rollout_buffer.add(model._last_obs, actions, rewards, model._last_episode_starts, values, log_probs,
                               action_masks=action_masks)
            model._last_obs = new_obs
            model._last_episode_starts = dones
        with th.no_grad():
            values = policy.predict_values(obs_as_tensor(new_obs, model.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        callback.on_rollout_end()
        return True


#: The largest weight ``reweight`` gives a decision (as V-trace truncates its importance weights:
#: a rare action the update made much likelier would otherwise dominate its minibatch).
MAX_WEIGHT = 2.0


def refresh_log_probs(policy, buffer, batch_size: int, reweight: bool = False) -> None:
    """Write ``policy``'s log-probabilities of the rollout's actions over ``buffer.log_probs``
    (a full buffer, before the update reads it); in chunks of ``batch_size``.

    With ``reweight`` each decision's advantage is also multiplied by π_new / π_collecting (the
    new log-probability's ratio to the stored one, at most :data:`MAX_WEIGHT`): PPO's clipped
    objective, centred on the policy the update starts from, then weighs the collecting policy's
    data as that policy would have been sampled (decoupled PPO, Hilton et al. 2021, "Batch
    size-invariance for policy optimization"; here before the minibatch's advantage
    normalisation, which SB3 applies).

    A compressed ``CompactMaskableRolloutBuffer`` is flattened and packed first (which the update
    would do at once anyway) and read as the update reads it, packed rows and legal lists: the
    same numbers (the policy computes the same from either form), without scanning the dense
    observations and masks a second time (a fifth of the refresh's cost)."""
    if buffer.generator_ready and not getattr(buffer, "_packed", False):
        raise RuntimeError("refresh_log_probs needs the rollout as collected, before the update reads it")
    if getattr(buffer, "compressed", False):
        buffer.pack()
        actions = th.as_tensor(buffer.actions.reshape(-1)).long()
        log_probs = buffer.log_probs.reshape(-1)  # a view: written in place
        with th.no_grad():
            for start in range(0, len(actions), batch_size):
                index = np.arange(start, min(start + batch_size, len(actions)))
                obs, masks = buffer.packed_samples(index)
                _, log_prob, _ = policy.evaluate_actions(obs, actions[index], action_masks=masks)
                _store(log_probs, buffer.advantages.reshape(-1), index, log_prob.numpy(), reweight)
        return
    obs = buffer.observations.reshape(-1, buffer.observations.shape[-1])
    actions = buffer.actions.reshape(-1)
    masks = buffer.action_masks.reshape(len(actions), -1)
    log_probs = buffer.log_probs.reshape(-1)  # a view: written in place
    with th.no_grad():
        for start in range(0, len(actions), batch_size):
            stop = start + batch_size
            _, log_prob, _ = policy.evaluate_actions(th.as_tensor(obs[start:stop]),
                                                     th.as_tensor(actions[start:stop]).long(),
                                                     action_masks=masks[start:stop])
            _store(log_probs, buffer.advantages.reshape(-1), slice(start, stop), log_prob.numpy(), reweight)


def _store(log_probs: np.ndarray, advantages: np.ndarray, index, new: np.ndarray, reweight: bool) -> None:
    """``new`` over ``log_probs[index]``; with ``reweight``, ``advantages[index]`` times the ratio first
    (both arrays views of the buffer's, in the same order)."""
    if reweight:
        advantages[index] *= np.minimum(np.exp(new - log_probs[index]), MAX_WEIGHT).astype(np.float32)
    log_probs[index] = new


def overlap_updates(model: MaskablePPO, refresh: bool = True, reweight: bool = False) -> MaskablePPO:
    """Turn on overlapped updates for ``model`` (see the module)."""
    OverlappedLearning(model, refresh, reweight)
    return model
