"""agents.sampler: hidden tiles sampled from one observation (docs/rules/nos.md §12, D17).

Every sample must agree with everything its observer has seen, reality must
always be one of the consistent assignments, the two sampling paths must be
uniform over them, and the sampler must read nothing but the observation.
"""

import inspect
from collections import Counter

import numpy as np
import pytest

from agents.sampler import (
    DOUBLES_MASK,
    HiddenSampler,
    bits_to_tiles,
    offsets_to_seats,
    read_constraints,
    sample_hidden,
    tiles_to_bits,
)
from nos_env.encoding import OBSERVATION_LAYOUT, decode_observation, encode_observation
from nos_env.engine import new_hand
from nos_env.tiles import ALL_TILES, TILE_INDEX


def true_assignment(hand, seat):
    """The real hidden tiles from ``seat``'s point of view: hands by offset, boneyard top first."""
    n = hand.num_players
    hands = [sorted(TILE_INDEX[t] for t in hand.hands[(seat + r) % n]) for r in range(n)]
    return hands, [TILE_INDEX[t] for t in hand.boneyard]


def check_against_view(obs, hands, boneyard):
    """An independent check, from encoding.decode_observation: the sample agrees with the view."""
    view = decode_observation(obs)
    n = view["num_players"]
    assert len(hands) == n
    everything = [t for h in hands for t in h] + list(boneyard)
    assert len(everything) == len(set(everything)), "a tile appears twice"
    layout = {TILE_INDEX[t] for t in view["layout"]}
    assert not layout & set(everything), "a layout tile was handed out"
    assert set(everything) | layout == set(range(28)), "not every tile is accounted for"
    assert sorted(hands[0]) == sorted(TILE_INDEX[t] for t in view["hand"]), "own hand changed"
    assert len(boneyard) == view["boneyard_size"]
    for r in range(1, n):
        seat = view["seats"][r]
        held = set(hands[r])
        assert len(held) == seat["hand_size"]
        if seat["out"]:
            assert not held
        assert {TILE_INDEX[t] for t in seat["face_up"]} <= held, "a face-up double left its owner"
        assert not held & {TILE_INDEX[t] for t in seat["passed_tiles"]}, "a hand holds a tile he passed on"


def random_positions(num_games, seed, counts=(3, 4, 5)):
    """(hand, seat to observe) at every decision of random games, each seat in turn."""
    rng = np.random.default_rng(seed)
    for g in range(num_games):
        n = counts[g % len(counts)]
        hand = new_hand(n, seed=seed * 1000 + g)
        k = 0
        while not hand.over:
            actions = hand.legal_actions()
            hand.step(actions[rng.integers(len(actions))])
            if hand.over:
                break
            k += 1
            yield hand, k % n


def test_samples_agree_with_the_view_and_reality_is_never_excluded():
    rng = np.random.default_rng(0)
    seen = Counter()
    for hand, seat in random_positions(80, seed=1):
        obs = encode_observation(hand, seat)
        c = read_constraints(obs)
        hands, boneyard = true_assignment(hand, seat)
        assert c.violations(hands, boneyard) == [], "the constraints exclude reality"
        check_against_view(obs, hands, boneyard)  # (the checker itself accepts reality)
        sampler = HiddenSampler(obs)
        for sample_hands, sample_bone in sampler.sample(rng, 3):
            assert c.violations(sample_hands, sample_bone) == []
            check_against_view(obs, sample_hands, sample_bone)
        n = hand.num_players
        seen["positions"] += 1
        seen["passes"] += any(c.forbidden[r] for r in range(1, n))
        seen["face_up"] += any(c.face_up[r] for r in range(1, n))
        seen["caps"] += any(cap is not None for cap in c.double_cap[1:])
        seen["out"] += any(c.sizes[r] == 0 for r in range(1, n))
    assert seen["positions"] > 1000
    for what in ("passes", "face_up", "caps", "out"):
        assert seen[what] > 10, (what, seen)


def test_the_counting_path_agrees_with_the_view_too():
    rng = np.random.default_rng(1)
    for i, (hand, seat) in enumerate(random_positions(30, seed=2)):
        if i % 5:
            continue
        obs = encode_observation(hand, seat)
        sampler = HiddenSampler(obs)
        assert sampler.total >= 1
        c = sampler.constraints
        hands, bones = sampler._sample_exact(rng, 3)
        for j in range(3):
            by_offset = [bits_to_tiles(int(h)) for h in hands[j]]
            assert c.violations(by_offset, [int(t) for t in bones[j]]) == []
            check_against_view(obs, by_offset, [int(t) for t in bones[j]])


def _small_constrained_position():
    """A late position with a pass record and few consistent assignments (found by playing)."""
    for hand, seat in random_positions(400, seed=3, counts=(4,)):
        obs = encode_observation(hand, seat)
        sampler = HiddenSampler(obs)
        if sampler._constrained and 20 <= sampler.total <= 200:
            return obs, sampler
    pytest.skip("no small constrained position found")


