"""The tactics agent (agents/tactics.py): legality, determinism, and the
behaviours the rules text's Tactics section asks for, on hand-made positions."""

import numpy as np
import pytest

import nos_env
from agents import features as F
from agents.greedy import GreedyAgent
from agents.tactics import TacticsAgent, _state, rebuild_layout
from nos_env.deal import Deal
from nos_env.encoding import OBSERVATION_LAYOUT, action_to_index, index_to_action
from nos_env.tiles import ALL_TILES, tile_str


# ------------------------------------------------------------------ helpers
def scripted(hands, actions, on_set=0, boneyard=None):
    """A one-table vector env started from a deal and stepped through scripted text actions."""
    if boneyard is None:
        used = {t for h in hands for t in h}
        boneyard = [tile_str(t) for t in ALL_TILES if tile_str(t) not in used]
    venv = nos_env.vector_env(1, num_players=len(hands), seed=0)
    venv.load_deal(0, Deal.from_tiles(hands, boneyard), on_set=on_set)
    for text in actions:
        answer_forced_windows(venv)
        venv.step(np.array([action_to_index(venv.hand(0).resolve(text))]))
    answer_forced_windows(venv)
    return venv


def answer_forced_windows(venv):
    """D25: the scripts leave out the windows' one-choice steps (a forced no-declare or decline);
    take them, so a script names only real choices."""
    while True:
        hand = venv.hand(0)
        legal = hand.legal_actions()
        if hand.phase not in ("declare", "immediate") or len(legal) != 1:
            return
        venv.step(np.array([action_to_index(legal[0])]))


def decide(venv, seed=0):
    """The agent's decision at table 0, as an engine Action, plus the reference hand."""
    obs = venv.observe(venv.current_player)
    masks = np.array(venv.masks)
    index = int(TacticsAgent(seed).act_batch(obs, masks)[0])
    assert masks[0, index] == 1
    hand = venv.hand(0)
    return index_to_action(index, hand), hand


def step_agent(venv, seed=0):
    action, hand = decide(venv, seed)
    venv.step(np.array([action_to_index(action)]))
    return action


def close_result(hand, action) -> str:
    """'close' or 'wrong_close' when ``action`` is played with a closing (reference engine)."""
    h = hand.copy()
    payments = h.step(action.__class__(action.kind, tile=action.tile, arm=action.arm, out=action.out, close=True))
    reasons = {p.reason for p in payments}
    return "wrong_close" if "wrong_close" in reasons else "close" if "close" in reasons else "none"


# ------------------------------------------------------- legality and seeds
@pytest.mark.parametrize("n", [3, 4, 5])
def test_only_legal_actions_and_deterministic(n):
    venv = nos_env.vector_env(256, num_players=n, seed=100 + n)
    obs, masks, _ = venv.reset()
    agent, twin = TacticsAgent(seed=7), TacticsAgent(seed=7)
    phases_seen = set()
    closes = 0
    for _ in range(90):
        actions = agent.act_batch(obs, masks)
        assert actions.dtype == np.int64 and actions.shape == (256,)
        assert (masks[np.arange(256), actions] == 1).all()
        np.testing.assert_array_equal(actions, twin.act_batch(obs, masks))  # same seed, same inputs
        phase = obs[:, slice(*OBSERVATION_LAYOUT["phase"][:2])].argmax(axis=1)
        phases_seen |= set(phase.tolist())
        plays = F.KIND[actions] == F.PLAY
        closes += int((plays & F.CLOSE[actions]).sum())
        # Never a voluntary draw: a draw only where no play is legal.
        drew = actions == 28
        can_play = masks[:, 108:556].any(axis=1)
        assert not (drew & can_play).any()
        obs, masks, *_ = venv.step(actions)  # the env raises on an illegal action
    assert {0, 1, 4} <= phases_seen  # set, announce, play (declare/immediate are rarer)
    assert closes > 0


def test_every_close_it_makes_is_correct():
    """Replayed on the reference engine, no closing of the agent is ever wrong."""
    venv = nos_env.vector_env(64, num_players=4, seed=3)
    obs, masks, _ = venv.reset()
    agent = TacticsAgent(seed=1)
    checked = 0
    for _ in range(120):
        actions = agent.act_batch(obs, masks)
        for b in np.flatnonzero((F.KIND[actions] == F.PLAY) & F.CLOSE[actions]):
            hand = venv.hand(int(b))
            reasons = {p.reason for p in hand.step(index_to_action(int(actions[b]), hand))}
            assert "close" in reasons and "wrong_close" not in reasons
            checked += 1
        obs, masks, *_ = venv.step(actions)
    assert checked > 5


