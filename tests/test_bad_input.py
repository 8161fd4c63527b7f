"""Bad arguments and illegal actions raise clear errors (D16) and change nothing.

Issue 13: every refused call, on the reference engine, both AEC backends and the vector
API, leaves the state exactly as it was (compared field by field, every array of the fast
tables and the random streams included) and says what was wrong and what is allowed; no
silent coercions; record errors are record errors.
"""

import copy
import json
import math
import re

import numpy as np
import pytest

import nos_env
from nos_env.games import nos as K
from nos_env.actions import parse_action
from nos_env.deal import Deal
from nos_env.encoding import NUM_ACTIONS, action_to_index
from nos_env.engine import Hand, IllegalActionError, new_hand
from nos_env.options import Options
from nos_env.fast_engine import ARRAYS, FastTables
from nos_env.announcements import parse_announcement
from nos_env.options import CHIP_GUARD, CHIP_LIMIT, MAX_HANDS_PER_EPISODE
from nos_env.record import (RecordError, RecordMismatch, hand_record, load, playthrough, replay, save,
                            start_from_record)
from nos_env.session import Session
from nos_env.tiles import ALL_TILES, parse_tile, tile_str

ALL = [tile_str(t) for t in ALL_TILES]


def four_player_deal():
    return Deal.from_tiles([ALL[0:4], ALL[4:8], ALL[8:12], ALL[12:16]], ALL[16:])


@pytest.mark.parametrize("n", [5.5, 2, 6, "4", True, None])
def test_player_count_must_be_3_4_or_5(n):
    with pytest.raises(ValueError, match="3, 4 or 5"):
        new_hand(n)
    with pytest.raises(ValueError, match="3, 4 or 5"):
        Session(n)


def test_deal_with_27_tiles():
    with pytest.raises(ValueError, match="all 28 tiles.*27"):
        Deal.from_tiles([ALL[0:4], ALL[4:8], ALL[8:12], ALL[12:16]], ALL[16:27])


def test_deal_with_a_duplicated_tile():
    boneyard = ALL[16:27] + ["0-0"]
    with pytest.raises(ValueError, match="0-0 appears twice"):
        Deal.from_tiles([ALL[0:4], ALL[4:8], ALL[8:12], ALL[12:16]], boneyard)


def test_deal_with_a_wrong_hand_size():
    with pytest.raises(ValueError, match="4 tiles; seat 1 has 5"):
        Deal.from_tiles([ALL[0:4], ALL[4:9], ALL[9:13], ALL[13:17]], ALL[17:])


@pytest.mark.parametrize("text", ["7-1", "1-", "12", "a-b", "1-2-3", ""])
def test_bad_tile_text(text):
    with pytest.raises(ValueError, match="not a tile"):
        parse_tile(text)


@pytest.mark.parametrize(
    "text", ["jump", "play", "play 2-6", "play 2-6 X1", "set", "draw 2", "immediate 3-3 L1 out 3 close"]
)
def test_unknown_action_text(text):
    with pytest.raises(ValueError):
        parse_action(text)


def test_unknown_announcement_text():
    with pytest.raises(ValueError, match="unknown announcement 'ordinary crosss'"):
        parse_announcement("ordinary crosss")
    with pytest.raises(ValueError, match="unknown announcement"):
        parse_action("announce ordinary FIRST(L0,5)")  # k is 1..4


def test_bad_seat_and_chips():
    deal = four_player_deal()
    with pytest.raises(ValueError, match="on_set must be a seat 0..3"):
        Hand(deal, on_set=4)
    with pytest.raises(ValueError, match="on_set is required"):
        Hand(deal)
    with pytest.raises(ValueError, match="one number per seat"):
        Hand(deal, on_set=0, chips=[500, 500, 500])
    with pytest.raises(ValueError, match="illegal must be"):
        Options(illegal="ignore")


def snapshot(hand):
    return copy.deepcopy(
        (hand.chips, hand.ledger, hand.to_move, hand.phase, hand.hands, hand.boneyard,
         hand.legal_action_texts(), len(hand.events), hand.actions)
    )


def test_illegal_action_names_itself_and_the_legal_ones_and_changes_nothing():
    hand = Hand(four_player_deal(), on_set=0)  # seat 0 holds 0-0 and sets it
    assert hand.legal_action_texts() == ["set 0-0"]
    before = snapshot(hand)
    with pytest.raises(IllegalActionError) as err:
        hand.step("set 0-1")
    message = str(err.value)
    assert "illegal action set 0-1" in message and "legal: set 0-0" in message
    assert err.value.legal == ["set 0-0"]
    assert snapshot(hand) == before
    hand.step("set 0-0")
    hand.step("announce triangle")
    before = snapshot(hand)
    for bad in ["pass", "play 0-1 T0 out 1", "play 1-6 T3 out 6", "announce ordinary", "draw 3"]:
        with pytest.raises(ValueError):
            hand.step(bad)
        assert snapshot(hand) == before


def test_an_ambiguous_short_play_is_refused_with_the_choices():
    hand = Hand(four_player_deal(), on_set=0)
    hand.step("set 0-0")
    hand.step("announce triangle")
    while hand.phase in ("declare", "immediate"):  # D25: every seat is asked; nobody acts here
        hand.step("no-declare" if hand.phase == "declare" else "decline")
    while "draw" in hand.legal_action_texts() and not any(a.kind == "play" for a in hand.legal_actions()):
        hand.step("draw")
    play = next(a for a in hand.legal_actions() if a.kind == "play")
    short = f"play {tile_str(play.tile)} {play.arm}"
    with pytest.raises(ValueError, match="ambiguous: name the outward number"):
        hand.step(short)


