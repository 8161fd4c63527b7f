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
    B, D = x.shape
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

    def forward(self, x: th.Tensor) -> th.Tensor:
        if (x.dim() != 2 or x.dtype != th.float32 or x.device.type != "cpu" or x.requires_grad
                or self.weight.dtype != th.float32 or self.bias is None or x.shape[0] == 0):
            return F.linear(x, self.weight, self.bias)
        x = x.detach().contiguous()
        batch, size = x.shape
        indptr, cols, vals, nnz = dense_to_csr(x.numpy(), int(MAX_DENSITY * batch * size))
        if nnz < 0:  # too dense for the row sums to pay
            return F.linear(x, self.weight, self.bias)
        return _SparseRowsLinear.apply((indptr, cols, vals), batch, self.weight, self.bias)
