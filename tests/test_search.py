"""agents.search: determinized Monte-Carlo search on the fast engine.

Legal actions in real games, determinism, D17 (permuting the real hidden
tiles changes nothing the agent does or estimates), and hand-made positions
where one action is clearly best.
"""

import numpy as np
import pytest

import nos_env
from agents import features as F
from agents.base import BatchContext
from agents.greedy import GreedyAgent
from agents.search import SearchAgent
from nos_env.games import nos as K
from nos_env.deal import Deal
from nos_env.encoding import action_to_index
from nos_env.engine import Hand
from nos_env.tiles import TILE_INDEX

DOUBLES = sum(1 << TILE_INDEX[(d, d)] for d in range(7))


def drive(num_envs, n, seed, decisions, agent, on_decision=None):
    """Play vector-env games: ``agent`` for one seat per table (rotating by episode), greedy for the rest.

    Returns the search seat's actions in order. ``on_decision(venv, b, seat, obs, mask)`` is called
    before each of the agent's decisions with more than one legal action."""
    venv = nos_env.vector_env(num_envs=num_envs, num_players=n, seed=seed)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=seed + 1)
    episode = np.zeros(num_envs, np.int64)
    taken = []
    while len(taken) < decisions:
        seat_of = (np.arange(num_envs) + episode) % n
        actions = greedy.act_batch(obs, masks)
        rows = np.flatnonzero(current == seat_of)
        if len(rows):
            if on_decision is not None:
                for b in rows:
                    if masks[b].sum() > 1:
                        on_decision(venv, int(b), int(current[b]), obs[b], np.array(masks[b]))
            chosen = agent.act_batch(obs[rows], np.array(masks[rows]), BatchContext(venv.tables, rows, current[rows]))
            assert (masks[rows, chosen] == 1).all(), "an illegal action"
            actions[rows] = chosen
            taken += [int(a) for a in chosen]
        obs, masks, current, _, terminated, _ = venv.step(actions)
        episode += terminated
    return taken


@pytest.mark.parametrize("n", [3, 4, 5])
def test_only_legal_actions_in_real_games(n):
    kinds = set()

    def note(venv, b, seat, obs, mask):
        kinds.update(int(F.KIND[a]) for a in np.flatnonzero(mask))

    taken = drive(6, n, seed=10 + n, decisions=200, agent=SearchAgent(seed=1, rollouts=16), on_decision=note)
    assert len(taken) >= 200
    assert {F.PLAY, F.DRAW, F.ANNOUNCE, F.DECLINE} <= kinds  # searched decisions of several kinds were met
    if n == 4:
        assert F.SET in kinds


def test_deterministic_given_seed():
    a = drive(4, 4, seed=3, decisions=60, agent=SearchAgent(seed=5, rollouts=16))
    b = drive(4, 4, seed=3, decisions=60, agent=SearchAgent(seed=5, rollouts=16))
    assert a == b


def permute_hidden(tables, b, seat, rng):
    """Shuffle the real hidden tiles of table b as seen from ``seat``: other hands (face-up doubles
    stay), the boneyard (and the record of drawn tiles); sizes, public records and the view stay."""
    n = tables.num_players
    S, T, BONE, L = tables.S, tables.T, tables.BONE, tables.L
    top, end = int(T[b, K.T_BONE_TOP]), int(T[b, K.T_BONE_END])
    hidden, slots = [], []
    face = {}
    for r in range(1, n):
        s = (seat + r) % n
        hand = int(S[b, s, K.S_HAND])
        face[s] = hand & int(S[b, s, K.S_DEALT]) & DOUBLES if S[b, s, K.S_DECLARED] else 0
        free = [t for t in range(28) if (hand >> t) & 1 and not (face[s] >> t) & 1]
        hidden += free
        slots.append((s, len(free)))
    hidden += [int(t) for t in BONE[b, top:end]]
    hidden = [hidden[i] for i in rng.permutation(len(hidden))]
    i = 0
    for s, size in slots:
        hand = face[s]
        for t in hidden[i:i + size]:
            hand |= 1 << t
        i += size
        placed = sum(1 << t for t in range(28) if L[b, t, K.L_PLACER] == s)
        S[b, s, K.S_HAND] = hand
        S[b, s, K.S_DEALT] = (hand & ~DOUBLES) | face[s] | placed
    BONE[b, top:end] = hidden[i:]
    BONE[b, :top] = rng.permutation(BONE[b, :top])
    # The random stream and the decision history also encode the real deal: scramble them too.
    tables.R[b] = np.uint64(rng.integers(0, 2**63))
    tables.H[b] = rng.integers(0, 557, tables.H.shape[1])


