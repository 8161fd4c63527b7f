"""The PettingZoo AEC environment: API conformance, masks, observations, rewards, options."""

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import nos_env
from nos_env.encoding import (
    NUM_ACTIONS,
    OBSERVATION_LAYOUT,
    OBSERVATION_SIZE,
    action_to_index,
    decode_observation,
    encode_observation,
    index_to_action,
    legal_mask,
)
from nos_env.engine import IllegalActionError, new_hand
from nos_env.record import hand_record, replay
from nos_env.tiles import is_double, tile_str

COUNTS = [3, 4, 5]
BACKENDS = ["fast", "reference"]


@pytest.fixture(params=BACKENDS)
def backend(request):
    return request.param


@pytest.fixture(autouse=True)
def _quiet_unknown_reset_option():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="ignoring unknown reset option")
        warnings.filterwarnings("ignore", message="Observation")
        yield


@pytest.mark.parametrize("n", COUNTS)
def test_pettingzoo_api_test(n, backend):
    api_test(nos_env.env(num_players=n, backend=backend), num_cycles=1000)


@pytest.mark.parametrize("n", COUNTS)
def test_pettingzoo_seed_test(n, backend):
    seed_test(lambda **kw: nos_env.env(num_players=n, backend=backend, **kw), num_cycles=300)


def test_pettingzoo_render_test(capsys, backend):
    render_test(lambda **kw: nos_env.env(num_players=4, backend=backend, **kw))


def test_metadata_and_agents():
    e = nos_env.raw_env(num_players=5)
    assert e.metadata["name"] == "nos_v0"
    assert e.metadata["is_parallelizable"] is False
    assert set(e.metadata["render_modes"]) == {"human", "ansi", "rgb_array"}
    assert e.possible_agents == [f"player_{i}" for i in range(5)]
    assert e.action_space("player_0").n == NUM_ACTIONS == 557
    assert e.observation_space("player_0")["observation"].shape == (OBSERVATION_SIZE,)
    assert e.observation_layout is OBSERVATION_LAYOUT
    # The named slices tile the vector exactly, in order.
    stop = 0
    for start, end, shape in OBSERVATION_LAYOUT.values():
        assert start == stop and end - start == int(np.prod(shape))
        stop = end
    assert stop == OBSERVATION_SIZE


