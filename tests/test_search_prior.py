"""Search with an agent object as its prior (``search+model:PATH``, agents.search's safeguard).

Search keeps its prior's move unless the rollouts show a better one by ``margin`` standard errors.
Checked here: with an infinite margin it plays exactly what the model plays; with Tactics given as
an object it makes the very choices and estimates of its own compiled Tactics prior; the spec,
its label and its leaderboard identity; and a prior that answers an illegal move is refused.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

pytest.importorskip("torch")  # the train extra

import nos_env  # noqa: E402
from agents import features as F  # noqa: E402
from agents.base import Agent, BatchContext  # noqa: E402
from agents.greedy import GreedyAgent  # noqa: E402
from agents.model import ModelAgent  # noqa: E402
from agents.ratings import agent_identity  # noqa: E402
from agents.registry import agent_label, check_agent_spec, make_agent  # noqa: E402
from agents.search import SearchAgent  # noqa: E402
from agents.tactics import TacticsAgent  # noqa: E402
from agents.tournament import run_tournament  # noqa: E402
from model_helpers import save_biased_model  # noqa: E402
from nos_env import encoding as E  # noqa: E402


@pytest.fixture(scope="module")
def never_closing_model(tmp_path_factory):
    """A model with random preferences that never says "close": every closing is far less likely
    than the same play without it, which is legal whenever the closing is. Search drops only
    certainly wrong closings from its candidates, so this model's move is always a candidate."""
    bias = np.random.default_rng(12).normal(0.0, 2.0, E.NUM_ACTIONS)
    bias[F.CLOSE] = -50.0
    return save_biased_model(tmp_path_factory.mktemp("prior") / "never_closes.zip", bias)


def searched_rows(num_envs: int, seed: int, calls: int, agent, on_call=None):
    """Vector-env games where seats 0 and 2 are played by ``agent`` (act_batch on all their rows at
    once) and greedy plays the rest; ``on_call(obs, masks, chosen)`` sees every call. Returns how
    many rows had more than one legal action."""
    venv = nos_env.vector_env(num_envs=num_envs, num_players=4, seed=seed)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=seed + 1)
    searched = 0
    for _ in range(calls):
        actions = greedy.act_batch(obs, masks)
        rows = np.flatnonzero(current % 2 == 0)
        if len(rows):
            row_masks = np.array(masks[rows])
            chosen = agent.act_batch(obs[rows], row_masks, BatchContext(venv.tables, rows, current[rows]))
            assert row_masks[np.arange(len(rows)), chosen].all(), "an illegal action"
            if on_call is not None:
                on_call(obs[rows], row_masks, chosen)
            searched += int((row_masks.sum(axis=1) > 1).sum())
            actions[rows] = chosen
        obs, masks, current, *_ = venv.step(actions)
    return searched


def test_with_an_infinite_margin_it_plays_the_models_moves(never_closing_model):
    model = ModelAgent(never_closing_model)
    agent = SearchAgent(seed=3, rollouts=8, prior=ModelAgent(never_closing_model), margin=float("inf"))
    kinds = set()

    def same_as_model(obs, masks, chosen):
        np.testing.assert_array_equal(chosen, model.act_batch(obs, masks))
        kinds.update(int(k) for k in F.KIND[chosen[masks.sum(axis=1) > 1]])

    assert searched_rows(6, seed=4, calls=40, agent=agent, on_call=same_as_model) > 40
    assert {F.ANNOUNCE, F.PLAY} <= kinds  # the openings (halving) and the plays (even split)


def test_with_a_finite_margin_it_departs_from_a_poor_prior(never_closing_model):
    """The model's random preferences are poor moves, which the rollouts find: at the default margin
    Search leaves them at some decisions (and keeps them at others)."""
    model = ModelAgent(never_closing_model)
    agent = SearchAgent(seed=3, rollouts=16, prior=ModelAgent(never_closing_model))
    kept = departed = 0

    def count(obs, masks, chosen):
        nonlocal kept, departed
        wide = masks.sum(axis=1) > 1
        same = chosen == model.act_batch(obs, masks)
        kept += int((same & wide).sum())
        departed += int((~same & wide).sum())

    searched_rows(6, seed=4, calls=40, agent=agent, on_call=count)
    assert departed > 5 and kept > 5


