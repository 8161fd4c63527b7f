"""Labels held compactly: the observations as bytes, the per-move arrays for the legal moves only.

Why: a Double-Nine Cross label held 17 KB as float32 rows (2,673 observation floats, 1,267
actions twice: the mask and the values), so 400,000 labels took 7 GB and a million did not fit.
The observations of every game are exact small integers (counts, one-hot blocks, pips, scores)
except a few columns (the hint, an action id up to 1,266 in Double-Nine Cross; Nos's scaled
chip columns), and a decision has a handful of legal moves out of the hundreds of actions.

- :class:`CompactObservations` keeps each column as uint8 while every value written to it is an
  integer 0..255 (checked at every write), and as float32 once one is not (the column is moved,
  its earlier rows exactly, so nothing is lost and no caller has to know the encoding).
- :class:`PackedMasks` and :class:`PackedValues` keep the legal moves of each row (CSR: a row's
  moves are ``actions[indptr[i]:indptr[i + 1]]``, ascending) and their values.

Each reads like the dense array it replaces: ``x[rows]`` (an int, a slice, an index or boolean
array, with more indices after it) gives the dense float32 / bool rows, exactly the values that
were written, and ``np.asarray(x)`` the whole array (small sets only: that is the memory this
saves). The fit (train/distill.py) converts one minibatch at a time, so its losses and choices
are bit-identical to the float32 labels' (tests/test_label_store.py).
"""

from __future__ import annotations

import numpy as np

#: The largest value a byte column holds.
SMALL_MAX = 255


def small_integer_columns(block: np.ndarray) -> np.ndarray:
    """bool [D]: the columns of ``block`` [k, D] whose every value is an integer 0..255 (not -0.0,
    not NaN): the ones a uint8 holds exactly."""
    block = np.asarray(block)
    ok = (block >= 0) & (block <= SMALL_MAX) & (block == np.floor(block)) & ~np.signbit(block)
    return ok.all(axis=0)


def _row_index(key, n: int) -> tuple[np.ndarray, bool]:
    """The row numbers ``key`` (an int, a slice, an index or boolean array) selects from ``n`` rows,
    and whether it was a single int (the result then drops the row axis)."""
    if isinstance(key, (int, np.integer)):
        i = int(key)
        if not -n <= i < n:
            raise IndexError(f"row {i} is out of range for {n} rows")
        return np.array([i % n]), True
    if isinstance(key, slice):
        return np.arange(*key.indices(n)), False
    index = np.asarray(key)
    if index.dtype == bool:
        if index.shape != (n,):
            raise IndexError(f"a boolean row index must have shape ({n},), got {index.shape}")
        return np.flatnonzero(index), False
    if not np.issubdtype(index.dtype, np.integer) or index.ndim != 1:
        raise IndexError(f"rows are selected by an int, a slice or a 1-D index or boolean array, got {key!r}")
    if len(index) and (index.min() < -n or index.max() >= n):
        raise IndexError(f"a row index is out of range for {n} rows")
    return np.where(index < 0, index + n, index).astype(np.int64), False


class _Rows:
    """Dense-array reading for a row store: ``x[rows, ...]``, ``len``, ``shape``, ``np.asarray``."""

    shape: tuple[int, int]
    dtype: np.dtype
    ndim = 2

    def __len__(self) -> int:
        return self.shape[0]

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def __getitem__(self, key):
        rest = ()
        if isinstance(key, tuple):
            key, rest = key[0], key[1:]
        rows, single = _row_index(key, len(self))
        out = self._dense(rows)
        if single:
            out = out[0]
            return out[rest] if rest else out
        if not rest:
            return out
        if isinstance(key, slice) or not any(np.ndim(r) > 0 for r in rest):
            return out[(slice(None),) + rest]
        # an index array for the rows and one for the columns pair up, as numpy's own indexing does
        return out[(np.arange(len(rows)),) + rest]

    def __array__(self, dtype=None, copy=None):
        out = self._dense(np.arange(len(self)))
        return out if dtype is None else out.astype(dtype)


