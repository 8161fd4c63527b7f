"""JSON records of family games: the game, its options, the seed (or the deal) and the actions.

A record replays exactly: the same rules, seed and actions give the same game in every engine
(contract, "The deal and the random stream"). A game started with ``FamilyGame.from_deal``
records its deal instead of a seed's first hand; the deal may carry ``stream_state``, the random
stream's state after that deal (a fast-engine table's, ``FamilyTables.reference_game``), so the
later hands of a match replay as the table dealt them (without it they come from seed 0's stream).
"""

from __future__ import annotations

import json

from ..rng import SplitMix64
from .own_games import own_game
from .rules import make_rules

RECORD_VERSION = 1


def game_record(game) -> dict:
    rules = game.rules
    record = {"version": RECORD_VERSION, "game": rules.game, "num_players": rules.num_players,
              "options": rules.options(), "seed": game.seed, "actions": list(game.actions),
              "scores": list(game.scores), "done": game.done}
    if game._from_deal is not None:
        record["deal"] = game._from_deal
    return record


def replay(record: dict):
    """The FamilyGame a record describes, with its actions applied (each checked as legal)."""
    from .engine import FamilyGame
    if not isinstance(record, dict) or not {"game", "options", "actions"} <= set(record):
        raise ValueError("a family record is a dict with game, num_players, options, seed and actions")
    rules = make_rules(record["game"], record.get("num_players"), **record["options"])
    if record.get("deal") is not None:
        deal = record["deal"]
        game = FamilyGame.from_deal(rules, deal["hands"], deal["boneyard"], deal.get("setter"), deal.get("scores"))
        if deal.get("stream_state") is not None:
            state = deal["stream_state"]
            if isinstance(state, bool) or not isinstance(state, int) or not 0 <= state < 1 << 64:
                raise ValueError(f"a deal's stream_state is an integer 0..2**64-1, got {state!r}")
            game.rng = SplitMix64.from_state(state)
            game._from_deal = dict(game._from_deal, stream_state=state)
    else:
        game = FamilyGame(rules, seed=record.get("seed", 0))
    for a in record["actions"]:
        game.step(a)
    return game


def replay_any(record: dict):
    """The game any family-kind record describes (the ten games, Blind, Chickenfoot, Mexican
    Train), replayed by its own engine's ``from_record`` (the ten: :func:`replay`). Keys other
    than the record's own (a tournament's "tournament" facts) are left out where an engine
    wants exactly its keys."""
    own = own_game(record.get("game")) if isinstance(record, dict) else None
    if own is not None:
        return own.replay(record)
    return replay(record)


def match_points(game) -> list[int]:
    """Each seat's points over the game so far, as the engines report them step by step:
    Chickenfoot keeps penalty totals and reports minus them (CK12), the others their scores."""
    scores = [int(x) for x in game.scores]
    return [-x for x in scores] if game.rules.game == "chickenfoot" else scores


def dumps(game) -> str:
    return json.dumps(game_record(game))


def loads(text: str):
    return replay(json.loads(text))