def test_stepping_a_finished_hand_is_an_error():
    hand = new_hand(3, seed=1)
    while not hand.over:
        hand.step(hand.legal_actions()[0])
    with pytest.raises(IllegalActionError, match="phase 'over'"):
        hand.step("pass")


def test_first_hand_rule_refuses_a_deal_without_doubles_and_the_wrong_setter():
    no_doubles = [t for t in ALL if t[0] != t[2]]
    doubles = [t for t in ALL if t[0] == t[2]]
    deal = Deal.from_tiles([no_doubles[0:4], no_doubles[4:8], no_doubles[8:12], no_doubles[12:16]],
                           no_doubles[16:] + doubles)
    with pytest.raises(ValueError, match="nobody holds a double"):
        Hand(deal, first_hand=True)
    with pytest.raises(ValueError, match="seat 3 holds the highest double 2-2, so seat 2 cannot be on set"):
        Hand(four_player_deal(), on_set=2, first_hand=True)


# ------------------------------------------------------------------------ issue 13: the helpers
BACKENDS = ["reference", "fast"]
NAN = float("nan")


def state_of(x):
    """Everything an object holds, as plain comparable values (arrays by dtype, shape and bytes;
    objects by type and __dict__), so two calls can be compared field by field."""
    if x is None or isinstance(x, (bool, int, str, bytes)):
        return x
    if isinstance(x, float):
        return ("nan",) if math.isnan(x) else x
    if isinstance(x, np.ndarray):
        return ("ndarray", x.dtype.str, x.shape, x.tobytes())
    if isinstance(x, np.generic):
        return ("scalar", x.dtype.str, x.tobytes())
    if isinstance(x, dict):
        return ("dict", tuple((state_of(k), state_of(v)) for k, v in x.items()))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, tuple(state_of(v) for v in x))
    if isinstance(x, (set, frozenset)):
        return ("set", frozenset(state_of(v) for v in x))
    if callable(x):  # numba dispatchers, bound methods: code, not state
        return ("callable", getattr(x, "__qualname__", type(x).__qualname__))
    if hasattr(x, "__dict__"):
        return ("object", type(x).__qualname__, state_of(vars(x)))
    return ("repr", repr(x))


def first_difference(a, b, path="state"):
    """Where two state_of() values first differ, as a readable path (field names, indices)."""
    if type(a) is not type(b) or not isinstance(a, tuple) or len(a) != len(b):
        return None if a == b else path
    if len(a) == 2 and a[0] == "dict" and len(a[1]) == len(b[1]):
        for (key, x), (key_b, y) in zip(a[1], b[1]):
            found = first_difference(x, y, f"{path}.{key}") if key == key_b else f"{path} (keys)"
            if found:
                return found
        return None
    for i, (x, y) in enumerate(zip(a, b)):
        found = first_difference(x, y, path if i == 2 and a[0] == "object" else f"{path}[{i}]")
        if found:
            return found
    return None


def assert_same_state(before, after):
    assert before == after, f"the refused call changed {first_difference(before, after)}"


def env_state(e):
    raw = e.unwrapped
    if raw.backend.name == "reference" and raw.backend.hand is not None:
        raw.backend.hand.legal_actions()  # fill the legal-action cache first: it is derived, not state
    if raw.backend.name == "fast":
        # Every state array of the table (the random stream R included), copied.
        assert set(raw.backend.tables.clone()) == set(ARRAYS)
    return state_of(raw)


def no_doubles_deal():
    no_doubles = [t for t in ALL if t[0] != t[2]]
    doubles = [t for t in ALL if t[0] == t[2]]
    return Deal.from_tiles([no_doubles[0:4], no_doubles[4:8], no_doubles[8:12], no_doubles[12:16]],
                           no_doubles[16:] + doubles)


def deal_spec(deal):
    data = deal.to_json()
    return {"hands": data["hands"], "boneyard_top_first": data["boneyard_top_first"]}


def three_player_deal():
    return Deal.from_tiles([ALL[0:5], ALL[5:10], ALL[10:15]], ALL[15:])


def mid_hand_env(backend, steps=3, **kwargs):
    """An environment a few decisions into a hand (first legal action each time)."""
    e = nos_env.env(num_players=4, backend=backend, **kwargs)
    e.reset(seed=21)
    for _ in range(steps):
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    return e


DEAL = four_player_deal()

