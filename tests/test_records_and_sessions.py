"""Hand records replay exactly (penalties included); sessions carry chips and end cleanly."""

import json

import numpy as np
import pytest

from conftest import load_vector, vector_hand
from nos_env.engine import new_hand
from nos_env.options import Options
from nos_env.record import RecordMismatch, hand_record, load, playthrough, replay, save
from nos_env.session import Session


def test_record_round_trips_through_json(tmp_path):
    rng = np.random.default_rng(3)
    for _ in range(20):
        hand = new_hand(int(rng.integers(3, 6)), rng)
        for _ in range(int(rng.integers(0, 60))):
            if hand.over:
                break
            legal = hand.legal_actions()
            hand.step(legal[int(rng.integers(len(legal)))])
        path = tmp_path / "hand.json"
        save(hand_record(hand), path)
        again = replay(load(path))
        assert again.chips == hand.chips and again.ledger == hand.ledger
        assert again.hands == hand.hands and again.boneyard == hand.boneyard
        assert again.to_move == hand.to_move and again.phase == hand.phase


def test_a_tampered_record_is_caught():
    hand = vector_hand(load_vector("example8_game10_arm_begun_with_a_double_is_dead"))
    for step in load_vector("example8_game10_arm_begun_with_a_double_is_dead")["steps"]:
        if "automatic" not in step["action"]:
            hand.step(step["action"])
    record = hand_record(hand)
    record["chips"][0] += 1
    with pytest.raises(RecordMismatch, match="chips"):
        replay(record)
    record = hand_record(hand)
    record["actions"][3] = "play 6-6 C0 out 6"
    with pytest.raises(RecordMismatch, match="action 3"):
        replay(record)


def test_penalised_illegal_actions_are_recorded_and_replayed():
    """D16 penalty option: the illegal attempt is part of the record, so its 40s replay too."""
    vector = load_vector("example1_immediate_double_and_wait")
    hand = vector_hand(vector, Options(illegal="penalty"))
    # D25: all four are asked to declare (none can), then seat 1 declines his immediate doubles.
    for text in ["draw", "set 2-3", "announce ordinary"] + ["no-declare"] * 4 + ["decline"]:
        hand.step(text)
    assert hand.to_move == 2 and hand.phase == "immediate"
    hand.step("play 6-6 L0 out 6")  # seat 2 holds no [6-6]
    assert hand.chips == [485 + 40, 505 + 40, 505 - 120, 505 + 40]
    assert hand.to_move == 2
    again = replay(json.loads(json.dumps(hand_record(hand))))
    assert again.chips == hand.chips and again.ledger == hand.ledger
    assert "illegal play 6-6 L0 out 6" in [s["action"] for s in playthrough(hand_record(hand))["steps"]]


def play_out(hand, rng):
    while not hand.over:
        legal = hand.legal_actions()
        hand.step(legal[int(rng.integers(len(legal)))])


def test_session_carries_chips_and_the_loser_sets_next():
    rng = np.random.default_rng(0)
    session = Session(4, num_hands=6, seed=5, chips=[100, 200, 300, 400])
    for _ in range(6):
        hand = session.start_hand()
        play_out(hand, rng)
    first = session.hands[0]
    assert first.first_hand and first.chips_start == [100, 200, 300, 400]
    for before, after in zip(session.hands, session.hands[1:]):
        assert after.chips_start == before.chips
        assert after.on_set in before.losers and not after.first_hand
    assert session.finish() == session.hands[-1].chips
    with pytest.raises(RuntimeError, match="no hands left"):
        session.start_hand()


def test_d15_end_of_session_pot_keeps_the_total_and_is_applied_once():
    rng = np.random.default_rng(1)
    session = Session(4, num_hands=3, seed=2, end_settlement=True)
    for _ in range(3):
        play_out(session.start_hand(), rng)
    before = session.hands[-1].chips
    final = session.finish()
    assert sum(final) == sum(before)
    winners = {p.payee for p in session.settlement}
    assert len(winners) <= 1
    for seat, chips in enumerate(final):
        if seat not in winners:
            assert chips % 20 == 0 and before[seat] - chips == before[seat] % 20
    assert session.finish() == final  # a second call changes nothing


def test_session_argument_errors():
    with pytest.raises(ValueError, match="num_hands"):
        Session(4, num_hands=True)
    with pytest.raises(ValueError, match="num_hands"):
        Session(4, num_hands=0)
    session = Session(3, num_hands=2, seed=1)
    hand = session.start_hand()
    with pytest.raises(RuntimeError, match="not over"):
        session.start_hand()
    play_out(hand, np.random.default_rng(0))
    with pytest.raises(ValueError, match="first hand only"):
        session.start_hand(on_set=1)
    with pytest.raises(ValueError, match="first hand only"):
        session.start_hand(first_hand=True)


def test_session_first_hand_options():
    d20 = Session(4, seed=3).start_hand(first_hand=False)
    assert not d20.first_hand
    chosen = Session(4, seed=3).start_hand(on_set=2)
    assert chosen.on_set == 2 and not chosen.first_hand
    rule = Session(4, seed=3).start_hand()
    assert rule.first_hand
    held = [t for t in rule.deal.hands[rule.on_set] if t[0] == t[1]]
    everyone = [t for h in rule.deal.hands for t in h if t[0] == t[1]]
    assert max(held) == max(everyone)  # the holder of the highest double is on set


def test_d2_a_tie_for_loser_is_broken_at_random_among_the_tied():
    class TiedHand:
        losers = [1, 3]

    picks = [Session(4, seed=seed)._pick_loser(TiedHand()) for seed in range(200)]
    assert set(picks) == {1, 3}
    assert 60 < picks.count(1) < 140  # uniform: about 100 of 200
    assert all(Session(4, seed=s)._pick_loser(TiedHand()) == p for s, p in enumerate(picks[:20]))  # seeded
