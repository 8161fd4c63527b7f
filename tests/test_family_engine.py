"""The family reference engine (nos_env/family): self-play invariants for every game and player
count, records that replay, the deal against an independent SplitMix64 re-derivation, bad input,
and the observation layout (sizes; no other seat's hidden tiles).

Per-rule exact-score tests live in the rule tests; the worked examples used while building the
engine are asserted here too (cited by the page's example number).
"""

from __future__ import annotations

import copy
import json
import random

import numpy as np
import pytest

from nos_env.family import encoding as enc
from nos_env.family.engine import FamilyGame
from nos_env.family.record import dumps, loads
from nos_env.family.rules import GAMES, make_rules, options_table, player_counts

IMPLEMENTED = GAMES


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
        openings = [None]
        if "opening" in options_table(game_id):
            openings = [o for o in ("highest_double", "highest_tile", "free", "lowest_double", "lowest_tile")
                        if repr(o) in options_table(game_id)["opening"][1]]
        for opening in openings:
            extra = {} if opening is None else {"opening": opening}
            rules = make_rules(game_id, n, **extra)
            for seed in (0, 1, 12345, 2**63 + 7):
                hands, boneyard, setter = expected_deal(rules, seed)
                game = FamilyGame(rules, seed=seed)
                hand = game.hand
                if rules.opening == "free":
                    assert [sorted(h) for h in hand.hands] == [sorted(h) for h in hands]
                    assert hand.boneyard == boneyard and hand.to_move == setter
                else:
                    # the forced set has been placed (F12): the setter's hand lost exactly that tile
                    s = hand.layout.setter
                    assert sorted(hand.hands[s] | {hand.layout.set_tile}) == sorted(hands[s])
                    assert all(sorted(hand.hands[i]) == sorted(hands[i]) for i in range(n) if i != s)
                    assert hand.boneyard == boneyard
                    doubles = [rules.tiles[t][0] for h in hands for t in h if rules.tiles[t][0] == rules.tiles[t][1]]
                    if doubles and rules.opening in ("highest_double", "highest_tile"):
                        assert rules.tiles[hand.layout.set_tile] == (max(doubles),) * 2
                    if rules.opening == "lowest_double":
                        assert rules.tiles[hand.layout.set_tile] == (min(doubles),) * 2


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
    (lambda: make_rules("matador", players=3), "give the number of players as num_players"),
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
    counts = player_counts(game_id)
    for n in sorted({counts[0], counts[-1]}):
        rules = make_rules(game_id, n)
        layout = enc.observation_layout(rules)
        N, A, M, S = rules.num_tiles, rules.num_arms, rules.max_pip, rules.max_seats
        expected = (len(player_counts(game_id)) + 4 + 3 * N + N * S + N * (A + 1) + A * (M + 1) + 4 * A
                    + 4 * S + S * N + 2 + S + 1)
        assert enc.observation_size(rules) == expected
        assert enc.observation_size(rules, "uint8") % 4 == 0
        game = FamilyGame(rules, seed=3)
        assert (game.observation_size(), game.num_actions) == (expected, rules.num_actions)
        rnd = random.Random(3)
        for step in range(40):
            if game.done:
                break
            for seat in range(n) if step % 3 == 0 else ():
                obs = game.observe(seat)
                assert obs.dtype == np.float32 and obs.shape == (expected,)
                compact = game.observe(seat, "uint8")
                assert np.array_equal(enc.decode_compact(compact, rules), obs)
                s0, s1, _ = layout["hand"]
                assert set(np.flatnonzero(obs[s0:s1])) == set(game.hand.hands[seat])
                # the observation depends on nothing hidden: swap every other seat's tiles with the
                # boneyard's (same sizes) and it stays the same
                other = copy.deepcopy(game)
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


# -- worked examples used while building (the pages' example numbers) ---------------------------------
def deal_game(game_id, n, hands, boneyard_top=(), setter=None, **options):
    """A FamilyGame from hands given as (a, b) pairs; the boneyard is boneyard_top then every other
    tile in index order."""
    rules = make_rules(game_id, n, **options)
    idx = [[tile(rules, *t) for t in h] for h in hands]
    top = [tile(rules, *t) for t in boneyard_top]
    used = {t for h in idx for t in h} | set(top)
    rest = [t for t in range(rules.num_tiles) if t not in used]
    return FamilyGame.from_deal(rules, idx, top + rest, setter=setter)


def play(game, text):
    return game.step(enc.parse(text, game.rules))


def legal_texts(game):
    return sorted(enc.describe(a, game.rules) for a in game.legal_actions())