def test_observation_reading_matches_the_engine():
    """Each arm's acceptance read from the observation, and the rebuilt layout
    used by the closing proof, agree with the engine's own layout."""
    venv = nos_env.vector_env(32, num_players=4, seed=21)
    obs, masks, _ = venv.reset()
    agent = TacticsAgent(seed=0)
    checked = 0
    play = OBSERVATION_LAYOUT["phase"][0] + 4
    for i in range(100):
        if i % 4 == 3:
            rows = np.flatnonzero(obs[:, play] > 0.5)
            st = _state(obs[rows])
            for k, b in enumerate(rows):
                layout = venv.hand(int(b)).layout
                rebuilt = rebuild_layout(obs[b])
                on = set(layout.tiles())
                for arm in range(len(layout.arms)):
                    accepted = sum(1 << t for t, tl in enumerate(ALL_TILES) if tl not in on and layout.outs(arm, tl))
                    assert int(st["acc"][k, arm]) == accepted
                    for tl in ALL_TILES:
                        if tl not in on:
                            assert rebuilt.outs(arm, tl) == layout.outs(arm, tl)
                checked += 1
        obs, masks, *_ = venv.step(agent.act_batch(obs, masks))
    assert checked > 100


# ------------------------------------------------------------ set, announce
def test_triangle_with_double_blank_and_matadors():
    venv = scripted([["0-0", "1-6", "2-5", "3-3"], ["1-2", "1-4", "2-4", "4-5"],
                     ["0-1", "0-2", "1-3", "5-6"], ["0-3", "2-3", "3-5", "4-6"]], [])
    action = step_agent(venv)
    assert str(action) == "set 0-0"  # over [3-3]: the triangle and 7 chips from each
    action = step_agent(venv)
    assert action.kind == "announce" and action.announcement.game in (13, 14, 15, 16)


def test_double_cross_with_a_double_and_many_of_its_number():
    # The text's example: [5-5], [5-4], [4-4], [5-1]: set [5-5], ordinary double cross.
    venv = scripted([["5-5", "4-5", "4-4", "1-5"], ["0-1", "0-2", "1-3", "2-6"],
                     ["0-3", "2-3", "3-6", "4-6"], ["1-2", "1-4", "2-4", "0-6"]], [])
    assert str(step_agent(venv)) == "set 5-5"
    assert str(step_agent(venv)) == "announce ordinary double cross"


def test_cross_with_a_double_and_many_of_its_number():
    venv = scripted([["5-5", "4-5", "0-5", "1-5"], ["0-1", "0-2", "1-3", "2-6"],
                     ["0-3", "2-3", "3-6", "4-6"], ["1-2", "1-4", "2-4", "0-6"]], [])
    assert str(step_agent(venv)) == "set 5-5"  # the only double: forced
    action = step_agent(venv)
    assert action.announcement.game in (2, 3)  # ordinary cross or ordinary double cross


def test_weak_hand_gets_a_one_armed_start_on_its_strong_number():
    # The text's worst hand: [3-2], [5-3], [6-2], [3-0], drawn [3-1]: begin on the 3 side.
    hands = [["2-3", "3-5", "2-6", "0-3"], ["0-1", "0-2", "1-2", "4-4"],
             ["0-4", "2-4", "3-6", "4-6"], ["1-4", "1-5", "2-5", "0-6"]]
    used = {t for h in hands for t in h} | {"1-3"}
    boneyard = ["1-3"] + [tile_str(t) for t in ALL_TILES if tile_str(t) not in used]
    venv = scripted(hands, ["draw", "set 1-3"], boneyard=boneyard)
    action = step_agent(venv)
    cond = action.announcement.condition
    assert cond is not None and cond.side == 1  # a condition on L1, the 3 side


