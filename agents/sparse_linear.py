"""A linear layer that skips the zeros of its input: :class:`SparseInputLinear`.

The policy's first layer reads the whole observation (Nos: 1,041 floats), but a position
sets only about 50 of them (5%). A dense ``x @ W.T`` spends 95% of its arithmetic on
zeros, and with the weight gradient ``g.T @ x`` it was more than half of a PPO update on
this CPU. Here the input is read once into compressed rows (CSR: the column and value of
every nonzero), and the forward pass adds up only the weight rows of the set columns:
``out[r] = bias + sum_k vals[k] * W.T[cols[k]]``; the weight gradient likewise adds
``vals[k] * g[r]`` into the rows of the set columns. Same parameters, same ``state_dict``
(``weight`` [out, in], ``bias`` [out]) as :class:`torch.nn.Linear`, whose subclass it is, so
models saved with either load into the other.

The sparse path is taken for a 2-D float32 CPU input that needs no gradient itself (an
observation batch); anything else, or an input denser than :data:`MAX_DENSITY`, runs
``nn.Linear``'s dense code. The sums are the same up to float32 rounding order
(``tests/test_sparse_linear.py`` checks the outputs and both gradients against ``nn.Linear``).
The kernels are single-threaded, like the rest of a training run's torch work
(``OMP_NUM_THREADS=1``).
"""

from __future__ import annotations

import numpy as np
import torch as th
from numba import njit
from torch import nn
from torch.nn import functional as F

#: Above this share of nonzeros the dense matmul is faster than adding rows one by one.
MAX_DENSITY = 0.25


@njit(cache=True, nogil=True)
def dense_to_csr(x: np.ndarray, max_nnz: int):
    """Compressed rows of a C-contiguous float32 matrix: (indptr [B+1], cols, vals, nnz);
    stops early and returns nnz = -1 once more than ``max_nnz`` entries are nonzero."""
    return columns_to_csr(x, x.shape[1], max_nnz)


@njit(cache=True, nogil=True)
def columns_to_csr(x: np.ndarray, stop: int, max_nnz: int):
    """:func:`dense_to_csr` of the columns ``[0, stop)`` of ``x`` (the observation without a
    hint or privileged tail behind it)."""
    B = x.shape[0]
    D = stop
    indptr = np.zeros(B + 1, np.int64)
    cap = min(B * D, max(1024, max_nnz + D))
    cols = np.empty(cap, np.int32)
    vals = np.empty(cap, np.float32)
    n = 0
    for r in range(B):
        if n > max_nnz:
            return indptr, cols, vals, -1
        row = x[r]
        # Branch-free: every entry is written, the count moves on only past a nonzero
        # (5% of them, at random: a branch would mispredict all the time).
        for c in range(D):
            v = row[c]
            cols[n] = c
            vals[n] = v
            n += v != 0
        indptr[r + 1] = n
    if n > max_nnz:
        return indptr, cols, vals, -1
    return indptr, cols[:n], vals[:n], n


@njit(cache=True, nogil=True)
def take_csr_rows(indptr, cols, vals, rows):
    """The compressed rows ``rows`` (in that order) of a CSR matrix: (indptr, cols, vals)."""
    n = rows.shape[0]
    out_ptr = np.zeros(n + 1, np.int64)
    for i in range(n):
        r = rows[i]
        out_ptr[i + 1] = out_ptr[i] + indptr[r + 1] - indptr[r]
    out_cols = np.empty(out_ptr[n], np.int32)
    out_vals = np.empty(out_ptr[n], np.float32)
    for i in range(n):
        r = rows[i]
        start = indptr[r]
        dst = out_ptr[i]
        for k in range(indptr[r + 1] - start):
            out_cols[dst + k] = cols[start + k]
            out_vals[dst + k] = vals[start + k]
    return out_ptr, out_cols, out_vals