BAD_RESETS = [
    # (kwargs of reset, the words the message must hold: what was wrong and what is allowed)
    ({"seed": "abc"}, "seed must be an integer or None, got 'abc'"),
    ({"seed": 1.5}, "seed must be an integer or None, got 1.5"),
    ({"seed": True}, "seed must be an integer or None, got True"),
    ({"options": {"chips": [NAN] * 4}}, r"chips'\[0\] must be an integer within \+-500,000,000.*nan"),
    ({"options": {"chips": [1.5] * 4}}, r"chips'\[0\] must be an integer within .* got 1.5 \(float\)"),
    ({"options": {"chips": ["500"] * 4}}, r"chips'\[0\] must be an integer within .* got '500' \(str\)"),
    ({"options": {"chips": [True] * 4}}, r"must be an integer within .* got True \(bool\)"),
    ({"options": {"chips": [2**40] * 4}}, r"within \+-500,000,000 .* got 1099511627776"),
    ({"options": {"chips": [500] * 3}}, r"'chips' needs one number per seat \(4\), got 3"),
    ({"options": {"chips": "5005"}}, "must be a sequence of 4 integers"),
    ({"options": {"chips": np.full((2, 2), 500)}}, "must be a sequence of 4 integers"),
    ({"options": "chips"}, "reset options must be a dict or None"),
    ({"options": {"on_set": 1}}, "'on_set' needs a 'deal'"),
    ({"options": {"deal": deal_spec(DEAL), "on_set": 9}}, r"'on_set' must be a seat 0..3 .* got 9"),
    ({"seed": 5, "options": {"deal": deal_spec(DEAL), "on_set": 9}}, r"'on_set' must be a seat 0..3"),
    ({"options": {"deal": deal_spec(DEAL), "on_set": 1.0}}, r"'on_set' must be a seat 0..3 \(an integer\)"),
    ({"options": {"deal": deal_spec(three_player_deal()), "on_set": 0}}, "the deal is for 3 players, the "
                                                                        "environment for 4"),
    ({"options": {"deal": {"hands": [[(0.5, 0)] + ALL[1:4], ALL[4:8], ALL[8:12], ALL[12:16]],
                           "boneyard_top_first": ALL[16:]}}}, r"not a tile: \(0.5, 0\).*integers 0..6"),
    ({"options": {"deal": {"hands": []}}}, "boneyard_top_first"),
    ({"options": {"deal": deal_spec(DEAL), "chips": [1, 2]}}, "one number per seat"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("kwargs, message", BAD_RESETS, ids=[str(i) for i in range(len(BAD_RESETS))])
def test_a_refused_reset_changes_nothing(backend, kwargs, message):
    e = mid_hand_env(backend)
    before = env_state(e)
    with pytest.raises(ValueError, match=message):
        e.reset(**kwargs)
    assert_same_state(before, env_state(e))


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_first_hand_rule_on_a_deal_without_doubles_is_refused_before_any_change(backend):
    e = nos_env.env(num_players=4, backend=backend, hands_per_episode=2)  # sessions: first-hand rule
    e.reset(seed=4)
    before = env_state(e)
    with pytest.raises(ValueError, match="nobody holds a double"):
        e.reset(options={"deal": deal_spec(no_doubles_deal())})
    assert_same_state(before, env_state(e))


def test_reset_with_a_bad_seed_is_the_same_error_on_both_backends():
    errors = []
    for backend in BACKENDS:
        e = nos_env.env(num_players=4, backend=backend)
        with pytest.raises(ValueError) as info:
            e.reset(seed="abc")
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1] == (ValueError, "seed must be an integer or None, got 'abc' (str)")


BAD_STEPS = [
    (28.5, r"an integer 0..556 \(int or numpy integer.* got 28.5 \(float\)"),
    ("28", r"an integer 0..556 .* got '28' \(str\)"),
    (True, r"an integer 0..556 .* got True \(bool\)"),
    (np.float64(28.0), r"an integer 0..556 .* got np.float64\(28.0\)|got 28.0"),
    (np.array([28]), r"an integer 0..556 .* \(ndarray\)"),
    (NUM_ACTIONS, r"an integer 0..556 .* got 557 \(int\)"),
    (-1, r"an integer 0..556 .* got -1 \(int\)"),
    (None, r"None only for an agent that is done"),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("action, message", BAD_STEPS, ids=[repr(a) for a, _ in BAD_STEPS])
def test_a_refused_step_changes_nothing(backend, action, message):
    e = mid_hand_env(backend)
    before = env_state(e)
    with pytest.raises(ValueError, match=message):
        e.step(action)
    assert_same_state(before, env_state(e))


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_illegal_action_changes_nothing_and_lists_the_legal_ones(backend):
    e = mid_hand_env(backend)
    bad = int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0])
    before = env_state(e)
    with pytest.raises(IllegalActionError, match="illegal action .* legal: "):
        e.step(bad)
    assert_same_state(before, env_state(e))


@pytest.mark.parametrize("backend", BACKENDS)
def test_numpy_integer_actions_are_accepted(backend):
    for make in (np.int64, np.int16, np.uint16, lambda a: np.array(a)):
        e, twin = mid_hand_env(backend), mid_hand_env(backend)
        action = int(np.flatnonzero(e.last()[0]["action_mask"])[0])
        twin.last()
        e.step(make(action))
        twin.step(action)
        assert_same_state(env_state(twin), env_state(e))


