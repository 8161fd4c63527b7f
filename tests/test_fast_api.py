"""FastTables' public accessors (the only way in, issue 14) and the shared play loop (agents/play_loop.py).

- No module of agents/, train/ or benchmarks/ imports the kernels (checked on the source with ast).
- Each accessor gives exact values on a loaded deal, refuses bad input with a message naming
  what is allowed, and a refused call leaves every table exactly as it was.
- The play loop asks each agent once per step for exactly the rows whose seat to move it
  plays, agents in ascending order, rows in table order; idle rows are left untouched.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from agents.base import Agent
from agents.play_loop import PlayLoop
from nos_env.deal import Deal
from nos_env.encoding import ANNOUNCE0, DRAW, SET0, index_to_action
from nos_env.engine import PHASES
from nos_env.fast_engine import ARRAYS, EpisodeStats, FastTables
from nos_env.rng import seed_state
from nos_env.tiles import ALL_TILES, TILE_INDEX, parse_tile

ROOT = Path(__file__).resolve().parent.parent
CONSUMERS = ("agents", "train", "benchmarks")


# ------------------------------------------------------------------ the boundary
def kernel_imports(root: Path) -> list[str]:
    """Every import of the kernels (nos_env.kernels, nos_env.games, the old nos_env.fast_kernels; in any
    spelling) in the consumer packages under root."""
    found = []
    for folder in CONSUMERS:
        for path in sorted((root / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(), filename=str(path))
            for node in ast.walk(tree):
                names = []
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom):
                    module = node.module or ""
                    names = [module] + [f"{module}.{alias.name}" for alias in node.names]
                if any(name.split(".")[-1] == "fast_kernels" or ".fast_kernels." in name
                       or name.split(".")[:2] in (["nos_env", "kernels"], ["nos_env", "games"]) for name in names):
                    found.append(f"{path.relative_to(root)}:{node.lineno}")
    return found


def test_no_consumer_imports_the_kernels():
    assert kernel_imports(ROOT) == [], "use FastTables' accessors (nos_env/fast_engine.py) instead"


def test_the_boundary_check_finds_kernel_imports(tmp_path):
    (tmp_path / "agents").mkdir()
    (tmp_path / "train").mkdir()
    (tmp_path / "benchmarks").mkdir()
    (tmp_path / "agents" / "a.py").write_text("from nos_env import fast_kernels as K\n")
    (tmp_path / "train" / "b.py").write_text("import numpy\n\nimport nos_env.fast_kernels\n")
    (tmp_path / "benchmarks" / "c.py").write_text("from nos_env.fast_kernels import IDLE\nx = 'fast_kernels'\n")
    (tmp_path / "agents" / "d.py").write_text("from nos_env.games import nos as K\nfrom nos_env import games\n"
                                              "import nos_env.kernels.core\nfrom nos_env.kernels.bits import popcount\n"
                                              "from nos_env import encoding\n")
    assert kernel_imports(tmp_path) == ["agents/a.py:1", "agents/d.py:1", "agents/d.py:2", "agents/d.py:3",
                                        "agents/d.py:4", "train/b.py:3", "benchmarks/c.py:1"]


# ------------------------------------------------------------------ a known position
HANDS = [["6-6", "6-4", "2-5", "0-3"], ["5-5", "1-2", "0-0", "3-4"], ["1-1", "4-5", "0-6", "2-3"],
         ["4-4", "1-6", "0-2", "3-5"]]


def known_deal() -> Deal:
    hands = [[parse_tile(t) for t in hand] for hand in HANDS]
    used = {t for hand in hands for t in hand}
    boneyard = [t for t in ALL_TILES if t not in used]  # in tile order, top first
    return Deal.from_tiles(hands, boneyard)


def loaded(num_envs: int = 3, **options) -> FastTables:
    tables = FastTables(num_envs, 4, seed=5, **options)
    tables.reset_tables()
    tables.load_deal(1, known_deal(), on_set=2, chips=[500, 510, 490, 500])
    return tables


def bits(tiles) -> int:
    return sum(1 << TILE_INDEX[parse_tile(t)] for t in tiles)


def test_accessors_on_a_loaded_deal():
    tables = loaded()
    assert tables.current_player[1] == 2  # on set (D20: the given setter)
    assert PHASES[tables.phase[1]] == "set" and tables.set_tile[1] == -1
    assert tables.hand_index[1] == 0 and not tables.episode_over.any()
    assert tables.chips[1].tolist() == [500, 510, 490, 500]
    assert tables.episode_start_chips[1].tolist() == [500, 510, 490, 500]
    assert tables.hand_start_chips[1].tolist() == [500, 510, 490, 500]
    assert tables.dealt_tiles[1].tolist() == [bits(h) for h in HANDS]
    boneyard = [TILE_INDEX[t] for t in known_deal().boneyard]
    assert tables.boneyard_order()[1].tolist() == boneyard and len(boneyard) == 12
    assert tables.boneyard_order(3)[1].tolist() == boneyard[:3]
    # Seat 2 holds [1-1]: a setter with doubles sets one of them (D20's later-hand rule needs no draw).
    legal = np.flatnonzero(tables.masks[1])
    assert legal.tolist() == [SET0 + TILE_INDEX[parse_tile("1-1")]]
    tables.step(np.where(np.arange(3) == 1, legal[0], tables.masks.argmax(axis=1)))
    assert tables.set_tile[1] == TILE_INDEX[parse_tile("1-1")] and PHASES[tables.phase[1]] == "announce"
    assert tables.current_player[1] == 2 and (np.flatnonzero(tables.masks[1]) >= ANNOUNCE0).all()


def test_masks_is_a_read_only_view_of_the_current_masks():
    tables = loaded()
    view = tables.masks
    with pytest.raises(ValueError):
        view[0, 0] = 1
    for b in range(3):
        assert np.flatnonzero(view[b]).tolist() == tables.legal_actions(b).tolist()


def test_observe_rows_matches_observe_and_zeroes_nobody():
    tables = loaded()
    seats = np.array([3, 0, 1])
    full = tables.observe(seats)
    got = tables.observe_rows([2, 0], [1, 3])
    np.testing.assert_array_equal(got, full[[2, 0]])
    out = np.ones((1, full.shape[1]), full.dtype)
    assert tables.observe_rows([1], [-1], out=out) is out and not out.any()


def test_episode_stats_against_the_reference_ledger():
    """A hand played to its end from a known deal: the stats by name are the reference engine's."""
    tables = loaded(illegal_action="raise")
    rng = np.random.default_rng(3)
    while True:
        hand = tables.reference_hand(1)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in tables.masks])
        hand.step(index_to_action(int(actions[1]), hand))
        _, terminated, _, _, _ = tables.step(actions, autoreset=False, observe=False)
        if terminated[1]:
            break
        # Other tables that finished wait; give them a fresh episode so every row keeps moving.
        done = np.flatnonzero(terminated)
        if len(done):
            tables.reset_tables(done)
    stats = tables.episode_stats([1])
    assert isinstance(stats, EpisodeStats)
    assert stats.setter.tolist() == [2]
    assert stats.announcement.tolist() == [hand.announcement.index]
    assert stats.end.tolist() == [("out", "close", "blocked").index(hand.end_reason)]
    net = np.zeros((4, len(FastTables.REASONS)), np.int64)
    for p in hand.ledger:
        net[p.payer, FastTables.REASONS.index(p.reason)] -= p.amount
        net[p.payee, FastTables.REASONS.index(p.reason)] += p.amount
    np.testing.assert_array_equal(stats.net_by_reason[0], net)
    right, wrong = stats.closings_by_seat()
    assert right.shape == wrong.shape == (1, 4)
    assert tables.episode_over[1] and tables.current_player[1] == -1
    assert not tables.masks[1].any()
    assert tables.chips[1].tolist() == (np.array([500, 510, 490, 500]) + net.sum(axis=1)).tolist()


