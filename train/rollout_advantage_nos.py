"""Exact one-step advantages over Tactics in Nos, read off the real table (issue 19 item 2).

The ``rollout_advantage`` teacher of the family games (train/rollout_advantage.py) measures a
move against Greedy; in Nos the strong baseline, and the hint the policy reads
(``env.tactics_hint``), is Tactics, and Tactics runs compiled (``FastTables.tactics_playout``,
the same scores as :class:`agents.tactics.TacticsAgent`). So here, at a learner decision, every
legal move is played on a copy of the real table (``FastTables.copy_rollout_starts``: the real
hidden hands and boneyard order, the hand made the copy's last), and then every seat plays the
compiled Tactics without tie-break noise to the end of the hand. A move's value is the acting
seat's chip change from the decision to the end of the hand (Nos's reward: its own chips), and

    A(s, a) = value(a) - value(Tactics' move)

is the exact gain of departing from Tactics once, here, with these hidden tiles. That is what
:class:`agents.search.SearchAgent` estimates by sampling the hidden tiles from the observation
(with Tactics rollouts); a regression of the policy (which sees only its observation) on these
labels learns E[A | observation] without Search's sampling noise, at thousands of labels a
second instead of Search's few decisions a second.

The continuation plays with ``auto_forced`` (D12: a forced decision is applied by the engine;
the outcome is the same) and in penalty mode only so that every copy can be stepped in one
batch; every copied move is legal, which is checked.
"""

from __future__ import annotations

import numpy as np

from .rollout_advantage import PlayoutLabeler

#: Scratch batches are made in multiples of this many rows (fewer sizes than decision counts;
#: the padding rows repeat the last copy and are dropped).
ROW_QUANTUM = 256