def test_declares_and_places_a_valuable_double_at_once():
    hands = [["0-1", "0-2", "1-5", "2-6"], ["3-3", "5-6", "0-3", "1-2"],
             ["0-4", "2-4", "4-6", "1-6"], ["1-4", "4-5", "2-5", "0-6"]]
    used = {t for h in hands for t in h} | {"3-4"}
    boneyard = ["3-4"] + [tile_str(t) for t in ALL_TILES if tile_str(t) not in used]
    venv = scripted(hands, ["draw", "set 3-4", "announce ordinary"], boneyard=boneyard)
    assert str(step_agent(venv)) == "immediate 3-3 L0 out 3"  # 3 from the setter

    # 4 players, 3 doubles dealt: declare (25 from each). D25: seats 1-3 are asked first (forced).
    venv = scripted([["6-6", "1-1", "2-2", "0-4"], ["0-1", "0-2", "1-3", "2-6"],
                     ["0-3", "2-3", "3-6", "4-6"], ["1-2", "1-4", "2-4", "0-6"]], ["set 6-6", "announce ordinary"])
    assert str(step_agent(venv)) == "declare"


# ------------------------------------------------------------------- plays
CLAIM_HANDS = [["6-6", "2-2", "0-5", "0-4"], ["2-6", "3-5", "3-4", "1-3"],
               ["1-6", "0-0", "0-1", "4-5"], ["1-2", "3-3", "4-6", "0-6"]]
CLAIM_SCRIPT = ["set 6-6", "announce ordinary", "play 2-6 L0", "play 1-6 L1", "play 1-2 L1"]


def test_claims_the_double_payment():
    # Both arms end in 2; seat 3 just played [1-2] on L1: [2-2] there earns 2 from him.
    venv = scripted(CLAIM_HANDS, CLAIM_SCRIPT)
    for seed in range(5):
        action, hand = decide(venv, seed)
        assert str(action) == "play 2-2 L1 out 2"  # not L0, not a voluntary draw, no closing
    payments = hand.step(action)
    assert [(p.payer, p.payee, p.amount, p.reason) for p in payments] == [(3, 0, 2, "double")]


def test_never_closes_without_a_proof_when_closing_is_wrong():
    venv = scripted(CLAIM_HANDS, CLAIM_SCRIPT)
    masks = np.array(venv.masks)[0]
    action, hand = decide(venv)
    assert masks[action_to_index(action) + 1] == 1  # the mask allows the closing
    assert not action.close
    assert close_result(hand, action) == "wrong_close"


# Positions found by playing random deals (3 players), kept as deal + script.
UNPROVABLE = dict(
    hands=[["5-5", "1-1", "0-5", "0-1", "6-6"], ["2-6", "0-0", "2-3", "3-6", "3-3"],
           ["2-2", "1-2", "3-4", "1-4", "4-4"]],
    boneyard=["2-5", "0-2", "4-5", "0-3", "1-6", "1-5", "3-5", "4-6", "0-4", "2-4", "5-6", "1-3", "0-6"],
    actions=["set 6-6", "announce volapuk ordinary=L0 FIRST(L1,4)", "immediate 0-0 L1 out 0", "play 3-4 L1 out 4",
             "draw", "play 2-5 L1 out 5", "play 2-6 L1 out 6", "play 1-4 L1 out 4", "draw", "draw", "draw",
             "play 0-3 L1 out 0", "play 3-6 L0 out 3", "draw", "play 1-6 L1 out 6", "play 1-1 L1 out 1",
             "play 3-3 L0 out 3", "draw", "draw", "play 3-5 L0 out 5", "play 5-5 L0 out 5", "draw",
             "play 4-6 L1 out 4", "play 1-5 L0 out 1", "play 0-1 L0 out 0", "play 2-3 L1 out 2", "draw",
             "play 0-4 L0 out 4", "play 4-5 L1 out 4", "play 4-4 L0 out 4", "draw", "play 2-4 L0 out 2"],
)
PROVABLE = dict(
    hands=[["5-6", "2-6", "3-4", "1-5", "5-5"], ["1-6", "2-4", "6-6", "0-6", "1-1"],
           ["2-2", "3-6", "1-3", "0-2", "0-1"]],
    boneyard=["4-6", "4-5", "1-4", "0-3", "0-4", "1-2", "4-4", "2-5", "2-3", "3-5", "0-0", "0-5", "3-3"],
    actions=["set 5-5", "announce volapuk cross", "immediate 2-2 C1 out 2", "play 1-6 C3 out 1", "play 5-6 C0 out 6",
             "draw", "draw", "play 4-5 C2 out 4", "play 3-6 C0 out 3", "play 2-6 C3 out 2", "play 4-6 C2 out 6",
             "play 1-3 C0 out 1", "play 3-4 C1 out 4", "play 6-6 C2 out 6", "play 0-1 C0 out 0", "play 1-5 C3 out 1",
             "play 0-6 C0 out 6", "draw", "draw", "play 0-3 C1 out 0", "draw", "draw", "draw", "draw",
             "play 2-5 C3 out 5", "play 0-2 C3 out 0", "draw", "draw", "draw"],
)
D21 = dict(
    hands=[["0-5", "2-5", "2-4", "4-6", "2-2"], ["1-5", "2-3", "1-2", "0-2", "0-6"],
           ["0-0", "0-4", "2-6", "3-5", "4-5"]],
    boneyard=["1-3", "5-5", "1-6", "6-6", "5-6", "3-3", "0-3", "3-6", "1-1", "3-4", "1-4", "4-4", "0-1"],
    actions=["set 2-2", "announce volapuk ordinary=L0", "immediate 0-0 L1 out 0", "play 2-3 L0 out 3",
             "play 2-5 L1 out 2", "play 1-5 L1 out 1", "play 3-5 L0 out 5", "play 4-6 L1 out 4", "draw",
             "play 1-3 L1 out 1", "play 4-5 L0 out 4", "play 2-4 L0 out 2", "play 0-6 L1 out 0", "play 2-6 L0 out 6",
             "draw", "draw", "play 1-6 L1 out 6", "play 1-2 L1 out 2", "draw", "play 6-6 L0 out 6",
             "play 5-5 L1 out 5", "play 0-2 L1 out 0", "draw", "play 5-6 L0 out 5"],
)


