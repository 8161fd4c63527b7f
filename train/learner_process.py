"""The PPO update in a second process beside the next rollout: :class:`ProcessLearning`.

``ppo.overlap`` with ``ppo.overlap_in: process``. The loop and its semantics are
``train/overlap.py``'s (rollout k + 1 is collected by the policy one update behind, the
update optionally refreshes the rollout's log-probabilities first); only where the update runs
differs. In a thread it shared Python's interpreter lock with the rollout, whose engine loop,
agents and bookkeeping are driven from Python, and the rollout ran at about half speed beside
it (docs/benchmarks.md, "Faster training, second pass"). A process has its own interpreter, so
on two cores the rollout and the update each have one.

What crosses between the processes:

- the rollouts: the two rollout buffers (one collected into while the learner trains on the
  other) keep their arrays in shared memory (``CompactMaskableRolloutBuffer.keep_in``), which the
  learner reads without a copy; a job names which one to train on;
- the learner's state after each update (the policy's weights and Adam's state, about 5 MB for
  the quick config, serialised by ``torch.save``), loaded into the main process's model, so
  evaluations, snapshots and checkpoints read the same model they would without the process
  (they first call ``model.wait_for_update()``, as with the thread);
- numpy's global generator state, which the update uses for its minibatch order: sent with
  each job and taken back with its result, so the stream of minibatch permutations is the one
  the thread would use (the rollout does not draw from it), and the run equals the threaded
  overlap's to the bit (``tests/test_learner_process.py``) whatever the processes' timing;
- the update's logged values (``train/`` losses), recorded in the main process's logger.

Each ``learn`` call first sends the main process's model (weights, Adam's state, update count),
so a resumed or otherwise changed model is the one the learner updates. The learner process is
started by the first ``learn`` (``spawn``: a fresh interpreter, which imports torch and the
kernels from their caches in a few seconds) and ends with the main process: ``close()``, the
model's ``close_learner()``, garbage collection of the loop, or the main process's exit (it is a
daemon, and it also ends when its pipe closes). It ignores Ctrl-C, so an interrupted run can
still wait for the running update and save a checkpoint of it (``train/trainer.py``); an error
in it is raised again in the main process with its traceback; if it dies, the main process
says so instead of waiting.
"""

from __future__ import annotations

import io
import signal
import time
import traceback
import weakref

import numpy as np
import torch as th
import torch.multiprocessing as mp

from .buffer import ROLLOUT_ARRAYS, CompactMaskableRolloutBuffer
from .overlap import OverlappedLearning, refresh_log_probs

#: Seconds between checks that the learner process is alive while waiting for it.
POLL_SECONDS = 0.5


class LearnerProcessError(RuntimeError):
    """The learner process died, or could not start."""


def state_bytes(policy, n_updates: int) -> bytes:
    """The learner's state (weights, Adam's state, update count) as ``torch.save`` bytes."""
    out = io.BytesIO()
    th.save({"policy": policy.state_dict(), "optimizer": policy.optimizer.state_dict(), "n_updates": int(n_updates)},
            out)
    return out.getvalue()


def load_state(model, data: bytes) -> None:
    state = th.load(io.BytesIO(data), weights_only=True)
    model.policy.load_state_dict(state["policy"])
    model.policy.optimizer.load_state_dict(state["optimizer"])
    model._n_updates = state["n_updates"]


def _numpy_views(storage: dict) -> dict:
    return {name: tensor.numpy() for name, tensor in storage.items()}