class TacticsRolloutLabeler(PlayoutLabeler):
    """Plays every legal move of given Nos decisions to the end of the hand, every seat on
    compiled Tactics after it (the Nos counterpart of :class:`train.rollout_advantage.RolloutLabeler`):
    a move's value (:meth:`values`, on a :class:`nos_env.fast_engine.FastTables`) is the seat's
    chip change from the decision to the end of the hand.

    ``capacity``: the most scratch rows (one per (decision, move)) played at once; more are
    played in several passes."""

    def __init__(self, num_players: int, capacity: int = 4096):
        from agents.tactics import kernel_params

        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        if num_players not in (3, 4, 5):
            raise ValueError(f"Nos is played by 3 to 5 players, got {num_players!r}")
        self.num_players = num_players
        self.capacity = capacity
        self.params = kernel_params()
        self._scratch = {}
        self.playouts = 0  # (decision, move) pairs played out, for the speed figures

    def _check_tables(self, tables) -> None:
        from nos_env.fast_engine import FastTables

        if not isinstance(tables, FastTables) or tables.num_players != self.num_players:
            raise ValueError(f"tables must be Nos FastTables of {self.num_players} players, got "
                             f"{type(tables).__name__} of {getattr(tables, 'num_players', '?')}")

    def _tables(self, size: int):
        from nos_env.fast_engine import FastTables

        if size not in self._scratch:
            self._scratch[size] = FastTables(size, self.num_players, seed=0, hands_per_episode=1,
                                             illegal_action="penalty", auto_forced=True,
                                             observation_dtype="float32", num_threads=1)
        return self._scratch[size]

    def _play(self, tables, source_rows: np.ndarray, seats: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """The seats' chip changes after ``moves`` (one per copied row) and Tactics to the hand's end."""
        R = len(source_rows)
        size = min(-(-R // ROW_QUANTUM) * ROW_QUANTUM, max(self.capacity, R))
        pad = size - R  # padding rows repeat the last copy
        source_rows = np.concatenate([source_rows, np.repeat(source_rows[-1:], pad)])
        seat_of_row = np.concatenate([seats, np.repeat(seats[-1:], pad)])
        actions = np.concatenate([moves, np.repeat(moves[-1:], pad)]).astype(np.int64)
        scratch = self._tables(size)
        everyone = np.arange(size)
        scratch.copy_rollout_starts(tables, source_rows, everyone)
        if not scratch.masks[everyone, actions].all():
            raise RuntimeError("a copied decision does not allow its move (the copy differs from the table)")
        before = scratch.chips[everyone, seat_of_row]
        scratch.step(actions, observe=False, autoreset=False)
        scratch.tactics_playout(self.params)
        self.playouts += R
        return (scratch.chips[everyone, seat_of_row] - before)[:R].astype(np.float32)


class DeterminizedTacticsLabeler(TacticsRolloutLabeler):
    """:class:`TacticsRolloutLabeler` on ``samples`` determinizations instead of the real table:
    a move's value is the mean, over ``samples`` deals of the hidden tiles drawn from the acting
    seat's observation alone (:class:`agents.sampler.HiddenSampler`, uniform over the deals
    consistent with it, as :class:`agents.search.SearchAgent` draws them), of the seat's chip
    change when it plays the move and every seat then plays the compiled Tactics to the end of
    the hand. Every move of a decision is played on the same samples (common random numbers:
    their differences, the advantages, carry no noise from the samples' differences).

    The real label (one deal, the true one) is E[A | observation] plus the noise of the hidden
    tiles; this one averages that noise over ``samples`` deals, for ``samples`` times the
    playouts, and sees nothing hidden (D17). ``seed`` seeds the samples and the scratch
    tables' random streams; ``capacity`` bounds the scratch rows (one per (decision, sample,
    move)) played at once (a decision's rows are never split)."""

    def __init__(self, num_players: int, capacity: int = 4096, samples: int = 8, seed: int = 0):
        super().__init__(num_players, capacity)
        if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
            raise ValueError(f"samples must be a positive integer, got {samples!r}")
        self.samples = samples
        self.rng = np.random.default_rng(seed)

    def values(self, tables, rows, seats) -> np.ndarray:
        """As :meth:`TacticsRolloutLabeler.values`, each value the mean over the samples."""
        from agents.base import float_observations
        from agents.sampler import HiddenSampler

        rows, seats, masks = self._checked(tables, rows, seats)
        out = np.full(masks.shape, np.nan, np.float32)
        obs = float_observations(tables.observe_rows(rows, seats))
        group, used = [], 0
        for i, (b, seat) in enumerate(zip(rows, seats)):
            moves = np.flatnonzero(masks[i])
            need = self.samples * len(moves)
            if group and used + need > self.capacity:
                self._play_group(group, out)
                group, used = [], 0
            sampler = HiddenSampler(obs[i])  # the seat's observation only (D17)
            group.append((i, int(seat), moves, tables.rollout_snapshot(int(b)), sampler,
                          self._sample(sampler, tables, int(b), int(seat))))
            used += need
        if group:
            self._play_group(group, out)
        return out

    def _sample(self, sampler, tables, b: int, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``samples`` deals of the hidden tiles: (hands [k, n] by offset from ``seat``, boneyard
        [k, left]), as :meth:`agents.sampler.HiddenSampler.sample_bits` draws them (a test
        replaces this by the real deal)."""
        return sampler.sample_bits(self.rng, self.samples)

    def _play_group(self, group, out: np.ndarray) -> None:
        """Plays the decisions of ``group`` in one scratch batch and writes their mean values into ``out``."""
        from agents.search import _hidden_sets

        n, k = self.num_players, self.samples
        parts, actions, seat_of_row = [], [], []
        for i, seat, moves, snapshot, sampler, (hands, bones) in group:
            held_seats, held, dealt = _hidden_sets(hands, sampler, sampler.set_tile, seat, n)
            parts.append((snapshot, held_seats, held, dealt, bones, np.repeat(np.arange(k), len(moves))))
            actions.append(np.tile(moves, k))
            seat_of_row.append(np.full(k * len(moves), seat))
        R = sum(len(a) for a in actions)
        size = -(-R // ROW_QUANTUM) * ROW_QUANTUM
        pad = size - R  # padding rows repeat the last decision's last sample; dropped
        if pad:
            snapshot, held_seats, held, dealt, bones, sample_of_row = parts[-1]
            parts[-1] = (snapshot, held_seats, held, dealt, bones,
                         np.concatenate([sample_of_row, np.repeat(sample_of_row[-1:], pad)]))
        actions = np.concatenate(actions + [np.repeat(actions[-1][-1:], pad)]).astype(np.int64)
        seat_of_row = np.concatenate(seat_of_row + [np.repeat(seat_of_row[-1][-1:], pad)])
        scratch = self._tables(size)
        states = self.rng.integers(0, 2**63, size, dtype=np.int64).astype(np.uint64)
        try:
            scratch.determinize_parts(parts, states)
        except ValueError as exc:
            raise RuntimeError(f"a sample does not fit its table: {exc}") from exc
        everyone = np.arange(size)
        if not scratch.masks[everyone, actions].all():
            raise RuntimeError("a determinized decision does not allow its move")
        before = scratch.chips[everyone, seat_of_row]
        scratch.step(actions, observe=False, autoreset=False)
        scratch.tactics_playout(self.params)
        gain = (scratch.chips[everyone, seat_of_row] - before)[:R].astype(np.float64)
        self.playouts += R
        first = 0
        for i, seat, moves, *_ in group:
            block = gain[first:first + k * len(moves)].reshape(k, len(moves))
            out[i, moves] = block.mean(axis=0)
            first += k * len(moves)


#: Decisions named like phases that are parts of one: ``endgame``, the plays once no tile can be
#: drawn any more (:data:`nos_env.encoding.ENDGAME_COLUMN` reads 0), where the closings and the
#: final count are decided (``policy.hint_freed_in_endgame`` lets the network choose there),
#: except where the Tactics hint closes: a proved closing stays Tactics' (agents/policy.py).
PSEUDO_PHASES = {"endgame": "play"}


def phase_filter(phases):
    """``keep(obs) -> bool [rows]``: the Nos observations (float32 rows, the game's own floats
    first) whose phase is one of ``phases`` (names of :data:`nos_env.engine.PHASES` or of
    :data:`PSEUDO_PHASES`, checked)."""
    from nos_env.encoding import ENDGAME_COLUMN, OBSERVATION_LAYOUT, OBSERVATION_SIZE, PASS, PLAY0, play_parts
    from nos_env.engine import PHASES

    allowed = PHASES[:-1] + tuple(PSEUDO_PHASES)
    unknown = [p for p in phases if p not in allowed]
    if unknown or not phases:
        raise ValueError(f"phases must be a non-empty list of {', '.join(allowed)}, got {list(phases)!r}")
    start, stop, _ = OBSERVATION_LAYOUT["phase"]
    wanted = np.isin(np.arange(len(PHASES)), [PHASES.index(p) for p in phases if p in PHASES])
    endgame = "endgame" in phases
    endgame_phase = PHASES.index(PSEUDO_PHASES["endgame"])

    def keep(obs: np.ndarray) -> np.ndarray:
        obs = np.asarray(obs)
        phase = obs[:, start:stop].argmax(axis=1)
        rows = wanted[phase]
        if endgame:
            chosen = (phase == endgame_phase) & (obs[:, ENDGAME_COLUMN] == 0)
            if obs.shape[1] > OBSERVATION_SIZE:  # the Tactics hint follows: not where it closes
                hint = obs[:, OBSERVATION_SIZE].astype(np.int64)
                chosen &= ~((hint >= PLAY0) & (hint < PASS) & (play_parts(np.clip(hint, PLAY0, PASS - 1))[3] == 1))
            rows = rows | chosen
        return rows

    return keep