def test_five_up_example_4_spinning_set_double():
    g = deal_game("five_up", 2, [[(5, 5), (5, 6), (5, 3), (1, 1)], [(5, 0), (5, 4), (2, 2)]], setter=0)
    assert g.step(enc.set_index(tile(g.rules, 5, 5), rules=g.rules)) == [2, 0]  # E = 10
    assert play(g, "play 0-5 on L0") == [0, 2]  # 5 + 5 + 0 = 10
    assert [(a.number, a.open) for a in g.hand.arms][2:] == [(2, 5), (3, 5)]  # F7: arms 2 and 3
    assert play(g, "play 5-6 on L1") == [0, 0]  # 0 + 6
    assert play(g, "play 4-5 on A2") == [0, 2]  # 0 + 6 + 4
    assert play(g, "play 3-5 on A3") == [0, 0]  # 13
    assert g.scores == [2, 4]


def test_five_up_example_5_a_double_in_the_line_spins():
    g = deal_game("five_up", 2, [[(2, 4), (4, 1), (4, 0), (1, 3), (6, 6)], [(4, 4), (4, 3), (2, 2), (5, 5)]],
                  setter=0)
    assert g.step(enc.set_index(tile(g.rules, 2, 4), rules=g.rules)) == [0, 0]  # E = 6
    assert play(g, "play 4-4 on L1") == [0, 2]  # 2 + 4 + 4
    assert play(g, "play 1-4 on L1") == [0, 0]  # [4-4] spins: E = 2 + 1
    assert [(a.number, a.open, len(a.tiles)) for a in g.hand.arms][2:] == [(2, 4, 0), (3, 4, 0)]
    assert play(g, "play 3-4 on A2") == [0, 0]
    assert play(g, "play 0-4 on A3") == [0, 0]
    assert play(g, "play 2-2 on L0") == [0, 0]  # 4 + 1 + 3 + 0 = 8
    assert play(g, "play 1-3 on L1") == [2, 0]  # 4 + 3 + 3 + 0 = 10


def test_draw_example_1_drawing_until_playable():
    g = deal_game("draw", 2, [[(2, 5), (6, 6)], [(0, 0), (1, 3), (4, 6)]],
                  boneyard_top=[(1, 1), (3, 6), (2, 4)], setter=0, opening="free")
    g.step(enc.set_index(tile(g.rules, 2, 5), rules=g.rules))
    for _ in range(3):
        assert legal_texts(g) == ["draw"]
        g.step(enc.draw_index(g.rules))
    assert legal_texts(g) == ["play 2-4 on L0"]
    play(g, "play 2-4 on L0")
    assert g.hand.arms[0].open == 4
    assert sorted(g.hand.hands[1]) == sorted(tile(g.rules, *t) for t in [(0, 0), (1, 3), (4, 6), (1, 1), (3, 6)])
    one = deal_game("draw", 2, [[(2, 5), (6, 6)], [(0, 0), (1, 3), (4, 6)]],
                    boneyard_top=[(1, 1), (3, 6), (2, 4)], setter=0, opening="free", draw_rule="one")
    one.step(enc.set_index(tile(one.rules, 2, 5), rules=one.rules))
    one.step(enc.draw_index(one.rules))
    assert legal_texts(one) == ["pass"]
    # the stuck draw and pass are public evidence: B holds no 2 and no 5 (contract's seat_void)
    fits = {t for t in range(28) if {2, 5} & set(one.rules.tiles[t])}
    assert one.hand.void[1] == fits
    one.step(enc.pass_index(one.rules))
    assert one.hand.void[1] == fits and one.to_move == 0


def test_cross_example_1_the_cross_phase():
    g = deal_game("cross", 4, [[(6, 6), (0, 0)], [(6, 2), (1, 1)], [(2, 5), (6, 4)], [(6, 0), (3, 3)]])
    assert g.to_move == 1  # the forced set of [6-6] by seat 0 (F4, F12)
    assert legal_texts(g) == ["play 2-6 on C0", "play 2-6 on C1", "play 2-6 on C2", "play 2-6 on C3"]
    play(g, "play 2-6 on C0")
    assert legal_texts(g) == ["play 4-6 on C1", "play 4-6 on C2", "play 4-6 on C3"]
    play(g, "play 4-6 on C1")
    assert legal_texts(g) == ["play 0-6 on C2", "play 0-6 on C3"]  # example 2: no draw


def test_double_nine_cross_example_1_a_double_branches():
    g = deal_game("double_nine_cross", 4, [[(9, 9), (9, 7), (1, 2)], [(9, 3), (3, 3), (1, 4)],
                                           [(9, 5), (3, 4), (1, 1)], [(9, 0), (2, 2), (6, 8)]])
    for text in ("play 3-9 on C0", "play 5-9 on C1", "play 0-9 on C2", "play 7-9 on C3"):
        play(g, text)
    play(g, "play 3-3 on C0")
    assert [(a.number, a.open) for a in g.hand.arms] == [(0, 3), (1, 5), (2, 0), (3, 7), (4, 3), (5, 3)]
    assert legal_texts(g) == ["play 3-4 on A4", "play 3-4 on A5", "play 3-4 on C0"]


