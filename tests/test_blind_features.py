"""Blind's per-action features (``env.action_features``, agents/family/blind_features.py): the
values on hand-built positions, worked out by hand from docs/rules/blind.md (the arithmetic is in
the comments); no hidden tile changes any of them; the env puts them behind the hint; the head adds
``features_weight @ features[a]``; bad settings are refused naming what is allowed; a tiny fit
saves, loads and plays with them; models without them are untouched."""

from __future__ import annotations

import json
import random

import numpy as np
import pytest
import torch as th

from agents.family.blind import BlindGreedyAgent
from agents.family.blind_features import FEATURE_NAMES, NUM_FEATURES, blind_action_features
from agents.policy import HintHead, NosPolicy, action_features, check_action_features, hint_agent
from agents.tournament import run_tournament
from nos_env.family import blind_encoding as enc
from nos_env.family.blind import BlindGame, make_blind_rules
from train.config import ConfigError, from_dict
from train.selfplay import OpponentPool, SelfPlayVecEnv

from tiny_training import tiny_distill_run

F = {name: i for i, name in enumerate(FEATURE_NAMES)}


def tiles(text: str) -> list[tuple[int, int]]:
    """ "2-5 1-5" -> [(2, 5), (1, 5)]"""
    return [tuple(int(x) for x in w.split("-")) for w in text.split()]


def features_of(game: BlindGame) -> dict:
    """{action text: {feature name: value}} for the seat to move's legal moves."""
    obs = np.asarray(game.observe(game.to_move), np.float32)[None]
    mask = game.legal_mask()[None]
    f = blind_action_features(game.rules, obs, mask)[0]
    assert (np.delete(f, game.legal_actions(), axis=0) == 0).all()  # illegal moves: 0
    return {enc.describe(a, game.rules): dict(zip(FEATURE_NAMES, f[a].tolist())) for a in game.legal_actions()}


def expect(**named) -> dict:
    """Every feature 0 but the ones named (``known_fit_1=1`` ...)."""
    out = dict.fromkeys(FEATURE_NAMES, 0.0)
    for name, value in named.items():
        assert name in out, name
        out[name] = float(value)
    return out


def context(hands, unseen, on_table, dealt):
    """The context features (the same for every move): each seat offset's row length over the
    dealt hand size, then the never-turned-up tiles and the tiles on the table over 28."""
    named = {f"hand_{k}": h / dealt for k, h in enumerate(hands)}
    return {**named, "unseen": unseen / 28, "on_table": on_table / 28}


def assert_features(got: dict, want: dict) -> None:
    assert got.keys() == want.keys()
    for name in FEATURE_NAMES:
        assert got[name] == pytest.approx(want[name], abs=1e-6), name


def position(rules, table, rows, seen, to_move):
    """A hand-built Blind position (rule 3: the seat to move has turned up the front tile of his row).

    ``table``: [(tile text, placer, arm)] in the order placed, the set first (arm 2); ``rows``: each
    seat's row, front first; ``seen``: the row tiles turned up before (public, BD3); the tiles in no
    row and not on the table are set aside."""
    ix = rules.tiles.index
    g = BlindGame.__new__(BlindGame)
    g.rules, g.skip_decisionless, g.skipped, g.seed, g.rng, g.stream_state = rules, False, 0, None, None, None
    n_t = rules.num_tiles
    g.rows = [[ix[t] for t in tiles(r)] for r in rows]
    in_rows = {t for r in g.rows for t in r}
    placed = [(ix[tiles(t)[0]], p, arm) for t, p, arm in table]
    g.aside = [t for t in range(n_t) if t not in in_rows and t not in {p[0] for p in placed}]
    g.dealt = [list(r) for r in g.rows]
    g.seen = [False] * n_t
    g.placer, g.tile_arm = [-1] * n_t, [-1] * n_t
    g.arm_count, g.arm_last = [0, 0], [0, 0]
    for t, p, arm in placed:
        g.seen[t], g.placer[t], g.tile_arm[t] = True, p, arm
        low, high = rules.tiles.tiles[t]
        if arm == 2:
            g.set_tile, g.open_ends, g.arm_last = t, [low, high], [t, t]
        else:
            g.open_ends[arm] = high if g.open_ends[arm] == low else low
            g.arm_count[arm] += 1
            g.arm_last[arm] = t
    for t in tiles(seen):
        g.seen[ix[t]] = True
    g.turned = g.rows[to_move][0]
    g.seen[g.turned] = True
    g.scores, g._points, g.actions, g.events = [0] * rules.num_players, [0] * rules.num_players, [], []
    g.done, g.winner, g.blocked, g.played_this_turn = False, None, False, False
    g.starter, g.to_move = table[0][1], to_move
    return g