def test_does_not_close_when_correct_but_not_provable():
    # Closing with [1-2] would happen to be correct (the fitting tiles lie in the
    # boneyard's last two), but nothing the agent sees proves it.
    venv = scripted(UNPROVABLE["hands"], UNPROVABLE["actions"], boneyard=UNPROVABLE["boneyard"])
    hand = venv.hand(0)
    closing = hand.resolve("play 1-2 L0 out 1 close")
    assert close_result(hand, closing) == "close"
    action, _ = decide(venv)
    assert action.kind == "play" and not action.close


def test_closes_with_a_general_proof():
    venv = scripted(PROVABLE["hands"], PROVABLE["actions"], boneyard=PROVABLE["boneyard"])
    action, hand = decide(venv)
    assert action.close and len(hand.hands[hand.to_move]) > 1
    reasons = {p.reason for p in hand.step(action)}
    assert "close" in reasons and "wrong_close" not in reasons


def test_closes_when_its_last_tile_leaves_one_player_holding_tiles():
    venv = scripted(D21["hands"], D21["actions"], boneyard=D21["boneyard"])
    hand = venv.hand(0)
    seat = hand.to_move
    assert len(hand.hands[seat]) == 1 and sum(not hand.out[s] for s in range(3) if s != seat) == 1
    action, hand = decide(venv)
    assert action.kind == "play" and action.close
    reasons = [p.reason for p in hand.step(action)]
    assert "close" in reasons and "wrong_close" not in reasons and hand.end_reason == "close"


# --------------------------------------------------------------- head to head
def test_head_to_head_against_greedy_completes():
    """Tactics in seat rotation against three greedy players; the mean is printed only."""
    n, B = 4, 128
    venv = nos_env.vector_env(B, num_players=n, seed=2024)
    obs, masks, current = venv.reset()
    agents = [TacticsAgent(seed=1), GreedyAgent(seed=2)]
    tactics_seat = np.arange(B) % n
    chips = np.zeros(2)
    seats = np.zeros(2)
    episode = np.zeros((B, n))
    hands = 0
    while hands < 320:
        use_tactics = current == tactics_seat
        actions = np.zeros(B, np.int64)
        for k, rows in enumerate((np.flatnonzero(use_tactics), np.flatnonzero(~use_tactics))):
            if len(rows):
                actions[rows] = agents[k].act_batch(obs[rows], np.array(masks[rows]))
        obs, masks, current, rewards, terminated, _ = venv.step(actions)
        episode += rewards
        for b in np.flatnonzero(terminated):
            chips[0] += episode[b, tactics_seat[b]]
            chips[1] += episode[b].sum() - episode[b, tactics_seat[b]]
            seats += (1, n - 1)
            episode[b] = 0
            hands += 1
    mean = chips / seats
    print(f"\n{hands} hands: tactics {mean[0]:+.2f}, greedy {mean[1]:+.2f} chips per hand")
    assert np.isfinite(mean).all()
    assert abs(chips.sum()) < 1e-6  # zero-sum
