"""The action head's logits for chosen actions only: :func:`chosen_logits`.

A linear action head computes a logit for every action (Nos: 557), ``latent @ W.T + b``,
though a position has about 8 legal ones and the rest are masked away at once. Forward and
backward, that dense product and the passes over its [batch, 557] result were the largest
part of a PPO update. Here only the logits named by ``index`` [B, K] are computed, where
``valid`` [B, K] is True: ``out[b, k] = latent[b] . W[index[b, k]] + b[index[b, k]]``
(0 where not valid), and the backward pass returns the gradients of ``latent``, ``W`` and
``b`` from those entries alone. The results equal the dense head's, gathered, up to float32
rounding order (``tests/test_masked_distribution.py``).
"""

from __future__ import annotations

import numpy as np
import torch as th
from numba import njit


@njit(cache=True, nogil=True, fastmath=True)
def chosen_logits_kernel(latent, weight, bias, index, valid, out):
    B, K = index.shape
    L = latent.shape[1]
    for b in range(B):
        x = latent[b]
        for k in range(K):
            if valid[b, k]:
                a = index[b, k]
                w = weight[a]
                s = np.float32(0.0)
                for j in range(L):
                    s += x[j] * w[j]
                out[b, k] = s + bias[a]
            else:
                out[b, k] = 0.0


@njit(cache=True, nogil=True, fastmath=True)
def chosen_logits_grad_kernel(latent, weight, index, valid, grad, grad_latent, grad_weight, grad_bias):
    B, K = index.shape
    L = latent.shape[1]
    grad_latent[:] = 0.0
    grad_weight[:] = 0.0
    grad_bias[:] = 0.0
    for b in range(B):
        x = latent[b]
        gx = grad_latent[b]
        for k in range(K):
            g = grad[b, k]
            if valid[b, k] and g != 0.0:
                a = index[b, k]
                w = weight[a]
                gw = grad_weight[a]
                for j in range(L):
                    gx[j] += g * w[j]
                    gw[j] += g * x[j]
                grad_bias[a] += g


class _ChosenLogits(th.autograd.Function):
    @staticmethod
    def forward(ctx, latent, weight, bias, index, valid):
        x = latent.detach().contiguous()
        w = weight.detach().contiguous()
        idx, ok = index.numpy(), valid.numpy()
        out = np.empty(idx.shape, np.float32)
        chosen_logits_kernel(x.numpy(), w.numpy(), bias.detach().contiguous().numpy(), idx, ok, out)
        ctx.save_for_backward(x, w, index, valid)
        return th.from_numpy(out)

    @staticmethod
    def backward(ctx, grad):
        x, w, index, valid = ctx.saved_tensors
        grad_latent = np.empty(x.shape, np.float32)
        grad_weight = np.empty(w.shape, np.float32)
        grad_bias = np.empty(w.shape[0], np.float32)
        chosen_logits_grad_kernel(x.numpy(), w.numpy(), index.numpy(), valid.numpy(),
                                  grad.contiguous().numpy(), grad_latent, grad_weight, grad_bias)
        return th.from_numpy(grad_latent), th.from_numpy(grad_weight), th.from_numpy(grad_bias), None, None


def chosen_logits(latent: th.Tensor, weight: th.Tensor, bias: th.Tensor, index: th.Tensor,
                  valid: th.Tensor) -> th.Tensor:
    """``(latent @ weight.T + bias).gather(1, index)`` where ``valid``, 0 elsewhere; float32 CPU
    tensors (others: the dense product, gathered)."""
    if (latent.dtype != th.float32 or weight.dtype != th.float32 or latent.device.type != "cpu"
            or weight.device.type != "cpu"):
        return th.nn.functional.linear(latent, weight, bias).gather(1, index) * valid
    return _ChosenLogits.apply(latent, weight, bias, index.contiguous(), valid.contiguous())