def test_tactics_as_an_object_prior_searches_as_its_own_tactics_prior():
    """Without tie-break noise the Python Tactics as an object prior chooses what Search's compiled
    Tactics prior chooses, so the two Searches make the same choices from the same seed: the object
    path (priors asked once per act_batch, kept by the halving, compared by the safeguard) is the
    built-in one."""
    quiet_tactics = TacticsAgent(seed=0)
    quiet_tactics._noise = np.zeros
    built_in = SearchAgent(seed=9, rollouts=16, tie_noise=False)
    given = SearchAgent(seed=9, rollouts=16, tie_noise=False, prior=quiet_tactics)
    choices = {"built_in": [], "given": []}
    for name, agent in (("built_in", built_in), ("given", given)):
        searched_rows(4, seed=6, calls=30, agent=agent,
                      on_call=lambda obs, masks, chosen, name=name: choices[name].extend(chosen.tolist()))
    assert len(choices["given"]) > 60
    assert choices["given"] == choices["built_in"]
    assert given.rng.integers(2**62) == built_in.rng.integers(2**62)


class IllegalPrior(Agent):
    """Answers action 0 (a set of [0-0]) whatever the mask says."""

    name = "illegal"

    def act_batch(self, obs, masks, context=None):
        return np.zeros(len(obs), np.int64)


def test_a_prior_that_answers_an_illegal_move_is_refused():
    venv = nos_env.vector_env(num_envs=1, num_players=4, seed=0)
    obs, masks, current = venv.reset()
    greedy = GreedyAgent(seed=0)
    while masks[0].sum() < 2 or masks[0, 0]:
        obs, masks, current, *_ = venv.step(greedy.act_batch(obs, masks))
    agent = SearchAgent(seed=0, rollouts=4, prior=IllegalPrior())
    state = agent.rng.bit_generator.state
    with pytest.raises(ValueError, match="chose action 0, which is not legal"):
        agent.act_batch(obs, np.array(masks), BatchContext(venv.tables, np.array([0]), current))
    assert agent.rng.bit_generator.state == state
    with pytest.raises(ValueError, match="chose action 0, which is not legal"):  # one row, by search()
        agent.search(obs[0], np.array(masks[0]), venv.tables, 0, int(current[0]))
    assert agent.rng.bit_generator.state == state


@pytest.mark.parametrize("prior", ["tactic", 7, GreedyAgent])
def test_a_bad_prior_names_what_is_allowed(prior):
    with pytest.raises(ValueError, match="None, 'greedy', 'tactics' or an agent object"):
        SearchAgent(prior=prior)


def test_the_spec_builds_search_with_the_model_as_its_prior(never_closing_model):
    spec = f"search+model:{never_closing_model}"
    check_agent_spec(spec)
    agent = make_agent(spec, seed=5, rollouts=8)
    assert isinstance(agent, SearchAgent) and agent.rollouts == 8
    assert isinstance(agent.prior, ModelAgent) and agent.prior.path == never_closing_model
    assert agent.prior.seed == 5 + 15485863  # its own seed, apart from the search's
    assert agent_label(spec) == "search+model"
    assert agent_label(f"search+ensemble:{never_closing_model},{never_closing_model}") == "search+ensemble"


@pytest.mark.parametrize("spec,message", [
    ("search+tactics", "search\\+model:PATH or search\\+ensemble"),
    ("search+model:no/such.zip", "no trained model at 'no/such.zip'"),
    ("search+ensemble:{a}", "at least 2 model paths"),
])
def test_bad_specs_name_what_is_wrong(never_closing_model, spec, message):
    spec = spec.format(a=never_closing_model)
    for check in (check_agent_spec, make_agent):
        with pytest.raises(ValueError, match=message):
            check(spec)


def test_the_spec_is_for_nos_only(never_closing_model):
    with pytest.raises(ValueError, match="plays Nos only, not all_fives"):
        check_agent_spec(f"search+model:{never_closing_model}", game="all_fives")


def test_its_leaderboard_identity_is_the_models_file_and_the_search_options(never_closing_model):
    sha = hashlib.sha256(never_closing_model.read_bytes()).hexdigest()
    spec = f"search+model:{never_closing_model}"
    plain = agent_identity(spec)
    assert plain.key == f"search+model:{never_closing_model.resolve()}@sha256:{sha}"
    assert plain.label == f"search+model:never_closes.zip@{sha[:8]}"
    assert plain.info == {"kind": "search+prior",
                          "prior": {"kind": "model", "path": str(never_closing_model.resolve()), "sha256": sha}}
    with_options = agent_identity(spec, {"rollouts": 8})
    assert with_options.key == plain.key + ' {"rollouts": 8}'
    assert with_options.key != agent_identity(f"model:{never_closing_model}").key


def test_it_plays_a_tournament(never_closing_model):
    spec = f"search+model:{never_closing_model}"
    result = run_tournament([spec, "random", "random", "random"], deals=2, seed=1, progress=False,
                            agent_options={spec: {"rollouts": 4}})
    summary = result.summary()
    assert "search+model" in summary["agents"]
    assert summary["deals"] == 2 and summary["hands"] == 8  # duplicate: each deal in 4 rotations