def test_seed_tables_deals_like_a_fresh_batch_with_that_seed():
    tables = FastTables(4, 4, seed=0)
    tables.seed_tables([1, 3], [77, 77])
    tables.reset_tables()
    fresh = FastTables(1, 4, seed=77)
    fresh.reset_tables()
    assert tables.deal_of(1) == tables.deal_of(3) == fresh.deal_of(0)
    assert tables.deal_of(0) != tables.deal_of(1)
    tables.set_random_state(np.array([seed_state(77)], np.uint64), [2])
    tables.reset_tables([2])
    assert tables.deal_of(2) == fresh.deal_of(0)


def three_player_snapshot() -> dict:
    other = FastTables(1, 3, seed=0)
    other.reset_tables()
    return other.rollout_snapshot(0)


def unchanged(tables: FastTables, call) -> None:
    before = tables.clone()
    call()
    after = tables.clone()
    for name in ARRAYS:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)


@pytest.mark.parametrize("call, message", [
    (lambda t: t.observe_rows([0, 3], [0, 0]), r"rows must be None \(every table\), a 1-d integer array of table "
                                               r"indices 0..2"),
    (lambda t: t.observe_rows([0.0], [0]), "rows must be"),
    (lambda t: t.observe_rows([0, 1], [0]), r"one seat 0..3 \(or -1\) per row, shape \(2,\)"),
    (lambda t: t.observe_rows([0], [4]), "one seat 0..3"),
    (lambda t: t.observe_rows([0], [0], out=np.zeros((2, 3), np.float32)), "out must be a writable"),
    (lambda t: t.episode_stats([5]), "rows must be"),
    (lambda t: t.seed_tables([0, 1], [3]), r"one per table \(2\)"),
    (lambda t: t.seed_tables([0], [1.5]), "seeds must be a 1-d sequence of integers"),
    (lambda t: t.set_random_state(np.array([1, 2]), [0, 1]), "states must be a uint64 array of shape"),
    (lambda t: t.boneyard_order(13), r"size must be an integer 0..12"),
    (lambda t: t.accepted_after(1, DRAW), r"action must be a legal action index at table 1"),
    (lambda t: t.accepted_after(3, 0), "a table index must be an integer 0..2"),
    (lambda t: t.set_hidden([0, 0], np.zeros((3, 2)), np.zeros((3, 2)), np.zeros((3, 12))), "distinct seat"),
    (lambda t: t.set_hidden([1], np.zeros((3, 2), np.int64), np.zeros((3, 1), np.int64),
                            np.zeros((3, 12), np.int64)), r"hands must be integer tile sets .* of shape \(3, 1\)"),
    (lambda t: t.set_hidden([1], np.zeros((3, 1), np.int64), np.full((3, 1), 1 << 28),
                            np.zeros((3, 12), np.int64)), "dealt must be integer tile sets"),
    (lambda t: t.set_hidden([1], np.zeros((3, 1), np.int64), np.zeros((3, 1), np.int64),
                            np.zeros((3, 11), np.int64)), r"boneyard must be tile indices 0..27 of shape \(3, 12\)"),
    (lambda t: t.restore_all({"T": 1}), "a snapshot must be a dict from clone_table"),
    (lambda t: t.restore_all(three_player_snapshot()), "the snapshot is of a 3-player table, these tables are for 4"),
])
def test_bad_input_is_refused_and_changes_nothing(call, message):
    tables = loaded()
    unchanged(tables, lambda: pytest.raises(ValueError, call, tables).match(message))


