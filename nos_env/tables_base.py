"""What every owner of B tables (``FastTables``, ``FamilyTables``, ``BlindTables``) does the same way.

The kernel library gives every game the same legal-action list (``LEGAL``, ``T_NLEGAL`` long)
and mask (``MASK``), so sampling a legal action and reading the masks are written once here, as are the checks
of table indices and rows (``FamilyTables`` keeps stricter ones of its own: no bool masks).
A subclass has ``T``, ``LEGAL``, ``MASK`` (its state arrays) and ``_threads`` (its
``ThreadChoice``). Snapshots (``clone``/``restore``, per table ``clone_table``/``restore_table``)
copy every array of the subclass's schema (``_schema``, ``_arrays``: its array names);
``FastTables`` and ``FamilyTables`` keep their own, which also check what a deal needs.
"""

from __future__ import annotations

import numpy as np

from .kernels.core import sample_legal as _sample_parallel
from .kernels.core import sample_legal_serial as _sample_serial
from .options import check_seed, is_integer
from .rng import seed_state


class TablesBase:
    def seed(self, seed: int | None) -> None:
        """Table b's stream is SplitMix64(seed + b) (None: a seed from the OS's entropy); it
        takes effect at the next deal."""
        seed = check_seed(seed)
        if seed is None:
            seed = int(np.random.SeedSequence().entropy) & ((1 << 62) - 1)
        for b in range(self.num_envs):
            self.R[b] = np.uint64(seed_state(seed + b))

    def check_table(self, b: object) -> int:
        """A table index 0..B-1 as an int; negative indices are refused, not counted from the end."""
        if not is_integer(b) or not 0 <= b < self.num_envs:
            raise ValueError(f"a table index must be an integer 0..{self.num_envs - 1}, got {b!r}")
        return int(b)

    def check_rows(self, rows: object = None, name: str = "rows") -> np.ndarray:
        """Table indices as int64 [R]: None means every table; a 1-d integer array of indices
        0..B-1 (in any order, repeats allowed) or a bool mask of shape (B,)."""
        if rows is None:
            return np.arange(self.num_envs, dtype=np.int64)
        arr = np.asarray(rows)
        if arr.dtype == np.bool_ and arr.shape == (self.num_envs,):
            return np.flatnonzero(arr).astype(np.int64)
        if arr.ndim != 1 or not (np.issubdtype(arr.dtype, np.integer) or arr.size == 0) \
                or ((arr < 0) | (arr >= self.num_envs)).any():
            raise ValueError(f"{name} must be None (every table), a 1-d integer array of table indices "
                             f"0..{self.num_envs - 1} or a bool mask of shape ({self.num_envs},); got {rows!r}")
        return arr.astype(np.int64)

    def sample_legal(self, state: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """A uniformly random legal action per table (``IDLE`` for a finished table waiting
        without autoreset), drawn from ``state``: the caller's own SplitMix64 streams, uint64 [B],
        advanced in place (``rng.seed_state(s)`` seeds one). Returns ``out`` (int64 [B])."""
        B = len(self.T)
        if not isinstance(state, np.ndarray) or state.dtype != np.uint64 or state.shape != (B,):
            raise ValueError(f"state must be a uint64 array of shape ({B},), got "
                             f"{getattr(state, 'dtype', type(state).__name__)} {getattr(state, 'shape', '')}")
        if out is None:
            out = np.empty(B, np.int64)
        elif not isinstance(out, np.ndarray) or out.dtype != np.int64 or out.shape != (B,):
            raise ValueError(f"out must be an int64 array of shape ({B},)")
        self._threads.run("sample", _sample_serial, _sample_parallel, self.T, self.LEGAL, state, out)
        return out

    @property
    def masks(self) -> np.ndarray:
        """The legal actions of each table's seat to move, int8 [B, num_actions], as a read-only
        view: valid until the tables change (copy what you keep). All zeros for a finished table
        waiting without autoreset."""
        view = self.MASK.view()
        view.flags.writeable = False
        return view

    def scores_at(self, rows: np.ndarray) -> np.ndarray:
        """``scores[rows]`` (rows: int64 table indices, unchecked). This builds ``scores`` whole; the
        subclasses read just those rows (the vector environment asks, every step, for the few
        tables of B that finished)."""
        return self.scores[rows]

    @property
    def thread_stats(self) -> dict[int, int]:
        """Kernel calls so far by the number of threads they ran on."""
        return dict(self._threads.stats)

    @property
    def nbytes(self) -> int:
        """Bytes of state the tables hold."""
        return self._schema.nbytes(self.num_tables)

    # ------------------------------------------------------------- snapshots
    def clone(self) -> dict:
        return {name: getattr(self, name).copy() for name in self._arrays}

    def _check_snapshot(self, snapshot, shape_of, made_by) -> None:
        if not isinstance(snapshot, dict) or set(snapshot) != set(self._arrays):
            raise ValueError(f"a snapshot must be a dict from {made_by} with keys {', '.join(self._arrays)}")
        for name in self._arrays:
            got, want = snapshot[name], getattr(self, name)
            if not isinstance(got, np.ndarray) or got.dtype != want.dtype or got.shape != shape_of(name):
                raise ValueError(f"snapshot array {name} must be {want.dtype} of shape {shape_of(name)}")

    def restore(self, snapshot: dict) -> None:
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape, "clone()")
        for name in self._arrays:
            getattr(self, name)[...] = snapshot[name]

    def clone_table(self, b: int) -> dict:
        b = self.check_table(b)
        return {name: getattr(self, name)[b, ...].copy() for name in self._arrays}  # R's row: a 0-d array

    def restore_table(self, b: int, snapshot: dict) -> None:
        b = self.check_table(b)
        self._check_snapshot(snapshot, lambda name: getattr(self, name).shape[1:], "clone_table()")
        for name in self._arrays:
            getattr(self, name)[b] = snapshot[name]