def random_positions(n, hands, seed):
    """Yield hands at every decision of ``hands`` random hands."""
    rng = np.random.default_rng(seed)
    for _ in range(hands):
        hand = new_hand(n, rng)
        while not hand.over:
            yield hand, rng
            legal = hand.legal_actions()
            hand.step(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("n", COUNTS)
def test_mask_equals_the_engines_legal_actions(n):
    for hand, _ in random_positions(n, 60, seed=n):
        mask = legal_mask(hand)
        legal = hand.legal_actions()
        assert mask.sum() == len(legal)
        for action in legal:
            index = action_to_index(action)
            assert mask[index] == 1
            assert index_to_action(index, hand) == action  # the index means that action here


def public_state(hand, seat):
    """The engine's public state as seen from ``seat``, in the decoder's terms."""
    n = hand.num_players

    def rel(s):
        return (s - seat) % n

    layout = {}
    if hand.set_tile is not None:
        layout[hand.set_tile] = {"placer": rel(hand.on_set), "arm": None, "immediate": False}
    arms = []
    if hand.layout is not None:
        for arm, cells in enumerate(hand.layout.arms):
            for p in cells:
                layout[p.tile] = {"placer": rel(p.seat), "arm": arm, "immediate": p.immediate}
            arms.append({"open": hand.layout.open_end(arm), "rule": hand.layout.rule_in_force(arm),
                         "locked": hand.layout.locked(arm), "dead": hand.layout.is_dead(arm),
                         "count": len(cells)})
    claim = hand.pending_claim()
    return {
        "num_players": n,
        "phase": hand.phase,
        "hand": sorted(hand.hands[seat]),
        "set_tile": hand.set_tile,
        "layout": layout,
        "arms": arms,
        "announcement": hand.announcement,
        "seats": [
            {"hand_size": len(hand.hands[s]), "out": hand.out[s], "nos": hand.nos_seat == s,
             "waits_owed": len(hand.waits_owed[s]), "on_set": hand.on_set == s, "to_move": hand.to_move == s,
             "declared": hand.declared[s], "face_up": sorted(hand.public_doubles(s)),
             "passed_on": hand.passed_on[s], "drew_on": hand.drew_on[s],
             "passed_tiles": hand.passed_tiles[s], "drew_tiles": hand.drew_tiles[s]}
            for s in [(seat + r) % n for r in range(n)]
        ],
        "claim": None if claim is None else (claim[0], rel(claim[1])),
        "boneyard_size": len(hand.boneyard),
    }


@pytest.mark.parametrize("n", COUNTS)
def test_observation_decodes_to_the_public_state(n):
    for hand, rng in random_positions(n, 40, seed=10 + n):
        seat = int(rng.integers(n))
        decoded = decode_observation(encode_observation(hand, seat))
        expected = public_state(hand, seat)
        for key, value in expected.items():
            got = decoded[key]
            if key == "arms":
                got = [{k: v for k, v in arm.items() if k != "needs"} for arm in got]
            if key == "seats":
                got = [{k: v for k, v in s.items() if k not in ("chips_change", "hand_payments")} for s in got]
            assert got == value, key


def permute_hidden(hand, observer, rng):
    """A copy of ``hand`` with every tile the observer cannot see shuffled among
    the other hands and the boneyard (sizes and face-up doubles kept)."""
    other = hand.copy()
    slots = []  # (container, position) of every hidden tile
    for s in range(hand.num_players):
        if s == observer:
            continue
        face_up = set(hand.public_doubles(s))
        slots += [(other.hands[s], i) for i, t in enumerate(other.hands[s]) if t not in face_up]
    slots += [(other.boneyard, i) for i in range(len(other.boneyard))]
    tiles = [container[i] for container, i in slots]
    for (container, i), t in zip(slots, rng.permutation(len(tiles))):
        container[i] = tiles[t]
    return other


@pytest.mark.parametrize("n", COUNTS)
def test_d17_hidden_tiles_do_not_change_observation_or_mask(n):
    checked = 0
    for hand, rng in random_positions(n, 40, seed=20 + n):
        observer = hand.to_move if hand.to_move is not None else 0
        twin = permute_hidden(hand, observer, rng)
        assert sorted(twin.tiles_accounted()) == sorted(hand.tiles_accounted())
        for seat in range(n):
            if seat == observer:
                np.testing.assert_array_equal(encode_observation(twin, seat), encode_observation(hand, seat))
        np.testing.assert_array_equal(legal_mask(twin), legal_mask(hand))
        checked += 1
    assert checked > 100


def test_a_permuted_twin_really_differs_somewhere():
    """Guard for the D17 test: the permutation must move hidden tiles, or it proves nothing."""
    rng = np.random.default_rng(0)
    hand = new_hand(4, rng)
    hand.step(hand.legal_actions()[0])
    twin = permute_hidden(hand, hand.on_set, rng)
    others = [s for s in range(4) if s != hand.on_set]
    assert any(twin.hands[s] != hand.hands[s] for s in others) or twin.boneyard != hand.boneyard
    # ...and the opponents' observations do see their own changed tiles.
    assert any(
        not np.array_equal(encode_observation(twin, s), encode_observation(hand, s)) for s in others
    )


def play_env(e, rng, episodes=1):
    """Random legal play through the AEC loop; checks rewards as it goes."""
    totals = []
    for _ in range(episodes):
        e.reset(seed=int(rng.integers(1 << 30)))
        start = e.unwrapped.episode_chips_start
        returns = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            returns[agent] += reward
            if term or trunc:
                e.step(None)
                continue
            assert abs(sum(e.unwrapped.rewards.values())) < 1e-9  # zero-sum at every step
            e.step(int(e.action_space(agent).sample(obs["action_mask"])))
        final = e.unwrapped.chips
        scale = e.unwrapped.reward_scale
        for i, a in enumerate(e.possible_agents):
            assert returns[a] == pytest.approx((final[i] - start[i]) * scale)
        totals.append(final)
    return totals


@pytest.mark.parametrize("n", COUNTS)
def test_rewards_are_zero_sum_and_add_up_to_the_chip_change(n, backend):
    rng = np.random.default_rng(n)
    play_env(nos_env.env(num_players=n, backend=backend), rng, episodes=30)
    play_env(nos_env.env(num_players=n, reward_scale=0.01, auto_forced=True, backend=backend), rng, episodes=10)
    play_env(nos_env.env(num_players=n, hands_per_episode=3, auto_forced=True, backend=backend), rng, episodes=5)


def test_session_of_several_hands_the_loser_sets_the_next():
    e = nos_env.env(num_players=4, hands_per_episode=5, backend="reference")
    play_env(e, np.random.default_rng(1))
    session = e.unwrapped.backend.session
    assert len(session.hands) == 5 and all(h.over for h in session.hands)
    assert session.hands[0].first_hand  # sessions start with the first-hand rule
    for before, after in zip(session.hands, session.hands[1:]):
        assert after.on_set in before.losers
        assert after.chips_start == before.chips


def test_one_hand_episodes_use_a_random_setter_and_the_later_hand_rule(backend):
    e = nos_env.raw_env(num_players=4, backend=backend)
    setters = set()
    for seed in range(40):
        e.reset(seed=seed)
        assert not e.hand.first_hand
        setters.add(e.hand.on_set)
    assert setters == {0, 1, 2, 3}  # D20


def test_reset_from_a_given_deal_and_seat_on_set(backend):
    vector_hands = [["0-1", "0-4", "1-4", "1-5"], ["2-6", "0-5", "1-2", "4-5"],
                    ["3-3", "0-2", "2-4", "4-6"], ["3-4", "5-6", "0-6", "1-1"]]
    boneyard = ["2-3", "0-0", "0-3", "1-3", "1-6", "2-2", "2-5", "3-5", "3-6", "4-4", "5-5", "6-6"]
    e = nos_env.env(num_players=4, backend=backend)
    e.reset(options={"deal": {"hands": vector_hands, "boneyard_top_first": boneyard}, "on_set": 0,
                     "chips": [100, 200, 300, 400]})
    raw = e.unwrapped
    assert e.agent_selection == "player_0"
    assert [raw.action_to_text(i) for i in np.flatnonzero(e.last()[0]["action_mask"])] == ["draw"]
    # D25: every seat is asked to declare (none can) and, but the setter, for immediate doubles.
    for text in ["draw", "set 2-3", "announce ordinary", "no-declare", "no-declare", "no-declare", "no-declare",
                 "decline", "immediate 3-3 L1 out 3", "decline", "decline", "play 2-6 L0"]:
        e.step(raw.text_to_action(text))
    # docs/rules/nos.md §13 example 1: 5 to each for the drawn set tile, 3 from A for C's double; C waits.
    assert raw.hand.chips == raw.chips == [100 - 15 - 3, 205, 305 + 3, 405]
    assert e.agent_selection == "player_3"
    assert e.rewards == {"player_0": 0, "player_1": 0, "player_2": 0, "player_3": 0}


def test_same_seed_same_game_across_the_env_and_the_engine(backend):
    e = nos_env.env(num_players=4, backend=backend)
    e.reset(seed=99)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        e.step(None if term or trunc else int(e.action_space(agent).sample(obs["action_mask"])))
    hand = e.unwrapped.hand
    again = replay(hand_record(hand))  # the engine replays the env's hand exactly
    assert again.chips == hand.chips and again.ledger == hand.ledger
    e2 = nos_env.env(num_players=4, backend="reference" if backend == "fast" else "fast")
    e2.reset(seed=99)
    other = e2.unwrapped.hand
    assert [sorted(h) for h in other.deal.hands] == [sorted(h) for h in hand.deal.hands]
    assert other.deal.boneyard == hand.deal.boneyard and other.on_set == hand.on_set


def test_illegal_action_raises_and_changes_nothing(backend):
    e = nos_env.env(num_players=4, backend=backend)
    e.reset(seed=3)
    raw = e.unwrapped
    mask = e.last()[0]["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    before = (raw.chips, e.agent_selection, raw.hand.legal_action_texts(), e.last()[0]["action_mask"].tolist())
    with pytest.raises(IllegalActionError, match="illegal action .* legal: "):
        e.step(bad)
    assert (raw.chips, e.agent_selection, raw.hand.legal_action_texts(), e.last()[0]["action_mask"].tolist()) == before
    with pytest.raises(ValueError, match="0..556"):
        e.step(NUM_ACTIONS)  # outside the action space: refused with what is allowed


def test_illegal_action_penalty_option(backend):
    e = nos_env.env(num_players=4, illegal_action="penalty", backend=backend)
    e.reset(seed=3)
    agent = e.agent_selection
    seat = e.unwrapped.agent_name_mapping[agent]
    bad = int(np.flatnonzero(e.last()[0]["action_mask"] == 0)[0])
    before = e.unwrapped.chips
    legal_before = e.unwrapped.hand.legal_action_texts()
    e.step(bad)
    assert e.agent_selection == agent  # D16: the same player acts again
    assert e.rewards[agent] == -120
    assert all(e.rewards[a] == 40 for a in e.possible_agents if a != agent)
    after = e.unwrapped.chips
    assert after == [c - 120 if s == seat else c + 40 for s, c in enumerate(before)]
    assert e.unwrapped.hand.legal_action_texts() == legal_before  # otherwise unchanged
    assert e.unwrapped.hand.chips == after  # the rebuilt/reference hand agrees


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"num_players": 6}, "3, 4 or 5"),
        ({"num_players": 4.5}, "3, 4 or 5"),
        ({"render_mode": "rgb"}, "render_mode"),
        ({"render_viewer": 4}, "render_viewer must be a seat 0..3"),
        ({"render_viewer": "all"}, "'omniscient'"),
        ({"render_viewer": True}, "render_viewer"),
        ({"render_viewer": 1, "render_omniscient": True}, "pass one of them"),
        ({"hands_per_episode": 0}, "hands_per_episode"),
        ({"illegal_action": "ignore"}, "illegal_action"),
        ({"reward_scale": 0}, "reward_scale"),
        ({"chip_scale": float("nan")}, "chip_scale"),
        ({"starting_chips": "500"}, "starting_chips"),
        ({"backend": "gpu"}, "backend"),
    ],
)
def test_bad_options_raise_clear_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        nos_env.env(**kwargs)


