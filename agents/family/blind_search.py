"""Search for Blind: determinized rollouts over the tiles nobody has seen (BD3).

Blind has no private tiles: every seat knows the same things (the layout, every row's
length, each turned-up tile and its place in its row). What nobody knows is where the
*never-seen* tiles lie: which unseen slot of which row holds which of them, and which are
set aside (BD2). A determinization is an order of those tiles over the hidden slots.

Not every order is possible. The game ends blocked as soon as no tile in any row fits an
open end (BD7), so an order that would have left the rows without a fitting tile at some
earlier point contradicts the fact that the game went on. ``BlindTables.set_hidden``
(through ``BlindGame.with_hidden``) refuses such an order; the sampler draws uniformly
random orders and keeps the first one it accepts (rejection: exactly uniform over the
consistent orders).

Everything else is the family Search (``agents/family/search.py``): the same samples for every
candidate, Blind's Greedy (``agents/family/blind.py``) at every seat of the rollouts, the
acting seat's points (1 for the winner, BD8) minus the others' mean as the value, and Greedy's
own move kept unless another is better by more than ``margin`` standard errors.
"""

from __future__ import annotations

import numpy as np

from .blind import BlindGreedyAgent
from .search import FamilySearchAgent

#: Orders tried per sample before giving up (a consistent order is the rule, not the exception:
#: only a game that came close to blocking refuses many).
TRIES = 200


class BlindSampler:
    """The never-seen tiles of one Blind observation row (the ``unseen`` slice), as a sorted
    list: the sampler shuffles that list, so nothing of the real order can reach a sample."""

    def __init__(self, view, obs: np.ndarray):
        obs = np.asarray(obs, np.float32)[None, :]
        self.hidden = np.flatnonzero(view.slice(obs, "unseen")[0] > 0)

    def order(self, rng: np.random.Generator) -> list[int]:
        return rng.permutation(self.hidden).tolist()


class BlindSearchAgent(FamilySearchAgent):
    """Determinized Search for Blind (see the module); the options are the family Search's."""

    name = "search"

    def __init__(self, rules, seed: int | None = 0, **kwargs):
        if rules.game != "blind":
            raise ValueError(f"BlindSearchAgent plays blind, got rules of {rules.game!r}")
        super().__init__(rules, seed=seed, **kwargs)

    def _greedy(self, rules, seed):
        return BlindGreedyAgent(rules, seed=seed)

    def _sampler(self, obs: np.ndarray) -> BlindSampler:
        return BlindSampler(self.view, obs)

    def _determinize(self, tables, snapshot, sampler: BlindSampler, k: int, C: int, seat: int) -> None:
        for i in range(k):
            first = i * C
            for _ in range(TRIES):
                tables.restore_table(first, snapshot)
                try:
                    tables.set_hidden(first, sampler.order(self.rng))
                except ValueError:  # the game would have ended blocked earlier (BD7): not this order
                    continue
                break
            else:
                raise RuntimeError(f"no order of the {len(sampler.hidden)} never-seen tiles fits what everyone saw "
                                   f"in {TRIES} tries")
            sample = {name: np.asarray(a) for name, a in tables.clone_table(first).items()}
            for r in range(first + 1, first + C):
                tables.restore_table(r, sample)
