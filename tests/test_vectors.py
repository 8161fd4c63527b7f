"""docs/rules/nos.md §13: the worked examples, replayed from tests/data/vectors.

Every vector file is replayed step by step: the seat to move, the payments
each decision causes and every seat's chips after it must match, and the
automatic steps (waits, the draw after a correct closing) must happen where
the file says. Then each example's own point is checked: whose turn it is
and which moves are legal where the example names them.
"""

import json

import pytest

from conftest import VECTOR_NAMES, VECTORS, accepted_tiles, load_vector, vector_hand
from nos_env.engine import Options

def replay_steps(vector, options=None):
    """Yield (index, step, hand) after each vector step has been applied and checked."""
    hand = vector_hand(vector, options)
    seen = 0  # engine events already matched against vector steps
    for i, step in enumerate(vector["steps"]):
        if "automatic" in step["action"]:
            assert seen < len(hand.events), f"step {i}: expected an automatic {step['action']!r}"
            event = hand.events[seen]
            assert event.automatic and event.seat == step["seat"], (i, step, event)
            expected_kind = step["action"].split(" ")[0]  # "wait" or "draws"
            assert event.action.split(" ")[0] == expected_kind, (i, step, event)
            if expected_kind == "draws":
                assert event.action.split(" ")[1] == step["action"].split(" ")[1]
            assert [p.to_list() for p in event.payments] == step.get("payments", [])
            seen += 1
        else:
            assert hand.to_move == step["seat"], f"step {i} {step['action']!r}: seat {hand.to_move} to move"
            assert seen == len(hand.events), f"step {i}: engine logged automatic steps the vector lacks"
            payments = hand.step(step["action"])
            assert [p.to_list() for p in payments] == step.get("payments", []), f"step {i} {step['action']}"
            seen += 1
        assert hand.chips == step["chips_after"], f"step {i} {step['action']}"
        yield i, step, hand
    assert seen == len(hand.events), "the engine logged steps after the vector's last one"
    assert hand.over == vector["hand_over"]
    if vector["hand_over"]:
        assert hand.end_reason == vector["end_reason"]


def play(vector, upto=None, options=None):
    """Replay the first ``upto`` steps (all by default) and return the hand."""
    hand = None
    for i, _, hand in replay_steps(vector, options):
        if upto is not None and i + 1 == upto:
            break
    return hand


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_vector_replays_exactly(name):
    play(load_vector(name))


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_vector_replays_with_forced_decisions_automatic(name):
    """D12: applying one-choice decisions automatically changes nothing but who applies them."""
    vector = load_vector(name)
    manual = play(vector)
    auto = vector_hand(vector, Options(auto_forced=True))
    k = 0  # next engine event to match
    for step in vector["steps"]:
        kind = step["action"].split(" ")[0]
        if k < len(auto.events) and auto.events[k].seat == step["seat"] and (
            auto.events[k].action == step["action"] or auto.events[k].action.split(" ")[0] == kind
        ):
            assert auto.events[k].automatic  # the engine applied it: a one-choice step
            k += 1
            continue
        assert "automatic" not in step["action"]
        assert len(manual_legal_texts(vector, step)) > 1, f"{step} had one choice but was not automatic"
        auto.step(step["action"])
        k += 1
        assert auto.chips == step["chips_after"]
    assert auto.chips == manual.chips
    assert [p.to_list() for p in auto.ledger] == [p.to_list() for p in manual.ledger]


def manual_legal_texts(vector, target):
    """The legal actions at ``target`` in a replay without D12."""
    for _, step, hand in _before_each(vector):
        if step is target:
            return hand.legal_action_texts()
    raise AssertionError("step not found")


def _before_each(vector):
    """Yield (index, step, hand) with the hand as it was *before* each decision step."""
    hand = vector_hand(vector)
    for i, step in enumerate(vector["steps"]):
        if "automatic" in step["action"]:
            continue
        yield i, step, hand
        hand.step(step["action"])


def test_vectors_exist():
    assert len(VECTOR_NAMES) >= 10, VECTOR_NAMES
    for name in VECTOR_NAMES:
        assert json.loads((VECTORS / f"{name}.json").read_text())["steps"]


def legal(hand):
    return set(hand.legal_action_texts())


def with_close(*plays):
    return set(plays) | {p + " close" for p in plays}


def test_example1_wait_then_d_plays_on_the_six_or_the_three():
    v = load_vector("example1_immediate_double_and_wait")
    hand = play(v, upto=4)  # C has placed [3-3] at once on the 3 side
    assert hand.phase == "play" and hand.to_move == 1  # play starts left of the setter
    assert hand.waits_owed[2] == [1]
    hand = play(v)
    assert hand.to_move == 3  # C's turn was his wait
    assert hand.waits_owed[2] == []
    assert legal(hand) == {"draw"} | with_close("play 0-6 L0 out 0", "play 5-6 L0 out 5", "play 3-4 L1 out 4")