# Seats A, B, C, D = 0..3, four players, 28 tiles. A set [0-1], D played [1-2] on L1: the ends are
# 0 (L0) and 2 (L1). B has turned up [0-2], which fits both (BD5). Public besides the table: B's
# [2-3] behind it (place 2), C's front [0-5] and his [4-4] at the bottom, D's front [3-3] and [0-6]
# at his place 4. Nothing of A's row has been seen.
ROWS = ["4-5 4-6 5-5 5-6 6-6 3-6", "0-2 2-3 0-0 2-2 0-3 3-4 1-3", "0-5 1-1 0-4 2-4 1-4 1-5 4-4",
        "3-3 2-5 3-5 0-6 1-6 2-6"]
SEEN = "2-3 0-5 4-4 3-3 0-6"


def example():
    rules = make_blind_rules(4)
    return position(rules, [("0-1", 0, 2), ("1-2", 3, 1)], ROWS, SEEN, to_move=1)


def test_a_choice_with_known_next_tiles():
    g = example()
    assert g.open_ends == [0, 2] and sorted(features_of(g)) == ["play 0-2 on L0", "play 0-2 on L1"]
    # Seen: the table's 0-1 and 1-2, the turned-up 0-2, and 2-3, 0-5, 4-4, 3-3, 0-6: 8 of 28, so 20
    # tiles were never turned up. Seat offsets from B: 0 B, 1 C, 2 D, 3 A; there is no fifth seat.
    # Places behind the next tile (r): B's next is his place 2 (2-3, r 0); C's next is his front
    # (0-5, r 0), his 4-4 lies 6 places behind it (place 7: r 6, counted in the last bin, 4);
    # D's next is 3-3 (r 0), his 0-6 at place 4 is r 3.
    got = features_of(g)
    # Context: rows of 7 (B, the turned-up tile included), 7 (C), 6 (D), 6 (A) of 7 dealt; 20 never
    # turned up; 2 tiles on the table.
    ctx = context([7, 7, 6, 6], 20, 2, 7)
    # On L0 (showing 0) [0-2] leaves 2: the ends are 2 and 2.
    #   B's next, 2-3: public, fits 2. C's 0-5 and 4-4: no. D's 3-3 and 0-6: no.
    #   A's front: not public; the never-seen tiles with a 2: 2-2, 2-4, 2-5, 2-6 (0-2, 1-2, 2-3 seen): 4/20.
    #   Off the table after it with a 2: 2-2, 2-3, 2-4, 2-5, 2-6: 5 of at most 7.
    #   next_after_me: (1 - 1) * 0 = 0.
    assert_features(got["play 0-2 on L0"], expect(known_fit_0_0=1, unknown_share_3=4 / 20, unplayed_fit=5 / 7, **ctx))
    # On L1 (showing 2) it leaves 0: the ends are 0 and 0.
    #   B's 2-3: no. C's 0-5 fits (r 0); his 4-4 does not. D's 3-3 does not, his 0-6 fits (r 3).
    #   A's front: never-seen tiles with a 0: 0-0, 0-3, 0-4 (0-1, 0-2, 0-5, 0-6 seen): 3/20. Off the
    #   table with a 0: 0-0, 0-3, 0-4, 0-5, 0-6: 5/7. next_after_me: (1 - 0) * 1 = 1.
    assert_features(got["play 0-2 on L1"], expect(known_fit_1_0=1, known_fit_2_3=1, unknown_share_3=3 / 20,
                                                  unplayed_fit=5 / 7, next_after_me=1, **ctx))