def test_episode_stats_before_any_step_is_refused():
    with pytest.raises(RuntimeError, match="no episode has finished yet"):
        loaded().episode_stats([0])


def test_rollout_snapshot_restore_all_set_hidden_and_accepted_after():
    tables = loaded()
    set_11 = SET0 + TILE_INDEX[parse_tile("1-1")]
    tables.step(np.where(np.arange(3) == 1, set_11, tables.masks.argmax(axis=1)))
    snap = tables.rollout_snapshot(1)
    scratch = FastTables(2, 4, seed=0, illegal_action="penalty", auto_forced=True)
    scratch.restore_all(snap)  # a raise-mode table into penalty-mode scratch tables
    assert (scratch.current_player == 2).all() and (scratch.set_tile == tables.set_tile[1]).all()
    np.testing.assert_array_equal(scratch.masks[0], tables.masks[1])
    np.testing.assert_array_equal(scratch.observe_rows([0, 1], [2, 2]), np.repeat(tables.observe_rows([1], [2]), 2, 0))
    # Swap seats 0 and 1's hands at scratch table 1 (seat 2, to move, sees no difference).
    dealt = tables.dealt_tiles[1]
    left = tables.boneyard_order()[1]
    scratch.set_hidden([0, 1], np.array([dealt[[0, 1]], dealt[[1, 0]]]), np.array([dealt[[0, 1]], dealt[[1, 0]]]),
                       np.array([left, left[::-1]]))
    assert scratch.dealt_tiles[0].tolist() == dealt.tolist()
    assert scratch.dealt_tiles[1].tolist() == dealt[[1, 0, 2, 3]].tolist()
    assert scratch.boneyard_order()[1].tolist() == left[::-1].tolist()
    np.testing.assert_array_equal(scratch.observe_rows([0], [2]), scratch.observe_rows([1], [2]))
    # Announce ordinary play (the first announcement) and probe a play: the table is left as it is.
    scratch.step(np.full(2, ANNOUNCE0))
    b, legal = 0, scratch.legal_actions(0)
    play = int(legal[-1])
    before = scratch.clone()
    fits = scratch.accepted_after(b, play)
    after = scratch.clone()
    for name in ARRAYS:
        np.testing.assert_array_equal(before[name], after[name], err_msg=name)
    assert fits is None or 0 <= fits < 1 << 28