class CompactObservations(_Rows):
    """[rows, width] float32 observations, stored as uint8 in the columns where every value written
    is an integer 0..255 and as float32 in the others (``wide_columns``). Written in row blocks
    (:meth:`put`); a column that meets another value is moved to float32 with its rows so far."""

    dtype = np.dtype(np.float32)

    def __init__(self, rows: int, width: int):
        self.shape = (int(rows), int(width))
        self.small = np.zeros(self.shape, np.uint8)  # 0 in the wide columns
        self.wide_columns = np.zeros(0, np.int64)  # ascending
        self.wide = np.zeros((self.shape[0], 0), np.float32)

    @property
    def nbytes(self) -> int:
        return self.small.nbytes + self.wide.nbytes + self.wide_columns.nbytes

    def _widen(self, columns: np.ndarray) -> None:
        """Move ``columns`` (not yet wide) to float32, with the values written so far."""
        merged = np.union1d(self.wide_columns, columns)
        wide = np.empty((self.shape[0], len(merged)), np.float32)
        old = np.isin(merged, self.wide_columns)
        wide[:, old] = self.wide
        wide[:, ~old] = self.small[:, merged[~old]]
        self.small[:, merged[~old]] = 0
        self.wide, self.wide_columns = wide, merged

    def put(self, start: int, block: np.ndarray) -> None:
        """Write ``block`` [k, width] (float) at rows ``start .. start + k``."""
        block = np.asarray(block, np.float32)
        if block.ndim != 2 or block.shape[1] != self.shape[1] or not 0 <= start <= self.shape[0] - len(block):
            raise ValueError(f"a block of shape {block.shape} does not fit rows {start}.. of {self.shape}")
        fits = small_integer_columns(block)
        fits[self.wide_columns] = False
        if len(block) and not fits.all():
            new = np.setdiff1d(np.flatnonzero(~fits), self.wide_columns)
            if len(new):
                self._widen(new)
        part = slice(start, start + len(block))
        narrow = np.flatnonzero(~np.isin(np.arange(self.shape[1]), self.wide_columns))
        self.small[part, narrow] = block[:, narrow].astype(np.uint8)
        self.wide[part] = block[:, self.wide_columns]

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        out = self.small[rows].astype(np.float32)
        if len(self.wide_columns):
            out[:, self.wide_columns] = self.wide[rows]
        return out

    def column(self, j: int) -> np.ndarray:
        """float32 [rows]: column ``j`` (without building the rows)."""
        at = np.searchsorted(self.wide_columns, j)
        if at < len(self.wide_columns) and self.wide_columns[at] == j:
            return self.wide[:, at].copy()
        return self.small[:, j].astype(np.float32)

    def head(self, n: int) -> CompactObservations:
        """The first ``n`` rows (views of these arrays)."""
        out = CompactObservations.__new__(CompactObservations)
        out.small, out.wide, out.wide_columns = self.small[:n], self.wide[:n], self.wide_columns
        out.shape = (len(out.small), self.shape[1])
        return out

    @classmethod
    def from_dense(cls, obs: np.ndarray, chunk: int = 65_536) -> CompactObservations:
        out = cls(*np.shape(obs))
        for first in range(0, len(out), chunk):
            out.put(first, obs[first: first + chunk])
        return out

    def arrays(self, prefix: str) -> dict:
        return {f"{prefix}_small": self.small, f"{prefix}_wide": self.wide,
                f"{prefix}_wide_columns": self.wide_columns}

    @classmethod
    def from_arrays(cls, f, prefix: str) -> CompactObservations:
        out = cls.__new__(cls)
        out.small, out.wide = f[f"{prefix}_small"], f[f"{prefix}_wide"]
        out.wide_columns = np.asarray(f[f"{prefix}_wide_columns"], np.int64)
        out.shape = out.small.shape
        return out


class ZeroTail(_Rows):
    """``base``'s rows [rows, width] with ``zeros`` columns of 0.0 after them, built one minibatch
    at a time (nothing full-size is made). Why: labels collected without a privileged critic's
    tail (train/privileged.py) fit a run that has one; the actor never reads the tail (the fit
    trains the actor only), so zeros stand for it exactly as a saved model's player fills them."""

    dtype = np.dtype(np.float32)

    def __init__(self, base: _Rows, zeros: int):
        if zeros < 0:
            raise ValueError(f"zeros (the tail's columns) must be >= 0, got {zeros}")
        self.base, self.zeros = base, int(zeros)
        self.shape = (base.shape[0], base.shape[1] + self.zeros)

    @property
    def nbytes(self) -> int:
        return int(self.base.nbytes)

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((len(rows), self.shape[1]), np.float32)
        out[:, : self.base.shape[1]] = self.base[rows]
        return out

    def column(self, j: int) -> np.ndarray:
        """float32 [rows]: column ``j`` (zeros in the tail)."""
        if not 0 <= j < self.shape[1]:
            raise IndexError(f"column {j} is out of range for {self.shape[1]} columns")
        if j >= self.base.shape[1]:
            return np.zeros(len(self), np.float32)
        return self.base.column(j)

    def head(self, n: int) -> ZeroTail:
        return ZeroTail(self.base.head(n), self.zeros)


def _action_dtype(num_actions: int):
    return np.int16 if num_actions <= np.iinfo(np.int16).max else np.int32