@njit(cache=True, nogil=True, fastmath=True)
def csr_matmul(indptr, cols, vals, weight_t, bias, out):
    """out[r] = bias + sum over row r's nonzeros of vals[k] * weight_t[cols[k]]."""
    B = indptr.shape[0] - 1
    H = weight_t.shape[1]
    for r in range(B):
        acc = out[r]
        for h in range(H):
            acc[h] = bias[h]
        for k in range(indptr[r], indptr[r + 1]):
            v = vals[k]
            w = weight_t[cols[k]]
            for h in range(H):
                acc[h] += v * w[h]


@njit(cache=True, nogil=True, fastmath=True)
def csr_weight_grad(indptr, cols, vals, grad_out, grad_weight_t):
    """grad_weight_t[c] = sum over nonzeros (r, c) of vals * grad_out[r] (the transposed weight's gradient)."""
    B = indptr.shape[0] - 1
    H = grad_out.shape[1]
    grad_weight_t[:] = 0.0
    for r in range(B):
        g = grad_out[r]
        for k in range(indptr[r], indptr[r + 1]):
            v = vals[k]
            dst = grad_weight_t[cols[k]]
            for h in range(H):
                dst[h] += v * g[h]


@njit(cache=True, nogil=True)
def split_csr(indptr, cols, vals, stop, width):
    """A CSR matrix of ``width`` columns cut at column ``stop``: the compressed rows of the
    columns before it (indptr, cols, vals) and the columns from it on, dense [B, width - stop]."""
    B = indptr.shape[0] - 1
    out_ptr = np.zeros(B + 1, np.int64)
    out_cols = np.empty(indptr[B], np.int32)
    out_vals = np.empty(indptr[B], np.float32)
    tail = np.zeros((B, width - stop), np.float32)
    n = 0
    for r in range(B):
        for k in range(indptr[r], indptr[r + 1]):
            c = cols[k]
            if c < stop:
                out_cols[n] = c
                out_vals[n] = vals[k]
                n += 1
            else:
                tail[r, c - stop] = vals[k]
        out_ptr[r + 1] = n
    return out_ptr, out_cols[:n], out_vals[:n], tail


class SparseRows:
    """A batch of observations as compressed rows (CSR: ``indptr`` [B+1], ``cols``, ``vals``) of
    ``width`` columns: what the rollout buffer hands the policy in the PPO update, built once per
    rollout (``train/buffer.py``) instead of a dense copy per minibatch that the first layer then
    scans again. :class:`SparseInputLinear` reads it directly; :meth:`split` cuts off the columns
    behind the observation (the hint, a privileged tail) as a dense tensor."""

    def __init__(self, indptr: np.ndarray, cols: np.ndarray, vals: np.ndarray, width: int):
        self.indptr, self.cols, self.vals, self.width = indptr, cols, vals, int(width)

    def __len__(self) -> int:
        return self.indptr.shape[0] - 1

    @property
    def shape(self) -> tuple[int, int]:
        return (len(self), self.width)

    @classmethod
    def of_dense(cls, x: np.ndarray, max_density: float | None = None) -> "SparseRows | None":
        """The rows of a 2-D float32 array, or None when more than ``max_density`` (default
        :data:`MAX_DENSITY`) of it is nonzero (then the dense code is faster)."""
        x = np.ascontiguousarray(x, dtype=np.float32)
        density = MAX_DENSITY if max_density is None else max_density
        indptr, cols, vals, nnz = dense_to_csr(x, int(density * x.size))
        return None if nnz < 0 else cls(indptr, cols, vals, x.shape[1])

    def take(self, rows: np.ndarray) -> "SparseRows":
        """The rows ``rows``, in that order."""
        indptr, cols, vals = take_csr_rows(self.indptr, self.cols, self.vals, np.asarray(rows, np.int64))
        return SparseRows(indptr, cols, vals, self.width)

    def split(self, stop: int) -> tuple["SparseRows", th.Tensor]:
        """The columns before ``stop`` (compressed) and from ``stop`` on (a dense float32 tensor)."""
        if not 0 <= stop <= self.width:
            raise ValueError(f"stop must be in [0, {self.width}], got {stop}")
        if stop == self.width:
            return self, th.zeros((len(self), 0))
        indptr, cols, vals, tail = split_csr(self.indptr, self.cols, self.vals, stop, self.width)
        return SparseRows(indptr, cols, vals, stop), th.from_numpy(tail)

    def column(self, j: int) -> th.Tensor:
        """Column ``j`` of every row, a dense float32 tensor [B] (0 where the row stores nothing)."""
        if not 0 <= j < self.width:
            raise ValueError(f"column must be in [0, {self.width}), got {j}")
        out = np.zeros(len(self), np.float32)
        rows = np.repeat(np.arange(len(self)), np.diff(self.indptr))
        at = self.cols == j
        out[rows[at]] = self.vals[at]
        return th.from_numpy(out)

    def to_dense(self) -> th.Tensor:
        out = np.zeros(self.shape, np.float32)
        rows = np.repeat(np.arange(len(self)), np.diff(self.indptr))
        out[rows, self.cols] = self.vals
        return th.from_numpy(out)