@pytest.mark.parametrize("backend", BACKENDS)
def test_after_refused_calls_the_env_plays_the_same_games_as_one_that_never_got_them(backend):
    """Same seed, same actions: refused resets and steps must not touch the random stream or the hand."""
    clean = nos_env.env(num_players=4, backend=backend, hands_per_episode=2)
    poked = nos_env.env(num_players=4, backend=backend, hands_per_episode=2)
    rng = np.random.default_rng(5)
    bad_calls = [lambda e: e.reset(seed="abc"), lambda e: e.reset(options={"chips": [NAN] * 4}),
                 lambda e: e.reset(options={"deal": deal_spec(DEAL), "on_set": 9}),
                 lambda e: e.step(28.5), lambda e: e.step("28"), lambda e: e.step(True),
                 lambda e: e.step(int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0]))]
    for episode in range(3):
        kwargs = {"seed": 17} if episode == 0 else {}  # later resets continue the stream
        if episode:
            for call in bad_calls[:3]:
                with pytest.raises(ValueError):
                    call(poked)
        clean.reset(**kwargs)
        poked.reset(**kwargs)
        for agent in clean.agent_iter():
            obs, reward, term, trunc, info = clean.last()
            got = poked.last()
            assert poked.agent_selection == agent
            np.testing.assert_array_equal(got[0]["observation"], obs["observation"])
            np.testing.assert_array_equal(got[0]["action_mask"], obs["action_mask"])
            assert got[1:] == (reward, term, trunc, info)
            if term or trunc:
                clean.step(None)
                poked.step(None)
                continue
            if rng.random() < 0.3:
                for call in bad_calls[3:]:
                    with pytest.raises(ValueError):
                        call(poked)
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            clean.step(action)
            poked.step(action)
        assert poked.unwrapped.chips == clean.unwrapped.chips


# ------------------------------------------------------------------------ vector API
B = 3


def mid_hand_vector(**kwargs):
    venv = nos_env.vector_env(B, num_players=4, seed=2, **kwargs)
    _, masks, _ = venv.reset()
    for _ in range(3):
        venv.step(np.array([np.flatnonzero(m)[0] for m in venv.masks]))
    return venv


def vector_state(venv):
    state = state_of(venv)
    assert set(ARRAYS) == set(venv.clone())  # every array, R (the random streams) included
    return state


def five_player_snapshot():
    other = nos_env.vector_env(2, num_players=5, seed=0)
    other.reset()
    return other.clone_table(0)


def snapshot_with(**changes):
    venv = mid_hand_vector()
    snap = venv.clone_table(1)
    snap.update(changes)
    return snap


BAD_VECTOR_CALLS = [
    (lambda v: v.step(np.full(B, 28.5)), r"integer array of shape \(3,\) .* values 0..556; got dtype float64"),
    (lambda v: v.step(["28"] * B), r"integer array of shape \(3,\).*got dtype <U2"),
    (lambda v: v.step(np.ones(B, bool)), r"integer array .*got dtype bool"),
    (lambda v: v.step(np.zeros(B + 1, np.int64)), r"integer array of shape \(3,\).*got shape \(4,\)"),
    (lambda v: v.step(np.zeros((B, 1), np.int64)), r"got shape \(3, 1\)"),
    (lambda v: v.step(np.full(B, NUM_ACTIONS)), r"table 0's action 557 is outside 0..556"),
    (lambda v: v.step(np.full(B, -1)), r"table 0's action -1 is outside 0..556"),
    (lambda v: v.step(np.zeros(B, np.int64), observe="yes"), "observe must be True or False"),
    (lambda v: v.load_deal(-1, DEAL, on_set=0), r"table index must be an integer 0..2, got -1"),
    (lambda v: v.load_deal(B, DEAL, on_set=0), r"table index must be an integer 0..2, got 3"),
    (lambda v: v.load_deal(1.0, DEAL, on_set=0), r"table index must be an integer 0..2, got 1.0"),
    (lambda v: v.load_deal(True, DEAL, on_set=0), r"table index must be an integer 0..2, got True"),
    (lambda v: v.load_deal(1, DEAL, on_set=0, chips=[2**40] * 4), r"chips\[0\] must be an integer within "
                                                                  r"\+-500,000,000"),
    (lambda v: v.load_deal(1, DEAL, on_set=0, chips=[1.5] * 4), r"chips\[0\] must be an integer"),
    (lambda v: v.load_deal(1, DEAL, on_set=0, chips=[500] * 5), r"one number per seat \(4\), got 5"),
    (lambda v: v.load_deal(1, DEAL, on_set=9), r"on_set must be a seat 0..3"),
    (lambda v: v.load_deal(1, three_player_deal(), on_set=0), "the deal is for 3 players, the tables for 4"),
    (lambda v: v.load_deal(1, deal_spec(DEAL), on_set=0), "deal must be a Deal"),
    (lambda v: v.load_deal(1, no_doubles_deal(), first_hand=True), "nobody holds a double"),
    (lambda v: v.load_deal(1, DEAL, first_hand="yes"), "first_hand must be True or False"),
    (lambda v: v.restore_table(0, five_player_snapshot()), "snapshot is of a 5-player table, these tables "
                                                          "are for 4 players"),
    (lambda v: v.restore_table(0, snapshot_with(S=np.ones((5, K.NUM_S), np.int32))), "snapshot is of no table"),
    (lambda v: v.restore_table(0, {k: x for k, x in v.clone_table(1).items() if k != "PEN"}), "keys T, S, A"),
    (lambda v: v.restore_table(0, snapshot_with(S=np.zeros((5, K.NUM_S), np.int64))),
     r"snapshot array S must be int32 of shape \(5, 25\)"),
    (lambda v: v.restore_table(0, snapshot_with(T=0)), "snapshot array T must be int32"),
    (lambda v: v.restore_table(-1, v.clone_table(1)), r"table index must be an integer 0..2, got -1"),
    (lambda v: v.restore(nos_env.vector_env(B + 1, seed=0).clone()), r"snapshot array T must be int32 of shape "
                                                                       r"\(3, 24\)"),
    (lambda v: v.restore(nos_env.vector_env(B, seed=0, illegal_action="penalty").clone()),
     "PEN's width depends on illegal_action"),
    (lambda v: v.clone_table(-1), r"table index must be an integer 0..2, got -1"),
    (lambda v: v.hand(-1), r"table index must be an integer 0..2, got -1"),
    (lambda v: v.reset(seed="abc"), "seed must be an integer or None, got 'abc'"),
    (lambda v: v.observe(np.full(B, 1.5)), r"seats must be an integer array of shape \(3,\) with seat numbers "
                                           r"0..3"),
    (lambda v: v.observe(np.full(B, 4)), "seat numbers 0..3"),
    (lambda v: v.tables.reset_tables([B]), r"table indices 0..2"),
    (lambda v: v.tables.reset_tables([-1]), r"table indices 0..2"),
    (lambda v: v.tables.observe(np.zeros(B, np.int64), obs=np.zeros((B, 5), np.float32)), "obs must be"),
]


