"""Bad arguments and illegal actions raise clear errors (D16) and change nothing."""

import copy

import pytest

from nos_env.actions import parse_action
from nos_env.deal import Deal
from nos_env.engine import Hand, IllegalActionError, Options, new_hand
from nos_env.games import parse_announcement
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
    with pytest.raises(ValueError, match="one entry per seat"):
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