def _enumerate(sampler):
    """Every consistent assignment (hands as sets, boneyard as a set), by brute force."""
    c = sampler.constraints
    free = sampler.free
    needs = dict(zip(sampler.seats, sampler._needs))
    found = []

    def rec(i, held, bone):
        if i == len(free):
            if all(len(held[r]) == needs[r] for r in sampler.seats):
                found.append((tuple(frozenset(held[r]) for r in sampler.seats), frozenset(bone)))
            return
        t = free[i]
        rec(i + 1, held, bone + [t])
        for r in sampler.seats:
            if len(held[r]) < needs[r] and not (c.forbidden[r] >> t) & 1:
                held[r].append(t)
                rec(i + 1, held, bone)
                held[r].pop()

    rec(0, {r: [] for r in sampler.seats}, [])
    consistent = []
    for hands, bone in found:
        by_offset = [[] for _ in range(c.num_players)]
        by_offset[0] = bits_to_tiles(c.own)
        for r, h in zip(sampler.seats, hands):
            by_offset[r] = sorted(h | set(bits_to_tiles(c.face_up[r])))
        for r in range(1, c.num_players):
            if r not in sampler.seats:
                by_offset[r] = bits_to_tiles(c.face_up[r])
        if not c.violations(by_offset, sorted(bone)):
            consistent.append((hands, bone))
    return consistent


@pytest.mark.parametrize("path", ["rejection", "counting"])
def test_sampling_is_uniform_over_the_consistent_assignments(path):
    obs, sampler = _small_constrained_position()
    everything = _enumerate(sampler)
    assert len(everything) == sampler.total
    rng = np.random.default_rng(4)
    N = 60 * len(everything)
    if path == "rejection":
        hands, bones = sampler.sample_bits(rng, N)
    else:
        hands, bones = sampler._sample_exact(rng, N)
    counts = Counter()
    for j in range(N):
        key = (tuple(frozenset(bits_to_tiles(int(hands[j, r]) & ~sampler.constraints.face_up[r]))
                     for r in sampler.seats), frozenset(int(t) for t in bones[j]))
        counts[key] += 1
    assert set(counts) <= set(everything)
    expected = N / len(everything)
    chi2 = sum((counts[a] - expected) ** 2 / expected for a in everything)
    df = len(everything) - 1
    assert chi2 < df + 5 * np.sqrt(2 * df), (chi2, df)


def test_boneyard_order_is_a_uniform_permutation():
    hand = new_hand(4, seed=11)
    obs = encode_observation(hand, 0)
    rng = np.random.default_rng(5)
    N = 12000
    _, bones = HiddenSampler(obs).sample_bits(rng, N)
    # The top tile is each unseen tile about equally often (each is in the boneyard with p = 12/24).
    top = Counter(int(t) for t in bones[:, 0])
    unseen = 28 - 4
    assert len(top) == unseen
    expected = N / unseen
    chi2 = sum((c - expected) ** 2 / expected for c in top.values())
    assert chi2 < (unseen - 1) + 5 * np.sqrt(2 * (unseen - 1))


def test_the_sampler_reads_only_the_observation():
    assert list(inspect.signature(sample_hidden).parameters) == ["obs", "rng", "num_samples"]
    # (compiled: numba or numpy for the same deals, tests/test_search_fast.py; no other input)
    assert list(inspect.signature(HiddenSampler).parameters) == ["obs", "compiled"]
    # Two positions that look the same to the observer get the same samples: the true hidden
    # tiles are permuted (face-up doubles and pass records respected), the view is unchanged.
    rng = np.random.default_rng(6)
    checked = 0
    for hand, seat in random_positions(60, seed=7, counts=(4,)):
        obs = encode_observation(hand, seat)
        n = hand.num_players
        other = hand.copy()
        hidden_slots = []
        for r in range(1, n):
            s = (seat + r) % n
            face = set(hand.public_doubles(s))
            hidden_slots += [(s, i) for i, t in enumerate(other.hands[s]) if t not in face]
        tiles = [other.hands[s][i] for s, i in hidden_slots] + list(other.boneyard)
        order = rng.permutation(len(tiles))
        tiles = [tiles[i] for i in order]
        for (s, i), t in zip(hidden_slots, tiles):
            other.hands[s][i] = t
        other.boneyard = tiles[len(hidden_slots):]
        if not np.array_equal(encode_observation(other, seat), obs):
            continue  # (a shuffled double became face up, or the like: not the same view)
        a = sample_hidden(obs.copy(), np.random.default_rng(8), 4)
        b = sample_hidden(encode_observation(other, seat), np.random.default_rng(8), 4)
        assert a == b
        checked += 1
    assert checked > 100
    # The observation is not changed, and nothing else is needed to sample.
    frozen = obs.copy()
    frozen.setflags(write=False)
    sample_hidden(frozen, np.random.default_rng(9), 2)
    assert np.array_equal(frozen, obs)


def test_offsets_to_seats():
    hands = [[0], [1], [2], [3]]
    assert offsets_to_seats(hands, 0) == hands
    assert offsets_to_seats(hands, 1) == [[3], [0], [1], [2]]
    assert offsets_to_seats(hands, 3) == [[1], [2], [3], [0]]


def test_inconsistent_observations_are_refused():
    hand = new_hand(4, seed=12)
    obs = encode_observation(hand, 0)
    HiddenSampler(obs)
    bad = obs.copy()
    start = OBSERVATION_LAYOUT["boneyard_size"][0]
    bad[start] += 1
    with pytest.raises(ValueError, match="do not add up"):
        HiddenSampler(bad)
    with pytest.raises(ValueError):
        HiddenSampler(obs[:-1])


def test_tile_bit_helpers():
    assert bits_to_tiles(tiles_to_bits([0, 5, 27])) == [0, 5, 27]
    assert bin(DOUBLES_MASK).count("1") == 7
    assert all(ALL_TILES[t][0] == ALL_TILES[t][1] for t in bits_to_tiles(DOUBLES_MASK))