@pytest.mark.parametrize("call, message", BAD_VECTOR_CALLS, ids=[str(i) for i in range(len(BAD_VECTOR_CALLS))])
def test_a_refused_vector_call_changes_nothing(call, message):
    venv = mid_hand_vector()
    before = vector_state(venv)
    with pytest.raises(ValueError, match=message):
        call(venv)
    assert_same_state(before, vector_state(venv))


def test_an_illegal_vector_action_changes_nothing():
    venv = mid_hand_vector()
    before = vector_state(venv)
    bad = np.array([np.flatnonzero(m == 0)[0] for m in venv.masks])
    with pytest.raises(IllegalActionError, match=r"at table 0 .* legal: "):
        venv.step(bad)
    assert_same_state(before, vector_state(venv))


def test_a_refused_load_deal_before_the_first_reset_does_not_reset():
    """load_deal resets every table before the first reset(): a refused one must not."""
    venv = nos_env.vector_env(B, num_players=4, seed=2)
    before = vector_state(venv)
    with pytest.raises(ValueError, match="on_set must be a seat"):
        venv.load_deal(0, DEAL, on_set=9)
    assert_same_state(before, vector_state(venv))
    assert venv._needs_reset


def test_load_deal_chips_default_to_the_tables_starting_chips():
    venv = nos_env.vector_env(2, num_players=4, seed=2, starting_chips=1000)
    venv.load_deal(0, DEAL, on_set=0)
    assert venv.hand(0).chips_start == [1000] * 4


# ------------------------------------------------------------------------ sessions
def test_a_refused_start_hand_keeps_the_session_reproducible():
    """Issue 13.5: on_set=9 used to draw the deal before refusing the seat."""
    poked, clean = Session(4, num_hands=3, seed=8), Session(4, num_hands=3, seed=8)
    before = state_of(poked)
    for bad, message in [({"on_set": 9}, "on_set must be a seat 0..3"), ({"on_set": -1}, "seat 0..3"),
                         ({"on_set": 1.0}, r"seat 0..3 \(an integer\)"),
                         ({"first_hand": "yes"}, "first_hand must be True or False"),
                         ({"deal": three_player_deal()}, "the deal is for 3 players, the session for 4"),
                         ({"deal": deal_spec(DEAL)}, "deal must be a Deal"),
                         ({"deal": no_doubles_deal()}, "nobody holds a double")]:
        with pytest.raises(ValueError, match=message):
            poked.start_hand(**bad)
        assert_same_state(before, state_of(poked))
    rng_a, rng_b = np.random.default_rng(1), np.random.default_rng(1)
    for _ in range(3):
        a, b = poked.start_hand(), clean.start_hand()
        assert a.deal == b.deal and a.on_set == b.on_set
        while not a.over:
            legal = a.legal_actions()
            a.step(legal[int(rng_a.integers(len(legal)))])
            legal = b.legal_actions()
            b.step(legal[int(rng_b.integers(len(legal)))])
        if poked.hands_left:
            before = state_of(poked)
            with pytest.raises(ValueError, match="first hand only"):
                poked.start_hand(on_set=0)
            assert_same_state(before, state_of(poked))
    assert poked.finish() == clean.finish()


@pytest.mark.parametrize("kwargs, message", [
    ({"chips": 1.5}, r"chips must be a sequence of 4 integers|chips must be an integer"),
    ({"chips": "500"}, "chips must be a sequence of 4 integers"),
    ({"chips": [500, 500, 500, "500"]}, r"chips\[3\] must be an integer"),
    ({"chips": 10**9}, r"chips must be an integer within \+-500,000,000"),
    ({"seed": "abc"}, "seed must be an integer or None"),
    ({"seed": 1.5}, "seed must be an integer or None"),
    ({"num_hands": 2.0}, "num_hands must be an integer"),
    ({"end_settlement": 1}, "end_settlement must be True or False"),
])
def test_bad_session_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Session(4, **kwargs)


# ------------------------------------------------------------------------ hands and deals
def hand_state(hand):
    hand.legal_actions()  # fill the legal-action cache first: it is not state
    return state_of(hand)


@pytest.mark.parametrize("bad", ["set 0-1", "pass", "draw 2", "play 9-9 L0", 5, None])
def test_a_refused_hand_step_changes_no_field(bad):
    hand = Hand(DEAL, on_set=0)
    before = hand_state(hand)
    with pytest.raises((ValueError, TypeError)):
        hand.step(bad)
    assert_same_state(before, hand_state(hand))