def test_d17_permuting_the_hidden_tiles_changes_nothing():
    """The agent's decision and every value estimate are the same when the real hidden tiles are
    shuffled (its view unchanged): it uses only public information and its own hand."""
    rng = np.random.default_rng(0)
    results = {"same": 0, "changed_hidden": 0, "announce": 0}

    def check(venv, b, seat, obs, mask):
        tables = venv.tables
        if results["same"] >= 25 or rng.random() < 0.5:
            return
        saved = tables.clone_table(b)
        first = SearchAgent(seed=42, rollouts=24)
        a1 = first.search(obs, mask, tables, b, seat)
        v1 = first.last_search["values"].copy()
        before = [int(x) for x in tables.S[b, :, K.S_HAND]]
        permute_hidden(tables, b, seat, rng)
        K.compute_mask(tables.T, tables.S, tables.A, tables.MASK, tables.LEGAL, b, tables.num_players)
        view = tables.observe(np.full(tables.num_envs, seat))[b]
        assert np.array_equal(view, obs), "the permutation changed the view"
        assert np.array_equal(tables.MASK[b], mask)
        results["changed_hidden"] += before != [int(x) for x in tables.S[b, :, K.S_HAND]]
        second = SearchAgent(seed=42, rollouts=24)
        a2 = second.search(obs, mask, tables, b, seat)
        assert a1 == a2
        assert np.array_equal(v1, second.last_search["values"])
        results["same"] += 1
        results["announce"] += int(F.KIND[a1] == F.ANNOUNCE)
        tables.restore_table(b, saved)

    drive(4, 4, seed=21, decisions=200, agent=GreedyAgent(seed=0), on_decision=check)
    assert results["same"] >= 20
    assert results["changed_hidden"] >= 15
    assert results["announce"] >= 1  # an announcement decision was among them


def test_d17_values_depend_on_the_samples():
    """Control for the test above: the estimates are noisy functions of the samples, so equality
    there means the samples (not the real tiles) drive them."""
    venv = nos_env.vector_env(num_envs=1, num_players=4, seed=5)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=0)
    while True:
        if masks[0].sum() > 2 and F.KIND[np.flatnonzero(masks[0])].max() == F.PLAY:
            break
        obs, masks, current, *_ = venv.step(greedy.act_batch(obs, masks))
    values = []
    for seed in range(4):
        agent = SearchAgent(seed=seed, rollouts=24)
        agent.search(obs[0], np.array(masks[0]), venv.tables, 0, int(current[0]))
        values.append(tuple(agent.last_search["values"]))
    assert len(set(values)) > 1


def load_position(deal, on_set, script):
    """A one-table vector env started from ``deal``, with the scripted decisions (engine text) applied."""
    hand = Hand(deal, on_set=on_set)
    venv = nos_env.vector_env(num_envs=1, num_players=deal.num_players, seed=0)
    venv.load_deal(0, deal, on_set=on_set)
    for text in script + [None]:
        # D25: the script leaves out the windows' one-choice steps (forced no-declare, decline).
        while hand.phase in ("declare", "immediate") and len(hand.legal_actions()) == 1:
            forced = hand.legal_actions()[0]
            hand.step(forced)
            venv.step(np.array([action_to_index(forced)]))
        if text is not None:
            index = action_to_index(hand.resolve(text))
            hand.step(text)
            venv.step(np.array([index]))
    seat = int(venv.current_player[0])
    assert seat == hand.to_move
    return venv, hand, seat


