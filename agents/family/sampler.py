"""The hidden tiles of a family game, sampled from one seat's observation alone (F24).

What the observer knows (the observation's slices, seat offsets from the observer):

- ``hand``: its own tiles; ``on_table``: the tiles on the layout;
- the *unseen* tiles are all the others: they are in the other seats' hands or the boneyard;
- ``seat_present`` and ``seat_hand_size``: how many tiles each other seat holds;
- ``boneyard_size``: how many lie in the boneyard (reserve included);
- ``seat_void``: tiles a seat is known not to hold (the contract's public evidence: it passed,
  drew when stuck, or ended a Fours turn while they would have fitted).

A sample gives every other seat a hand of its size, none of its void tiles, and the rest to
the boneyard in a random order. Samples are uniform over the consistent assignments when
rejection finds one (a uniform deal of the unseen tiles, kept if no void is broken: tried
``tries`` times per sample); where the voids make that rare, the tiles are placed one by one,
the most constrained first, each with a holder drawn in proportion to the room it has left
among the holders allowed to take it (consistent, close to uniform but not exactly).
"""

from __future__ import annotations

import numpy as np

from .view import FamilyView


class FamilySampler:
    """Samples of the hidden tiles consistent with ``obs`` (one float32 observation row)."""

    def __init__(self, view: FamilyView, obs: np.ndarray, tries: int = 64):
        self.view = view
        obs = np.asarray(obs, np.float32)[None, :]
        self.own = view.slice(obs, "hand")[0] > 0
        self.on_table = view.slice(obs, "on_table")[0] > 0
        self.unseen = np.flatnonzero(~self.own & ~self.on_table)
        present = view.slice(obs, "seat_present")[0] > 0
        sizes = np.rint(view.slice(obs, "seat_hand_size")[0]).astype(np.int64)
        self.seats = [o for o in range(1, view.S) if present[o]]  # seat offsets of the others
        self.sizes = np.array([sizes[o] for o in self.seats], np.int64)
        self.boneyard_size = int(np.rint(view.slice(obs, "boneyard_size")[0, 0]))
        void = view.slice(obs, "seat_void")[0] > 0  # [S, N]
        # allowed[h, i]: holder h (others in order, then the boneyard) may hold unseen tile i
        allowed = np.ones((len(self.seats) + 1, len(self.unseen)), bool)
        for h, o in enumerate(self.seats):
            allowed[h] = ~void[o, self.unseen]
        self.allowed = allowed
        self.tries = int(tries)
        need = int(self.sizes.sum()) + self.boneyard_size
        if need != len(self.unseen):
            raise ValueError(f"the observation is inconsistent: {len(self.unseen)} unseen tiles, but the other hands "
                             f"hold {int(self.sizes.sum())} and the boneyard {self.boneyard_size}")
        room = np.append(self.sizes, self.boneyard_size)
        if (allowed.sum(axis=1) < room).any():
            raise ValueError("the observation is inconsistent: a seat cannot fill its hand outside its void tiles")
        self.capacity = room

    def sample(self, rng: np.random.Generator, k: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``k`` samples: ``hands`` bool [k, S, N] by seat offset (offset 0, the observer's own
        hand, included) and ``boneyard`` int64 [k, boneyard_size], tile ids top first."""
        U, H = len(self.unseen), len(self.seats) + 1
        holder = np.empty((k, U), np.int64)
        slots = np.repeat(np.arange(H), self.capacity)  # a uniform deal: holders of a permuted slot list
        todo = np.arange(k)
        for _ in range(self.tries):
            if not len(todo):
                break
            deal = rng.permuted(np.broadcast_to(slots, (len(todo), U)), axis=1)
            ok = self.allowed[deal, np.arange(U)[None, :]].all(axis=1)
            holder[todo[ok]] = deal[ok]
            todo = todo[~ok]
        for i in todo:
            holder[i] = self._constrained(rng)
        v = self.view
        hands = np.zeros((k, v.S, v.N), bool)
        hands[:, 0, :] = self.own
        for h, o in enumerate(self.seats):
            rows, cols = np.nonzero(holder == h)
            hands[rows, o, self.unseen[cols]] = True
        bone_rows, bone_cols = np.nonzero(holder == H - 1)
        boneyard = self.unseen[bone_cols].reshape(k, self.boneyard_size)
        boneyard = rng.permuted(boneyard, axis=1) if self.boneyard_size else boneyard
        assert len(bone_rows) == k * self.boneyard_size
        return hands, boneyard

    def _constrained(self, rng: np.random.Generator) -> np.ndarray:
        """One consistent assignment, most constrained tile first (see the module)."""
        order = np.argsort(self.allowed.sum(axis=0) + rng.random(self.allowed.shape[1]) * 0.5, kind="stable")
        for _ in range(200):
            room = self.capacity.astype(np.float64).copy()
            out = np.empty(len(order), np.int64)
            for i in order:
                weight = room * self.allowed[:, i]
                if weight.sum() <= 0:
                    break
                h = rng.choice(len(room), p=weight / weight.sum())
                out[i] = h
                room[h] -= 1
            else:
                return out
        raise RuntimeError("no assignment of the hidden tiles fits the public evidence (seat_void)")
