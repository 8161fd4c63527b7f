"""How many threads the fast engine's kernels run on: the ``num_threads`` option.

Why it needs an option: numba runs the parallel kernels (``step_batch_parallel``,
``observe_batch_parallel``, ``sample_legal``) on its threading layer, which with numba's
Linux wheels is OpenMP (GNU libgomp; ``numba.threading_layer()`` says ``omp``). Its
threads spin-wait, keeping a core busy between parallel regions, and every region ends at a
barrier that waits for its slowest thread. When another busy process shares the machine,
one of the kernel's threads is often off its core and every region waits for it, while the
spinning threads take CPU from the threads that have work. Measured on 2 cores
(``benchmarks/bench_contention.py``, docs/benchmarks.md): two threads stepping 4096 tables
ran about 10 times slower than one thread while a second such job ran, and at 256 tables
about a hundred times slower; alone, two threads are 1.4 to 1.8 times faster than one.

Settings (``FastTables(num_threads=...)``, ``vector_env(num_threads=...)``, ``env.num_threads``
in training configs, ``--threads`` of the tournament):

- a number ``k`` from 1 to ``numba.config.NUMBA_NUM_THREADS`` (the threads numba starts,
  one per CPU unless the ``NUMBA_NUM_THREADS`` environment variable says otherwise): 1 runs
  the serial kernels, ``k > 1`` the parallel ones on ``k`` threads;
- ``"auto"`` (the default): serial below ``PARALLEL_FROM`` tables; from there the engine
  times its own calls and runs each kernel either serially or on every numba thread,
  whichever ran faster in its latest duel: serial, parallel, serial, parallel, the faster
  call of each way counting (interruptions only ever add time). A duel ends after its first
  parallel call if that took ``SLOWDOWN`` times the serial one, since beside a busy
  neighbour each parallel call may cost many serial ones. Duels are held at the start, again
  after a while (a quarter of a second, doubling up to ``LONGEST_INTERVAL`` while the choice
  holds; after a duel the parallel way lost, long enough that its parallel calls' extra time
  stays within ``DUEL_SHARE`` of the time), and soon after a parallel call takes ``SLOWDOWN``
  times the usual time, which is how a neighbour's arrival shows. So alone the tables use every core, and beside other
  busy jobs they fall back to one thread instead of collapsing.

The number of threads never changes a result: tables are independent, and each table's
random stream is its own (``tests/test_fast_engine.py`` compares the settings step by step).
The thread count is numba's per-thread mask (``numba.set_num_threads``), set around each
parallel call and restored after it, so other numba code of the caller keeps its own.

``num_threads=None`` takes the process default: ``set_default_num_threads()``, else the
``NOS_ENV_THREADS`` environment variable, else ``"auto"``.
"""

from __future__ import annotations

import contextlib
import os
import time

import numba
import numpy as np

#: "auto" steps batches smaller than this serially: the threads' start-up per call costs more than they save.
PARALLEL_FROM = 256
#: The environment variable that sets the process default (``auto`` or a number).
ENV_VAR = "NOS_ENV_THREADS"
#: "auto": seconds between duels right after the choice changed, and at most while it holds.
FIRST_INTERVAL = 0.25
LONGEST_INTERVAL = 4.0
#: "auto": after a duel the parallel way lost, the wait is long enough that what its parallel calls
#: cost beyond serial ones stays within this share of the time (at most MAX_INTERVAL seconds).
DUEL_SHARE = 0.01
MAX_INTERVAL = 60.0
#: "auto": a parallel call this many times slower than usual starts a duel, and one this many
#: times slower than the serial call before it ends its duel at once.
SLOWDOWN = 3.0
DUEL_CALLS = 4
SERIAL, PARALLEL = 0, 1

_default: int | str | None = None


def max_threads() -> int:
    """The most threads a kernel can use: the threads numba starts (``NUMBA_NUM_THREADS``)."""
    return int(numba.config.NUMBA_NUM_THREADS)


def check_num_threads(value, name: str = "num_threads") -> int | str:
    """``value`` as a setting (``"auto"`` or an int), or ``ValueError`` naming what is allowed."""
    if isinstance(value, str) and value == "auto":
        return value
    most = max_threads()
    if isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_)) and 1 <= value <= most:
        return int(value)
    raise ValueError(f"{name} must be 'auto' or a number of threads from 1 to {most} (numba.config.NUMBA_NUM_THREADS, "
                     f"which the NUMBA_NUM_THREADS environment variable sets), got {value!r}")


def default_num_threads() -> int | str:
    """The setting ``num_threads=None`` stands for (see the module docstring)."""
    if _default is not None:
        return _default
    text = os.environ.get(ENV_VAR, "").strip()
    if not text:
        return "auto"
    return check_num_threads(int(text) if text.isdigit() else text, f"the {ENV_VAR} environment variable")