class PackedMasks(_Rows):
    """[rows, num_actions] bool masks, stored as each row's legal actions (CSR, ascending)."""

    dtype = np.dtype(bool)

    def __init__(self, indptr: np.ndarray, actions: np.ndarray, num_actions: int):
        self.indptr = np.asarray(indptr, np.int64)
        self.actions = np.asarray(actions, _action_dtype(num_actions))
        self.shape = (len(self.indptr) - 1, int(num_actions))

    @property
    def nbytes(self) -> int:
        return self.indptr.nbytes + self.actions.nbytes

    @classmethod
    def from_dense(cls, masks: np.ndarray) -> PackedMasks:
        masks = np.asarray(masks) != 0
        row, action = np.nonzero(masks)  # row-major: ascending actions in each row
        indptr = np.zeros(len(masks) + 1, np.int64)
        np.cumsum(masks.sum(axis=1), out=indptr[1:])
        return cls(indptr, action, masks.shape[1])

    def positions(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For ``rows``: each legal move's output row (0..len(rows)-1) and its place in ``actions``."""
        start, stop = self.indptr[rows], self.indptr[rows + 1]
        counts = stop - start
        out_row = np.repeat(np.arange(len(rows)), counts)
        place = np.arange(counts.sum()) - np.repeat(np.cumsum(counts) - counts, counts) + np.repeat(start, counts)
        return out_row, place

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        out = np.zeros((len(rows), self.shape[1]), bool)
        out_row, place = self.positions(rows)
        out[out_row, self.actions[place]] = True
        return out

    def legal_counts(self) -> np.ndarray:
        return np.diff(self.indptr)

    def head(self, n: int) -> PackedMasks:
        indptr = self.indptr[: n + 1]
        return PackedMasks(indptr, self.actions[: indptr[-1]], self.shape[1])


class PackedValues(_Rows):
    """[rows, num_actions] float32 values, NaN where the move is illegal: each row's legal moves'
    values beside ``masks`` (a :class:`PackedMasks`)."""

    dtype = np.dtype(np.float32)

    def __init__(self, masks: PackedMasks, values: np.ndarray):
        if len(values) != len(masks.actions):
            raise ValueError(f"{len(values)} values for {len(masks.actions)} legal moves")
        self.masks = masks
        self.values = np.asarray(values, np.float32)
        self.shape = masks.shape

    @property
    def nbytes(self) -> int:
        return self.values.nbytes

    @classmethod
    def from_dense(cls, values: np.ndarray, masks: PackedMasks) -> PackedValues:
        """``values`` [rows, num_actions] packed to the legal moves of ``masks``; a value (not NaN)
        at an illegal move raises ValueError (it would be lost)."""
        values = np.asarray(values, np.float32)
        if values.shape != masks.shape:
            raise ValueError(f"values of shape {values.shape} for masks of shape {masks.shape}")
        legal = np.asarray(masks)
        if not np.isnan(values[~legal]).all():
            raise ValueError("a value at an illegal move (values must be NaN where the mask is 0)")
        return cls(masks, values[legal])

    def _dense(self, rows: np.ndarray) -> np.ndarray:
        out = np.full((len(rows), self.shape[1]), np.nan, np.float32)
        out_row, place = self.masks.positions(rows)
        out[out_row, self.masks.actions[place]] = self.values[place]
        return out

    def head(self, n: int) -> PackedValues:
        masks = self.masks.head(n)
        return PackedValues(masks, self.values[: len(masks.actions)])


class LegalMovesBuilder:
    """Collects row blocks of masks (and values) in order, then :meth:`finish` packs them."""

    def __init__(self, num_actions: int):
        self.num_actions = int(num_actions)
        self.counts, self.actions, self.values = [], [], []

    def add(self, masks: np.ndarray, values: np.ndarray | None = None) -> None:
        masks = np.asarray(masks) != 0
        row, action = np.nonzero(masks)
        self.counts.append(masks.sum(axis=1))
        self.actions.append(action.astype(_action_dtype(self.num_actions)))
        if values is not None:
            values = np.asarray(values, np.float32)
            if not np.isnan(values[~masks]).all():
                raise ValueError("a value at an illegal move (values must be NaN where the mask is 0)")
            self.values.append(values[row, action])

    def finish(self) -> tuple[PackedMasks, PackedValues | None]:
        counts = np.concatenate(self.counts) if self.counts else np.zeros(0, np.int64)
        indptr = np.zeros(len(counts) + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        actions = np.concatenate(self.actions) if self.actions else np.zeros(0, np.int16)
        masks = PackedMasks(indptr, actions, self.num_actions)
        values = None
        if self.values:
            values = PackedValues(masks, np.concatenate(self.values))
        return masks, values
