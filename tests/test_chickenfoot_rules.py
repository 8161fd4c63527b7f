"""Chickenfoot's rules (docs/rules/chickenfoot.md, CK1..CK15) on the reference engine.

Expected scores, turn order and legal moves are worked out by hand from the page, not read
from the engine.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import pytest

from nos_env.family import chickenfoot_encoding as enc
from nos_env.family.chickenfoot import ChickenfootGame, make_chickenfoot_rules
from nos_env.rng import SplitMix64

R2 = make_chickenfoot_rules(2, match="one_hand")
TS = R2.tiles
A = 24  # CK7: 6 + 2*9 toes on double-nine


def tile(a, b):
    return TS.index[(min(a, b), max(a, b))]


def play(a, b, toe):
    return tile(a, b) * A + toe


DRAW = 55 * A + 55
PASS = DRAW + 1


def deal(rules, hands, yard_front=()):
    """Hands as (a, b) pairs; the yard: yard_front first, then every other tile in set order."""
    hands = [[rules.tiles.index[tuple(sorted(p))] for p in h] for h in hands]
    front = [rules.tiles.index[tuple(sorted(p))] for p in yard_front]
    used = {t for h in hands for t in h} | set(front)
    return hands, front + [t for t in range(rules.num_tiles) if t not in used]


# --------------------------------------------------------------------------- CK1, CK2, CK14
def test_hand_sizes_and_action_counts_follow_ck2_ck14():
    nine = {2: 20, 3: 16, 4: 12, 5: 9, 6: 8, 7: 6, 8: 6}
    twelve = {2: 20, 3: 20, 4: 20, 5: 16, 6: 14, 7: 12, 8: 10}
    for n in range(2, 9):
        assert make_chickenfoot_rules(n).hand_size == nine[n]
        assert make_chickenfoot_rules(n, tileset="double_twelve").hand_size == twelve[n]
    assert make_chickenfoot_rules(2).num_actions == 55 * 24 + 57 == 1377
    assert make_chickenfoot_rules(2, tileset="double_twelve").num_actions == 91 * 30 + 93 == 2823
    for bad in (1, 9, True, "4"):
        with pytest.raises(ValueError, match="2 to 8"):
            make_chickenfoot_rules(bad)
    with pytest.raises(ValueError, match="double_twelve"):
        make_chickenfoot_rules(4, tileset="double_six")
    with pytest.raises(ValueError, match="options are"):
        make_chickenfoot_rules(4, hand_size=7)
    with pytest.raises(ValueError, match="next_lower"):
        make_chickenfoot_rules(4, missing_set="next_higher")
    with pytest.raises(ValueError, match="no target score"):
        make_chickenfoot_rules(4, target_score=100)


# --------------------------------------------------------------------------- CK4, CK6, CK8
def test_the_set_the_double_chickenfoot_must_play_draw_one_and_pass():
    hands, yard = deal(R2, [[(9, 9), (9, 1), (3, 4)], [(9, 2), (9, 3), (5, 6)]], yard_front=[(0, 1)])
    g = ChickenfootGame.from_deal(R2, hands, yard)
    h = g.hand
    # CK4: the holder of 9-9 has placed it; the seat to his left moves
    assert h.set_tile == tile(9, 9) and h.placer[tile(9, 9)] == 0 and tile(9, 9) not in h.hands[0]
    assert g.to_move == 1
    # CK6: only 9s, on toe 0 (toes are filled in order)
    assert g.legal_actions() == sorted([play(9, 2, 0), play(9, 3, 0)])
    g.step(play(9, 3, 0))
    # 3-4 carries toe 0's open 3, but the double chickenfoot is not complete: only 9-1 on toe 1
    assert g.to_move == 0 and g.legal_actions() == [play(9, 1, 1)]
    g.step(play(9, 1, 1))
    assert g.legal_actions() == [play(9, 2, 2)]
    g.step(play(9, 2, 2))
    # CK8: no 9 in hand: draw one (and only that); the drawn 0-1 does not fit: pass only
    assert g.to_move == 0 and g.legal_actions() == [DRAW]
    pts = g.step(DRAW)
    assert pts == [0, 0] and sorted(h.hands[0]) == sorted([tile(3, 4), tile(0, 1)])
    assert g.to_move == 0 and g.legal_actions() == [PASS]
    nines = {tile(9, x) for x in range(10)}
    assert h.void[0] == nines  # CK15: a stuck draw: void = F (every tile with a 9)
    g.step(PASS)
    assert h.void[0] == nines and h.void[1] == set()
    # seat 1 has 5-6 only: draws the yard's next tile, 0-0 (set order), which does not fit
    assert g.to_move == 1 and g.legal_actions() == [DRAW]
    g.step(DRAW)
    assert tile(0, 0) in h.hands[1] and g.legal_actions() == [PASS]
    g.step(PASS)
    # seat 0 again; the yard's next tile is 0-3 ... (set order): draw, pass
    assert g.to_move == 0 and g.legal_actions() == [DRAW]


def test_a_drawn_tile_that_fits_must_be_played():
    hands, yard = deal(R2, [[(9, 9), (1, 2)], [(9, 3), (5, 6)]], yard_front=[(9, 7), (0, 1)])
    g = ChickenfootGame.from_deal(R2, hands, yard)
    g.step(play(9, 3, 0))
    assert g.to_move == 0 and g.legal_actions() == [DRAW]
    g.step(DRAW)
    # the drawn 9-7 carries a 9: it goes on toe 1, no pass
    assert g.legal_actions() == [play(9, 7, 1)]
    g.step(play(9, 7, 1))
    assert g.to_move == 1


# --------------------------------------------------------------------------- CK7, CK9, CK12
CHICKEN_HANDS = [[(9, 9), (9, 0), (9, 2), (9, 4), (4, 4), (4, 1), (0, 5)],
                 [(9, 1), (9, 3), (9, 5), (4, 2), (4, 3), (4, 6), (8, 8), (0, 0)]]


def test_a_chickenfoot_is_filled_first_then_going_out_scores_pips_and_fifty_for_0_0():
    hands, yard = deal(R2, CHICKEN_HANDS)
    g = ChickenfootGame.from_deal(R2, hands, yard)
    for seat, (a, b, toe) in [(1, (9, 1, 0)), (0, (9, 0, 1)), (1, (9, 3, 2)), (0, (9, 2, 3)), (1, (9, 5, 4)),
                              (0, (9, 4, 5))]:
        assert g.to_move == seat
        assert g.step(play(a, b, toe)) == [0, 0]
    # the double chickenfoot is complete: toes 0..5 open 1, 0, 3, 2, 5, 4
    assert [t.open for t in g.hand.toes] == [1, 0, 3, 2, 5, 4]
    assert g.to_move == 1
    assert g.legal_actions() == sorted([play(4, 2, 3), play(4, 2, 5), play(4, 3, 2), play(4, 3, 5),
                                        play(4, 6, 5), play(0, 0, 1)])
    g.step(play(4, 3, 2))  # toe 2 now open 4
    assert g.legal_actions() == sorted([play(4, 4, 2), play(4, 4, 5), play(4, 1, 0), play(4, 1, 2),
                                        play(4, 1, 5), play(0, 5, 1), play(0, 5, 4)])
    g.step(play(4, 4, 5))  # CK7: a chickenfoot on toe 5: toe 5 goes on, toes 6 and 7 are new
    assert len(g.hand.toes) == 8 and g.hand.foot_queue == [5, 6, 7] and g.hand.foot_number == 4
    # CK9: seat 1 must fill it, on toe 5 first; 4-2 no longer goes on toe 3, nor 0-0 on toe 1
    assert g.to_move == 1 and g.legal_actions() == sorted([play(4, 2, 5), play(4, 6, 5)])
    g.step(play(4, 6, 5))
    assert g.legal_actions() == [play(4, 1, 6)]  # seat 0's 0-5 would fit toe 1: not yet
    g.step(play(4, 1, 6))
    assert g.legal_actions() == [play(4, 2, 7)]
    g.step(play(4, 2, 7))
    assert g.hand.foot_queue == [] and g.to_move == 0
    assert g.legal_actions() == sorted([play(0, 5, 1), play(0, 5, 4)])
    # seat 0 plays his last tile: seat 1 keeps 8-8 and 0-0: 16 pips + 50 (CK12)
    points = g.step(play(0, 5, 1))
    assert points == [0, -66] and g.scores == [0, 66]
    assert g.done and g.winner == 0 and g.legal_actions() == []
    with pytest.raises(ValueError, match="over"):
        g.step(PASS)


def test_an_illegal_action_names_the_legal_ones_and_changes_nothing():
    hands, yard = deal(R2, CHICKEN_HANDS)
    g = ChickenfootGame.from_deal(R2, hands, yard)
    before = (g.observe(0).tobytes(), g.observe(1).tobytes(), g.legal_actions())
    for bad in (DRAW, PASS, play(9, 3, 1), -1, 10**6, 1.0, True, "draw"):
        with pytest.raises(ValueError, match="legal: "):
            g.step(bad)
    assert (g.observe(0).tobytes(), g.observe(1).tobytes(), g.legal_actions()) == before


# --------------------------------------------------------------------------- CK3, CK5
def _fisher_yates(rng, n):
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        j = rng.below(i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def _first_seed_without(double_index, n, k, N, want_lower=True):
    """A seed whose first deal leaves the double in the yard (and, if asked, some lower double in a hand)."""
    for seed in range(10_000):
        order = _fisher_yates(SplitMix64(seed), N)
        dealt = set(order[: n * k])
        if double_index not in dealt:
            return seed, order
    raise AssertionError("no such seed")


@pytest.mark.parametrize("n", [2, 8])
def test_the_deal_and_a_missing_set_double(n):
    rules = make_chickenfoot_rules(n)
    k, N = rules.hand_size, 55
    seed, order = _first_seed_without(tile(9, 9), n, k, N)
    g = ChickenfootGame(rules, seed)
    # CK3: seat s holds order[s*k:(s+1)*k] (the setter less his set double); the yard is the rest
    hands = [order[s * k:(s + 1) * k] for s in range(n)]
    # CK5 next_lower: the highest lower double held sets
    holder_of = {t: s for s, h in enumerate(hands) for t in h}
    d = next(d for d in range(8, -1, -1) if tile(d, d) in holder_of)
    setter = holder_of[tile(d, d)]
    assert g.hand.set_number == d and g.hand.setter == setter and g.to_move == (setter + 1) % n
    assert g.hand.yard == order[n * k:]
    for s in range(n):
        assert sorted(g.hand.hands[s]) == sorted(t for t in hands[s] if t != tile(d, d))
    # redeal: deal again on the same stream until someone holds 9-9
    g2 = ChickenfootGame(make_chickenfoot_rules(n, missing_set="redeal"), seed)
    rng = SplitMix64(seed)
    while True:
        order = _fisher_yates(rng, N)
        if tile(9, 9) in order[: n * k]:
            break
    assert g2.hand.set_number == 9 and g2.hand.yard == order[n * k:]
    assert g2.hand.setter == next(s for s in range(n) if tile(9, 9) in order[s * k:(s + 1) * k])


# --------------------------------------------------------------------------- CK11, CK12, CK13
def _play_random(g, rnd):
    while not g.done:
        g.step(rnd.choice(g.legal_actions()))


@pytest.mark.parametrize("match,sets", [("descending", list(range(9, -1, -1))),
                                        ("longer", list(range(9, -1, -1)) + list(range(1, 10))),
                                        ("one_hand", [9])])
def test_the_match_sets_and_its_winner(match, sets):
    rules = make_chickenfoot_rules(3, match=match, missing_set="redeal")
    g = ChickenfootGame(rules, 5)
    rnd = random.Random(5)
    total = [0, 0, 0]
    seen_sets = [g.hand.set_number]
    while not g.done:
        hand = g.hand
        pts = g.step(rnd.choice(g.legal_actions()))
        total = [x + p for x, p in zip(total, pts)]
        if g.hand is not hand or g.done:
            # the hand that ended is scored: pips, +50 for 0-0 (CK12); a hand ends by going out or blocked
            pips = [sum(a + b for a, b in (TS.tiles[t] for t in h)) + (50 if tile(0, 0) in h else 0)
                    for h in hand.hands]
            assert hand.penalties == pips
            assert any(not h for h in hand.hands) or (not hand.yard and not any(
                hand.places(t) for h in hand.hands for t in h))
            if not g.done:
                seen_sets.append(g.hand.set_number)
    assert seen_sets == sets
    assert [-x for x in total] == g.scores  # step points are the negated penalties
    low = min(g.scores)
    assert g.winner == (g.scores.index(low) if g.scores.count(low) == 1 else None)


def test_blocked_hands_end_and_score():
    blocked = 0
    for seed in range(40):
        g = ChickenfootGame(make_chickenfoot_rules(2, match="one_hand"), seed)
        _play_random(g, random.Random(seed))
        h = g.hand
        if h.blocked:
            blocked += 1
            assert not h.yard and all(h.hands)
            assert not any(h.places(t) for hand in h.hands for t in hand)
    assert blocked > 0


def test_a_tie_for_lowest_total_has_no_winner():
    # seat 1 goes out with his only tile; seat 0 keeps 9-0 and 4-6: 19, level with seat 1's 19 before
    hands, yard = deal(R2, [[(9, 9), (9, 0), (4, 6)], [(9, 2)]])
    g = ChickenfootGame.from_deal(R2, hands, yard, scores=[0, 19])
    assert g.legal_actions() == [play(9, 2, 0)]
    assert g.step(play(9, 2, 0)) == [-19, 0]
    assert g.done and g.scores == [19, 19] and g.winner is None and g.winners == []


# --------------------------------------------------------------------------- CK15: nothing hidden leaks
@pytest.mark.parametrize("n,tileset", [(2, "double_nine"), (4, "double_twelve"), (8, "double_nine")])
def test_observation_reads_no_hidden_tile(n, tileset):
    rules = make_chickenfoot_rules(n, tileset=tileset)
    rnd = random.Random(n)
    g = ChickenfootGame(rules, 11)
    for _ in range(60):
        g.step(rnd.choice(g.legal_actions()))
    for seat in range(n):
        before = g.observe(seat)
        other = copy.deepcopy(g)
        h = other.hand
        hidden = [t for s in range(n) if s != seat for t in h.hands[s]] + h.yard
        rnd.shuffle(hidden)
        at = 0
        for s in range(n):
            if s != seat:
                size = len(h.hands[s])
                h.hands[s], at = hidden[at:at + size], at + size
        h.yard = hidden[at:]
        assert np.array_equal(other.observe(seat), before)
        assert np.array_equal(other.observe(seat, "uint8"), g.observe(seat, "uint8"))


def test_observation_slices_and_compact_form():
    hands, yard = deal(R2, CHICKEN_HANDS)
    g = ChickenfootGame.from_deal(R2, hands, yard)
    lay = enc.observation_layout(R2)

    def sl(obs, name):
        a, b, shape = lay[name]
        return obs[a:b].reshape(shape)

    obs = g.observe(1)
    assert sl(obs, "foot_left")[0] == 6 and sl(obs, "foot_number").argmax() == 9 and sl(obs, "foot_toe")[0] == 1
    assert list(sl(obs, "arm_exists")[:7]) == [1] * 6 + [0]
    assert list(sl(obs, "arm_playable")[:6]) == [1, 0, 0, 0, 0, 0]
    assert sl(obs, "placer")[tile(9, 9), 1] == 1  # seat 0 placed it: offset 1 from seat 1
    assert sl(obs, "tile_arm")[tile(9, 9), A] == 1
    assert sl(obs, "seat_hand_size")[:2].tolist() == [8, 6]
    assert sl(obs, "boneyard_size")[0] == 55 - 15 and sl(obs, "phase").argmax() == 1
    assert sl(obs, "hands_left")[0] == 1 and sl(obs, "hand_number")[0] == 0
    assert sl(obs, "hand")[[tile(9, 1), tile(0, 0)]].tolist() == [1, 1] and sl(obs, "hand").sum() == 8
    g2 = ChickenfootGame(make_chickenfoot_rules(3), 3)
    rnd = random.Random(3)
    for _ in range(300):
        g2.step(rnd.choice(g2.legal_actions()))
    for seat in range(3):
        assert np.array_equal(enc.decode_compact(g2.observe(seat, "uint8"), g2.rules), g2.observe(seat))
        assert enc.compact_scores(g2.observe(seat, "uint8"), g2.rules)[: 3].tolist() == \
            [g2.scores[(seat + r) % 3] for r in range(3)]


def test_records_replay_and_text_actions():
    g = ChickenfootGame(make_chickenfoot_rules(4), 21)
    rnd = random.Random(0)
    for _ in range(200):
        g.step(rnd.choice(g.legal_actions()))
    again = ChickenfootGame.from_record(g.record())
    assert again.actions == g.actions and again.scores == g.scores
    assert np.array_equal(again.observe(2), g.observe(2))
    r = g.rules
    for a in [play(9, 4, 3), DRAW, PASS, 55 * A + tile(9, 9)]:
        assert enc.parse(enc.describe(a, r), r) == a
    assert enc.describe(play(4, 9, 3), r) == "play 4-9 on T3"
    with pytest.raises(ValueError, match="play a-b on T"):
        enc.parse("play 4-9 on L1", r)