def set_default_num_threads(value) -> None:
    """Set the process default for fast-engine batches made from now on (``None``: back to
    ``NOS_ENV_THREADS`` or ``"auto"``), so the batches agents make for themselves (Search's
    rollouts) follow it too; ``default_threads`` does the same for one block."""
    global _default
    _default = None if value is None else check_num_threads(value)


@contextlib.contextmanager
def default_threads(value):
    """Within the block, ``num_threads=None`` means ``value`` (checked before anything changes)."""
    global _default
    value = check_num_threads(value)
    previous, _default = _default, value
    try:
        yield
    finally:
        _default = previous


def resolve(value) -> int | str:
    return default_num_threads() if value is None else check_num_threads(value)


def _on_threads(threads: int, kernel, args) -> None:
    previous = numba.get_num_threads()  # this thread's mask: numba's is per calling thread
    if previous == threads:
        kernel(*args)
        return
    numba.set_num_threads(threads)
    try:
        kernel(*args)
    finally:
        numba.set_num_threads(previous)


class _Duel:
    """``"auto"`` for one kernel: which way it runs now, and when to check that again."""

    __slots__ = ("mode", "active", "calls", "samples", "interval", "next_duel", "usual")

    def __init__(self):
        self.mode = SERIAL  # until the first duel says otherwise: the safe way
        self.active = False  # a duel is running
        self.calls = 0  # its calls so far
        self.samples = ([], [])
        self.interval = FIRST_INTERVAL
        self.next_duel = 0.0  # the first calls are a duel
        self.usual = float("inf")

    def pick(self, now: float) -> int:
        if not self.active:
            if now < self.next_duel:
                return self.mode
            self.active = True
        return SERIAL if self.calls % 2 == 0 else PARALLEL  # serial, parallel, serial, parallel

    def record(self, mode: int, seconds: float, now: float) -> None:
        if self.active:
            self.samples[mode].append(seconds)
            self.calls += 1
            # A parallel call far slower than the serial one ends the duel: beside a busy neighbour
            # each such call can cost many serial ones (the module docstring). Not merely slower:
            # the first parallel call after a serial stretch also wakes numba's sleeping threads.
            lost = self.calls == 2 and seconds >= SLOWDOWN * self.samples[SERIAL][0]
            if lost or self.calls == DUEL_CALLS:
                serial, parallel = min(self.samples[SERIAL]), min(self.samples[PARALLEL])
                winner = SERIAL if lost or serial <= parallel else PARALLEL
                self.interval = FIRST_INTERVAL if winner != self.mode else min(2 * self.interval, LONGEST_INTERVAL)
                if winner == SERIAL:
                    extra = sum(self.samples[PARALLEL]) - serial * len(self.samples[PARALLEL])
                    self.interval = min(max(self.interval, extra / DUEL_SHARE), MAX_INTERVAL)
                self.mode = winner
                self.usual = min(serial, parallel)
                self.next_duel = now + self.interval
                self.active = False
                self.calls = 0
                self.samples = ([], [])
            return
        # A serial call slowed by a neighbour is still a fair share of a core; a parallel one can
        # collapse (the module docstring), so only the parallel way asks for an early duel.
        if self.mode == PARALLEL and seconds > SLOWDOWN * self.usual:
            self.next_duel = now


class ThreadChoice:
    """Runs the kernels of one ``FastTables`` batch on the threads its setting asks for."""

    def __init__(self, setting, num_envs: int):
        self.setting = check_num_threads(setting)
        self.most = max_threads()
        if self.setting == "auto":
            self.fixed = 1 if num_envs < PARALLEL_FROM or self.most == 1 else None
        else:
            self.fixed = self.setting
        self.duels: dict[str, _Duel] = {}
        #: calls run on each number of threads, by threads (for benchmarks and tests)
        self.stats: dict[int, int] = {}

    def run(self, name: str, serial, parallel, *args) -> None:
        """Call ``serial(*args)`` or ``parallel(*args)`` on some threads; ``name`` tells apart
        calls whose times are compared (one kind of call each)."""
        if self.fixed is not None:
            threads = self.fixed
            if threads == 1:
                serial(*args)
            else:
                _on_threads(threads, parallel, args)
        else:
            duel = self.duels.get(name)
            if duel is None:
                duel = self.duels[name] = _Duel()
            start = time.perf_counter()
            mode = duel.pick(start)
            if mode == SERIAL:
                serial(*args)
                threads = 1
            else:
                _on_threads(self.most, parallel, args)
                threads = self.most
            end = time.perf_counter()
            duel.record(mode, end - start, end)
        self.stats[threads] = self.stats.get(threads, 0) + 1
