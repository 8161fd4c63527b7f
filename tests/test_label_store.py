"""Compact labels (train/label_store.py): the observations as bytes where they are small integers,
the masks and values for the legal moves only. They read back exactly as written, a column that
meets another value falls back to float32 with its earlier rows intact, a fit on them is
bit-identical to the fit on the float32 labels, and labels.npz (compact, or dense from before)
round-trips."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import torch as th

from train.distill import (behaviour_clone, choose_margin, compact_labels, dense_labels, labels_nbytes, load_labels,
                           save_labels)
from train.label_store import (CompactObservations, LegalMovesBuilder, PackedMasks, PackedValues,
                               small_integer_columns)
from train.rollout_advantage import RolloutLabeler, collect_advantage_labels

from test_distill import hinted_env, hinted_policy


def test_small_integer_columns_are_the_ones_a_byte_holds_exactly():
    block = np.array([[0, 255, 3, 0.5, -1, 256, np.nan, -0.0, 7]], np.float32)
    assert small_integer_columns(block).tolist() == [True, True, True, False, False, False, False, False, True]


def test_observations_read_back_exactly_and_a_column_falls_back_to_float32_with_its_rows():
    rng = np.random.default_rng(3)
    dense = rng.integers(0, 256, (10, 6)).astype(np.float32)
    dense[6, 2] = 0.25  # only in a later block: column 2 was bytes until then
    dense[8, 4] = 300.0
    dense[9, 5] = -0.0  # -0.0 is not stored as 0
    store = CompactObservations(10, 6)
    store.put(0, dense[:5])
    assert store.wide_columns.tolist() == [] and store.wide.shape == (10, 0)
    store.put(5, dense[5:8])
    assert store.wide_columns.tolist() == [2]
    store.put(8, dense[8:])
    assert store.wide_columns.tolist() == [2, 4, 5]
    out = np.asarray(store)
    assert out.dtype == np.float32 and np.array_equal(out, dense)
    assert np.signbit(out[9, 5]) and not np.signbit(out[8, 5])
    assert store.nbytes == 10 * 6 + 10 * 3 * 4 + 3 * 8
    # Read like the dense array, every way the code reads it.
    for key in [3, -1, slice(2, 7), slice(None, None, 3), np.array([7, 0, 7]), np.arange(10) % 3 == 0,
                (slice(None), 4), (slice(None), slice(1, 3)), (np.array([1, 6]), np.array([2, 0])), (6, 2)]:
        assert np.array_equal(store[key], dense[key]), key
    for j in range(6):
        assert np.array_equal(store.column(j), dense[:, j])
    assert np.array_equal(np.asarray(store.head(4)), dense[:4])
    with pytest.raises(IndexError, match="out of range"):
        store[np.array([10])]
    with pytest.raises(ValueError, match="does not fit rows 8"):
        store.put(8, dense[:3])


def test_masks_and_values_are_the_legal_moves_only():
    rng = np.random.default_rng(4)
    masks = rng.random((12, 40)) < 0.2
    masks[:, 7] = True
    values = np.where(masks, rng.normal(size=masks.shape), np.nan).astype(np.float32)
    values[3, 7] = np.nan  # a legal move without a value keeps its NaN
    builder = LegalMovesBuilder(40)
    builder.add(masks[:5], values[:5])
    builder.add(masks[5:], values[5:])
    packed, packed_values = builder.finish()
    assert packed.actions.dtype == np.int16 and len(packed.actions) == masks.sum()
    assert np.array_equal(packed.legal_counts(), masks.sum(axis=1))
    for key in [slice(None), np.array([11, 0, 3]), 5, (np.arange(12), np.full(12, 7))]:
        assert np.array_equal(packed[key], masks[key])
        assert np.array_equal(packed_values[key], values[key], equal_nan=True)
    assert np.array_equal(PackedMasks.from_dense(masks).indptr, packed.indptr)
    assert np.array_equal(PackedValues.from_dense(values, packed).values, packed_values.values, equal_nan=True)
    assert np.array_equal(np.asarray(packed_values.head(4)), values[:4], equal_nan=True)
    bad = values.copy()
    bad[0, ~masks[0]] = 1.0
    with pytest.raises(ValueError, match="a value at an illegal move"):
        LegalMovesBuilder(40).add(masks, bad)
    with pytest.raises(ValueError, match="a value at an illegal move"):
        PackedValues.from_dense(bad, packed)


@pytest.fixture(scope="module")
def labels():
    env = hinted_env(game="draw", tables=16)
    data = collect_advantage_labels(env, RolloutLabeler(env.tables.rules), 600)
    return env, data


def test_collected_labels_are_compact_and_smaller(labels):
    env, data = labels
    assert isinstance(data["obs"], CompactObservations) and isinstance(data["masks"], PackedMasks)
    assert isinstance(data["values"], PackedValues)
    dense = dense_labels(data)
    assert dense["obs"].dtype == np.float32 and dense["masks"].dtype == bool
    assert np.array_equal(np.isnan(dense["values"]), ~dense["masks"])
    assert np.array_equal(dense["hint"], dense["obs"][:, env.tables.observation_size].astype(np.int64))
    # The hint column (an action id, here below 256) and the game's own are bytes.
    assert len(data["obs"].wide_columns) == 0
    assert labels_nbytes(data) * 4 < labels_nbytes(dense)  # draw: 547 bytes a label against 2,474


def decoded(data: dict) -> dict:
    """The float32 / bool labels decoded from the stores' own arrays, without their reading code
    (``_dense``, the row index): what the fit on compact labels must match."""
    store, packed = data["obs"], data["masks"]
    obs = store.small.astype(np.float32)
    obs[:, store.wide_columns] = store.wide
    rows = np.repeat(np.arange(len(packed)), np.diff(packed.indptr))
    masks = np.zeros(packed.shape, bool)
    masks[rows, packed.actions] = True
    values = np.full(packed.shape, np.nan, np.float32)
    values[rows, packed.actions] = data["values"].values
    return {**data, "obs": obs, "masks": masks, "values": values}


def test_a_fit_on_compact_labels_is_bit_identical_to_the_fit_on_float32_labels(labels):
    env, data = labels
    dense = decoded(data)
    assert np.array_equal(dense["obs"], np.asarray(data["obs"]))
    fitted = {}
    for name, d in (("compact", data), ("dense", dense)):
        policy = hinted_policy(env)
        rows = behaviour_clone(policy, d, epochs=3, batch_size=64, learning_rate=3e-3, holdout=0.25, seed=1,
                               target="advantage", temperature=2.0, patience=2)
        margin = choose_margin(policy, d, [0.0, 1.0, 3.0], 0.25, 2.0)
        choice = behaviour_clone(copy.deepcopy(policy), d, epochs=1, batch_size=64, learning_rate=1e-3,
                                 holdout=0.25, seed=1)
        fitted[name] = ([{k: v for k, v in r.items() if k != "seconds"} for r in rows + choice], margin,
                        [p.detach().clone() for p in policy.state_dict().values()])
    (rows_c, margin_c, weights_c), (rows_d, margin_d, weights_d) = fitted["compact"], fitted["dense"]
    assert repr(rows_c) == repr(rows_d) and repr(margin_c) == repr(margin_d)  # repr: exact floats, NaN == NaN
    assert rows_c[-1]["holdout_loss"] < rows_c[0]["holdout_loss"]  # it did fit something
    assert all(th.equal(a, b) for a, b in zip(weights_c, weights_d))


def test_labels_round_trip_through_labels_npz_and_old_dense_files_still_load(labels, tmp_path):
    env, data = labels
    dense = dense_labels(data)
    save_labels(tmp_path / "labels.npz", data)
    for limit in (None, 250):
        back = dense_labels(load_labels(tmp_path / "labels.npz", env, limit=limit))
        n = limit or 600
        for key in ("obs", "masks", "values", "actions", "hint"):
            assert np.array_equal(back[key], dense[key][:n], equal_nan=True), key
        assert back["seconds"] == data["seconds"]
    # A file of the dense format written before the compact one (float32 obs and values, bool masks).
    np.savez_compressed(tmp_path / "old.npz", obs=dense["obs"], masks=dense["masks"], actions=dense["actions"],
                        hint=dense["hint"], seconds=np.float64(dense["seconds"]), values=dense["values"])
    old = load_labels(tmp_path / "old.npz", env, limit=400)
    assert isinstance(old["obs"], CompactObservations)
    for key in ("obs", "masks", "values"):
        assert np.array_equal(np.asarray(old[key]), dense[key][:400], equal_nan=True), key
    # A dense dict saves compact too.
    save_labels(tmp_path / "again.npz", dense)
    assert np.array_equal(np.asarray(load_labels(tmp_path / "again.npz", env)["obs"]), dense["obs"])
    assert compact_labels(data)["obs"] is data["obs"]
