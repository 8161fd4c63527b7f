"""The family environments: PettingZoo conformance for every game and player count, rewards with
exact values, bad input, the versioned modules and the registry (nos_env/family_env.py)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import nos_env
from nos_env import family_docs
from nos_env.family import rules as R
from nos_env.family.engine import FamilyGame
from nos_env.family_env import FAMILY_GAMES, raw_env
from nos_env.family_rewards import relative, step_rewards, win, winners_mask, sides

TEN = R.GAMES
BACKENDS = ["reference", "fast"]
#: Every (game, player count) the pages allow, Blind's included.
COUNTS = [(g, n) for g in FAMILY_GAMES for n in nos_env.game_info(g).player_counts]


def single_hand(game: str) -> dict:
    """The option that makes an episode one hand (Blind is always one; Chickenfoot counts hands, CK13)."""
    return {"blind": {}, "chickenfoot": {"match": "one_hand"}}.get(game, {"target_score": None})


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="ignoring unknown reset option")
        warnings.filterwarnings("ignore", message="Observation")
        yield


# ----------------------------------------------------------------- PettingZoo's own tests
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("game, n", COUNTS)
def test_pettingzoo_api_test(game, n, backend):
    api_test(nos_env.env(game=game, num_players=n, backend=backend, **single_hand(game)), num_cycles=12)


@pytest.mark.parametrize("game, n", COUNTS)
def test_pettingzoo_seed_test(game, n):
    seed_test(lambda **kw: nos_env.env(game=game, num_players=n, backend="reference", **kw), num_cycles=15)


#: render_test at each game's fewest and most players (every mode draws the seats' panels).
RENDER_COUNTS = sorted({(g, n) for g in FAMILY_GAMES for n in (nos_env.game_info(g).player_counts[0],
                                                                 nos_env.game_info(g).player_counts[-1])})


@pytest.mark.parametrize("game, n", RENDER_COUNTS)
def test_pettingzoo_render_test(game, n, capsys):
    render_test(lambda **kw: nos_env.env(game=game, num_players=n, backend="reference", **kw))


# ----------------------------------------------------------------- the registry and modules
def test_every_family_game_is_registered_with_the_pages_player_counts():
    for game in TEN:
        info = nos_env.game_info(game)
        assert info.player_counts == R.player_counts(game)
        assert info.versioned == f"{game}_v0"
    assert set(FAMILY_GAMES) - set(TEN) == {"blind", "chickenfoot"}
    assert set(FAMILY_GAMES) <= set(nos_env.list_games())


@pytest.mark.parametrize("game", FAMILY_GAMES)
def test_every_entry_makes_the_same_game(game):
    import importlib

    module = importlib.import_module(f"nos_env.{game}_v0")

    def first(e):
        e.reset(seed=3)
        return e.agent_selection, e.last()[0]["observation"].tolist(), e.last()[0]["action_mask"].tolist()

    a = first(module.env(backend=BACKENDS[-1]))
    assert a == first(nos_env.env(game=game, backend=BACKENDS[-1]))
    assert module.raw_env(backend=BACKENDS[-1]).metadata["name"] == f"{game}_v0"


@pytest.mark.parametrize("game", FAMILY_GAMES)
def test_the_versioned_module_is_what_the_docs_script_writes(game):
    """The module's table is written from the rules (python -m nos_env.family_docs); a rules or
    encoding change that alters a number fails here until the modules are written again."""
    assert family_docs.module_path(game).read_text() == family_docs.module_text(game)
    doc = __import__(f"nos_env.{game}_v0", fromlist=["x"]).__doc__
    rules = raw_env(game, backend="reference").rules
    assert f"Discrete({rules.num_actions})" in doc and f"docs/rules/{game}.md" in doc
    for name in R.options_table(game):
        assert f"`{name}`" in doc


def test_action_space_and_observation_layout_match_the_contract():
    for game in TEN:
        e = raw_env(game, backend="reference")
        rules = e.rules
        n_tiles, arms = rules.num_tiles, rules.num_arms
        play = n_tiles * arms * (2 if game == "matador" else 1)
        assert e.action_space("player_0").n == play + n_tiles + 2
        stop = 0
        for start, end, shape in e.observation_layout.values():
            assert start == stop and end - start == int(np.prod(shape))
            stop = end
        assert e.observation_space("player_0")["observation"].shape == (stop,)
        assert e.observation_layout["hand"][2] == (n_tiles,)
        assert e.observation_layout["arm_open"][2] == (arms, rules.max_pip + 1)


# ----------------------------------------------------------------- rewards, exact values
def test_relative_rewards_exact():
    np.testing.assert_array_equal(relative(np.array([12, 0, 0, 0])), np.float32([12, -4, -4, -4]))
    np.testing.assert_array_equal(relative(np.array([10, 5, 0])), np.float32([7.5, 0, -7.5]))
    np.testing.assert_array_equal(relative(np.array([[0, 30], [0, 0]])), np.float32([[-30, 30], [0, 0]]))


def test_win_rewards_exact():
    four = sides(4, False)
    np.testing.assert_allclose(win(np.array([False, True, False, False]), four), [-1 / 3, 1, -1 / 3, -1 / 3])
    np.testing.assert_array_equal(win(np.zeros(4, bool), four), [0, 0, 0, 0])  # F15: no winner
    teams = sides(4, True)
    # the engine names the team's lower seat; the partner wins too (F20)
    np.testing.assert_array_equal(win(winners_mask(1, 4, teams), teams), [-1, 1, -1, 1])
    np.testing.assert_array_equal(win(winners_mask([0, 2], 4, teams), teams), [1, -1, 1, -1])
    np.testing.assert_array_equal(step_rewards("win", [5, 0, 0, 0], done=False, winner=0, side_of=four), [0] * 4)
    np.testing.assert_array_equal(step_rewards("points", [5, 0, 2, 0], done=False, winner=None, side_of=four),
                                  [5, 0, 2, 0])


def pips_left(game_obj, seat):
    ts = game_obj.hand.layout.ts
    return sum(a + b for a, b in (ts.tiles[t] for t in game_obj.hand.hands[seat]))


@pytest.mark.parametrize("n", [2, 3])
def test_block_single_hand_rewards_in_every_mode(n):
    """A Block hand played out at random: the winner's points are the pips left in the other hands
    (F16, went out or blocked with 'difference'), counted here from the final hands."""
    seen_blocked = seen_out = False
    for seed in range(40):
        results = {}
        for mode in ("points", "relative", "win"):
            e = nos_env.env(game="block", num_players=n, backend="reference", target_score=None, reward=mode)
            e.reset(seed=seed)
            rng = np.random.default_rng(seed)
            total = {a: 0.0 for a in e.possible_agents}
            for agent in e.agent_iter():
                obs, reward, term, trunc, _ = e.last()
                total[agent] += reward
                e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            results[mode] = [total[a] for a in e.possible_agents]
        g = e.unwrapped.game_state
        counts = [pips_left(g, s) for s in range(n)]
        low = min(counts)
        out = [s for s in range(n) if not g.hand.hands[s]]  # F15: who went out wins (even beside a [0-0])
        if not out and counts.count(low) > 1:  # F15: a shared lowest count, no winner, nobody scores
            assert results["points"] == [0.0] * n and results["win"] == [0.0] * n
            continue
        w = out[0] if out else counts.index(low)
        award = sum(c - low for c in counts)  # F16 difference (low is 0 if w went out)
        seen_out |= low == 0
        seen_blocked |= low > 0
        assert results["points"] == [award if s == w else 0 for s in range(n)]
        assert results["relative"] == pytest.approx([award if s == w else -award / (n - 1) for s in range(n)])
        assert results["win"] == pytest.approx([1.0 if s == w else -1 / (n - 1) for s in range(n)])
    assert seen_out and seen_blocked


def test_match_points_add_up_to_the_scores():
    for game in ("all_fives", "bergen", "draw"):
        e = nos_env.env(game=game, num_players=2, backend="reference", reward="points")
        e.reset(seed=5)
        rng = np.random.default_rng(0)
        total = {a: 0.0 for a in e.possible_agents}
        for agent in e.agent_iter():
            obs, reward, term, trunc, _ = e.last()
            total[agent] += reward
            e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        scores = e.unwrapped.scores
        assert [total[a] for a in e.possible_agents] == scores
        assert max(scores) >= R.make_rules(game).target_score


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("kwargs, match", [
    (dict(game="chess"), "game must be one of the family games"),
    (dict(game="draw", reward="money"), r"reward must be one of \['relative', 'points', 'win'\]"),
    (dict(game="draw", observation_dtype="float64"), "observation_dtype must be one of"),
    (dict(game="draw", backend="gpu"), "backend must be one of"),
    (dict(game="draw", render_mode="svg"), "render_mode must be one of"),
    (dict(game="draw", render_viewer=7), "render_viewer must be a seat 0..3"),
    (dict(game="draw", num_players=9), "num_players must be one of 2, 3, 4, 5"),
    (dict(game="draw", draw_rule="never"), "draw_rule must be one of"),
    (dict(game="bergen", teams=True), "bergen has no option 'teams'"),
    (dict(game="draw", score_scale=0), "score_scale must be a positive"),
])
def test_bad_arguments_name_what_is_allowed(kwargs, match):
    with pytest.raises(ValueError, match=match):
        raw_env(backend=kwargs.pop("backend", "reference"), **kwargs)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bad_actions_are_refused_and_change_nothing(backend):
    e = nos_env.env(game="draw", num_players=3, backend=backend)
    e.reset(seed=1)
    agent = e.agent_selection
    before = e.observe(agent)["observation"].copy(), e.observe(agent)["action_mask"].copy()
    n = e.action_space(agent).n
    illegal = int(np.flatnonzero(before[1] == 0)[0])
    for bad, match in [(1.0, "action must be an action index"), ("3", "action must be an action index"),
                       (True, "action must be an action index"), (n, f"0..{n - 1}"), (-1, f"0..{n - 1}"),
                       (illegal, "illegal action")]:
        with pytest.raises(ValueError, match=match):
            e.step(bad)
        assert e.agent_selection == agent
        np.testing.assert_array_equal(e.observe(agent)["observation"], before[0])
        np.testing.assert_array_equal(e.observe(agent)["action_mask"], before[1])


def test_bad_seed_and_viewer_are_refused():
    e = raw_env("block", backend="reference", render_mode="ansi")
    with pytest.raises(ValueError, match="seed must be an integer or None"):
        e.reset(seed="1")
    e.reset(seed=1)
    with pytest.raises(ValueError, match="render_viewer must be a seat"):
        e.render_viewer = "everyone"
    with pytest.raises(ValueError, match="unknown agent"):
        e.observe("player_9")


# ----------------------------------------------------------------- seeding and dtypes
@pytest.mark.parametrize("reward", ["relative", "win"])
@pytest.mark.parametrize("game", FAMILY_GAMES)
def test_both_backends_play_the_same_seeded_game(game, reward):
    envs = [nos_env.env(game=game, backend=b, num_players=2 if game != "fours" else 4, reward=reward,
                        **single_hand(game)) for b in BACKENDS]
    for e in envs:
        e.reset(seed=21)
    rng = np.random.default_rng(0)
    for _ in range(400):
        views = [(e.agent_selection, e.last()) for e in envs]
        (a0, (o0, r0, t0, _, _)), (a1, (o1, r1, t1, _, _)) = views
        assert a0 == a1 and r0 == r1 and t0 == t1
        np.testing.assert_array_equal(o0["observation"], o1["observation"])
        np.testing.assert_array_equal(o0["action_mask"], o1["action_mask"])
        if t0:
            break
        action = int(rng.choice(np.flatnonzero(o0["action_mask"])))
        for e in envs:
            e.step(action)


def test_plain_resets_replay_after_a_seeded_one():
    a, b = (raw_env("draw", backend="reference") for _ in range(2))
    for e in (a, b):
        e.reset(seed=9)
        e.reset()
    assert a.observe("player_0")["observation"].tolist() == b.observe("player_0")["observation"].tolist()
    a.reset(seed=9)
    first = a.observe("player_0")["observation"].tolist()
    a.reset()
    assert a.observe("player_0")["observation"].tolist() != first  # the next seed, not the same game again


def test_uint8_observations_decode_to_the_float_ones():
    from nos_env.family.encoding import decode_compact

    f = raw_env("all_fives", backend="reference")
    c = raw_env("all_fives", backend="reference", observation_dtype="uint8")
    for e in (f, c):
        e.reset(seed=4)
    assert c.observation_space("player_0")["observation"].dtype == np.uint8
    for agent in f.possible_agents:
        compact = c.observe(agent)["observation"]
        assert compact.dtype == np.uint8
        np.testing.assert_allclose(decode_compact(compact[None], f.rules)[0], f.observe(agent)["observation"])


def test_reference_game_from_a_seed_is_the_environment_game():
    e = raw_env("matador", backend="reference", num_players=3)
    e.reset(seed=77)
    g = FamilyGame(e.rules, seed=77)
    assert e.agent_selection == f"player_{g.to_move}"
    np.testing.assert_array_equal(e.observe("player_1")["observation"], g.observe(1))


# ----------------------------------------------------------------- what each viewer sees
@pytest.mark.parametrize("game", ["draw", "blind"])
def test_rendering_shows_one_viewers_tiles(game):
    e = raw_env(game, backend="reference", render_mode="ansi", num_players=3)
    e.reset(seed=8)
    g = e.game_state
    hands = g.rows if game == "blind" else [sorted(h) for h in g.hand.hands]
    ts = g.rules.tiles if game == "blind" else g.hand.layout.ts
    text = lambda t: "{}-{}".format(*ts.tiles[t])  # noqa: E731
    seat_lines = {s: next(line for line in e.render().splitlines() if line.startswith(f"  seat {s}:"))
                  for s in range(3)}
    for s in range(3):
        shown = all(text(t) in seat_lines[s] for t in hands[s])
        # seat 0 sees its own hand, except in Blind where nobody sees his own row (BD3)
        assert shown == (s == 0 and game != "blind"), (s, seat_lines[s])
    e.render_viewer = "omniscient"
    lines = e.render().splitlines()
    for s in range(3):
        line = next(x for x in lines if x.startswith(f"  seat {s}:"))
        assert all(text(t) in line for t in hands[s])


def test_pictures_hide_other_hands_and_are_deterministic():
    from nos_env.draw.base import TILE_BACK
    from PIL import ImageColor

    back = np.array(ImageColor.getrgb(TILE_BACK), np.uint8)
    pictures = {}
    for viewer in (0, 1, "omniscient"):
        e = raw_env("all_fives", backend="reference", render_mode="rgb_array", render_viewer=viewer)
        e.reset(seed=2)
        pictures[viewer] = e.render()
        assert pictures[viewer].shape == (800, 1280, 3) and pictures[viewer].dtype == np.uint8
    backs = {v: int(np.all(p == back, axis=-1).sum()) for v, p in pictures.items()}
    # face-down tiles: three hands and the boneyard for a seat, the omniscient view has none
    assert backs["omniscient"] == 0 and backs[0] > 0 and backs[1] > 0
    assert not np.array_equal(pictures[0], pictures[1])
    again = raw_env("all_fives", backend="fast", render_mode="rgb_array", render_viewer=0)
    again.reset(seed=2)
    np.testing.assert_array_equal(again.render(), pictures[0])  # same game on either engine, same pixels


def test_the_family_pictures_in_the_docs_are_what_the_code_draws():
    """docs/family.md shows docs/pictures/family_*.png: redraw with `python docs/make_pictures.py`."""
    import importlib.util

    from conftest import ROOT
    from nos_env.draw.base import png_bytes

    spec = importlib.util.spec_from_file_location("make_pictures", ROOT / "docs" / "make_pictures.py")
    make_pictures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_pictures)
    for name, args in make_pictures.FAMILY_PICTURES.items():
        fresh = png_bytes(make_pictures.palette_picture(make_pictures.family_picture(*args)))
        assert (ROOT / "docs" / "pictures" / name).read_bytes() == fresh, "run python docs/make_pictures.py"


def test_both_backends_pay_the_same_match_and_team_wins():
    for game, options in (("draw", {"teams": True, "target_score": 30}), ("bergen", {"num_players": 3})):
        finals = []
        for backend in BACKENDS:
            e = nos_env.env(game=game, backend=backend, reward="win", **options)
            e.reset(seed=12)
            rng = np.random.default_rng(3)
            total = {a: 0.0 for a in e.possible_agents}
            for agent in e.agent_iter():
                obs, reward, term, trunc, _ = e.last()
                total[agent] += reward
                e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            finals.append([total[a] for a in e.possible_agents])
        assert finals[0] == finals[1] and max(finals[0]) == 1.0
        if game == "draw":  # partners win together (F20)
            assert finals[0][0] == finals[0][2] and finals[0][1] == finals[0][3] == -finals[0][0]