def test_unknown_constructor_option_is_an_error():
    with pytest.raises(TypeError, match="num_playerz"):
        nos_env.env(num_playerz=4)


def test_bad_reset_options(backend):
    e = nos_env.env(num_players=4, backend=backend)
    with pytest.raises(ValueError, match="needs a 'deal'"):
        e.reset(options={"on_set": 1})
    with pytest.raises(ValueError, match="one number per seat"):
        e.reset(options={"chips": [1, 2]})
    with pytest.raises(ValueError, match="boneyard_top_first"):
        e.reset(options={"deal": {"hands": []}})
    with pytest.warns(UserWarning, match="unknown reset option"):
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            e.reset(options={"deall": 1})


def _hand_text(hand, seat):
    return " ".join(tile_str(t) for t in sorted(hand.hands[seat]))


def test_text_render_shows_the_viewers_hand_only_never_the_seat_to_move(backend):
    """The viewer is a fixed seat (default 0), not whoever is to move (issue 17, D17)."""
    e = nos_env.env(num_players=4, render_mode="ansi", backend=backend)
    e.reset(seed=11)
    raw = e.unwrapped
    assert raw.render_viewer == 0
    for _ in range(6):  # several seats to move in turn: the text shows seat 0's tiles all along
        text = e.render()
        assert isinstance(text, str)
        for s in range(4):
            assert (_hand_text(raw.hand, s) in text) == (s == 0), (s, raw.hand.to_move)
        obs = e.last()[0]
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert raw.hand.to_move != 0 or raw.hand.phase != "set"
    seat2 = nos_env.env(num_players=4, render_mode="ansi", render_viewer=2, backend=backend)
    seat2.reset(seed=11)
    text = seat2.render()
    assert [_hand_text(seat2.unwrapped.hand, s) in text for s in range(4)] == [False, False, True, False]
    for kwargs in ({"render_viewer": "omniscient"}, {"render_omniscient": True}):
        omniscient = nos_env.env(num_players=4, render_mode="ansi", backend=backend, **kwargs)
        omniscient.reset(seed=11)
        assert omniscient.unwrapped.render_viewer == "omniscient"
        text = omniscient.render()
        for s in range(4):
            assert _hand_text(omniscient.unwrapped.hand, s) in text


