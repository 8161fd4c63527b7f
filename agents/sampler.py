"""Sampling the hidden tiles from one observation (docs/rules/nos.md §12, D17).

Given the observer's view (one observation vector, ``encoding.py``) and
nothing else, :class:`HiddenSampler` draws complete assignments of the tiles
the observer cannot see: every other seat's hand and the boneyard order.
Every assignment it returns agrees with everything the observation shows.

What is known (the constraints)
-------------------------------
- The *unseen* tiles are all 28 minus the observer's hand ("hand") minus the
  layout ("layout_tiles"). They are exactly the other hands plus the
  boneyard: ``sum(seat_hand_size[1:]) + boneyard_size == len(unseen)`` is
  checked.
- Seat offset r = 1..n-1 (D18) holds exactly ``seat_hand_size[r]`` tiles;
  a player who is out holds none.
- Face-up declared doubles ("seat_face_up", D9) stay with their owner.
- A pass is final evidence: the passer held no tile that had a legal place
  at that moment, and he can never draw again (a pass needs a boneyard of
  <= 2), so no tile of "seat_passed_tiles[r]" is in his hand (hard
  constraint). A draw proves nothing (drawing may be voluntary):
  "seat_drew_tiles" is ignored.
- Doubles, from public facts (these never exclude reality; the tests check
  it on thousands of real positions). Seat r's draws during play are
  ``hand_size + tiles he placed - dealt size - (1 if he drew the set tile)``:
  - a setter who drew his set tile (later-hand rule, "set_drawn") was dealt
    no double, so he holds at most ``draws`` doubles now;
  - a declarer's dealt doubles still in his hand are all face up (D9), so
    he holds at most ``draws`` doubles that are not face up.
  These are caps on the number of (not face-up) doubles in that hand.

Method: uniform over the consistent assignments
-----------------------------------------------
Each consistent assignment (a set of tiles per hand; the boneyard is the
rest) is drawn with equal probability, and the boneyard order is a uniform
random permutation of its tiles (nothing public says anything about the
order). The face-up doubles are placed first; the other unseen ("free")
tiles are then dealt in one of two ways, both exactly uniform:

- *Rejection* (the fast path, vectorised): deal a uniformly random
  permutation of the free tiles to the hands in turn, the rest in its
  permuted order forming the boneyard, and keep the deals that meet the
  constraints. Uniform over all deals, conditioned on consistency, is uniform
  over the consistent deals. Without a constraint that can fail (no pass
  record, no binding cap: most positions) every deal is kept.
- *Counting* (the fallback, for whatever a few rejection rounds leave
  short): the free tiles are taken one at a time in a fixed order; the state
  is the number of tiles each hand still needs and, for capped hands, how
  many more doubles it may take. ``count(i, state)``, the number of ways to
  place tiles i.. from ``state`` (the boneyard takes what the hands do not),
  is a small memoised recursion (a few thousand states at most). Tile i goes
  to the boneyard or to a hand that may take it with probability proportional
  to the number of completions of that choice, so each consistent assignment
  comes out with probability 1 / (their number): no rejection at all.

Each sample comes from one of two uniform samplers, so the mix is uniform.

Nothing in the sampler looks at anything but the observation vector: it
never sees an engine, a table or a true hand.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numba import njit

from nos_env.encoding import OBSERVATION_LAYOUT, OBSERVATION_SIZE
from nos_env.tiles import (ALL_TILES_MASK, DOUBLE_INDEX, DOUBLES_MASK, NUM_TILES, TILE_IS_DOUBLE, mask_from_flags,
                           popcount)

_UNCAPPED = 99
TILE_BITS = np.left_shift(np.int64(1), np.arange(NUM_TILES, dtype=np.int64))


def _view(obs: np.ndarray, name: str) -> np.ndarray:
    start, stop, shape = OBSERVATION_LAYOUT[name]
    return obs[start:stop].reshape(shape)


def bits_to_tiles(bits: int) -> list[int]:
    return [t for t in range(NUM_TILES) if (bits >> t) & 1]


def tiles_to_bits(tiles) -> int:
    bits = 0
    for t in tiles:
        bits |= 1 << int(t)
    return bits


@dataclass
class HiddenConstraints:
    """What one observation says about the hidden tiles (all tile sets as 28-bit ints, by seat offset)."""

    num_players: int
    own: int  # the observer's hand
    layout: int  # every tile on the layout (the set tile included)
    sizes: list[int]  # hand size by offset (offset 0: the observer)
    boneyard_size: int
    face_up: list[int]  # declared doubles still held, by offset
    forbidden: list[int]  # tiles a hand cannot hold (passes), by offset
    double_cap: list[int | None]  # at most this many doubles that are not face up (None: no cap)
    placed: list[int]  # tiles on the layout placed by each offset
    declared: list[bool]
    set_drawn_by: int | None  # the offset of a setter who drew his set tile
    draws: list[int] = field(default_factory=list)  # draws during play, by offset

    @property
    def unseen(self) -> int:
        return ALL_TILES_MASK & ~self.own & ~self.layout

    def violations(self, hands_by_offset, boneyard) -> list[str]:
        """Every way an assignment (hands by offset, boneyard tiles) disagrees with the observation ([] if none)."""
        n = self.num_players
        problems = []
        if len(hands_by_offset) != n:
            return [f"{len(hands_by_offset)} hands for {n} seats"]
        everything = [int(t) for h in hands_by_offset for t in h] + [int(t) for t in boneyard]
        if len(set(everything)) != len(everything):
            problems.append("a tile appears twice")
        if tiles_to_bits(everything) | self.layout != ALL_TILES_MASK or tiles_to_bits(everything) & self.layout:
            problems.append("hands + boneyard + layout do not hold each of the 28 tiles once")
        if tiles_to_bits(hands_by_offset[0]) != self.own:
            problems.append("the observer's own hand changed")
        if len(boneyard) != self.boneyard_size:
            problems.append(f"boneyard holds {len(boneyard)} tiles, the observation says {self.boneyard_size}")
        for r in range(1, n):
            hand = tiles_to_bits(hands_by_offset[r])
            if len(hands_by_offset[r]) != self.sizes[r]:
                problems.append(f"offset {r} holds {len(hands_by_offset[r])} tiles, not {self.sizes[r]}")
            if self.face_up[r] & ~hand:
                problems.append(f"offset {r} lacks a face-up double")
            if hand & self.forbidden[r]:
                problems.append(f"offset {r} holds a tile he passed on: {bits_to_tiles(hand & self.forbidden[r])}")
            cap = self.double_cap[r]
            if cap is not None and popcount(hand & DOUBLES_MASK & ~self.face_up[r]) > cap:
                problems.append(f"offset {r} holds more than {cap} doubles that are not face up")
        return problems


def read_constraints(obs: np.ndarray, compiled: bool = True) -> HiddenConstraints:
    """Parse one observation vector (float [OBSERVATION_SIZE]) into :class:`HiddenConstraints`
    (``compiled``: the numbers read by one numba pass, ``_observed_numbers``; else by numpy: the
    same constraints, tests/test_search_fast.py)."""
    obs = np.asarray(obs)
    if obs.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"one observation of shape ({OBSERVATION_SIZE},) is needed, got {obs.shape}")
    if compiled:
        x = _observed_numbers(np.ascontiguousarray(obs, np.float32), *_FIELDS, TILE_BITS[DOUBLE_INDEX])
        n = int(x[0])
        if n not in (3, 4, 5):
            raise ValueError(f"the observation shows {n} seats")
        per = x[5:].reshape(5, 5)[:n]  # by offset: size, face up, forbidden, placed, declared
        set_drawn_by = None if x[4] < 0 else int(x[4])
        sizes = [int(v) for v in per[:, 0]]
        placed = [int(v) for v in per[:, 3]]
        return _constraints(n, int(x[1]), int(x[2]), sizes, int(x[3]), [int(v) for v in per[:, 1]],
                            [int(v) for v in per[:, 2]], [bool(v) for v in per[:, 4]], placed, set_drawn_by)
    n = int(round(_view(obs, "seat_present").sum()))
    if n not in (3, 4, 5):
        raise ValueError(f"the observation shows {n} seats")
    own = int(mask_from_flags(_view(obs, "hand")))
    layout = int(mask_from_flags(_view(obs, "layout_tiles")))
    sizes = [int(round(x)) for x in _view(obs, "seat_hand_size")[:n]]
    boneyard_size = int(round(_view(obs, "boneyard_size")[0]))
    face_up_numbers = _view(obs, "seat_face_up")
    passed = _view(obs, "seat_passed_tiles")
    declared = [bool(x > 0.5) for x in _view(obs, "seat_declared")[:n]]
    placer = _view(obs, "layout_placer")  # [28, MAX_SEATS]
    on = _view(obs, "layout_tiles") > 0.5
    who = placer.argmax(axis=1)  # (one vectorised pass: this runs once per searched decision)
    placed = [int(TILE_BITS[on & (who == r)].sum()) for r in range(n)]
    on_set = _view(obs, "seat_on_set")[:n]
    set_tile_row = _view(obs, "set_tile")
    set_drawn = bool(_view(obs, "set_drawn")[0] > 0.5) and set_tile_row.any()
    set_drawn_by = int(np.argmax(on_set)) if set_drawn and on_set.any() else None
    faces = ((face_up_numbers[:n] > 0.5) * TILE_BITS[DOUBLE_INDEX][None, :]).sum(axis=1)
    passes = mask_from_flags(passed[:n])
    return _constraints(n, own, layout, sizes, boneyard_size, [int(f) for f in faces], [int(p) for p in passes],
                        declared, placed, set_drawn_by)


def _constraints(n, own, layout, sizes, boneyard_size, face_up, forbidden, declared, placed, set_drawn_by):
    """HiddenConstraints from the numbers an observation shows: each seat's draws and double cap."""
    dealt_size = 8 - n
    caps, draws = [], []
    for r in range(n):
        count_placed = int(popcount(placed[r]))
        d = sizes[r] + count_placed - dealt_size - (1 if set_drawn_by == r else 0)
        draws.append(d)
        cap = None
        if r > 0 and d >= 0 and (set_drawn_by == r or declared[r]):
            cap = d
        caps.append(cap)
    return HiddenConstraints(n, own, layout, sizes, boneyard_size, face_up, forbidden, caps, placed,
                             declared, set_drawn_by, draws)


