"""Mexican Train's fast-vs-reference differential: the same matches, step by step.

:func:`run` plays matches on ``MexicanTrainTables`` (a compact and a float32 batch side by
side) and on the reference engine (``MexicanTrainGame``, one per table, same seeds) with
random legal actions, and compares at every step: the seat to move, the legal actions and
the mask, the observation of the seat to move in both dtypes (every seat's every seventh
step), the points each seat gained, the end of the match, its scores and winner, and every
few steps the table rebuilt in the reference engine (``reference_game``). The first
difference raises :class:`Mismatch` naming the options, seed and step.
``tests/test_mexican_train_fast.py`` runs it briefly; ``benchmarks/differential_mexican_train.py`` long.
"""

from __future__ import annotations

import random

import numpy as np

from .family.mexican_train import MexicanTrainGame
from .mexican_train_tables import MexicanTrainTables


class Mismatch(AssertionError):
    pass


def run(num_players: int = 4, seeds=range(4), steps: int = 400, action_seed: int = 0, **options) -> dict:
    """Plays ``steps`` steps on len(seeds) tables; returns counts {"steps", "matches", "rounds"}."""
    seeds = list(seeds)
    B = len(seeds)
    fast = MexicanTrainTables("mexican_train", B, num_players, seed=0, threads=1, **options)
    flt = MexicanTrainTables("mexican_train", B, num_players, seed=0, threads=1, observation_dtype="float32",
                             **options)
    fast.seed_tables(np.arange(B), seeds)
    flt.seed_tables(np.arange(B), seeds)
    rules = fast.rules
    n = rules.num_players
    refs = [MexicanTrainGame(rules, seed=s) for s in seeds]
    rnd = random.Random(action_seed)
    matches = rounds = 0

    def where(b, step):
        return f"{n} players, options {options}, table seed {seeds[b]}, step {step}"

    for step in range(steps):
        for b, g in enumerate(refs):
            legal = g.legal_actions()
            if fast.legal_actions(b).tolist() != legal or np.flatnonzero(fast.masks[b]).tolist() != legal:
                raise Mismatch(f"legal actions differ at {where(b, step)}: {fast.legal_actions(b)} vs {legal}")
            if int(fast.current_player[b]) != g.to_move:
                raise Mismatch(f"seat to move differs at {where(b, step)}")
            seats = range(n) if step % 7 == 0 else [g.to_move]
            for s in seats:
                row, seat = np.array([b]), np.array([s])
                if not np.array_equal(fast.observe_rows(row, seat)[0], g.observe(s, "uint8")) or \
                        not np.array_equal(flt.observe_rows(row, seat)[0], g.observe(s, "float32")):
                    raise Mismatch(f"seat {s}'s observation differs at {where(b, step)}")
            if step % 50 == 25:
                again = fast.reference_game(b)
                if again.legal_actions() != legal or again.scores != g.scores or \
                        not np.array_equal(again.observe(g.to_move), g.observe(g.to_move)):
                    raise Mismatch(f"reference_game differs at {where(b, step)}")
        actions = np.array([rnd.choice(g.legal_actions()) for g in refs], np.int64)
        _, points, term, _ = fast.step(actions)
        points, term = points.copy(), term.copy()
        final = fast.final_scores.copy()
        winners = fast.winner.copy()
        flt.step(actions)
        for b, g in enumerate(refs):
            got = g.step(int(actions[b]))
            rounds += g.hand_over
            if points[b, :n].tolist() != got or bool(term[b]) != g.done:
                raise Mismatch(f"points or the match's end differ at {where(b, step)}: {points[b, :n]} vs {got}")
            if g.done:
                matches += 1
                if final[b, :n].tolist() != g.scores:
                    raise Mismatch(f"final scores differ at {where(b, step)}")
                g.reset()
    del winners
    return {"steps": steps * B, "matches": matches, "rounds": rounds}
