"""Blind: the fast engine (BlindTables) against the reference engine, step by step.

Every player count, both tile sets, both values of ``optional_play`` and a fixed or random
starter: the same seeds and random legal actions must give the same legal actions and masks,
seats to move, observations (float32 and compact, every seat), points, terminations and
skipped decisionless deals. Then bad input: refused with a clear error, nothing changed.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from nos_env.blind_tables import BlindTables
from nos_env.family import blind_encoding as enc
from nos_env.family.blind import BlindGame, make_blind_rules

CONFIGS = [dict(num_players=n, tileset=ts, optional_play=op, first_seat=fs)
           for n, ts, op, fs in itertools.product((2, 3, 4, 5), ("double_six", "double_nine"), (False, True),
                                                  (None, 1))]
B = 6


def _id(cfg):
    return f"{cfg['num_players']}p-{cfg['tileset']}-{'opt' if cfg['optional_play'] else 'must'}-" \
           f"{'rand' if cfg['first_seat'] is None else 'seat1'}"


@pytest.mark.parametrize("cfg", CONFIGS, ids=_id)
def test_fast_matches_reference_step_by_step(cfg):
    seed = 1000 * cfg["num_players"] + (7 if cfg["optional_play"] else 0)
    # long enough that every configuration finishes games (random play, mostly playing:
    # about 24 decisions a game for 2 players double-six with optional_play, 46 double-nine)
    steps = (60 if cfg["tileset"] == "double_nine" else 35) if cfg["optional_play"] else 20
    fast = BlindTables("blind", B, seed=seed, observation_dtype="uint8", threads=1, **cfg)
    flo = BlindTables("blind", B, seed=seed, observation_dtype="float32", threads=1, **cfg)
    rules = make_blind_rules(**cfg)
    ref = [BlindGame(rules, seed=seed + b, skip_decisionless=True) for b in range(B)]
    rnd = random.Random(seed)
    n = cfg["num_players"]
    finished = 0
    for step in range(steps):
        for b, game in enumerate(ref):
            assert not game.done
            assert fast.current_player[b] == game.to_move
            assert fast.legal_actions(b).tolist() == game.legal_actions()
            assert (fast.masks[b] == game.legal_mask()).all()
            assert fast.skipped[b] == game.skipped
            assert fast.scores[b].tolist() == game.scores
        seats = np.array([rnd.randrange(n) for _ in range(B)])
        if step % 5 == 0:  # every seat's view, not only the mover's
            got_u, got_f = fast.observe(seats), flo.observe(seats)
            for b, game in enumerate(ref):
                assert (got_u[b] == game.observe(int(seats[b]), "uint8")).all()
                assert (got_f[b] == game.observe(int(seats[b]), "float32")).all()
        # mostly plays: declining at random makes games long (a decline is still taken often)
        actions = np.array([rnd.choice(g.legal_actions()[:-1] if cfg["optional_play"] and len(g.legal_actions()) > 1
                                       and rnd.random() < 0.8 else g.legal_actions()) for g in ref])
        obs_u, points_u, term_u, cur_u = fast.step(actions)
        obs_f, points_f, term_f, cur_f = flo.step(actions)
        assert (points_u == points_f).all() and (term_u == term_f).all() and (cur_u == cur_f).all()
        for b, game in enumerate(ref):
            points = game.step(int(actions[b]))
            assert points_u[b, :n].tolist() == points and not points_u[b, n:].any()
            assert bool(term_u[b]) == game.done
            if game.done:
                finished += 1
                assert fast.final_scores[b, :n].tolist() == game.scores
                game.reset()
            assert cur_u[b] == game.to_move
            assert (obs_u[b] == game.observe(game.to_move, "uint8")).all()
            assert (obs_f[b] == game.observe(game.to_move, "float32")).all()
            assert (enc.decode_compact(obs_u[b], rules) == obs_f[b]).all()
    assert finished > 0  # the games did end, so terminations were compared


@pytest.mark.parametrize("optional_play", [False, True])
def test_reference_game_rebuilds_tables(optional_play):
    fast = BlindTables("blind", 8, num_players=3, seed=77, optional_play=optional_play, threads=1)
    state = np.arange(8, dtype=np.uint64)
    for _ in range(15):
        fast.step(fast.sample_legal(state), observe=False)
    for b in range(8):
        game = fast.reference_game(b)
        assert game.to_move == fast.current_player[b]
        assert game.legal_actions() == fast.legal_actions(b).tolist()
        assert (game.observe(game.to_move, "uint8") == fast.observe_rows([b], [game.to_move])[0]).all()
        # and the recorded stream replays the same game in a fresh reference engine
        again = BlindGame.from_record(game.record())
        assert again.events == game.events


def test_load_deal_matches_from_deal():
    rules = make_blind_rules(2, optional_play=True)
    order = list(range(28))
    random.Random(3).shuffle(order)
    rows = [order[:14], order[14:]]
    fast = BlindTables("blind", 2, num_players=2, optional_play=True, threads=1)
    fast.load_deal(1, rows, [], setter=1)
    game = BlindGame.from_deal(rules, rows, [], setter=1)
    assert fast.current_player[1] == game.to_move
    assert fast.legal_actions(1).tolist() == game.legal_actions()
    assert (fast.observe_rows([1], [0])[0] == game.observe(0, "uint8")).all()
    assert fast.reference_game(1).events == game.events


def test_threads_give_the_same_games():
    a = BlindTables("blind", 64, num_players=4, seed=9, threads=1)
    b = BlindTables("blind", 64, num_players=4, seed=9, threads=2)
    sa, sb = np.arange(64, dtype=np.uint64), np.arange(64, dtype=np.uint64)
    for _ in range(30):
        oa, pa, ta, ca = a.step(a.sample_legal(sa))
        ob, pb, tb, cb = b.step(b.sample_legal(sb))
        assert (oa == ob).all() and (pa == pb).all() and (ta == tb).all() and (ca == cb).all()


# ---------------------------------------------------------------- bad input
def _unchanged(fast, before):
    after = fast.clone()
    return all((before[k] == after[k]).all() for k in before)


def test_bad_actions_are_refused_and_change_nothing():
    fast = BlindTables("blind", 3, num_players=2, seed=1, threads=1)
    before = fast.clone()
    legal = [int(fast.legal_actions(b)[0]) for b in range(3)]
    illegal = next(a for a in range(fast.num_actions) if not fast.masks[0, a])
    cases = [
        (np.array(legal[:2]), "shape"),
        (np.array(legal, float), "integer array"),
        (np.array([legal[0], legal[1], 86]), "outside 0..85"),
        (np.array([legal[0], legal[1], -1]), "outside 0..85"),
        (np.array([illegal, legal[1], legal[2]]), "not legal; legal there: "),
    ]
    for actions, words in cases:
        with pytest.raises(ValueError, match=words):
            fast.step(actions)
        assert _unchanged(fast, before)
    # IDLE only with allow_idle: the table waits
    obs, points, term, cur = fast.step(np.array([-1, legal[1], legal[2]]), allow_idle=True)
    assert not points[0].any() and not term[0]


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="2 to 5 players"):
        BlindTables("blind", 2, num_players=6)
    with pytest.raises(ValueError, match="no option 'hand_size'"):
        BlindTables("blind", 2, hand_size=5)
    with pytest.raises(ValueError, match="tileset must be"):
        BlindTables("blind", 2, tileset="double_twelve")
    with pytest.raises(ValueError, match="'blind' only"):
        BlindTables("draw", 2)
    with pytest.raises(ValueError, match="num_tables"):
        BlindTables("blind", 0)
    with pytest.raises(ValueError, match="uint8"):
        BlindTables("blind", 2, observation_dtype="float64")
    fast = BlindTables("blind", 2, num_players=3, seed=2, threads=1)
    before = fast.clone()
    with pytest.raises(ValueError, match="seats"):
        fast.observe(np.array([0, 3]))
    with pytest.raises(ValueError, match="rows"):
        fast.observe_rows([5], [0])
    with pytest.raises(ValueError, match="table index"):
        fast.legal_actions(2)
    with pytest.raises(ValueError, match="snapshot"):
        fast.restore({"T": fast.T})
    with pytest.raises(ValueError, match="9 tiles each"):
        fast.load_deal(0, [[0, 1], [2, 3], [4, 5]], [])
    with pytest.raises(ValueError, match="exactly once"):
        fast.load_deal(0, [list(range(9)), list(range(9)), list(range(9))], [27])
    with pytest.raises(ValueError, match="setter"):
        fast.load_deal(0, [list(range(9)), list(range(9, 18)), list(range(18, 27))], [27], setter=3)
    assert _unchanged(fast, before)


def test_without_autoreset_a_finished_table_waits():
    fast = BlindTables("blind", 4, num_players=2, seed=3, threads=1)
    state = np.arange(4, dtype=np.uint64)
    done = np.zeros(4, bool)
    for _ in range(200):
        actions = fast.sample_legal(state)  # IDLE (-1) for a finished table
        assert ((actions == -1) == done).all()
        obs, points, term, cur = fast.step(actions, autoreset=False, allow_idle=True)
        done |= term
        if done.all():
            break
    assert done.all() and (fast.current_player == -1).all() and not fast.masks.any()
    assert (fast.scores.sum(axis=1) <= 1).all()
    assert not fast.observe_rows([0, 1], [-1, -1]).any()
    with pytest.raises(ValueError, match="game is over"):
        fast.step(np.zeros(4, np.int64))
    fast.reset_tables([2])
    assert fast.current_player[2] >= 0 and fast.legal_actions(2).size > 0 and fast.scores[2].sum() == 0


def test_set_hidden_plays_on_as_the_determinized_reference():
    rnd = random.Random(4)
    fast = BlindTables("blind", 6, num_players=3, seed=21, optional_play=True, threads=1)
    state = np.arange(6, dtype=np.uint64)
    for _ in range(6):
        fast.step(fast.sample_legal(state), observe=False)
    games = []
    for b in range(6):
        public = fast.observe_rows([b], [fast.current_player[b]])[0].copy()
        game = fast.reference_game(b).sample_hidden(rnd)
        fast.set_hidden(b, game.hidden_tiles())
        assert fast.hidden_tiles(b) == game.hidden_tiles()
        assert (fast.observe_rows([b], [fast.current_player[b]])[0] == public).all()  # nobody can tell
        games.append(game)
    for _ in range(10):
        actions = np.array([rnd.choice(g.legal_actions()) for g in games])
        obs, points, term, cur = fast.step(actions)
        for b, g in enumerate(games):
            assert points[b, :3].tolist() == g.step(int(actions[b])) and bool(term[b]) == g.done
            if g.done:  # the table goes on with its next deal: follow it from there
                games[b] = g = fast.reference_game(b)
            assert (obs[b] == g.observe(g.to_move, "uint8")).all()
    with pytest.raises(ValueError, match="hidden tiles"):
        fast.set_hidden(0, [0, 1, 2])


def test_seed_tables_and_snapshots():
    fast = BlindTables("blind", 3, num_players=4, seed=0, threads=1)
    fast.seed_tables([0, 2], [555, 555])  # duplicate deals from the next reset on
    fast.reset_tables([0, 2])
    game = BlindGame(make_blind_rules(4), seed=555, skip_decisionless=True)
    for b in (0, 2):
        assert fast.deal_of(b)[0] == game.dealt and fast.legal_actions(b).tolist() == game.legal_actions()
    snap, one = fast.clone(), fast.clone_table(1)
    obs_before = fast.observe(fast.current_player.astype(np.int64)).copy()
    fast.step(np.array([fast.legal_actions(b)[0] for b in range(3)]))
    fast.restore_table(1, one)
    assert (fast.observe_rows([1], [fast.current_player[1]])[0] == obs_before[1]).all()
    fast.restore(snap)
    assert (fast.observe(fast.current_player.astype(np.int64)) == obs_before).all()
    with pytest.raises(ValueError, match="seeds"):
        fast.seed_tables([0], [1, 2])


def test_buffers_and_streams_are_checked():
    fast = BlindTables("blind", 2, num_players=2, seed=0, threads=1)
    seats = fast.current_player.astype(np.int64)
    out = np.zeros((2, fast.observation_size), np.uint8)
    assert fast.observe(seats, out=out) is out and out.any()
    assert (fast.hand_number == 0).all() and fast.thread_stats
    for bad in (np.zeros((2, 3), np.uint8), np.zeros((2, fast.observation_size), np.float32)):
        with pytest.raises(ValueError, match="writable C-contiguous uint8"):
            fast.observe(seats, out=bad)
    with pytest.raises(ValueError, match="uint64"):
        fast.sample_legal(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match="bool mask"):
        fast.reset_tables([0, 2])
    assert fast.check_rows(np.array([True, False])).tolist() == [0]


def test_winner_without_autoreset_is_the_reference_winner():
    fast = BlindTables("blind", 8, num_players=3, seed=40, threads=1)
    rules = make_blind_rules(3)
    ref = [BlindGame(rules, seed=40 + b, skip_decisionless=True) for b in range(8)]
    rnd = random.Random(0)
    while not all(g.done for g in ref):
        actions = np.array([rnd.choice(g.legal_actions()) if not g.done else -1 for g in ref])
        fast.step(actions, observe=False, autoreset=False, allow_idle=True)
        for g, a in zip(ref, actions):
            if a >= 0:
                g.step(int(a))
    assert fast.winner.tolist() == [-1 if g.winner is None else g.winner for g in ref]