def test_render_viewer_can_change_between_renders_and_a_bad_one_changes_nothing():
    e = nos_env.env(num_players=3, render_mode="ansi")
    e.reset(seed=5)
    raw = e.unwrapped
    raw.render_viewer = 1
    assert raw.render_viewer == 1 and _hand_text(raw.hand, 1) in e.render()
    for bad in (3, -1, "seat 1", 1.0, None):
        with pytest.raises(ValueError, match="render_viewer must be a seat 0..2"):
            raw.render_viewer = bad
        assert raw.render_viewer == 1
    raw.render_viewer = "omniscient"
    assert raw.render_omniscient and all(_hand_text(raw.hand, s) in e.render() for s in range(3))
    raw.render_omniscient = False  # the older switch still works, both ways
    assert raw.render_viewer == 0 and not raw.render_omniscient
    raw.render_omniscient = True
    assert raw.render_viewer == "omniscient"
    with pytest.raises(ValueError, match="render_omniscient must be True or False"):
        raw.render_omniscient = "yes"
    assert raw.render_viewer == "omniscient"


def test_render_shows_layout_game_chips_and_last_actions(backend):
    e = nos_env.env(num_players=4, render_mode="ansi", backend=backend)
    e.reset(seed=2)
    for _ in range(30):
        obs, _, term, _, _ = e.last()
        if term:
            break
        e.step(int(e.action_space(e.agent_selection).sample(obs["action_mask"])))
    text = e.render()
    hand = e.unwrapped.hand
    assert f"Game {hand.announcement.game}: {hand.announcement}" in text
    for arm in hand.layout.arm_names:
        assert f"  {arm} open " in text
    assert "Last actions:" in text and f"chips {hand.chips[0]:6d}" in text