def test_example2_the_four_side_is_locked_until_three_tiles_on_the_two_side():
    v = load_vector("example2_first_condition_lock_and_late_wait")
    hand = play(v, upto=5)  # B has played [2-6]
    assert hand.to_move == 2  # C owes a wait, but his arm L1 is locked (D11): he plays
    assert hand.layout.locked(1) and not hand.layout.locked(0)
    assert legal(hand) == {"draw"} | with_close("play 3-6 L0 out 3")
    assert hand.layout.outs(1, (4, 6)) == []  # [4-6] would match the 4, but the side is locked
    hand = play(v, upto=7)  # D has played [3-0]: three tiles on L0
    assert hand.to_move == 0 and not hand.layout.locked(1)
    assert legal(hand) == {"draw"} | with_close("play 0-1 L0 out 1", "play 4-6 L1 out 6")
    hand = play(v)
    assert hand.to_move == 3  # C took his wait, D is next
    assert hand.waits_owed[2] == []


def test_example5_compulsory_doubles_and_the_open_six():
    hand = play(load_vector("example5_ordinary_double_cross"))
    assert accepted_tiles(hand, "C0") == {"0-0"}
    assert accepted_tiles(hand, "C3") == {"4-4"}
    assert accepted_tiles(hand, "C1") == {"3-5"}  # the last five
    assert accepted_tiles(hand, "C2") == {"0-6", "1-6", "2-6", "3-6", "4-6"}
    assert hand.to_move == 1


def test_example6_fhtt_then_switch_to_matador():
    v = load_vector("example6_fhtt_then_switch")
    hand = play(v, upto=3)  # announced: ordinary FHTT(the 5 side) +switch
    assert hand.to_move == 1
    assert legal(hand) == {"draw"} | with_close("play 2-5 L1 out 2", "play 5-6 L1 out 6")
    hand = play(v, upto=4)
    assert legal(hand) == {"draw"} | with_close("play 3-4 L0 out 4")  # now the 3 side, ordinary
    hand = play(v, upto=5)  # condition fulfilled: matador on both arms
    assert hand.layout.rule_in_force(0) == hand.layout.rule_in_force(1) == "matador"
    assert legal(hand) == {"draw"} | with_close(
        "play 0-0 L0 out 0", "play 0-0 L1 out 0", "play 1-2 L1 out 2", "play 3-6 L0 out 6"
    )


def test_example7_volapuk_three_ordinary_on_the_six_first():
    v = load_vector("example7_volapuk_first_three_on_the_six")
    hand = play(v, upto=3)
    assert hand.to_move == 1
    assert legal(hand) == {"draw"} | with_close("play 2-6 L1 out 2")  # the 1 side is locked
    hand = play(v)  # three tiles on the 6 side: the 1 side opens, by matador matching
    assert hand.to_move == 0
    assert legal(hand) == {"draw"} | with_close("play 1-4 L1 out 1", "play 5-6 L0 out 5")


def test_example8_an_arm_begun_with_a_double_is_dead_in_game_10():
    v = load_vector("example8_game10_arm_begun_with_a_double_is_dead")
    hand = play(v, upto=7)  # the cross is complete
    assert hand.layout.cross_complete()
    assert accepted_tiles(hand, "C0") == set() and hand.layout.is_dead(0)
    assert accepted_tiles(hand, "C1") == {"0-0"}
    assert accepted_tiles(hand, "C2") == {"1-1"}
    assert accepted_tiles(hand, "C3") == {"5-5"}
    hand = play(v)
    assert hand.over and hand.end_reason == "close" and hand.nos_seat == 1


def test_example9_game14_open_six_takes_only_one_one():
    hand = play(load_vector("example9_game14_open_six_takes_only_one_one"))
    assert accepted_tiles(hand, "T0") == {"1-1"}
    assert accepted_tiles(hand, "T1") == {"2-2"}
    assert accepted_tiles(hand, "T2") == {"3-3"}
    assert accepted_tiles(hand, "T3") == set()


def test_example10_triangle_forces_drawing():
    v = load_vector("example10_triangle_forces_drawing")
    hand = play(v, upto=2)
    assert hand.to_move == 1 and legal(hand) == {"draw"}
    hand = play(v, upto=4)  # drew [0-4] and [0-5]: still no matador
    assert legal(hand) == {"draw"}
    hand = play(v, upto=5)  # drew [1-6]
    plays = [f"play 1-6 T{arm} out {out}" for arm in range(3) for out in (1, 6)]
    assert legal(hand) == {"draw"} | with_close(*plays)