def test_takes_a_paid_double():
    """Seat 2 can place [5-5] on seat 1's [1-5] (5 from seat 1, 10 pips unloaded) or play [0-1]; the
    boneyard is down to its last two (seat 1 drew ten), so nobody can draw."""
    deal = Deal.from_tiles(
        [["1-1", "0-3", "2-4", "3-6"], ["1-5", "0-4", "2-6", "4-6"], ["5-5", "0-1", "2-3", "3-4"],
         ["0-0", "1-2", "4-5", "5-6"]],
        ["0-2", "0-5", "0-6", "1-3", "1-4", "1-6", "2-2", "2-5", "3-3", "3-5", "4-4", "6-6"],
    )
    venv, hand, seat = load_position(deal, 0, ["set 1-1", "announce ordinary"] + ["draw"] * 10 + ["play 1-5 L0 out 5"])
    assert seat == 2
    best = action_to_index(hand.resolve("play 5-5 L0"))
    mask = np.array(venv.masks[0])
    assert mask.sum() == 4 and not mask[K.DRAW]
    obs = venv.observe(np.array([seat]))
    agent = SearchAgent(seed=0)
    action = agent.act(obs[0], mask, BatchContext(venv.tables, np.array([0]), np.array([seat])))
    assert action == best
    # Both closings are certainly wrong (seat 2 keeps a tile that fits) and were not searched.
    assert not F.CLOSE[agent.last_search["candidates"]].any()


def test_declares_three_doubles():
    """4 players: seat 1 was dealt three doubles; declaring brings 25 from each other player."""
    deal = Deal.from_tiles(
        [["6-6", "0-2", "1-3", "2-5"], ["2-2", "3-3", "4-4", "0-1"], ["0-3", "1-4", "2-6", "3-5"],
         ["0-4", "1-5", "3-6", "4-5"]],
        ["0-0", "0-5", "0-6", "1-1", "1-2", "1-6", "2-3", "2-4", "3-4", "4-6", "5-5", "5-6"],
    )
    venv, hand, seat = load_position(deal, 0, ["set 6-6", "announce ordinary"])
    assert seat == 1 and hand.phase == "declare"
    agent = SearchAgent(seed=0)
    obs = venv.observe(np.array([seat]))
    action = agent.act(obs[0], np.array(venv.masks[0]), BatchContext(venv.tables, np.array([0]), np.array([seat])))
    assert action == action_to_index(hand.resolve("declare"))
    declare, no_declare = agent.last_search["values"]
    assert declare - no_declare > 50


def test_goes_out_when_it_can():
    """Positions from real games where the seat to move holds one tile that fits and may also draw:
    playing it out (nos, and nothing left to count) is clearly best."""
    venv = nos_env.vector_env(num_envs=16, num_players=4, seed=77)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=0)
    agent = SearchAgent(seed=0)
    found = 0
    for _ in range(400):
        T, S = venv.tables.T, venv.tables.S
        for b in range(16):
            s = int(current[b])
            if s < 0 or T[b, K.T_PHASE] != K.P_PLAY:
                continue
            hand = int(S[b, s, K.S_HAND])
            legal = np.flatnonzero(masks[b])
            if bin(hand).count("1") != 1 or not masks[b, K.DRAW] or (F.KIND[legal] == F.PLAY).sum() == 0:
                continue
            action = agent.act(obs[b], np.array(masks[b]), BatchContext(venv.tables, np.array([b]), np.array([s])))
            assert F.KIND[action] == F.PLAY and (hand >> F.TILE[action]) & 1
            found += 1
        if found >= 3:
            break
        obs, masks, current, *_ = venv.step(greedy.act_batch(obs, masks))
    assert found >= 3