def _learner_main(conn, model_data: bytes, storages: list, threads: int, refresh: bool, bf16: bool,
                  reweight: bool = False) -> None:
    """The learner process: builds the model from ``model_data``, then answers jobs until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the main process decides what Ctrl-C does
    try:
        from sb3_contrib import MaskablePPO
        from stable_baselines3.common.logger import configure

        th.set_num_threads(threads)
        th.set_flush_denormal(True)  # as train/trainer.py's train() sets it in the main process
        model = MaskablePPO.load(io.BytesIO(model_data), env=None, device="cpu")
        model.set_logger(configure(None, []))
        model.policy.bf16_update = bf16
        buffer = model.rollout_buffer
        buffer.compressed = True
        arrays = [_numpy_views(storage) for storage in storages]
    except BaseException:
        conn.send(("error", traceback.format_exc(), None))
        return
    conn.send(("ready",))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):  # the main process is gone
            return
        kind = message[0]
        if kind == "stop":
            return
        try:
            if kind == "sync":
                load_state(model, message[1])
                conn.send(("synced",))
            elif kind == "update":
                _, index, progress_remaining, numpy_state = message
                cpu, wall = time.process_time(), time.perf_counter()
                np.random.set_state(numpy_state)
                model._current_progress_remaining = progress_remaining
                buffer.read_collected(arrays[index])
                model.logger.name_to_value.clear()
                if refresh:
                    refresh_log_probs(model.policy, buffer, model.batch_size, reweight)
                model.train()
                logged = {key: float(value) for key, value in model.logger.name_to_value.items()}
                conn.send(("updated", state_bytes(model.policy, model._n_updates), logged, np.random.get_state(),
                           time.process_time() - cpu, time.perf_counter() - wall))
            else:
                raise ValueError(f"unknown job {kind!r}")
        except (BrokenPipeError, ConnectionResetError):  # answering a main process that is gone
            return
        except BaseException as exc:
            try:
                conn.send(("error", traceback.format_exc(), exc))
            except (BrokenPipeError, ConnectionResetError):
                return
            except Exception:  # the exception does not pickle: its traceback alone
                conn.send(("error", traceback.format_exc(), None))


def _shutdown(process, conn) -> None:
    """Stop the learner process: asked first, then terminated, then killed."""
    if process.is_alive():
        try:
            conn.send(("stop",))
        except (OSError, ValueError):
            pass
        process.join(5)
    if process.is_alive():
        process.terminate()
        process.join(5)
    if process.is_alive():
        process.kill()
        process.join()
    conn.close()


class ProcessLearning(OverlappedLearning):
    """:class:`train.overlap.OverlappedLearning` with each update in a learner process (see the module)."""

    def __init__(self, model, refresh: bool = True, threads: int = 1, reweight: bool = False):
        super().__init__(model, refresh, reweight)
        if not isinstance(model.rollout_buffer, CompactMaskableRolloutBuffer):
            raise TypeError("a learner process reads CompactMaskableRolloutBuffer rollouts (train/buffer.py), "
                            f"not {type(model.rollout_buffer).__name__}")
        self.threads = int(threads)
        self.buffers = [model.rollout_buffer, self.spare]
        self.storages = []
        for buffer in self.buffers:
            buffer.reset()
            storage = {name: th.from_numpy(np.zeros_like(getattr(buffer, name))).share_memory_()
                       for name in ROLLOUT_ARRAYS}
            buffer.keep_in(_numpy_views(storage))
            self.storages.append(storage)
        self.process = None
        self.conn = None
        self.pending = False  # a job was sent and its answer not read
        self.update_cpu = self.update_seconds = 0.0  # the learner's time in updates (benchmarks read it)
        model.close_learner = self.close

    # ------------------------------------------------------------ the process
    def start(self) -> None:
        from .trainer import CHECKPOINT_EXCLUDE

        model_data = io.BytesIO()
        self.model.save(model_data, exclude=CHECKPOINT_EXCLUDE)
        context = mp.get_context("spawn")
        self.conn, child = context.Pipe()
        self.process = context.Process(
            target=_learner_main, name="ppo-learner", daemon=True,
            args=(child, model_data.getvalue(), self.storages, self.threads, self.refresh,
                  bool(getattr(self.model.policy, "bf16_update", False)), self.reweight))
        self.process.start()
        child.close()  # the main process keeps its end only: the learner sees EOF if this process dies
        self._finalizer = weakref.finalize(self, _shutdown, self.process, self.conn)
        try:
            self._answer("ready")
        except BaseException:  # it could not start: nothing is left running
            if self.process is not None:
                self._finalizer()
                self.process = self.conn = None
            raise

    def close(self) -> None:
        """End the learner process (a running update is waited for first); ``learn`` starts another."""
        if self.process is not None:
            try:
                self.wait()
            finally:
                self._finalizer()
                self.process = self.conn = None

    def _receive(self):
        try:
            while not self.conn.poll(POLL_SECONDS):
                if not self.process.is_alive():
                    raise EOFError
            return self.conn.recv()
        except (EOFError, OSError):  # its end of the pipe closed: it died
            self._died()

    def _send(self, message) -> None:
        try:
            self.conn.send(message)
        except OSError:  # a broken pipe: it died
            self._died()

    def _died(self):
        self.process.join(5)
        code = self.process.exitcode
        self.pending = False
        self._finalizer()
        self.process = self.conn = None
        raise LearnerProcessError(f"the learner process exited (code {code}) before answering") from None

    def _answer(self, expected: str):
        message = self._receive()
        if message[0] == "error":
            _, text, exc = message
            if isinstance(exc, BaseException):
                exc.add_note(f"in the learner process (train/learner_process.py):\n{text}")
                raise exc
            raise LearnerProcessError(f"the learner process failed:\n{text}")
        if message[0] != expected:
            raise LearnerProcessError(f"the learner process answered {message[0]!r}, expected {expected!r}")
        return message

    # ------------------------------------------------------------ OverlappedLearning's hooks
    def learn(self, *args, **kwargs):
        if self.process is None:
            self.start()
        self.wait()
        # The model as it is now (a resumed, loaded or changed one): the learner updates this one.
        self._send(("sync", state_bytes(self.model.policy, self.model._n_updates)))
        self._answer("synced")
        return super().learn(*args, **kwargs)

    def update(self) -> None:
        """The last rollout's update, with nothing to collect beside it."""
        self.start_update()
        self.wait()

    def start_update(self) -> None:
        self.wait()
        index = next(i for i, buffer in enumerate(self.buffers) if buffer is self.model.rollout_buffer)
        self._send(("update", index, self.model._current_progress_remaining, np.random.get_state()))
        self.pending = True

    def wait(self) -> None:
        """Wait for the running update, if any, and take its result into the main process's model."""
        if not self.pending:
            return
        try:
            _, data, logged, numpy_state, cpu, seconds = self._answer("updated")
        finally:
            self.pending = False
        load_state(self.model, data)
        np.random.set_state(numpy_state)
        for key, value in logged.items():
            self.model.logger.record(key, value)
        self.update_cpu += cpu
        self.update_seconds += seconds


def learner_process(model, refresh: bool = True, threads: int = 1, reweight: bool = False):
    """Turn on overlapped updates in a learner process for ``model`` (see the module)."""
    ProcessLearning(model, refresh, threads, reweight)
    return model