def test_fours_example_1_a_turn_of_several_tiles():
    g = deal_game("fours", 4, [[(6, 6), (6, 2), (2, 5), (0, 1), (3, 3)], [(4, 4), (1, 2)], [(0, 2)], [(1, 4)]],
                  setter=0)
    g.step(enc.set_index(tile(g.rules, 6, 6), rules=g.rules))
    assert g.to_move == 0 and legal_texts(g) == ["play 2-6 on L0", "play 2-6 on L1"]
    play(g, "play 2-6 on L1")
    assert g.to_move == 0 and legal_texts(g) == ["play 2-5 on L1"]
    play(g, "play 2-5 on L1")
    assert g.to_move == 1  # nothing fits 6 or 5: the turn ends by itself (FO6) ...
    assert g.hand.void[0] == {t for t in range(28) if {6, 5} & set(g.rules.tiles[t])}  # ... as evidence
    may = deal_game("fours", 4, [[(6, 6), (6, 2), (2, 5), (0, 1), (3, 3)], [(4, 4)], [(0, 2)], [(1, 4)]],
                    setter=0, multi_play="may")
    may.step(enc.set_index(tile(may.rules, 6, 6), rules=may.rules))
    assert legal_texts(may) == ["pass", "play 2-6 on L0", "play 2-6 on L1"]  # example 4


def test_matador_example_4_and_2_sevens_and_wild_tiles():
    from nos_env.family.layout import Layout
    rules = make_rules("matador")
    lay = Layout(rules)
    lay.place_set(tile(rules, 6, 6), 0)
    fit = sorted(rules.tiles[t] for t in range(28) if lay.fits_anywhere(t))
    assert fit == sorted([(0, 1), (1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 5), (3, 4), (0, 0)])
    assert lay.outward_options(tile(rules, 1, 6), 0) == [1, 6]  # a matador leaves either number
    assert lay.outward_options(tile(rules, 1, 3), 0) == [3]
    lay.place(tile(rules, 1, 3), 0, 3, 1)
    assert lay.outward_options(tile(rules, 2, 4), 0) == [2]  # example 1: 4 + 3 = 7, leaves 2


def test_all_fives_and_bergen_end_counts():
    from nos_env.family import scoring
    from nos_env.family.layout import Layout
    rules = make_rules("all_fives")
    lay = Layout(rules)
    lay.place_set(tile(rules, 5, 5), 0)
    assert scoring.end_count(lay) == 10  # AF example 5
    lay = Layout(rules)
    lay.place_set(tile(rules, 3, 5), 0)
    lay.place(tile(rules, 5, 5), 1, 5, 1)
    assert scoring.end_count(lay) == 13
    lay.place(tile(rules, 1, 5), 1, 1, 0)
    assert scoring.end_count(lay) == 4  # the covered [5-5] no longer counts
    assert [scoring.round5(x) for x in (0, 1, 2, 3, 7, 8, 12)] == [0, 0, 0, 5, 5, 10, 10]  # AF8
    rules = make_rules("bergen")
    lay = Layout(rules)
    lay.place_set(tile(rules, 0, 0), 0)
    assert scoring.bergen_points(lay) == 2  # BE2: the set double alone
    lay = Layout(rules)
    lay.place_set(tile(rules, 3, 6), 0)
    lay.place(tile(rules, 5, 6), 1, 5, 1)
    assert scoring.bergen_points(lay) == 0  # ends 3 and 5
    lay.place(tile(rules, 3, 5), 1, 3, 2)
    assert scoring.bergen_points(lay) == 2  # example 3: both ends 3
    lay.place(tile(rules, 3, 3), 0, 3, 3)
    assert scoring.bergen_points(lay) == 3  # a double matching the other end


def option_variants(game_id):
    """One non-default value of every option the page offers (and a few integer ones)."""
    from nos_env.family import rules as R
    variants = []
    for name, (default, allowed) in options_table(game_id).items():
        if name in R._CHOICES:
            variants += [{name: v} for v in R._CHOICES[name][game_id][1:]]
        elif name in R._BOOLEANS and name != "teams":
            variants.append({name: True})
    if "boneyard_reserve" in options_table(game_id):
        variants.append({"boneyard_reserve": 2})
    variants.append({"hand_size": 3})
    if "first_seat" in options_table(game_id):
        variants.append({"opening": "free", "first_seat": 1} if "opening" in options_table(game_id)
                        else {"first_seat": 1})
    return variants


@pytest.mark.parametrize("game_id", GAMES)
def test_selfplay_every_option(game_id):
    for i, options in enumerate(option_variants(game_id)):
        if options.get("team_out") == "both":
            options = {**options, "teams": True}
        if options.get("opening") == "highest_tile" and "opening" in options_table(game_id):
            options = {**options, "hand_size": 2}  # few tiles: some deals hold no double
        n = 2 if "teams" not in options and 2 in player_counts(game_id) else 4
        rules = make_rules(game_id, n, **{"target_score": None, **options})  # one hand each: fast
        for seed in range(4):
            game = FamilyGame(rules, seed=100 * i + seed)
            play_out(game, random.Random(seed))
