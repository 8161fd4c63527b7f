"""The policy's numba kernels against torch's dense arithmetic: the sparse-input first layer
(agents/sparse_linear.py), the legal-action logits (agents/legal_logits.py) and the legal
lists behind the masked distribution (agents/masked_categorical.py).

Each compares values and gradients with the plain ``nn.Linear`` computed independently, on
inputs shaped as the policy sees them (mostly zeros, some non-binary, some rows empty)."""

from __future__ import annotations

import numpy as np
import pytest

th = pytest.importorskip("torch")
pytest.importorskip("sb3_contrib")

from torch import nn  # noqa: E402

from agents import sparse_linear  # noqa: E402
from agents.legal_logits import chosen_logits  # noqa: E402
from agents.masked_categorical import FastMaskedCategorical, legal_lists  # noqa: E402
from agents.sparse_linear import SparseInputLinear  # noqa: E402


def _sparse_batch(rows=200, size=300, density=0.05, seed=0):
    rng = np.random.default_rng(seed)
    x = (rng.random((rows, size)) < density).astype(np.float32)
    odd = rng.random((rows, size)) < 0.01
    x[odd] = rng.normal(0, 3, odd.sum())  # non-binary values
    x[::7] *= rng.integers(-3, 15, size=(1, size)).astype(np.float32)  # counts and signed values
    x[5] = 0.0  # a row with nothing set
    return th.as_tensor(x)


def _twins(size=300, width=64, seed=1):
    th.manual_seed(seed)
    dense = nn.Linear(size, width)
    sparse = SparseInputLinear(size, width)
    sparse.load_state_dict(dense.state_dict())
    return dense, sparse


def test_sparse_input_linear_equals_nn_linear_values_and_gradients():
    x = _sparse_batch()
    dense, sparse = _twins()
    g = th.randn(x.shape[0], 64)
    out_d, out_s = dense(x), sparse(x)
    th.testing.assert_close(out_s, out_d, rtol=1e-5, atol=1e-5)
    (out_d * g).sum().backward()
    (out_s * g).sum().backward()
    th.testing.assert_close(sparse.weight.grad, dense.weight.grad, rtol=1e-4, atol=1e-4)
    th.testing.assert_close(sparse.bias.grad, dense.bias.grad, rtol=1e-4, atol=1e-4)
    assert sparse.weight.grad.is_contiguous() and sparse.weight.grad.shape == (64, 300)


def test_sparse_input_linear_takes_the_sparse_path_for_observations(monkeypatch):
    """The kernel really runs (a silent fallback to the dense code would pass the test above)."""
    calls = []
    kernel = sparse_linear.csr_matmul
    monkeypatch.setattr(sparse_linear, "csr_matmul", lambda *a: calls.append(1) or kernel(*a))
    _, sparse = _twins()
    sparse(_sparse_batch())
    assert calls == [1]


def test_sparse_input_linear_falls_back_to_dense_where_the_kernel_does_not_apply(monkeypatch):
    monkeypatch.setattr(sparse_linear, "csr_matmul", lambda *a: pytest.fail("the sparse kernel ran"))
    dense, sparse = _twins()
    full = th.randn(50, 300)  # dense input: more than MAX_DENSITY nonzero
    th.testing.assert_close(sparse(full), dense(full))
    wants_grad = _sparse_batch().requires_grad_(True)  # an input that needs its own gradient
    sparse(wants_grad).sum().backward()
    assert wants_grad.grad is not None
    x64 = _sparse_batch().double()  # float64: the kernels are float32 only
    th.testing.assert_close(sparse.double()(x64), dense.double()(x64))


def test_sparse_input_linear_state_dict_is_nn_linears():
    dense, sparse = _twins()
    assert list(sparse.state_dict()) == list(dense.state_dict()) == ["weight", "bias"]
    back = nn.Linear(300, 64)
    back.load_state_dict(sparse.state_dict())
    th.testing.assert_close(back.weight, dense.weight)


def _legal(rows=120, actions=557, seed=2):
    rng = np.random.default_rng(seed)
    masks = rng.random((rows, actions)) < 0.02
    masks[np.arange(rows), rng.integers(0, actions, rows)] = True  # every row has one
    masks[3, :] = False
    masks[3, [0, 556]] = True  # the ends
    masks[4, :] = True  # every action legal
    return masks