class _SparseRowsLinear(th.autograd.Function):
    """``x @ weight.T + bias`` from x's compressed rows; gradients for weight and bias (not x)."""

    @staticmethod
    def forward(ctx, csr, batch: int, weight: th.Tensor, bias: th.Tensor) -> th.Tensor:
        indptr, cols, vals = csr
        weight_t = weight.detach().t().contiguous().numpy()
        out = np.empty((batch, weight.shape[0]), np.float32)
        csr_matmul(indptr, cols, vals, weight_t, bias.detach().numpy(), out)
        ctx.csr = csr
        ctx.in_features = weight.shape[1]
        return th.from_numpy(out)

    @staticmethod
    def backward(ctx, grad_out: th.Tensor):
        g = grad_out.contiguous().numpy()
        grad_weight_t = np.empty((ctx.in_features, g.shape[1]), np.float32)
        csr_weight_grad(*ctx.csr, g, grad_weight_t)
        grad_weight = th.from_numpy(grad_weight_t).t().contiguous() if ctx.needs_input_grad[2] else None
        grad_bias = grad_out.sum(0) if ctx.needs_input_grad[3] else None
        return None, None, grad_weight, grad_bias


class SparseInputLinear(nn.Linear):
    """``nn.Linear`` for mostly-zero inputs (observations): same parameters, same results up to
    rounding, computed from the input's nonzeros only (see the module)."""

    def forward(self, x: th.Tensor | SparseRows) -> th.Tensor:
        if isinstance(x, SparseRows):  # the rollout buffer's compressed minibatch
            if x.width != self.in_features:
                raise ValueError(f"SparseRows of {x.width} columns for a layer of {self.in_features} inputs")
            if self.weight.dtype != th.float32 or self.bias is None or len(x) == 0:
                return F.linear(x.to_dense().to(self.weight.dtype), self.weight, self.bias)
            return _SparseRowsLinear.apply((x.indptr, x.cols, x.vals), len(x), self.weight, self.bias)
        if (x.dim() != 2 or x.dtype != th.float32 or x.device.type != "cpu" or x.requires_grad
                or self.weight.dtype != th.float32 or self.bias is None or x.shape[0] == 0):
            return F.linear(x, self.weight, self.bias)
        x = x.detach().contiguous()
        batch, size = x.shape
        indptr, cols, vals, nnz = dense_to_csr(x.numpy(), int(MAX_DENSITY * batch * size))
        if nnz < 0:  # too dense for the row sums to pay
            return F.linear(x, self.weight, self.bias)
        return _SparseRowsLinear.apply((indptr, cols, vals), batch, self.weight, self.bias)