@pytest.mark.parametrize("kwargs, message", [
    ({"chips": [1.5, 500, 500, 500]}, r"chips\[0\] must be an integer within .* got 1.5 \(float\)"),
    ({"chips": ["500"] * 4}, r"chips\[0\] must be an integer .* got '500' \(str\)"),
    ({"chips": [10**12] * 4}, r"chips\[0\] must be an integer within \+-600,010,000"),
    ({"on_set": True}, r"on_set must be a seat 0..3 \(an integer\), got True"),
    ({"on_set": 0, "first_hand": "no"}, "first_hand must be True or False"),
    ({"on_set": 0, "options": {"illegal": "penalty"}}, "options must be an Options"),
])
def test_bad_hand_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Hand(DEAL, **kwargs)


@pytest.mark.parametrize("tile", [(0.5, 0), (True, 0), ("0", 0), (0, 7), (0, 1, 2)])
def test_deal_tiles_are_never_coerced(tile):
    with pytest.raises(ValueError, match="not a tile|integers 0..6"):
        Deal.from_tiles([[tile] + ALL[1:4], ALL[4:8], ALL[8:12], ALL[12:16]], ALL[16:])


def test_numpy_integer_tile_numbers_are_accepted():
    deal = Deal.from_tiles([[(np.int64(0), np.int8(0))] + ALL[1:4], ALL[4:8], ALL[8:12], ALL[12:16]], ALL[16:])
    assert deal == DEAL and all(type(x) is int for x in deal.hands[0][0])


@pytest.mark.parametrize("kwargs, message", [
    ({"starting_chips": 1.5}, r"starting_chips must be an integer within \+-500,000,000"),
    ({"starting_chips": "500"}, "starting_chips must be an integer"),
    ({"starting_chips": CHIP_LIMIT + 1}, r"starting_chips must be an integer within \+-500,000,000"),
    ({"hands_per_episode": MAX_HANDS_PER_EPISODE + 1}, r"hands_per_episode must be an integer in 1..10000"),
    ({"hands_per_episode": 2.0}, "hands_per_episode must be an integer"),
    ({"auto_forced": "yes"}, "auto_forced must be True or False"),
    ({"first_hand_rule": 1}, "first_hand_rule must be True or False"),
])
@pytest.mark.parametrize("api", ["reference", "fast", "vector"])
def test_bad_options_everywhere(api, kwargs, message):
    with pytest.raises(ValueError, match=message):
        if api == "vector":
            nos_env.vector_env(2, **kwargs)
        else:
            nos_env.env(backend=api, **kwargs)


# ------------------------------------------------------------------------ chips (issue 13.3)
@pytest.mark.parametrize("chips", [CHIP_LIMIT, -CHIP_LIMIT])
def test_both_engines_agree_at_the_edges_of_the_chip_range(chips):
    """Chips at the limit, several hands, wrong closings: the fast engine stays exact (no wrap)."""
    results = []
    for backend in BACKENDS:
        e = nos_env.env(num_players=3, backend=backend, hands_per_episode=4, starting_chips=chips)
        e.reset(seed=3)
        rng = np.random.default_rng(3)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        results.append(e.unwrapped.chips)
    assert results[0] == results[1]
    assert sum(results[0]) == 3 * chips and results[0] != [chips] * 3


def test_vector_tables_and_the_reference_engine_agree_at_the_chip_limit():
    chips = [CHIP_LIMIT, -CHIP_LIMIT, CHIP_LIMIT, -CHIP_LIMIT]
    venv = nos_env.vector_env(1, num_players=4, seed=0)
    venv.load_deal(0, DEAL, on_set=0, chips=chips)
    hand = Hand(DEAL, on_set=0, chips=chips)
    while True:
        action = hand.legal_actions()[-1]  # in play: a play with a closing, mostly wrong (40 to each)
        hand.step(action)
        *_, terminated, infos = venv.step(np.array([action_to_index(action)]))
        if hand.over:
            break
        assert venv.hand(0).chips == hand.chips
    assert terminated[0] and infos["final_chips"][0].tolist() == hand.chips
    assert any(p.reason == "wrong_close" for p in hand.ledger)


@pytest.mark.parametrize("backend", BACKENDS)
def test_penalty_mode_refuses_to_step_beyond_the_chip_guard(backend):
    """D16 penalties are unbounded: past CHIP_GUARD every step is refused (OverflowError), nothing changes."""
    e = mid_hand_env(backend, illegal_action="penalty")
    raw = e.unwrapped
    if backend == "fast":
        raw.backend.tables.S[0, 0, K.S_CHIPS] = -CHIP_GUARD - 1  # as if a million penalties had been paid
        raw.backend.tables.S[0, 1, K.S_CHIPS] = CHIP_GUARD + 1
    else:
        raw.hand.chips[0] = -CHIP_GUARD - 1
        raw.hand.chips[1] = CHIP_GUARD + 1
    mask = e.last()[0]["action_mask"]
    before = env_state(e)
    for action in (int(np.flatnonzero(mask == 0)[0]), int(np.flatnonzero(mask)[0])):
        with pytest.raises(OverflowError, match=r"beyond \+-600,000,000"):
            e.step(action)
        assert_same_state(before, env_state(e))


# ------------------------------------------------------------------------ records (issue 13.7)
def finished_record():
    hand = new_hand(4, seed=2)
    while not hand.over:
        hand.step(hand.legal_actions()[0])
    return hand_record(hand)