def test_human_mode_prints(capsys):
    e = nos_env.env(num_players=3, render_mode="human")
    e.reset(seed=1)
    assert e.render() is None
    assert "Nos, 3 players" in capsys.readouterr().out


def test_text_and_index_conversions(backend):
    e = nos_env.env(num_players=4, backend=backend)
    e.reset(seed=4)
    raw = e.unwrapped
    for i in np.flatnonzero(e.last()[0]["action_mask"]):
        assert raw.text_to_action(raw.action_to_text(int(i))) == i
    with pytest.raises(ValueError, match="0..556"):
        raw.action_to_text(557)


def test_doubles_in_mask_use_side_zero_only():
    # A double has one outward number: the "higher number outward" index never appears.
    for hand, _ in random_positions(4, 20, seed=3):
        for action in hand.legal_actions():
            if action.kind in ("play", "immediate") and is_double(action.tile):
                assert (action_to_index(action) - 108) // 2 % 2 == 0


def test_pass_evidence_is_a_fact_and_draw_evidence_only_public():
    """A passer holds none of the tiles recorded against his pass, to the end of the hand."""
    checked = 0
    for hand, _ in random_positions(4, 150, seed=77):
        for s in range(4):
            assert not (set(hand.hands[s]) & hand.passed_tiles[s])
            checked += bool(hand.passed_tiles[s])
    assert checked > 50


def test_the_finished_hand_is_complete_on_both_backends():
    """After the last step, env.unwrapped.hand is the finished hand (fast: rebuilt from its decisions)."""
    for backend in BACKENDS:
        e = nos_env.env(num_players=4, backend=backend)
        e.reset(seed=21)
        for agent in e.agent_iter():
            obs, _, term, trunc, _ = e.last()
            e.step(None if term or trunc else int(np.flatnonzero(obs["action_mask"])[0]))
            if term:
                hand = e.unwrapped.hand
                assert hand.over and hand.chips == e.unwrapped.chips


def _at_a_double_play(e, seed):
    """Random legal play until the agent to move may play a double; returns its side-0 index."""
    from nos_env.encoding import PLAY0
    from nos_env.tiles import ALL_TILES

    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    while True:
        mask = e.last()[0]["action_mask"]
        for i in np.flatnonzero(mask):
            if i >= PLAY0 and i != len(mask) - 1:
                tile = ALL_TILES[(i - PLAY0) // 8]
                if tile[0] == tile[1]:
                    return int(i)
        e.step(int(rng.choice(np.flatnonzero(mask))))


@pytest.mark.parametrize("illegal", ["raise", "penalty"])
def test_a_doubles_second_side_index_is_illegal_on_both_backends(backend, illegal):
    """Index = 108 + ((tile*4 + arm)*2 + side)*2 + close: for a double both sides leave the same
    number outward, and the mask holds side 0 only. The index outside the mask is illegal (D16) on
    both backends, though its text names a legal play; a penalised one replays as a penalty."""
    e = nos_env.env(num_players=4, backend=backend, illegal_action=illegal)
    legal_index = _at_a_double_play(e, seed=5)
    alias = legal_index + 2  # side 1
    raw = e.unwrapped
    assert e.last()[0]["action_mask"][alias] == 0
    assert raw.action_to_text(alias) == raw.action_to_text(legal_index)
    seat, chips = raw.backend.to_move, list(raw.chips)
    if illegal == "raise":
        with pytest.raises(IllegalActionError):
            e.step(alias)
        assert raw.chips == chips and raw.backend.to_move == seat
        return
    e.step(alias)
    assert raw.backend.to_move == seat  # the same player again
    # D16 penalty: 40 from the player to each of the other three.
    assert [raw.chips[s] - chips[s] for s in range(4)] == [-120 if s == seat else 40 for s in range(4)]
    hand = raw.hand
    assert hand.actions[-1].startswith("illegal ")
    again = replay(hand_record(hand))
    assert again.chips == raw.chips and again.to_move == seat