# ------------------------------------------------------------------ the play loop
class Spy(Agent):
    """Plays the first legal action and notes which rows and seats it was asked for."""

    def __init__(self, name: str, log: list):
        super().__init__(0)
        self.name, self.log = name, log

    def act_batch(self, obs, masks, context=None):
        self.log.append((self.name, context.table_index.tolist(), context.seats.tolist()))
        np.testing.assert_array_equal(obs, context.tables.observe_rows(context.table_index, context.seats))
        return masks.argmax(axis=1)


def test_loop_asks_each_agent_once_for_its_rows_in_agent_order():
    tables = FastTables(6, 4, seed=9)
    tables.reset_tables()
    log: list = []
    agents = [Spy("a", log), Spy("b", log), Spy("c", log)]
    seat_agent = np.array([[0, 1, 2, 0], [2, 2, 1, 0], [1, 0, 0, 2], [0, 0, 0, 0], [2, 1, 0, 1], [1, 2, 2, 1]])
    loop = PlayLoop(tables, agents, seat_agent)
    for _ in range(30):
        current = tables.current_player.copy()
        ask = np.array([True, True, False, True, True, True])
        first_legal = tables.masks.argmax(axis=1)
        log.clear()
        actions = loop.decide(ask).copy()
        expected = []
        for k, name in enumerate("abc"):  # by hand: the agent of each asked row's seat to move
            rows = [b for b in range(6) if ask[b] and seat_agent[b, current[b]] == k]
            if rows:
                expected.append((name, rows, [int(current[b]) for b in rows]))
        assert log == expected
        assert actions[2] == first_legal[2]  # not asked: its first legal action
        np.testing.assert_array_equal(actions, first_legal)  # every Spy plays the first legal action too
        loop.step()