def test_needs_a_context():
    venv = nos_env.vector_env(num_envs=1, num_players=4, seed=0)
    obs, masks, _ = venv.reset()
    with pytest.raises(ValueError, match="BatchContext"):
        SearchAgent(seed=0).act_batch(obs, np.array(masks))


def test_time_limit_repeats_batches():
    venv = nos_env.vector_env(num_envs=1, num_players=4, seed=5)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=0)
    while not (masks[0].sum() > 2 and F.KIND[np.flatnonzero(masks[0])].max() == F.PLAY):
        obs, masks, current, *_ = venv.step(greedy.act_batch(obs, masks))
    agent = SearchAgent(seed=0, rollouts=8, time_limit=0.05)
    action = agent.search(obs[0], np.array(masks[0]), venv.tables, 0, int(current[0]))
    assert masks[0, action]
    per_batch = max(agent.min_rollouts, 8 // len(agent.last_search["candidates"]))
    assert agent.last_search["rollouts"] > per_batch


def test_compiled_tactics_makes_the_same_search_as_the_python_one():
    """Without tie-break noise the compiled Tactics plays the very rollouts the Python agent plays
    (tests/test_tactics_kernel.py), so from one seed the two Searches estimate the same values
    and choose the same actions: the speed-up costs no strength."""
    new = SearchAgent(seed=5, rollouts=24, tie_noise=False)
    old = SearchAgent(seed=5, rollouts=24, tie_noise=False, compiled=False)
    compared = []

    def check(venv, b, seat, obs, mask):
        chosen = new.search(obs, mask, venv.tables, b, seat)
        assert old.search(obs, mask, venv.tables, b, seat) == chosen
        np.testing.assert_array_equal(new.last_search["values"], old.last_search["values"])
        compared.append(new.last_search["rollouts"])

    drive(4, 4, seed=21, decisions=60, agent=GreedyAgent(seed=9), on_decision=check)
    assert len(compared) > 20 and sum(compared) > 150  # searched decisions, samples per candidate


def test_sequential_halving_keeps_the_best_and_the_prior():
    """_halving on made-up values (candidate j's rollouts give j + noise): every round halves the
    field, the best candidate and the prior's action play every sample, the budget is kept, and a
    dropped candidate is never played again (NaN)."""
    agent = SearchAgent(seed=0)
    rng = np.random.default_rng(1)

    def fake_values(public, sampler, candidates, k, n, seat):
        return candidates[None, :] + rng.normal(0, 2.0, (k, len(candidates)))

    agent._values = fake_values
    candidates = np.arange(100, 150)  # 50 candidates: 6 rounds
    values = agent._halving(None, None, candidates, 6000, 4, 0, prior_action=103)  # 49 others: 6 rounds
    played = ~np.isnan(values)
    samples = played.sum(axis=0)
    assert samples[-1] == samples[3] == len(values)  # the best one and the prior's, on every sample
    assert samples.max() == len(values) and (samples == len(values)).sum() <= 3
    assert len(set(samples.tolist())) == 6  # one count per round dropped in
    assert played.sum() <= 6000
    for j in range(50):  # once dropped, never played again
        column = played[:, j]
        assert not (column[1:] & ~column[:-1]).any()
    even = 6000 // 50
    assert samples[-1] > 5 * even  # the finalists get many more samples than an even split


def _first_announcement(seed):
    venv = nos_env.vector_env(num_envs=1, num_players=4, seed=seed)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=0)
    while (F.KIND[np.flatnonzero(masks[0])] != F.ANNOUNCE).any():
        obs, masks, current, *_ = venv.step(greedy.act_batch(obs, masks))
    return venv, obs[0], np.array(masks[0]), int(current[0])