def test_the_last_place_counts_every_public_tile_that_far_back():
    # Two players, 14 tiles a row. A set [6-6]; B has turned up [6-5] (not a choice: a test of the
    # places only), with public tiles behind it: 5-5 at his place 2 (r 0), 5-4 at 6 (r 4), 5-3 at 9
    # (r 7) and 2-2 at 10; A's public 5-1 at his place 5 (r 4) and 5-0 at place 13 (r 12).
    rules = make_blind_rules(2)
    rows = ["6-4 6-3 6-2 6-1 1-5 6-0 4-4 4-3 4-2 4-1 4-0 3-3 0-5",
            "5-6 5-5 3-2 3-1 3-0 4-5 2-1 2-0 3-5 2-2 1-1 1-0 0-0 2-5"]
    rows = [" ".join("-".join(sorted(t.split("-"))) for t in r.split()) for r in rows]
    g = position(rules, [("6-6", 0, 2)], rows, "5-5 4-5 3-5 2-2 1-5 0-5", to_move=1)
    got = features_of(g)
    # [5-6] on L0 or L1 (both show 6) leaves 5 on that arm: E = {5, 6}.
    # B: 5-5 (r 0) fits; 4-5 (r 4) fits; 3-5 (r 7) fits; 2-2 (r 8) does not: the last bin holds 2.
    # A (offset 1): 1-5 (r 4) and 0-5 (r 12) fit: 2 in the last bin. A's front is not public: never
    # seen with a 5 or a 6 (6-6, 5-6, 5-5, 4-5, 3-5, 1-5, 0-5 seen): 6-4, 6-3, 6-2, 6-1, 6-0, 2-5:
    # 6 of the 20 never turned up (seen: the table's 6-6, the turned-up 5-6 and six row tiles). Off the table after it with a 5 or a 6: 0-5, 1-5, 2-5,
    # 3-5, 4-5, 5-5, 0-6 .. 4-6: 11, over 7. next_after_me: (1 - 1) * 6/19 = 0.
    # Context: B's 14 and A's 13 of 14 dealt, 20 never turned up, 1 on the table.
    want = expect(known_fit_0_0=1, known_fit_0_4=2, known_fit_1_4=2, unknown_share_1=6 / 20,
                  unplayed_fit=11 / 7, **context([14, 13], 20, 1, 14))
    assert_features(got["play 5-6 on L0"], want)
    assert_features(got["play 5-6 on L1"], want)


def test_a_decline_keeps_the_ends_and_ends_the_movers_turn():
    rules = make_blind_rules(4, optional_play=True)
    g = position(rules, [("0-1", 0, 2), ("1-2", 3, 1)], ROWS, SEEN, to_move=1)
    got = features_of(g)
    assert sorted(got) == ["decline", "play 0-2 on L0", "play 0-2 on L1"]
    # DECLINE (BD5): [0-2] goes to the bottom, B's turn is over, the ends stay 0 and 2. B's own
    # features are 0. C's 0-5 fits 0; D's 3-3 does not; A's front: never-seen tiles with a 0 or a 2:
    # 0-0, 0-3, 0-4, 2-2, 2-4, 2-5, 2-6: 7/20. Off the table with a 0 or a 2 (0-2 stays off it):
    # 0-0, 0-2, 0-3, 0-4, 0-5, 0-6, 2-2, 2-3, 2-4, 2-5, 2-6: 11/7. next_after_me: (1 - 0) * 1.
    # D's 0-6 (r 3) fits 0 too.
    assert_features(got["decline"], expect(known_fit_1_0=1, known_fit_2_3=1, unknown_share_3=7 / 20,
                                           unplayed_fit=11 / 7, next_after_me=1, **context([7, 7, 6, 6], 20, 2, 7)))
    assert_features(got["play 0-2 on L1"], features_of(example())["play 0-2 on L1"])  # plays as before


def test_the_last_tile_wins_and_has_no_features():
    # B's row is the turned-up [0-2] alone: either play empties it and wins (rule 4).
    rules = make_blind_rules(4)
    rows = ["4-5 4-6 5-5 5-6 6-6 3-6", "0-2", "0-5 1-1 0-4 2-4 1-4 1-5 4-4", "3-3 2-5 3-5 0-6 1-6 2-6"]
    g = position(rules, [("0-1", 0, 2), ("1-2", 3, 1)], rows, "0-5 4-4 3-3 0-6", to_move=1)
    got = features_of(g)
    assert got == {"play 0-2 on L0": expect(), "play 0-2 on L1": expect()}