def test_idle_rows_are_left_as_they_are_and_the_obs_stays_the_seat_to_moves():
    tables = FastTables(5, 4, seed=4)
    tables.reset_tables()
    log: list = []
    loop = PlayLoop(tables, [Spy("a", log)], np.zeros(4, np.int64), rest="idle", autoreset=False)
    for _ in range(40):
        ask = tables.current_player % 2 == 0  # seats 0 and 2 play, tables with 1 or 3 to move wait
        if not ask.any():
            break
        waiting = np.flatnonzero(~ask)
        before = tables.clone()
        actions = loop.decide(ask)
        assert (actions[waiting] == FastTables.IDLE).all()
        step = loop.step()
        after = tables.clone()
        for name in ARRAYS:
            np.testing.assert_array_equal(before[name][waiting], after[name][waiting], err_msg=name)
        assert not step.rewards[waiting].any() and not step.terminated[waiting].any()
        live = np.flatnonzero(tables.current_player >= 0)
        np.testing.assert_array_equal(loop.obs[live], tables.observe_rows(live, tables.current_player[live]))
        ended = np.flatnonzero(step.terminated)
        if len(ended):
            tables.reset_tables(ended)
            loop.refresh(ended)


def test_run_stops_when_ask_returns_none_and_guards_against_endless_loops():
    tables = FastTables(3, 4, seed=1)
    tables.reset_tables()
    loop = PlayLoop(tables, [Spy("a", [])], np.zeros(4, np.int64))
    seen = []
    steps = loop.run(lambda: np.ones(3, bool) if len(seen) < 5 else None, seen.append)
    assert steps == 5 and len(seen) == 5
    with pytest.raises(RuntimeError, match="more than max_steps=3 steps"):
        loop.run(lambda: np.ones(3, bool), max_steps=3)


@pytest.mark.parametrize("make, message", [
    (lambda t: PlayLoop(t, [Spy("a", [])], np.zeros(3, np.int64)), r"seat_agent must be an integer array of "
                                                                   r"shape \(4,\) .* or \(2, 4\)"),
    (lambda t: PlayLoop(t, [Spy("a", [])], np.ones(4, np.int64)), r"index the 1 agents \(0..0\)"),
    (lambda t: PlayLoop(t, [Spy("a", [])], np.zeros(4, np.int64), rest="pass"), "rest must be one of"),
    (lambda t: PlayLoop(t, [Spy("a", [])], np.zeros(4, np.int64)).decide(np.ones(3, bool)),
     r"ask must be a bool mask of shape \(2,\)"),
])
def test_play_loop_refuses_bad_setups(make, message):
    tables = FastTables(2, 4, seed=1)
    tables.reset_tables()
    with pytest.raises(ValueError, match=message):
        make(tables)


def test_hands_and_boneyard_bounds_are_the_deal_at_the_start_and_copies():
    """``FastTables.hands`` and ``boneyard_bounds`` (the privileged critic's way in,
    train/privileged.py): before the first tile is set each seat holds its dealt tiles and the
    whole boneyard is undrawn; the arrays are copies, so writing them changes no table."""
    from nos_env.fast_engine import FastTables

    for n in (3, 4, 5):
        t = FastTables(6, num_players=n, seed=11, num_threads=1)
        t.reset_tables()
        assert (t.hands == t.dealt_tiles).all()
        top, end = t.boneyard_bounds
        full = 28 - n * (8 - n)
        assert (top == 0).all() and (end == full).all()
        hands = t.hands
        hands[:] = 0
        top[:] = 5
        assert (t.hands == t.dealt_tiles).all() and (t.boneyard_bounds[0] == 0).all()
        # Every tile is in exactly one hand or the boneyard.
        bone = t.boneyard_order()
        for b in range(6):
            held = [tile for s in range(n) for tile in range(28) if (int(t.hands[b, s]) >> tile) & 1]
            assert sorted(held + bone[b].tolist()) == list(range(28))
