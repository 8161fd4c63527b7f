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
from nos_env.options import Options

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


def play(vector, options=None):
    """Replay every step and return the hand."""
    hand = None
    for _, _, hand in replay_steps(vector, options):
        pass
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


def play_through(vector, action, seat=None, nth=1, options=None):
    """Replay up to and including the ``nth`` step whose action is ``action`` (by ``seat``).

    Named steps, not step counts: D25 added the windows' forced no-declare and decline
    steps to every example, and a count would silently point at another position."""
    found = 0
    for _, step, hand in replay_steps(vector, options):
        if step["action"] == action and seat in (None, step["seat"]):
            found += 1
            if found == nth:
                return hand
    raise AssertionError(f"no step {nth} x {action!r} by seat {seat} in the vector")


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
    hand = play_through(v, "immediate 3-3 L1 out 3")  # C has placed [3-3] at once on the 3 side
    assert hand.phase == "immediate" and hand.to_move == 2  # D10: C is asked again after his double
    hand = play_through(v, "decline", seat=3)  # the window is over
    assert hand.phase == "play" and hand.to_move == 1  # play starts left of the setter
    assert hand.waits_owed[2] == [1]
    hand = play(v)
    assert hand.to_move == 3  # C's turn was his wait
    assert hand.waits_owed[2] == []
    assert legal(hand) == {"draw"} | with_close("play 0-6 L0 out 0", "play 5-6 L0 out 5", "play 3-4 L1 out 4")


def test_example2_the_four_side_is_locked_until_three_tiles_on_the_two_side():
    v = load_vector("example2_first_condition_lock_and_late_wait")
    hand = play_through(v, "play 2-6 L0 out 6")  # B has played [2-6]
    assert hand.to_move == 2  # C owes a wait, but his arm L1 is locked (D11): he plays
    assert hand.layout.locked(1) and not hand.layout.locked(0)
    assert legal(hand) == {"draw"} | with_close("play 3-6 L0 out 3")
    assert hand.layout.outs(1, (4, 6)) == []  # [4-6] would match the 4, but the side is locked
    hand = play_through(v, "play 0-3 L0 out 0")  # D has played [3-0]: three tiles on L0
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
    hand = play_through(v, "decline", seat=3)  # announced ordinary FHTT(the 5 side) +switch; windows over
    assert hand.to_move == 1
    assert legal(hand) == {"draw"} | with_close("play 2-5 L1 out 2", "play 5-6 L1 out 6")
    hand = play_through(v, "play 5-6 L1 out 6")
    assert legal(hand) == {"draw"} | with_close("play 3-4 L0 out 4")  # now the 3 side, ordinary
    hand = play_through(v, "play 3-4 L0 out 4")  # condition fulfilled: matador on both arms
    assert hand.layout.rule_in_force(0) == hand.layout.rule_in_force(1) == "matador"
    assert legal(hand) == {"draw"} | with_close(
        "play 0-0 L0 out 0", "play 0-0 L1 out 0", "play 1-2 L1 out 2", "play 3-6 L0 out 6"
    )


def test_example7_volapuk_three_ordinary_on_the_six_first():
    v = load_vector("example7_volapuk_first_three_on_the_six")
    hand = play_through(v, "decline", seat=3)
    assert hand.to_move == 1
    assert legal(hand) == {"draw"} | with_close("play 2-6 L1 out 2")  # the 1 side is locked
    hand = play(v)  # three tiles on the 6 side: the 1 side opens, by matador matching
    assert hand.to_move == 0
    assert legal(hand) == {"draw"} | with_close("play 1-4 L1 out 1", "play 5-6 L0 out 5")


def test_example8_an_arm_begun_with_a_double_is_dead_in_game_10():
    v = load_vector("example8_game10_arm_begun_with_a_double_is_dead")
    hand = play_through(v, "play 3-5 C3 out 5")  # the cross is complete
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
    hand = play_through(v, "decline", seat=3)
    assert hand.to_move == 1 and legal(hand) == {"draw"}
    hand = play_through(v, "draw", seat=1, nth=2)  # drew [0-4] and [0-5]: still no matador
    assert legal(hand) == {"draw"}
    hand = play_through(v, "draw", seat=1, nth=3)  # drew [1-6]
    plays = [f"play 1-6 T{arm} out {out}" for arm in range(3) for out in (1, 6)]
    assert legal(hand) == {"draw"} | with_close(*plays)


def test_d25_every_seat_is_asked_in_both_windows():
    """D25: the declaration window asks every seat from left of the setter, the setter last;
    the immediate window every seat but the setter, again after each double placed. A seat
    with nothing eligible has one legal action. Example 1: nobody was dealt 3 doubles (D8);
    seat 2's [3-3] fits the 3 side of the set [2-3]; seat 3's [1-1] fits neither end."""
    asked = [
        (step["seat"], legal(hand))
        for _, step, hand in _before_each(load_vector("example1_immediate_double_and_wait"))
        if hand.phase in ("declare", "immediate")
    ]
    assert asked == [
        (1, {"no-declare"}), (2, {"no-declare"}), (3, {"no-declare"}), (0, {"no-declare"}),
        (1, {"decline"}), (2, {"immediate 3-3 L1 out 3", "decline"}), (2, {"decline"}), (3, {"decline"}),
    ]


@pytest.mark.parametrize("auto_forced", [False, True])
@pytest.mark.parametrize("backend", ["fast", "reference"])
@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_vector_replays_through_the_aec_environment(name, backend, auto_forced):
    """The worked examples through nos_env.env() on both backends: the agent asked is the step's
    seat, every seat's reward is its chip change (the chips scale is 1), and the chips match. With
    D12 on, one-choice steps (D25's forced no-declare and decline among them) are not asked: the
    environment applies them, with their payments, within the step before."""
    import nos_env

    vector = load_vector(name)
    n, steps = vector["num_players"], vector["steps"]
    asked = [i for i, _, hand in _before_each(vector) if not (auto_forced and len(hand.legal_actions()) == 1)]

    def chips_before(i):  # the chips after every vector step before index i
        return steps[i - 1]["chips_after"] if i > 0 else vector["chips_start"]

    env = nos_env.env(num_players=n, backend=backend, auto_forced=auto_forced)
    env.reset(options={"deal": {"hands": vector["hands"], "boneyard_top_first": vector["boneyard_top_first"]},
                       "on_set": vector["on_set"], "chips": vector["chips_start"]})
    raw = env.unwrapped
    assert raw.chips == chips_before(asked[0])
    for i, nxt in zip(asked, asked[1:] + [len(steps)]):
        assert env.agent_selection == f"player_{steps[i]['seat']}", steps[i]
        env.step(raw.text_to_action(steps[i]["action"]))
        before, after = chips_before(i), chips_before(nxt)
        assert raw.chips == after, steps[i]
        assert [env.rewards[f"player_{s}"] for s in range(n)] == [a - b for a, b in zip(after, before)], steps[i]
    assert all(env.terminations.values()) == vector["hand_over"]