def test_unknown_next_tiles_in_the_pages_example_2():
    # docs/rules/blind.md example 2 played on (tests/test_blind_rules.py's deal): A sets [2-5]; B
    # plays [1-5] on L1 (forced) and sends [4-4] to the bottom; C's [3-6] and D's [3-3] go to the
    # bottom; E turns up [1-2], which fits L0 (2) and L1 (1).
    rows = ["2-5 0-0 0-1 0-2 0-3", "1-5 4-4 0-4 0-5 0-6", "3-6 1-1 1-3 1-4 1-6", "3-3 2-2 2-3 2-4 2-6",
            "1-2 3-4 3-5 4-5 4-6"]
    rules = make_blind_rules(5)
    g = BlindGame.from_deal(rules, [tiles(r) for r in rows], tiles("5-5 5-6 6-6"), setter=0)
    assert g.to_move == 4 and g.open_ends == [2, 1]
    got = features_of(g)
    # Seen: 2-5, 1-5, 4-4, 3-6, 3-3, 1-2: 22 of 28 never turned up (the 3 set aside among them). No
    # next tile is public: every seat's feature is the share. On L0 the ends become 1 and 1: never
    # seen with a 1: 0-1, 1-1, 1-3, 1-4, 1-6: 5/22; off the table with a 1 after it: the same 5: 5/7.
    # On L1 they become 2 and 2: 0-2, 2-2, 2-3, 2-4, 2-6: 5/22, and 5/7. next_after_me: (1 - 5/22) * 5/22.
    # Context, from E: rows of 5 (E), 4 (A, who set), 4 (B, who played 1-5), 5 (C), 5 (D) of 5 dealt;
    # 22 never turned up, 2 on the table.
    share = 5 / 22
    want = expect(**{f"unknown_share_{k}": share for k in range(5)}, unplayed_fit=5 / 7,
                  next_after_me=(1 - share) * share, **context([5, 4, 4, 5, 5], 22, 2, 5))
    assert_features(got["play 1-2 on L0"], want)
    assert_features(got["play 1-2 on L1"], want)


def test_no_hidden_tile_changes_a_feature():
    # At decisions of random games, every determinization of the never-seen tiles consistent with
    # what everyone saw (BlindGame.sample_hidden: other rows, other set-aside tiles) gives the same
    # features: they read public information only (BD3).
    rnd = random.Random(11)
    checked = differing_hidden = 0
    for seed in range(12):
        rules = make_blind_rules(2 + seed % 4)
        g = BlindGame(rules, seed=seed)
        while not g.done:
            if len(g.legal_actions()) > 1:
                base = features_of(g)
                for _ in range(3):
                    other = g.sample_hidden(rnd)
                    differing_hidden += other.rows != g.rows
                    assert other.to_move == g.to_move and features_of(other) == base
                checked += 1
            g.step(rnd.choice(g.legal_actions()))
    assert checked > 20 and differing_hidden > 20


def test_the_share_is_the_chance_over_the_hidden_tiles():
    # The unknown share is the chance, over the deals consistent with what was seen, that the seat's
    # next tile fits the ends the move leaves: checked by sampling determinizations at one decision.
    rnd = random.Random(5)
    g = BlindGame(make_blind_rules(4), seed=3)
    # the first decision with a choice of two ends where the next seat's front tile is not public
    while len(g.legal_actions()) < 2 or g.seen[g.rows[(g.to_move + 1) % 4][0]]:
        g.step(rnd.choice(g.legal_actions()))
    a = g.legal_actions()[0]
    want = features_of(g)[enc.describe(a, g.rules)]["unknown_share_1"]
    nxt = (g.to_move + 1) % 4
    after = g.open_ends.copy()
    t, arm = a // 2, a % 2
    low, high = g.rules.tiles.tiles[t]
    after[arm] = high if after[arm] == low else low
    hits = 0
    draws = 3000
    for _ in range(draws):
        front = g.sample_hidden(rnd).rows[nxt][0]
        hits += any(e in g.rules.tiles.tiles[front] for e in after)
    assert hits / draws == pytest.approx(want, abs=0.03)


def blind_env(tables=16, seed=3, features=True):
    rules = make_blind_rules(4)
    pool = OpponentPool(seed=1)
    pool.add(BlindGreedyAgent(rules, seed=2), 1.0)
    return SelfPlayVecEnv(tables, pool, num_players=4, seed=seed, game="blind", greedy_hint=True,
                          action_features=features)