@pytest.mark.parametrize("change, message", [
    (lambda r: r.pop("on_set"), r"missing key\(s\) \['on_set'\]"),
    (lambda r: r.pop("actions"), r"missing key\(s\) \['actions'\]"),
    (lambda r: r.pop("hands"), r"missing key\(s\) \['hands'\]"),
    (lambda r: r.update(options={"auto_forced": False, "foo": 1}), r"unknown option\(s\) \['foo'\]; known: "
                                                                   r"\['auto_forced', 'illegal'\]"),
    (lambda r: r.update(options={"illegal": "ignore"}), "illegal must be 'raise' or 'penalty'"),
    (lambda r: r["actions"].__setitem__(2, 5), r"action 2: an action must be a text .* got 5"),
    (lambda r: r["actions"].__setitem__(4, None), r"action 4: an action must be a text"),
    (lambda r: r["actions"].__setitem__(3, "fly"), r"action 3: 'fly' could not be replayed"),
    (lambda r: r.update(hands=r["hands"][:3]), "'num_players' is 4 but 'hands' holds 3"),
    (lambda r: r.update(hands=r["hands"][:3], num_players=3), "bad deal .*each seat is dealt 5 tiles"),
    (lambda r: r.update(on_set=7), r"bad start .*on_set must be a seat 0..3"),
    (lambda r: r.update(chips_start=[1.5] * 4), r"bad start .*chips_start|chips\[0\] must be an integer"),
    (lambda r: r.update(format="other/2"), "unknown record format 'other/2'"),
    (lambda r: r.update(actions="draw"), "'actions' must be a list of action texts"),
])
@pytest.mark.parametrize("use", ["replay", "playthrough", "load"])
def test_a_bad_record_is_a_record_error_naming_the_file_and_the_action(tmp_path, change, message, use):
    record = finished_record()
    change(record)
    path = tmp_path / "bad.json"
    save(record, path)
    with pytest.raises(RecordError, match=message) as info:
        if use == "replay":
            replay(record)
        elif use == "playthrough":
            playthrough(record)
        else:
            replay(load(path))
    assert isinstance(info.value, ValueError)
    if use == "load":
        assert str(path) in str(info.value) and info.value.path == str(path)
    else:
        assert str(info.value).startswith("record")


def test_record_errors_carry_the_action_index():
    record = finished_record()
    record["actions"][6] = 12
    with pytest.raises(RecordError) as info:
        start_from_record(record)
    assert info.value.step == 6 and "action 6" in str(info.value)


