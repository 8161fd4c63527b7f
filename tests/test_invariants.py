"""Invariants over thousands of random hands for 3, 4 and 5 players.

After every step: the chip total is unchanged (section 1: payments only move
chips), all 28 tiles are somewhere exactly once, and the player to move has
at least one legal action, with no duplicates. Every hand ends. Every
legal action's text parses back to the same action.
"""

import collections

import numpy as np
import pytest

from nos_env.actions import format_action, parse_action
from nos_env.engine import new_hand
from nos_env.options import Options
from nos_env.record import hand_record, replay
from nos_env.tiles import ALL_TILES

HANDS_PER_COUNT = 2000
MAX_DECISIONS = 400  # far above any real hand: 28 tiles, few draws, bounded passes


def random_policy(rng, close_rate):
    def choose(legal):
        if rng.random() >= close_rate:
            plain = [a for a in legal if not a.close]
            if plain:
                return plain[int(rng.integers(len(plain)))]
        return legal[int(rng.integers(len(legal)))]

    return choose


@pytest.mark.parametrize("num_players", [3, 4, 5])
def test_random_hands_keep_the_invariants(num_players):
    rng = np.random.default_rng(1000 + num_players)
    games = collections.Counter()
    reasons = collections.Counter()
    for i in range(HANDS_PER_COUNT):
        # Mix the options and the closing appetite so every path gets exercised.
        options = Options(auto_forced=bool(i % 3 == 0))
        choose = random_policy(rng, close_rate=(0.5, 0.05, 0.0)[i % 3])
        hand = new_hand(num_players, rng, options=options, first_hand=(i % 7 == 0))
        total = sum(hand.chips)
        for _ in range(MAX_DECISIONS):
            assert sum(hand.chips) == total
            assert sorted(hand.tiles_accounted()) == list(ALL_TILES)
            if hand.over:
                break
            legal = hand.legal_actions()
            assert legal, f"no legal action: {hand!r}"
            assert len(set(legal)) == len(legal), "duplicate legal actions"
            hand.step(choose(legal))
        else:
            pytest.fail(f"hand did not end within {MAX_DECISIONS} decisions: {hand!r}")
        assert hand.end_reason in ("out", "close", "blocked")
        assert hand.counts is not None and max(hand.counts) == hand.counts[hand.losers[0]]
        assert sum(hand.chips) == total
        games[hand.announcement.game] += 1
        reasons[hand.end_reason] += 1
        if i % 50 == 0:
            again = replay(hand_record(hand))  # records replay exactly
            assert again.chips == hand.chips and again.ledger == hand.ledger
    assert set(reasons) == {"out", "close", "blocked"}
    assert sorted(games) == list(range(1, 18)), f"games never announced: {set(range(1, 18)) - set(games)}"


def test_every_legal_action_text_round_trips():
    rng = np.random.default_rng(7)
    seen_kinds = set()
    for _ in range(300):
        hand = new_hand(int(rng.integers(3, 6)), rng)
        while not hand.over:
            legal = hand.legal_actions()
            for action in legal:
                text = format_action(action)
                assert parse_action(text) == action
                assert format_action(parse_action(text)) == text
                assert hand.resolve(text) == action
                seen_kinds.add(action.kind)
            hand.step(legal[int(rng.integers(len(legal)))])
    assert seen_kinds >= {"draw", "set", "announce", "play", "pass", "decline", "immediate"}