def test_the_env_puts_the_features_behind_the_hint_from_the_seats_view_only():
    env = blind_env()
    plain, actions = env.tables.observation_size, env.action_space.n
    assert env.features_size == actions * NUM_FEATURES
    assert env.observation_space.shape == (plain + 1 + actions * NUM_FEATURES,)
    obs = env.reset()
    greedy = BlindGreedyAgent(env.tables.rules, seed=0)
    nonzero = 0
    for _ in range(8):
        masks = env.action_masks()
        assert np.array_equal(obs[:, plain + 1:], action_features(greedy, obs[:, :plain], masks))
        assert np.array_equal(obs[:, :plain], env.tables.observe_rows(np.arange(env.num_envs), env.learner))
        nonzero += int((obs[:, plain + 1:] > 0).sum())
        obs, _, _, _ = env.step(obs[:, plain].astype(np.int64))
    assert nonzero > 0


def test_the_head_adds_the_weighted_features_to_each_logit():
    head = HintHead(2, hint_weight=1.5, num_actions=3, features=2, features_weight=0.0)
    with th.no_grad():
        head.features_weight.copy_(th.tensor([2.0, -1.0]))  # (they start at 0.0 each)
    # latent (2), hint (action 0), features of actions 0, 1, 2 (two each)
    latent = th.tensor([[0.3, -0.4, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0, 2.0]])
    plain = head.linear(latent[:, :2])[0]
    expected = plain + th.tensor([1.5 + 2.0, 0.5, -2.0])
    assert th.allclose(head(latent)[0], expected)
    index = th.tensor([[2, 0]])
    assert th.allclose(head.chosen(latent, index, th.ones_like(index, dtype=th.bool))[0], expected[[2, 0]])
    assert "features_weight" in dict(head.named_parameters())
    assert "features_weight" not in dict(HintHead(2, 1.5, num_actions=3).named_parameters())


def test_a_hidden_features_net_scores_each_actions_features_alike():
    th.manual_seed(0)
    head = HintHead(2, hint_weight=1.5, num_actions=3, features=2, features_hidden=[4])
    assert "features_weight" not in dict(head.named_parameters())
    latent = th.tensor([[0.3, -0.4, 0.0, 1.0, 0.0, 0.5, 0.5, 0.0, 2.0]])
    plain = head.linear(latent[:, :2])[0]
    bonus = th.tensor([1.5, 0.0, 0.0])
    assert th.allclose(head(latent)[0], plain + bonus)  # its last layer starts at zero: no effect
    with th.no_grad():
        head.features_net[-1].weight.fill_(1.0)
    feats = latent[0, 3:].reshape(3, 2)
    g = head.features_net(feats).squeeze(1)  # the same net for every action
    assert th.allclose(head(latent)[0], plain + bonus + g)
    index = th.tensor([[2, 0]])
    assert th.allclose(head.chosen(latent, index, th.ones_like(index, dtype=th.bool))[0], (plain + bonus + g)[[2, 0]])


def test_settings_are_checked_naming_what_is_allowed():
    source = {"game": "blind", "num_players": 4, "options": {}}
    assert check_action_features(False, None) is False
    assert check_action_features(True, source) is True
    with pytest.raises(ValueError, match="action_features must be true or false"):
        check_action_features("yes", source)
    with pytest.raises(ValueError, match="needs a family game's Greedy hint"):
        check_action_features(True, None)
    with pytest.raises(ValueError, match="draw has no per-action features; the games with them are blind"):
        check_action_features(True, {**source, "game": "draw"})
    rules = make_blind_rules(4)
    pool = OpponentPool(seed=1)
    pool.add(BlindGreedyAgent(rules, seed=2), 1.0)
    with pytest.raises(ValueError, match="needs a family game's Greedy hint"):
        SelfPlayVecEnv(4, pool, game="blind", action_features=True)
    with pytest.raises(ValueError, match="not 'draw'"):
        from agents.family.games import make_rules

        draw = make_rules("draw", 4)
        blind_action_features(draw, np.zeros((1, 10), np.float32), np.zeros((1, 10)))