def test_a_file_that_is_not_json_is_a_record_error(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"format": ')
    with pytest.raises(RecordError, match=re.escape(f"record {path}: not JSON")):
        load(path)


def test_a_replay_mismatch_is_a_record_error_too():
    record = finished_record()
    record["chips"][0] += 1
    with pytest.raises(RecordMismatch, match="replay differs in chips") as info:
        replay(record)
    assert isinstance(info.value, RecordError) and isinstance(info.value, AssertionError)


def test_a_loaded_record_is_still_a_plain_json_dict(tmp_path):
    record = finished_record()
    path = tmp_path / "ok.json"
    save(record, path)
    loaded = load(path)
    assert loaded == record and json.loads(json.dumps(loaded)) == record
    assert replay(loaded).chips == record["chips"]


# ------------------------------------------------------------------------ penalties (issue 13.4)
def penalty_episode(e, seed):
    """A hand with many penalised attempts (D16): 14 illegal actions before each decision.
    Returns the number of attempts, and the hand and its rendering once 290 were made."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    attempts, mid = 0, None
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        mask = obs["action_mask"]
        for _ in range(14):
            e.step(int(rng.choice(np.flatnonzero(mask == 0))))
            attempts += 1
        if mid is None and attempts >= 290:  # mid-hand, well past MAX_HISTORY steps
            mid = (copy.deepcopy(e.unwrapped.hand), e.render(), e.unwrapped.chips)  # the reference's is live
        e.step(int(rng.choice(np.flatnonzero(mask))))
    return attempts, mid


def test_a_penalty_hand_of_any_length_works_on_both_backends():
    """More than 300 penalised attempts (MAX_HISTORY is 256): chips agree, hand and render work."""
    out = {}
    for backend in BACKENDS:
        e = nos_env.env(num_players=4, backend=backend, illegal_action="penalty", render_mode="ansi")
        attempts, mid = penalty_episode(e, seed=11)
        assert attempts > 300
        hand = e.unwrapped.hand
        assert hand.over and len(hand.actions) > attempts > K.MAX_HISTORY
        text = e.render()
        assert "hand over" in text and "penalty" in text
        mid_hand, mid_text, mid_chips = mid
        assert "to move" in mid_text and mid_hand.chips == mid_chips
        out[backend] = (e.unwrapped.chips, hand, mid_hand)
    (ref_chips, ref_hand, ref_mid), (fast_chips, fast_hand, fast_mid) = out["reference"], out["fast"]
    assert fast_chips == ref_chips == fast_hand.chips == ref_hand.chips
    # The rebuilt hand is exact but for which illegal action each penalty names: every payment
    # in order, every decision, and where each penalty came.
    assert fast_hand.ledger == ref_hand.ledger and fast_mid.ledger == ref_mid.ledger
    penalised = [[a.startswith("illegal ") for a in (e.action for e in h.events)] for h in (fast_hand, ref_hand)]
    assert penalised[0] == penalised[1] and sum(penalised[0]) > 300
    decisions = [[a for a, p in zip(h.actions, [x for x, e in zip(pen, h.events) if not e.automatic])
                  if not p] for h, pen in zip((fast_hand, ref_hand), penalised)]
    assert decisions[0] == decisions[1]


def test_penalty_counts_are_kept_per_position_and_cleared_for_the_next_hand():
    """Vector API, sessions of 3 hands: the penalty history stays bounded and exact."""
    venv = nos_env.vector_env(4, num_players=4, seed=9, illegal_action="penalty", hands_per_episode=3)
    venv.reset()
    rng = np.random.default_rng(9)
    hands_seen = checked = 0
    for step in range(1500):
        masks = venv.masks
        illegal = rng.random(4) < 0.7
        actions = np.array([rng.choice(np.flatnonzero(m == 0 if bad else m)) for m, bad in zip(masks, illegal)])
        before_index = venv.tables.T[:, K.T_HAND_INDEX].copy()
        *_, terminated, infos = venv.step(actions)
        new_hand = (venv.tables.T[:, K.T_HAND_INDEX] != before_index) | terminated
        for b in range(4):
            if new_hand[b]:
                hands_seen += 1
                # A new hand's penalty counts start at zero, and its history is empty.
                assert venv.tables.PEN[b].sum() == 0 and venv.tables.T[b, K.T_NHIST] == 0
            elif step % 50 == 0:
                checked += 1
                hand = venv.hand(b)
                assert hand.chips == venv.chips[b].tolist()
                assert sum(p.reason == "penalty" for p in hand.ledger) == 3 * int(venv.tables.PEN[b, :-1].sum())
                assert int(venv.tables.T[b, K.T_NHIST]) <= K.MAX_HISTORY
    assert hands_seen > 10 and checked > 20


def test_a_finished_table_takes_no_penalty():
    """autoreset off (search's scratch tables): nobody is to move at a finished table."""
    tables = FastTables(1, 4, seed=3, illegal_action="penalty")
    tables.reset_tables()
    while True:
        _, terminated, *_ = tables.step(tables.legal_actions(0)[:1], autoreset=False)
        if terminated[0]:
            break
    before = tables.clone()
    rewards, terminated, *_ = tables.step(np.zeros(1, np.int64), autoreset=False)
    assert not rewards.any()
    after = tables.clone()
    for name in ARRAYS:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)


@pytest.mark.parametrize("seed, message", [("abc", "seed must be an integer or None"), (1.5, "integer or None"),
                                           (-1, "seed must be an integer >= 0")])
def test_new_hand_seeds_are_checked(seed, message):
    with pytest.raises(ValueError, match=message):
        new_hand(4, seed=seed)


def test_the_chip_ranges_keep_int32_from_wrapping():
    """The arithmetic of options.py, from the engine's own payment constants (docs/fast_engine.md)."""
    from nos_env.engine import CLOSE_PAYMENT, DECLARED_DOUBLES, NOS_PAYMENT, WRONG_CLOSE_PAYMENT
    from nos_env.options import HAND_CHIP_LIMIT, HAND_SWING
    from nos_env.tiles import count_value

    pips = sum(count_value(t) for t in ALL_TILES)  # the most a count can be: every tile in one hand
    declared = max((n - 1) * amount for (n, _), amount in DECLARED_DOUBLES.items())
    plays = 27  # tiles a hand can place after the set tile, each at most one wrong closing
    loss = 11 * 4 + declared + 4 * 7 + 7 * 7 + NOS_PAYMENT + CLOSE_PAYMENT + plays * 4 * WRONG_CLOSE_PAYMENT + 4 * pips
    gain = 14 * 4 + declared + 4 * 7 + 7 * 7 + 4 * NOS_PAYMENT + 4 * CLOSE_PAYMENT + plays * WRONG_CLOSE_PAYMENT \
        + 4 * pips
    assert (loss, gain) == (6194, 3041) and max(loss, gain) < HAND_SWING
    assert CHIP_LIMIT + MAX_HANDS_PER_EPISODE * HAND_SWING <= CHIP_GUARD  # no episode gets beyond without penalties
    assert HAND_CHIP_LIMIT == CHIP_GUARD + HAND_SWING  # the guard stops the step after it is passed
    int32 = 2**31 - 1
    assert 2 * HAND_CHIP_LIMIT < int32  # chips since the episode or the hand began
    assert HAND_CHIP_LIMIT + CHIP_LIMIT + MAX_HANDS_PER_EPISODE * HAND_SWING < int32  # one reason's net
    assert MAX_HANDS_PER_EPISODE * plays < int32  # the closings counters


@pytest.mark.parametrize("n", [3, 4, 5])
def test_no_hand_moves_more_than_the_hand_swing(n):
    """Closing with every play (mostly wrong: 40 to each) is the costliest way to play a hand."""
    from nos_env.options import HAND_SWING

    rng = np.random.default_rng(n)
    worst = 0
    for _ in range(150):
        hand = new_hand(n, rng)
        while not hand.over:
            legal = hand.legal_actions()
            closing = [a for a in legal if getattr(a, "close", False)]
            hand.step(closing[int(rng.integers(len(closing)))] if closing else legal[int(rng.integers(len(legal)))])
        worst = max(worst, max(abs(c - s) for c, s in zip(hand.chips, hand.chips_start)))
    assert 400 < worst < HAND_SWING
