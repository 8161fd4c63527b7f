"""A table's state after a seeded reset depends on the seed alone.

Two tables of the same game that have played different games before are seeded alike and
reset: every array of their snapshots (``clone()``) must be equal, the unused tail of the
legal-action list and the decision history included (``kernels.core.fresh_record``). Before
that was so, a table built without a seed and then seeded kept the random first deal's
leftovers there, and tests comparing snapshots failed once in a few dozen runs (the RLlib
env's "an illegal action changes nothing" test). A loaded deal obeys the same rule.
"""

from __future__ import annotations

import numpy as np
import pytest

from nos_env import registry
from nos_env.deal import Deal
from nos_env.family_backends import seed_and_reset
from nos_env.rng import seed_state

GAMES = registry.list_games()


def make_tables(game: str, seed: int | None, **options):
    if game == "nos":
        return registry.vector_env(2, 4, game="nos", seed=seed, **options).tables
    return registry.vector_env(2, game=game, seed=seed, **options).tables


def play(tables, game: str, steps: int, stream: int, illegal_every: int = 0) -> None:
    """``steps`` random legal actions at both tables (autoreset carries them across episodes);
    with ``illegal_every``, every so many steps an action outside the mask (Nos's penalty option)."""
    state = np.array([seed_state(stream), seed_state(stream + 1)], np.uint64)
    for i in range(steps):
        actions = tables.sample_legal(state)
        if illegal_every and i % illegal_every == 0:
            masks = np.asarray(tables.masks)
            actions = np.array([int(np.flatnonzero(m == 0)[0]) for m in masks], np.int64)
        if game == "nos":
            tables.step(actions, allow_idle=True)
        else:
            tables.step(actions)


def reseed(tables, game: str, seeds) -> None:
    if game == "nos":
        tables.seed_tables(np.arange(2), seeds)
        tables.reset_tables()
    else:
        seed_and_reset(tables, np.arange(2), np.asarray(seeds))


def assert_same_snapshot(sa: dict, sb: dict) -> None:
    assert set(sa) == set(sb)
    differ = [k for k in sa if not np.array_equal(sa[k], sb[k])]
    assert differ == [], f"arrays that depend on the tables' past: {differ}"


def assert_same_state(a, b) -> None:
    assert_same_snapshot(a.clone(), b.clone())


@pytest.mark.parametrize("game", GAMES)
def test_a_seeded_reset_forgets_the_tables_past(game):
    fresh = make_tables(game, seed=5)
    used = make_tables(game, seed=9)
    play(fresh, game, 3, stream=11)
    play(used, game, 150, stream=12)  # several finished episodes, autoreset between them
    reseed(fresh, game, [3, 4])
    reseed(used, game, [3, 4])
    assert_same_state(fresh, used)
    # ... and the two go on as one: the same actions give the same states
    play(fresh, game, 40, stream=21)
    play(used, game, 40, stream=21)
    assert_same_state(fresh, used)


@pytest.mark.parametrize("game", ["draw", "blind", "chickenfoot", "nos"])
def test_tables_built_without_a_seed_then_seeded_equal_tables_built_with_it(game):
    """The RLlib env's case: its tables are built with seed=None (a random first deal), then
    seeded by the episode's reset."""
    for _ in range(5):  # five random first deals
        unseeded = make_tables(game, seed=None)
        reseed(unseeded, game, [2, 3])
        seeded = make_tables(game, seed=0)
        reseed(seeded, game, [2, 3])
        assert_same_state(unseeded, seeded)


def test_nos_penalties_of_the_past_are_forgotten_too():
    """Nos's D16 penalty option counts penalties per hand (PEN): a reset starts them at zero."""
    fresh = make_tables("nos", seed=5, illegal_action="penalty")
    used = make_tables("nos", seed=9, illegal_action="penalty")
    play(used, "nos", 60, stream=12, illegal_every=3)
    assert np.asarray(used.PEN).any()  # the past had penalties to forget
    reseed(fresh, "nos", [3, 4])
    reseed(used, "nos", [3, 4])
    assert_same_state(fresh, used)


def family_api_deal(tables, seed: int):
    """A random deal of the tables' set: each seat's ``hand_size`` tiles, the rest in the boneyard."""
    rules = tables.rules
    tiles = np.random.default_rng(seed).permutation(rules.num_tiles).tolist()
    k, n = rules.hand_size, rules.num_players
    return [tiles[s * k:(s + 1) * k] for s in range(n)], tiles[n * k:]


def loaded_part(snapshot: dict, game: str) -> dict:
    """What a loaded deal sets: everything but what load_deal keeps by design, the table's
    random stream ``R`` (Blind's, Chickenfoot's and Nos's later deals draw from it; the family's
    load_deal restarts it at SplitMix64(0)) and Blind's count of deals skipped since the seed."""
    out = {k: v for k, v in snapshot.items() if k != "R"}
    if game == "blind":
        from nos_env.games.blind import T_SKIPPED
        out["T"] = np.delete(out["T"], T_SKIPPED)
    return out


@pytest.mark.parametrize("game", ["draw", "fives_and_threes", "blind", "chickenfoot"])
def test_a_loaded_deal_forgets_the_tables_past(game):
    fresh = make_tables(game, seed=5)
    used = make_tables(game, seed=9)
    play(used, game, 150, stream=12)
    hands, boneyard = family_api_deal(fresh, 7)
    if game == "blind":
        boneyard = []  # Blind deals every tile into the rows (BD2)
    for t in (fresh, used):
        t.load_deal(0, hands, boneyard)
    assert_same_snapshot(*(loaded_part(t.clone_table(0), game) for t in (fresh, used)))


def test_a_loaded_nos_deal_forgets_the_tables_past():
    fresh = make_tables("nos", seed=5)
    used = make_tables("nos", seed=9)
    play(used, "nos", 150, stream=12)
    deal = Deal.random(4, np.random.default_rng(3))
    for t in (fresh, used):
        t.load_deal(0, deal, on_set=1)
    assert_same_snapshot(*(loaded_part(t.clone_table(0), "nos") for t in (fresh, used)))


def test_blind_counts_skipped_deals_from_its_last_seed():
    """Seed 6 of 5-player Blind deals a game without a decision first (test_blind_rules): the
    game and the tables skip it and count it. Seeded again, both count from zero."""
    from nos_env.blind_tables import BlindTables
    from nos_env.family.blind import BlindGame, make_blind_rules
    rules = make_blind_rules(5, first_seat=0)
    game = BlindGame(rules, seed=6, skip_decisionless=True)
    first = game.skipped
    assert first >= 1
    game.reset()  # the stream goes on: the count too
    game.reset()
    assert game.skipped >= first
    game.reset(seed=6)
    assert game.skipped == first
    tables = BlindTables("blind", 1, num_players=5, seed=6, first_seat=0)
    assert tables.skipped.tolist() == [first]
    tables.reset_tables()
    tables.seed_tables([0], [6])
    tables.reset_tables()
    assert tables.skipped.tolist() == [first]
