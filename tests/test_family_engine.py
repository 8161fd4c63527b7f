"""The family reference engine (nos_env/family): self-play invariants for every game and player
count, records that replay, the deal against an independent SplitMix64 re-derivation, bad input,
and the observation layout (sizes; no other seat's hidden tiles).

Per-rule exact-score tests live in the rule tests; the worked examples used while building the
engine are asserted here too (cited by the page's example number).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

from nos_env.family import encoding as enc
from nos_env.family.engine import FamilyGame
from nos_env.family.record import dumps, loads
from nos_env.family.rules import GAMES, make_rules, options_table, player_counts

IMPLEMENTED = ("block", "draw", "cross", "double_nine_cross", "matador", "fours")


def tile(rules, a, b):
    from nos_env.kernels.tilesets import tile_set
    return tile_set(rules.max_pip).index[(min(a, b), max(a, b))]


# -- self-play invariants ------------------------------------------------------------------------
def check_invariants(game: FamilyGame) -> None:
    rules, hand = game.rules, game.hand
    every = sorted([t for h in hand.hands for t in h] + list(hand.boneyard) + hand.layout.on_table())
    assert every == list(range(rules.num_tiles)), "tiles are conserved: hands + boneyard + table = the set"
    placed = sum(len(arm.tiles) for arm in hand.layout.arms) + (hand.layout.set_tile is not None)
    assert placed == len(hand.layout.on_table())
    if rules.teams:
        assert game.scores[0] == game.scores[2] and game.scores[1] == game.scores[3]


def play_out(game: FamilyGame, rnd: random.Random, max_steps: int = 20000) -> list[int]:
    totals = [0] * game.rules.num_players
    start = list(game.scores)
    for _ in range(max_steps):
        if game.done:
            break
        legal = game.legal_actions()
        assert legal == sorted(legal) and legal, "legal actions are sorted and never empty"
        mask = game.legal_mask()
        assert list(np.flatnonzero(mask)) == legal
        # an illegal action is refused and nothing changes
        illegal = next(a for a in range(game.rules.num_actions) if a not in legal)
        before = json.dumps(game.record()), [sorted(h) for h in game.hand.hands], game.to_move
        with pytest.raises(ValueError, match="illegal action"):
            game.step(illegal)
        assert (json.dumps(game.record()), [sorted(h) for h in game.hand.hands], game.to_move) == before
        gained = game.step(rnd.choice(legal))
        assert all(g >= 0 for g in gained)
        totals = [a + b for a, b in zip(totals, gained)]
        check_invariants(game)
    assert game.done, "a match ends"
    assert [s - s0 for s, s0 in zip(game.scores, start)] == totals, "scores are the sum of the points gained"
    return totals


@pytest.mark.parametrize("game_id", IMPLEMENTED)
def test_selfplay_every_player_count(game_id):
    for n in player_counts(game_id):
        for seed in range(3):
            rules = make_rules(game_id, n, target_score=None) if seed == 2 else make_rules(game_id, n)
            game = FamilyGame(rules, seed=seed)
            play_out(game, random.Random(seed))
            if rules.target_score is not None:
                assert max(game.scores) >= rules.target_score
                assert game.scores[game.winner] == max(game.scores)


@pytest.mark.parametrize("game_id", [g for g in IMPLEMENTED if "teams" in options_table(g)])
@pytest.mark.parametrize("team_out", ["one", "both"])
def test_selfplay_teams(game_id, team_out):
    for seed in range(2):
        game = FamilyGame(make_rules(game_id, 4, teams=True, team_out=team_out), seed=seed)
        play_out(game, random.Random(seed))
        assert game.winners in ([0, 2], [1, 3])


@pytest.mark.parametrize("game_id", IMPLEMENTED)
def test_records_replay_exactly(game_id):
    rules = make_rules(game_id, player_counts(game_id)[0])
    game = FamilyGame(rules, seed=11)
    rnd = random.Random(5)
    for _ in range(60):
        if game.done:
            break
        game.step(rnd.choice(game.legal_actions()))
    again = loads(dumps(game))
    assert again.record() == game.record()
    assert [sorted(h) for h in again.hand.hands] == [sorted(h) for h in game.hand.hands]
    assert again.hand.boneyard == game.hand.boneyard
    for seat in range(rules.num_players):
        assert np.array_equal(again.observe(seat), game.observe(seat))


# -- the deal and the random stream -----------------------------------------------------------------
MASK64 = (1 << 64) - 1


class IndependentSplitMix:
    """SplitMix64 written again from its definition (Steele et al.), not imported."""

    def __init__(self, seed):
        z = seed & MASK64
        self.state = self._mix(z)

    @staticmethod
    def _mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def below(self, n):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        return (self._mix(self.state) >> 32) % n


def expected_deal(rules, seed):
    rng = IndependentSplitMix(seed)
    n, k, N = rules.num_players, rules.hand_size, rules.num_tiles
    while True:
        order = list(range(N))
        for i in range(N - 1, 0, -1):
            j = rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
        dealt = order[:n * k]
        from nos_env.kernels.tilesets import tile_set
        ts = tile_set(rules.max_pip)
        if rules.opening in ("highest_double", "lowest_double") and not any(ts.IS_DOUBLE[t] for t in dealt):
            continue
        setter = None
        if rules.opening == "free":
            setter = rules.first_seat if rules.first_seat is not None else rng.below(n)
        return [order[s * k:(s + 1) * k] for s in range(n)], order[n * k:], setter


@pytest.mark.parametrize("game_id", IMPLEMENTED)
def test_deal_matches_the_contract_stream(game_id):
    for n in player_counts(game_id):
        for opening in ({"highest_double", "highest_tile", "free"} & set(
                options_table(game_id).get("opening", ("highest_double", "one of 'highest_double'"))[1]
                .replace("'", "").replace("one of ", "").split(", ")) or {"highest_double"}):
            extra = {"opening": opening} if "opening" in options_table(game_id) else {}
            rules = make_rules(game_id, n, **extra)
            for seed in (0, 1, 12345, 2**63 + 7):
                hands, boneyard, setter = expected_deal(rules, seed)
                game = FamilyGame(rules, seed=seed)
                hand = game.hand
                assert game.hand.boneyard == boneyard[:len(hand.boneyard)] or rules.opening != "free"
                if rules.opening == "free":
                    assert [sorted(h) for h in hand.hands] == [sorted(h) for h in hands]
                    assert hand.boneyard == boneyard and hand.to_move == setter
                else:
                    # the forced set has been placed (F12): the setter's hand lost exactly that tile
                    s = hand.layout.setter
                    assert sorted(hand.hands[s] | {hand.layout.set_tile}) == sorted(hands[s])
                    assert all(sorted(hand.hands[i]) == sorted(hands[i]) for i in range(n) if i != s)
                    assert hand.boneyard == boneyard


def test_redeal_until_a_double_uses_the_same_stream():
    # two-player double-nine cross redeals about one deal in 26 (DN2): find a seed that redeals
    rules = make_rules("double_nine_cross", 2)
    for seed in range(400):
        rng = IndependentSplitMix(seed)
        order = list(range(55))
        for i in range(54, 0, -1):
            j = rng.below(i + 1)
            order[i], order[j] = order[j], order[i]
        from nos_env.kernels.tilesets import DOUBLE_NINE
        if not any(DOUBLE_NINE.IS_DOUBLE[t] for t in order[:14]):
            break
    else:
        pytest.fail("no redeal among 400 seeds")
    hands, boneyard, _ = expected_deal(rules, seed)
    game = FamilyGame(rules, seed=seed)
    assert game.hand.boneyard == boneyard
    assert sorted(game.hand.layout.on_table()) != [] and sorted(order[:7]) != sorted(hands[0])


# -- bad input ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda: make_rules("nos"), "game must be one of"),
    (lambda: make_rules("block", 6), "num_players must be one of 2, 3, 4, 5"),
    (lambda: make_rules("fours", 3), "num_players must be one of 4"),
    (lambda: make_rules("block", draw_rule="one"), "block has no option 'draw_rule'"),
    (lambda: make_rules("draw", draw_rule="none"), "draw_rule must be one of 'until_playable', 'one'"),
    (lambda: make_rules("cross", opening="free"), "cross has no option 'opening'"),
    (lambda: make_rules("block", 3, teams=True), "teams=True needs 4 players"),
    (lambda: make_rules("block", team_out="both"), "team_out='both' applies only with teams=True"),
    (lambda: make_rules("block", teams=1), "teams must be True or False"),
    (lambda: make_rules("block", hand_size="5"), "hand_size must be"),
    (lambda: make_rules("block", 5, hand_size=6), "need 30 tiles"),
    (lambda: make_rules("draw", boneyard_reserve=-1), "boneyard_reserve must be"),
    (lambda: make_rules("draw", target_score=0), "target_score must be"),
    (lambda: make_rules("draw", first_seat=1), "first_seat applies only with opening='free'"),
    (lambda: make_rules("fours", first_seat=4), "first_seat must be None or a seat 0..3"),
    (lambda: make_rules("matador", tileset="double_nine"), "matador has no option 'tileset'"),
])
def test_make_rules_bad_input(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_make_rules_defaults_follow_the_pages():
    assert make_rules("block", 2).hand_size == 8 and make_rules("block", 5).hand_size == 5  # BL2
    assert make_rules("block", tileset="double_nine").hand_size == 9
    assert make_rules("block", hand_scoring="one_point").target_score is None  # BL4
    assert make_rules("draw", 5).hand_size == 3 and make_rules("draw", 3, tileset="double_nine").hand_size == 7
    assert make_rules("double_nine_cross", 8).hand_size == 5 and make_rules("double_nine_cross").num_tiles == 55
    r = make_rules("matador", 2)
    assert (r.hand_size, r.matching, r.num_arms, r.draw_rule) == (7, "seven", 2, "at_will")
    assert make_rules("fours").opening == "free" and make_rules("fours").hand_size == 5
    assert [make_rules(g).num_arms for g in ("block", "cross", "five_up", "double_nine_cross")] == [2, 4, 16, 22]
    assert set(options_table("block")) == {"opening", "first_seat", "tileset", "hand_size", "blocked_scoring",
                                           "hand_scoring", "target_score", "teams", "team_out",
                                           "double_counts_one_end", "stock_to_winner", "play_on_double"}
    for g in GAMES:
        assert make_rules(g).options() == {k: getattr(make_rules(g), k) for k in options_table(g)}


# -- actions and observations ---------------------------------------------------------------------------
@pytest.mark.parametrize("game_id", IMPLEMENTED)
def test_action_ids_describe_and_parse(game_id):
    rules = make_rules(game_id)
    for a in range(rules.num_actions):
        kind, t, _, side = enc.action_parts(a, rules)
        if kind == "play" and side == 1 and rules.tiles[t][0] == rules.tiles[t][1]:
            continue  # Matador: a double uses side 0; its side-1 id is never legal
        assert enc.parse(enc.describe(a, rules), rules) == a
    assert enc.num_actions(rules) == rules.num_actions
    N, A = rules.num_tiles, rules.num_arms
    P = N * A * (2 if game_id == "matador" else 1)
    assert (enc.draw_index(rules), enc.pass_index(rules), rules.num_actions) == (P + N, P + N + 1, P + N + 2)
    with pytest.raises(ValueError, match="cannot read action"):
        enc.parse("jump", rules)


@pytest.mark.parametrize("game_id", IMPLEMENTED)
def test_observation_layout_and_no_hidden_tiles(game_id):
    for n in player_counts(game_id):
        rules = make_rules(game_id, n)
        layout = enc.observation_layout(rules)
        N, A, M, S = rules.num_tiles, rules.num_arms, rules.max_pip, rules.max_seats
        expected = (len(player_counts(game_id)) + 4 + 3 * N + N * S + N * (A + 1) + A * (M + 1) + 4 * A
                    + 4 * S + S * N + 2 + S + 1)
        assert enc.observation_size(rules) == expected
        assert enc.observation_size(rules, "uint8") % 4 == 0
        game = FamilyGame(rules, seed=3)
        rnd = random.Random(3)
        for _ in range(40):
            if game.done:
                break
            for seat in range(n):
                obs = game.observe(seat)
                assert obs.dtype == np.float32 and obs.shape == (expected,)
                compact = game.observe(seat, "uint8")
                assert np.array_equal(enc.decode_compact(compact, rules), obs)
                s0, s1, _ = layout["hand"]
                assert set(np.flatnonzero(obs[s0:s1])) == set(game.hand.hands[seat])
                # the observation depends on nothing hidden: swap every other seat's tiles with the
                # boneyard's (same sizes) and it stays the same
                other = FamilyGame(rules, seed=3)
                for a in game.actions:
                    other.step(a)
                hidden = [t for s in range(n) if s != seat for t in other.hand.hands[s]] + other.hand.boneyard
                perm = hidden[:]
                random.Random(seat).shuffle(perm)
                remap = dict(zip(hidden, perm))
                for s in range(n):
                    if s != seat:
                        other.hand.hands[s] = {remap[t] for t in other.hand.hands[s]}
                other.hand.boneyard = [remap[t] for t in other.hand.boneyard]
                assert np.array_equal(other.observe(seat), obs)
            game.step(rnd.choice(game.legal_actions()))
