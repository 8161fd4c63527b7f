"""The family games' fast-vs-reference differential: the same games, step by step.

:func:`run` plays episodes of one family game and option set on ``FamilyTables`` (a compact
and a float32 batch side by side) and on the reference engine (``FamilyGame``, one per table,
same seeds), with random legal actions, and compares at every step: the seat to move, the
legal-action list and the mask, the observation of the seat to move in both dtypes (and every
seat's every seventh step), the points each seat gained, the end of the episode and the
scores. The first difference raises :class:`Mismatch` naming the game, options, seed and step.
``tests/test_family_fast.py`` runs it briefly; ``benchmarks/differential_family.py`` long.
"""

from __future__ import annotations

import random

import numpy as np

from .family import encoding as E
from .family.engine import FamilyGame
from .family_tables import FamilyTables


class Mismatch(AssertionError):
    pass


def run(game: str, num_players: int | None = None, seeds=range(4), steps: int = 400, action_seed: int = 0,
        **options) -> dict:
    """Plays ``steps`` steps on len(seeds) tables; returns counts {"steps", "episodes"}."""
    seeds = list(seeds)
    B = len(seeds)
    fast = FamilyTables(game, B, num_players=num_players, seed=0, **options)
    flt = FamilyTables(game, B, num_players=num_players, seed=0, observation_dtype="float32", **options)
    rules = fast.rules
    n = rules.num_players
    next_seed = max(seeds) + 1
    fast.seed_tables(np.arange(B), seeds)
    flt.seed_tables(np.arange(B), seeds)
    refs = [FamilyGame(rules, seed=s) for s in seeds]
    table_seed = list(seeds)
    rng = random.Random(action_seed)
    episodes = 0
    where = {"game": game, "players": n, "options": options}

    def fail(b, k, what):
        raise Mismatch(f"{where}, seed {table_seed[b]}, step {k} of the run: {what}")

    def compare_position(b, k, obs_c=None, obs_f=None):
        ref = refs[b]
        legal = ref.legal_actions()
        ours = fast.legal_actions(b).tolist()
        if ours != legal:
            fail(b, k, f"legal actions {ours} != reference {legal} "
                       f"({[E.describe(a, rules) for a in legal]} vs {[E.describe(a, rules) for a in ours]})")
        mask = np.zeros(rules.num_actions, np.int8)
        mask[legal] = 1
        if not np.array_equal(fast.masks[b], mask):
            fail(b, k, "mask differs from the legal list")
        to_move = ref.to_move if not ref.done else -1
        if fast.current_player[b] != to_move:
            fail(b, k, f"seat to move {fast.current_player[b]} != reference {to_move}")
        seats = [to_move] if to_move >= 0 else []
        if k % 7 == 0:
            seats = list(range(n))
        for seat in seats:
            want_c = ref.observe(seat, dtype="uint8")
            want_f = ref.observe(seat, dtype="float32")
            got_c = obs_c if (obs_c is not None and seat == to_move) else fast.observe_rows([b], [seat])[0]
            got_f = obs_f if (obs_f is not None and seat == to_move) else flt.observe_rows([b], [seat])[0]
            for got, want, kind in ((got_c, want_c, "compact"), (got_f, want_f, "float32")):
                if not np.array_equal(got, want):
                    layout = E.observation_layout(rules)
                    bad = np.flatnonzero(got[: len(want_f)] != want[: len(want_f)]) if kind == "float32" else \
                        np.flatnonzero(got != want)
                    names = sorted({name for name, (s0, s1, _) in layout.items() for i in bad if s0 <= i < s1})
                    fail(b, k, f"{kind} observation of seat {seat} differs in {names or 'the score tail'} "
                               f"at {bad[:8].tolist()}: ours {got[bad[:8]].tolist()} ref {want[bad[:8]].tolist()}")

    for b in range(B):
        compare_position(b, -1)
    for k in range(steps):
        actions = np.array([rng.choice(refs[b].legal_actions()) for b in range(B)], np.int64)
        obs_c, pts, term, cur = fast.step(actions, autoreset=False)
        obs_f, pts_f, term_f, _ = flt.step(actions, autoreset=False)
        obs_c, pts, term, obs_f = obs_c.copy(), pts.copy(), term.copy(), obs_f.copy()
        for b in range(B):
            gained = refs[b].step(int(actions[b]))
            if pts[b, :n].tolist() != list(gained) or pts[b, n:].any() or not np.array_equal(pts[b], pts_f[b]):
                fail(b, k, f"action {E.describe(int(actions[b]), rules)}: points {pts[b].tolist()} "
                           f"!= reference {list(gained)}")
            if bool(term[b]) != bool(refs[b].done) or bool(term_f[b]) != bool(term[b]):
                fail(b, k, f"terminated {bool(term[b])} != reference done {refs[b].done}")
            if fast.scores[b, :n].tolist() != list(refs[b].scores):
                fail(b, k, f"scores {fast.scores[b, :n].tolist()} != reference {list(refs[b].scores)}")
            if fast.hand_number[b] != refs[b].hand_number and not refs[b].done:
                fail(b, k, f"hand number {fast.hand_number[b]} != reference {refs[b].hand_number}")
            compare_position(b, k, obs_c[b], obs_f[b])
            if term[b]:
                episodes += 1
                table_seed[b] = next_seed
                fast.seed_tables([b], [next_seed])
                flt.seed_tables([b], [next_seed])
                refs[b] = FamilyGame(rules, seed=next_seed)
                next_seed += 1
                compare_position(b, k)
    return {"steps": steps * B, "episodes": episodes}