def test_legal_lists_are_each_rows_legal_actions_in_order():
    masks = _legal()
    index, valid, K = legal_lists(masks.view(np.uint8))
    assert K == masks.sum(axis=1).max() == 557
    for b in range(len(masks)):
        legal = np.flatnonzero(masks[b])
        assert list(index[b][valid[b]]) == list(legal)
        assert not valid[b, len(legal):].any() and (index[b, len(legal):] == legal[0]).all()
    masks[7] = False  # a row with no legal action: no lists
    assert legal_lists(masks.view(np.uint8))[2] == 0


def test_chosen_logits_equal_the_dense_heads_gathered_values_and_gradients():
    masks = _legal()
    index, valid, _ = legal_lists(masks.view(np.uint8))
    index, valid = th.from_numpy(index), th.from_numpy(valid)
    th.manual_seed(3)
    head = nn.Linear(128, 557)
    latent_d = th.randn(len(masks), 128, requires_grad=True)
    latent_s = latent_d.detach().clone().requires_grad_(True)
    g = th.randn(index.shape) * valid
    dense = head(latent_d).gather(1, index) * valid
    (dense * g).sum().backward()
    grads = [p.grad.clone() for p in (latent_d, head.weight, head.bias)]
    head.zero_grad()
    ours = chosen_logits(latent_s, head.weight, head.bias, index, valid)
    th.testing.assert_close(ours, dense, rtol=1e-5, atol=1e-5)
    (ours * g).sum().backward()
    for mine, theirs in zip((latent_s.grad, head.weight.grad, head.bias.grad), grads):
        th.testing.assert_close(mine, theirs, rtol=1e-4, atol=1e-4)


def test_the_distribution_from_the_latent_equals_the_one_from_full_logits():
    """The policy's path (legal logits only) against the full-logits path, which test_train
    compares with sb3-contrib's own distribution."""
    masks = _legal()
    th.manual_seed(4)
    head = nn.Linear(128, 557)
    latent = th.randn(len(masks), 128)
    full = FastMaskedCategorical(557).proba_distribution(head(latent))
    full.apply_masking(masks)
    lazy = FastMaskedCategorical(557).proba_distribution_from_latent(latent, head)
    lazy.apply_masking(th.as_tensor(masks))
    actions = th.as_tensor([np.flatnonzero(m)[-1] for m in masks])
    th.testing.assert_close(lazy.log_prob(actions), full.log_prob(actions), rtol=1e-5, atol=1e-5)
    th.testing.assert_close(lazy.entropy(), full.entropy(), rtol=1e-5, atol=1e-5)
    th.testing.assert_close(lazy.mode(), full.mode())
    th.testing.assert_close(lazy.log_p, full.log_p, rtol=1e-5, atol=1e-3)
    assert lazy.log_p.shape == (len(masks), 557)
    illegal = th.as_tensor([np.flatnonzero(~m)[0] if (~m).any() else 0 for m in masks])
    assert (lazy.log_prob(illegal)[masks.sum(axis=1) < 557] < -1e7).all()


# ---------------------------------------------- the update's compressed minibatches (train/buffer.py)
def test_sparse_rows_take_split_and_dense_agree_with_numpy():
    from agents.sparse_linear import SparseRows

    x = _sparse_batch(rows=60, size=40, density=0.2).numpy()
    rows = SparseRows.of_dense(x)
    np.testing.assert_array_equal(rows.to_dense().numpy(), x)
    pick = np.array([5, 0, 59, 5, 17])  # any order, repeats, the empty row 5
    taken = rows.take(pick)
    assert taken.shape == (5, 40)
    np.testing.assert_array_equal(taken.to_dense().numpy(), x[pick])
    head, tail = taken.split(37)
    assert head.width == 37 and tail.shape == (5, 3) and tail.dtype == th.float32
    np.testing.assert_array_equal(head.to_dense().numpy(), x[pick, :37])
    np.testing.assert_array_equal(tail.numpy(), x[pick, 37:])
    whole, nothing = taken.split(40)
    assert whole is taken and nothing.shape == (5, 0)
    with pytest.raises(ValueError, match=r"stop must be in \[0, 40\]"):
        taken.split(41)
    assert SparseRows.of_dense(np.ones((4, 10), np.float32)) is None  # denser than MAX_DENSITY