def test_announcements_all_searched_by_halving():
    """Every legal announcement is a candidate; the finalists play many more samples than the rest;
    with halving off each gets the even share of the budget."""
    venv, obs, mask, seat = _first_announcement(seed=4)
    agent = SearchAgent(seed=3, rollouts=8)  # opening budget 512
    agent.search(obs, mask, venv.tables, 0, seat)
    last = agent.last_search
    assert np.array_equal(last["candidates"], np.flatnonzero(mask))
    assert last["samples"].max() == last["rollouts"] > 2 * last["samples"].min()
    assert last["samples"].sum() <= 512 + 2 * len(last["candidates"])
    even = SearchAgent(seed=3, rollouts=8, halving=False)
    even.search(obs, mask, venv.tables, 0, seat)
    assert (even.last_search["samples"] == max(2, 512 // len(last["candidates"]))).all()


def test_key_decisions_get_the_key_budget():
    """A declare decision is searched with key_rollouts (16 x rollouts by default), split over its two
    answers; a plain play decision with rollouts."""
    deal = Deal.from_tiles(
        [["6-6", "0-2", "1-3", "2-5"], ["2-2", "3-3", "4-4", "0-1"], ["0-3", "1-4", "2-6", "3-5"],
         ["0-4", "1-5", "3-6", "4-5"]],
        ["0-0", "0-5", "0-6", "1-1", "1-2", "1-6", "2-3", "2-4", "3-4", "4-6", "5-5", "5-6"],
    )
    venv, hand, seat = load_position(deal, 0, ["set 6-6", "announce ordinary"])
    obs = venv.observe(np.array([seat]))[0]
    for options, samples in (({}, 16 * 8 // 2), ({"key_rollouts": None}, 8 // 2), ({"key_rollouts": 100}, 50)):
        agent = SearchAgent(seed=0, rollouts=8, **options)
        agent.search(obs, np.array(venv.masks[0]), venv.tables, 0, seat)
        assert agent.last_search["rollouts"] == samples
    with pytest.raises(ValueError, match="key_rollouts"):
        SearchAgent(key_rollouts=0)


def test_batched_rows_choose_what_one_search_per_row_chooses():
    """act_batch plays the play decisions of many rows in one scratch batch; it makes the same random
    draws in the same order as one search() per row, so it chooses the same actions (with tie noise
    on) and leaves the generator in the same state."""
    batched, single = SearchAgent(seed=11, rollouts=16), SearchAgent(seed=11, rollouts=16)
    venv = nos_env.vector_env(num_envs=12, num_players=4, seed=8)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=1)
    compared = multi = 0
    for _ in range(60):
        actions = greedy.act_batch(obs, masks)
        rows = np.flatnonzero(current % 2 == 0)  # seats 0 and 2 search
        if len(rows):
            context = BatchContext(venv.tables, rows, current[rows])
            chosen = batched.act_batch(obs[rows], np.array(masks[rows]), context)
            for j, b in enumerate(rows):
                legal = np.flatnonzero(masks[b])
                alone = legal[0] if len(legal) == 1 else single.search(obs[b], np.array(masks[b]), venv.tables,
                                                                      int(b), int(current[b]))
                assert chosen[j] == alone
            compared += len(rows)
            multi += int((np.array(masks[rows]).sum(axis=1) > 1).sum() > 1)
            actions[rows] = chosen
        obs, masks, current, *_ = venv.step(actions)
    assert batched.rng.integers(2**62) == single.rng.integers(2**62)
    assert compared > 150 and multi > 20  # act_batch calls with several searched rows


@pytest.mark.parametrize("tie_noise", [True, False])
def test_greedy_prior_is_built_with_or_without_tie_noise(tie_noise):
    """prior="greedy" gives a greedy prior whether or not Tactics' tie-break noise is on (it was
    left out when tie_noise=False)."""
    agent = SearchAgent(seed=0, prior="greedy", tie_noise=tie_noise)
    assert isinstance(agent.prior, GreedyAgent)
    assert SearchAgent(seed=0, prior=None, tie_noise=tie_noise).prior is None