@pytest.mark.parametrize("data,message", [
    ({"env": {"game": "draw", "greedy_hint": True, "action_features": True}},
     "env.action_features: draw has no per-action features; the games with them are blind"),
    ({"env": {"game": "blind", "action_features": True}}, "it needs env.greedy_hint: true"),
    ({"env": {"action_features": True}}, "env.action_features: nos has no per-action features"),
    ({"env": {"game": "blind", "greedy_hint": True, "action_features": 1}},
     "env.action_features: must be true or false, got 1"),
    ({"env": {"game": "blind", "greedy_hint": True, "action_features": True}, "policy": {"features_weight": "x"}},
     "policy.features_weight: must be a number"),
    ({"env": {"game": "blind", "greedy_hint": True, "action_features": True}, "policy": {"features_hidden": [0]}},
     "policy.features_hidden: must be a list of positive layer widths"),
    ({"env": {"game": "blind", "greedy_hint": True}, "policy": {"features_hidden": [8]}},
     "policy.features_hidden: is the MLP over each action's features: it needs env.action_features: true"),
    ({"run": {"engine": "rllib"}, "ppo": {"batch_size": 1024},
      "env": {"game": "blind", "greedy_hint": True, "action_features": True}},
     "env.action_features: is an SB3 policy feature"),
])
def test_config_errors_name_the_key(data, message):
    with pytest.raises(ConfigError) as info:
        from_dict(data, "cfg.yaml")
    assert message in str(info.value)


@pytest.mark.parametrize("policy", ["{features_weight: 0.3}", "{features_hidden: [8]}"], ids=["linear", "mlp"])
def test_tiny_fit_with_features_saves_loads_and_plays_identically(tmp_path, policy):
    from agents.model import ModelAgent, PolicyAgent, load_policy
    from train.label_store import CompactObservations, PackedMasks

    run = tiny_distill_run(tmp_path, "{game: blind, num_envs: 16, greedy_hint: true, action_features: true, "
                                     "num_threads: 1}", "greedy",
                           "{teacher: rollout_advantage, target: advantage, temperature: 0.25, decisions: 400, "
                           "num_envs: 32, epochs: 2, batch_size: 64, margins: [0.0, 0.5]}",
                           policy=policy)
    assert json.loads((run / "distill" / "summary.json").read_text())["labels"] == 400
    rules = make_blind_rules(4)
    size = enc.float_size(rules)
    with np.load(run / "distill" / "labels.npz") as f:
        stored = CompactObservations.from_arrays(f, "obs")
        assert stored.shape[1] == size + 1 + rules.num_actions * NUM_FEATURES
        obs = np.asarray(stored[:64], np.float32)
        masks = np.asarray(PackedMasks(f["legal_indptr"], f["legal_actions"], int(f["num_actions"]))[:64]).astype(bool)
    greedy = hint_agent({"game": "blind", "num_players": 4, "options": rules.options()})
    assert np.array_equal(obs[:, size + 1:], action_features(greedy, obs[:, :size], masks))  # as the env built them
    loaded = load_policy(run / "model.zip")
    assert isinstance(loaded, NosPolicy) and loaded.action_features
    assert loaded.features == rules.num_actions * NUM_FEATURES
    if "hidden" in policy:
        assert loaded.features_hidden == [8] and "features_weight" not in dict(loaded.named_parameters())
        assert "action_net.features_net.0.weight" in loaded.state_dict()
    else:  # saved and loaded: 0.3 each as they started (the fit may keep its epoch 0), or moved by the fit
        assert (loaded.action_net.features_weight.detach() != 0).all()
    agent = ModelAgent(run / "model.zip")
    assert agent.features == rules.num_actions * NUM_FEATURES
    with th.no_grad():
        direct = loaded.get_distribution(th.as_tensor(obs), action_masks=masks).log_p.numpy()
    hinted = PolicyAgent(loaded, seed=0)._hinter.act_batch(obs[:, :size], masks)
    same_hint = hinted == obs[:, size].astype(np.int64)  # Greedy's tie-break is seeded: compare where equal
    assert same_hint.sum() > 32
    got = agent.log_probabilities(obs[:, :size], masks)
    assert np.allclose(got[same_hint][masks[same_hint]], direct[same_hint][masks[same_hint]], atol=1e-5)
    r = run_tournament([f"model:{run / 'model.zip'}", "greedy", "greedy", "greedy"], 2, game="blind",
                       progress=False)
    assert len(r.deal) == 8


def test_a_policy_without_features_is_built_and_saved_as_before():
    from gymnasium import spaces

    rules = make_blind_rules(4)
    source = {"game": "blind", "num_players": 4, "options": rules.options()}
    size = enc.float_size(rules) + 1
    policy = NosPolicy(spaces.Box(-np.inf, np.inf, (size,), np.float32), spaces.Discrete(rules.num_actions),
                       lambda _: 1e-3, hint_source=source)
    assert policy.features == 0
    assert not any("features_weight" in k or "features_net" in k for k in policy.state_dict())
    assert "action_features" not in policy._get_constructor_parameters()