def test_legal_actions_take_equals_the_legal_lists_of_those_rows():
    from agents.masked_categorical import LegalActions

    masks = _legal()
    masks[4] = False
    masks[4, 9] = True  # the all-legal row would make every list 557 long
    legal = LegalActions.of_masks(masks)
    pick = np.array([3, 10, 3, 0])
    taken = legal.take(pick)
    index, valid, K = legal_lists(np.ascontiguousarray(masks[pick]).view(np.uint8))
    assert taken.index.shape == (4, K)
    np.testing.assert_array_equal(taken.index, index)
    np.testing.assert_array_equal(taken.valid, valid)
    masks[7] = False
    assert LegalActions.of_masks(masks) is None  # a row without a legal action: no lists


@pytest.mark.parametrize("hint", [False, True])
def test_the_policy_gives_the_same_values_and_gradients_from_compressed_minibatches(hint):
    """The update's compressed observations and legal lists against the dense minibatch: the
    same numbers, bit for bit (the nonzeros are read in the same order), hint column included."""
    from gymnasium import spaces

    from agents.masked_categorical import LegalActions
    from agents.policy import NosPolicy
    from agents.sparse_linear import SparseRows
    from nos_env.encoding import NUM_ACTIONS, OBSERVATION_SIZE

    rng = np.random.default_rng(5)
    rows = 64
    obs = _sparse_batch(rows=rows, size=OBSERVATION_SIZE, density=0.05, seed=6).numpy()
    masks = _legal(rows=rows)
    masks[4] = False
    masks[4, :3] = True
    if hint:  # the Tactics hint: an action index behind the observation (a legal one)
        obs = np.concatenate([obs, [[np.flatnonzero(m)[0]] for m in masks]], axis=1).astype(np.float32)
    space = spaces.Box(-np.inf, np.inf, (obs.shape[1],), np.float32)
    th.manual_seed(7)
    policy = NosPolicy(space, spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4, width=32,
                       net_arch={"pi": [16], "vf": [16]})
    actions = th.as_tensor([rng.choice(np.flatnonzero(m)) for m in masks])
    advantages = th.as_tensor(rng.normal(size=rows), dtype=th.float32)
    pick = rng.permutation(rows)[:48]
    results = []
    for observations, legal in ((th.as_tensor(obs[pick]), th.as_tensor(masks[pick])),
                                (SparseRows.of_dense(obs).take(pick), LegalActions.of_masks(masks).take(pick))):
        policy.zero_grad()
        values, log_prob, entropy = policy.evaluate_actions(observations, actions[pick], action_masks=legal)
        (values.sum() + (log_prob * advantages[pick]).sum() + 0.1 * entropy.sum()).backward()
        results.append([values, log_prob, entropy] + [p.grad.clone() for p in policy.parameters() if p.grad is not None])
    assert len(results[1]) == len(results[0]) >= 10
    for dense, compressed in zip(*results):
        assert th.equal(dense, compressed)


def test_the_trainers_update_reads_compressed_minibatches_built_once_per_rollout(monkeypatch):
    """Without train/buffer.py's compression every minibatch would be scanned into rows again."""
    from train.config import from_dict
    from train.trainer import make_env, make_model

    from agents.masked_categorical import LegalActions
    from agents.sparse_linear import SparseRows

    config = from_dict({"env": {"num_envs": 16}, "policy": {"width": 16},
                        "ppo": {"n_steps": 4, "batch_size": 16, "n_epochs": 2}})
    env, _ = make_env(config)
    model = make_model(config, env)
    assert model.rollout_buffer.compressed
    scans, seen = [], []
    scan = sparse_linear.dense_to_csr
    monkeypatch.setattr(sparse_linear, "dense_to_csr", lambda x, m: scans.append(x.shape) or scan(x, m))
    evaluate = model.policy.evaluate_actions
    model.policy.evaluate_actions = lambda o, a, action_masks: (seen.append((type(o), type(action_masks)))
                                                                 or evaluate(o, a, action_masks=action_masks))
    model.learn(64)
    assert seen == [(SparseRows, LegalActions)] * 8  # 2 epochs of 4 minibatches
    assert scans.count((64, env.observation_space.shape[0])) == 1  # the rollout's 64 observations, once