class HiddenSampler:
    """Uniform samples of the hidden tiles consistent with one observation (see the module docstring)."""

    def __init__(self, obs: np.ndarray, compiled: bool = True):
        #: the fast path's deals in numba (``_deal_rows``) or in numpy: the same samples from one seed
        self.compiled = bool(compiled)
        c = self.constraints = read_constraints(obs, compiled=self.compiled)
        flags = _view(np.asarray(obs), "set_tile")
        #: the set tile (its index), -1 before the set: a determinization's dealt tiles leave out a
        #: set tile its setter drew (D8)
        self.set_tile = int(flags.argmax()) if flags.any() else -1
        n = self.num_players = c.num_players
        unseen = c.unseen
        if c.own & c.layout:
            raise ValueError("the observer's hand and the layout overlap")
        others = sum(c.sizes[1:])
        num_unseen = int(popcount(unseen))
        if others + c.boneyard_size != num_unseen:
            raise ValueError(f"the other hands ({others}) and the boneyard ({c.boneyard_size}) do not add up "
                             f"to the {num_unseen} unseen tiles")
        face_all = 0
        for r in range(1, n):
            if c.face_up[r] & ~unseen or c.face_up[r] & face_all:
                raise ValueError(f"offset {r}'s face-up doubles are not unseen tiles")
            face_all |= c.face_up[r]
        self.free = bits_to_tiles(unseen & ~face_all)  # tiles to place, in a fixed order
        # Hands that still need tiles: their offsets, needs, allowed tile sets, caps.
        need_of = {r: c.sizes[r] - int(popcount(c.face_up[r])) for r in range(1, n)}
        self.seats = [r for r in range(1, n) if need_of[r] > 0]
        needs, caps = [], []
        for r in range(1, n):
            if need_of[r] < 0:
                raise ValueError(f"offset {r} shows more face-up doubles than tiles")
        for r in self.seats:
            needs.append(need_of[r])
            caps.append(_UNCAPPED if c.double_cap[r] is None else c.double_cap[r])
        m = len(self.seats)
        self._m = m
        self._needs = needs
        self._caps = caps
        self._allowed = [[not ((c.forbidden[r] >> t) & 1) for r in self.seats] for t in self.free]
        self._double = [bool(TILE_IS_DOUBLE[t]) for t in self.free]
        self._start = tuple(needs) + tuple(caps)
        self._memo: dict = {}
        self._total: int | None = None
        # Rejection sampling needs constraints that can fail; without any, every deal is consistent.
        self._seat_cols = np.array(self.seats, np.int64)
        self._forbidden_k = np.array([c.forbidden[r] for r in self.seats], np.int64)
        self._caps_k = np.array(caps, np.int64)
        self._constrained = any(c.forbidden[r] & unseen for r in self.seats) or any(
            cap < min(need, len(DOUBLE_INDEX)) for need, cap in zip(needs, caps))

    @property
    def total(self) -> int:
        """The number of consistent assignments (boneyard as a set); raises if there is none."""
        if self._total is None:
            self._total = self._count(0, self._start)
            if self._total == 0:
                raise ValueError("no assignment of the hidden tiles agrees with this observation")
        return self._total

    # ------------------------------------------------------------ counting
    def _count(self, i: int, state: tuple) -> int:
        key = (i, state)
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        m = self._m
        left = len(self.free) - i
        needed = sum(state[:m])
        if needed > left:
            result = 0
        elif left == 0:
            result = 1
        else:
            result = 0
            if left > needed:  # the boneyard takes tile i
                result += self._count(i + 1, state)
            for _, option in self._options(i, state):
                result += self._count(i + 1, option)
        self._memo[key] = result
        return result

    def _options(self, i: int, state: tuple):
        """The states after giving tile i to each hand that may take it."""
        m = self._m
        allowed = self._allowed[i]
        double = self._double[i]
        for k in range(m):
            if state[k] == 0 or not allowed[k]:
                continue
            cap = state[m + k]
            if double and cap != _UNCAPPED:
                if cap == 0:
                    continue
                yield k, state[:k] + (state[k] - 1,) + state[k + 1:m + k] + (cap - 1,) + state[m + k + 1:]
            else:
                yield k, state[:k] + (state[k] - 1,) + state[k + 1:]

    # ------------------------------------------------------------ sampling
    def sample_bits(self, rng: np.random.Generator, num_samples: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """``num_samples`` assignments as (hands [K, n] int64 tile masks by offset, boneyards [K, size] int8, in order).

        ``hands[:, 0]`` is the observer's own hand (unchanged).

        Fast path: uniform random deals of the free tiles (a random permutation
        dealt to the hands in turn, the rest, in its permuted order, forming the
        boneyard), kept when they meet the constraints (rejection sampling: exactly
        uniform over the consistent ones). Whatever a few rounds of that do not
        supply comes from the exact counting sampler, also uniform, so the mix is
        uniform too.
        """
        c = self.constraints
        n = self.num_players
        hands = np.zeros((num_samples, n), np.int64)
        bones = np.zeros((num_samples, c.boneyard_size), np.int8)
        hands[:, 0] = c.own
        for r in range(1, n):
            hands[:, r] = c.face_up[r]
        got = 0
        free = np.array(self.free, np.int64)
        bits = np.left_shift(np.int64(1), free)
        bounds = np.cumsum([0] + self._needs)
        for _ in range(4 if self._constrained else 1):
            if got == num_samples or len(free) == 0:
                break
            batch = max(64, 2 * (num_samples - got)) if self._constrained else num_samples - got
            uniforms = rng.random((batch, len(free)))
            if self.compiled:  # the same deals from the same uniforms, in one compiled pass
                got = _deal_rows(uniforms, free, bounds, self._seat_cols, self._forbidden_k, self._caps_k,
                                 hands, bones, got, num_samples)
                continue
            perm = np.argsort(uniforms, axis=1)
            ok = np.ones(batch, bool)
            dealt = []
            for k, r in enumerate(self.seats):
                h = bits[perm[:, bounds[k]:bounds[k + 1]]].sum(axis=1)
                ok &= (h & c.forbidden[r]) == 0
                cap = self._caps[k]
                if cap != _UNCAPPED:
                    ok &= popcount(h & DOUBLES_MASK) <= cap
                dealt.append(h)
            take = np.flatnonzero(ok)[: num_samples - got]
            for k, r in enumerate(self.seats):
                hands[got:got + len(take), r] |= dealt[k][take]
            bones[got:got + len(take)] = free[perm[take, bounds[-1]:]]
            got += len(take)
        if len(free) == 0:
            return hands, bones
        if got < num_samples:
            self.total  # raises if nothing is consistent
            h, b = self._sample_exact(rng, num_samples - got)
            hands[got:] = h
            bones[got:] = b
        return hands, bones

    def _sample_exact(self, rng: np.random.Generator, num_samples: int) -> tuple[np.ndarray, np.ndarray]:
        """The counting sampler (module docstring): exact, no rejection, slower to set up."""
        c = self.constraints
        n = self.num_players
        m = self._m
        hands = np.zeros((num_samples, n), np.int64)
        bones = np.zeros((num_samples, c.boneyard_size), np.int8)
        base = [c.own] + [c.face_up[r] for r in range(1, n)]
        free = self.free
        for j in range(num_samples):
            held = list(base)
            pile = []
            state = self._start
            for i, t in enumerate(free):
                left = len(free) - i
                needed = sum(state[:m])
                total = self._count(i, state)
                x = rng.random() * total
                if left > needed:
                    w = self._count(i + 1, state)
                    if x < w:
                        pile.append(t)
                        continue
                    x -= w
                chosen = None
                for k, option in self._options(i, state):
                    w = self._count(i + 1, option)
                    chosen = (k, option)
                    if x < w:
                        break
                    x -= w
                # (float rounding can leave x a hair above the last weight: the last option then stands)
                k, state = chosen
                held[self.seats[k]] |= 1 << t
            hands[j] = held
            pile = np.array(pile, np.int8)
            bones[j] = pile[rng.permutation(len(pile))]
        return hands, bones

    def sample(self, rng: np.random.Generator, num_samples: int = 1) -> list[tuple[list[list[int]], list[int]]]:
        """``num_samples`` assignments as (hands_by_offset: tile-index lists, offset 0 the observer's own hand;
        boneyard: tile indices, top first)."""
        hands, bones = self.sample_bits(rng, num_samples)
        return [([bits_to_tiles(int(h)) for h in hands[j]], [int(t) for t in bones[j]]) for j in range(num_samples)]


@njit(cache=True)
def _deal_rows(uniforms, free, bounds, seat_cols, forbidden, caps, hands, bones, got, want):
    """The rejection fast path of HiddenSampler.sample_bits over rows of uniforms [batch, free]: row j
    ranks the free tiles (argsort), hand k takes ranks bounds[k]..bounds[k+1], the boneyard the rest in
    rank order; a deal that meets every hand's pass record and double cap is written at sample
    ``got`` (hands ORed into the face-up doubles already there), in row order, until ``want``.
    Returns the new ``got``: what numpy's version of the same step keeps."""
    m = seat_cols.shape[0]
    dealt = np.zeros(m, np.int64)
    for j in range(uniforms.shape[0]):
        if got == want:
            break
        perm = np.argsort(uniforms[j])
        ok = True
        for k in range(m):
            h = np.int64(0)
            for i in range(bounds[k], bounds[k + 1]):
                h |= np.int64(1) << free[perm[i]]
            if h & forbidden[k]:
                ok = False
            if caps[k] != _UNCAPPED:
                x = h & _DOUBLES
                count = 0
                while x:
                    x &= x - 1
                    count += 1
                if count > caps[k]:
                    ok = False
            dealt[k] = h
        if ok:
            for k in range(m):
                hands[got, seat_cols[k]] |= dealt[k]
            for i in range(bones.shape[1]):
                bones[got, i] = free[perm[bounds[m] + i]]
            got += 1
    return got


_DOUBLES = np.int64(DOUBLES_MASK)


def _field(name):
    start, stop, _ = OBSERVATION_LAYOUT[name]
    return start


#: Where read_constraints' fields start in an observation (its shapes are fixed: 5 seats, 28 tiles).
_FIELDS = tuple(_field(name) for name in ("seat_present", "hand", "layout_tiles", "seat_hand_size", "boneyard_size",
                                          "seat_face_up", "seat_passed_tiles", "seat_declared", "layout_placer",
                                          "seat_on_set", "set_tile", "set_drawn"))


@njit(cache=True)
def _observed_numbers(obs, present, hand, layout, sizes, bone, face_up, passed, declared, placer, on_set, set_tile,
                      set_drawn, double_bits):
    """read_constraints' numbers in one pass (the numpy version's reading, field by field): [seats,
    own hand, layout, boneyard size, offset of a setter who drew his set tile (-1: none), then per
    offset 0..4: hand size, face-up doubles, passed tiles, tiles placed, declared]."""
    out = np.zeros(30, np.int64)
    total = 0.0
    for r in range(5):
        total += obs[present + r]
    n = int(np.rint(total))
    out[0] = n
    for t in range(28):
        if obs[hand + t] > 0.5:
            out[1] |= np.int64(1) << t
        if obs[layout + t] > 0.5:
            out[2] |= np.int64(1) << t
            best = 0  # the placer: the first seat with the highest flag (numpy's argmax)
            for r in range(1, 5):
                if obs[placer + t * 5 + r] > obs[placer + t * 5 + best]:
                    best = r
            if best < n:
                out[5 + best * 5 + 3] |= np.int64(1) << t
    out[3] = int(np.rint(obs[bone]))
    drawn = obs[set_drawn] > 0.5
    any_set = False
    for t in range(28):
        if obs[set_tile + t] != 0:
            any_set = True
    first, any_on = 0, False
    for r in range(n):
        if obs[on_set + r] != 0:
            any_on = True
        if obs[on_set + r] > obs[on_set + first]:
            first = r
    out[4] = first if (drawn and any_set and any_on) else -1
    for r in range(n):
        out[5 + r * 5] = int(np.rint(obs[sizes + r]))
        for d in range(7):
            if obs[face_up + r * 7 + d] > 0.5:
                out[5 + r * 5 + 1] += double_bits[d]
        for t in range(28):
            if obs[passed + r * 28 + t] > 0.5:
                out[5 + r * 5 + 2] |= np.int64(1) << t
        out[5 + r * 5 + 4] = 1 if obs[declared + r] > 0.5 else 0
    return out


def sample_hidden(obs: np.ndarray, rng: np.random.Generator, num_samples: int = 1):
    """Sample hidden tiles from one observation only: a list of ``(hands_by_offset, boneyard)``.

    ``hands_by_offset[r]`` is the hand of the seat r places left of the observer
    (offset 0 is the observer's own hand, unchanged); ``boneyard`` lists the
    boneyard top first. See the module docstring for the method.
    """
    return HiddenSampler(obs).sample(rng, num_samples)


def offsets_to_seats(hands_by_offset, observer_seat: int) -> list:
    """Reorder per-offset hands into absolute seats: seat ``(observer_seat + r) % n`` gets offset r's hand."""
    n = len(hands_by_offset)
    by_seat = [None] * n
    for r, hand in enumerate(hands_by_offset):
        by_seat[(observer_seat + r) % n] = hand
    return by_seat

