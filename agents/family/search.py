"""Search for the family games: determinized Monte-Carlo rollouts on ``FamilyTables``.

For a decision with more than one legal action (one row of ``act_batch``: a seat at a table
named by the ``BatchContext``):

1. **Samples.** ``K = max(min_rollouts, rollouts // candidates)`` samples of the hidden tiles
   (the other hands and the boneyard's order) are drawn by
   :class:`agents.family.sampler.FamilySampler` from the row's observation alone: hand sizes,
   the boneyard's size and the public ``seat_void`` evidence (F24). The same K samples serve
   every candidate (common random numbers).
2. **Scratch tables.** A ``FamilyTables`` of the same game and options holds ``K * C`` rows:
   each is the real table's snapshot (``clone_table``) with every hidden tile replaced by its
   sample (``FamilyTables.set_hidden``: the other hands and the undrawn boneyard; the
   observer's own hand and the public layout, turn, scores and evidence are kept).
3. **Rollouts.** Each row takes its candidate, then every seat plays
   :class:`agents.family.greedy.FamilyGreedyAgent` until the hand ends.
4. **Value.** The acting seat's points in the rest of the hand minus the mean of the other
   seats' (the family's scores are not zero-sum: a game is won by out-scoring the others).
5. **Safeguard.** Greedy's own move stands unless the best candidate beats it on the same
   samples by more than ``margin`` standard errors (a few dozen rollouts cannot separate
   moves a point apart; as the Nos Search does).

The agent reads the engine only for the public structure (the snapshot) and replaces every
tile it cannot see: ``tests/test_family_agents.py`` checks that changing the real hidden
tiles leaves its decision and values unchanged.
"""

from __future__ import annotations

import numpy as np

from ..base import Agent, BatchContext
from .games import table_options, tables_class
from .greedy import FamilyGreedyAgent
from .sampler import FamilySampler
from .view import view_of

#: Rollouts stop after this many steps (a hand of double-nine with draws is far shorter).
MAX_ROLLOUT_STEPS = 2000


class FamilySearchAgent(Agent):
    name = "search"

    def __init__(self, rules, seed: int | None = 0, rollouts: int = 48, min_rollouts: int = 4,
                 margin: float = 2.0, prior: str | None = "greedy", max_batch: int = 192):
        super().__init__(seed)
        if rollouts < 1 or min_rollouts < 1 or max_batch < 1:
            raise ValueError("rollouts, min_rollouts and max_batch must be positive")
        if prior not in (None, "greedy"):
            raise ValueError(f"prior must be None or 'greedy', got {prior!r}")
        self.rules = rules
        self.view = view_of(rules)
        self.rollouts, self.min_rollouts, self.max_batch = int(rollouts), int(min_rollouts), int(max_batch)
        self.margin = float(margin)
        base = 0 if seed is None else seed
        self.policy = self._greedy(rules, seed=base + 7919)  # plays every seat of the rollouts
        self.prior = self._greedy(rules, seed=base + 15485863) if prior == "greedy" else None
        self._scratch: dict = {}
        self.last_search: dict | None = None

    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        if context is None or context.tables is None or context.table_index is None or context.seats is None:
            raise ValueError("the family Search agent needs a BatchContext with tables, table_index and seats "
                             "(the FamilyTables the rows come from)")
        obs = self.view.check(obs, masks)
        out = np.empty(obs.shape[0], np.int64)
        for i in range(obs.shape[0]):
            legal = np.flatnonzero(masks[i])
            if len(legal) == 0:
                raise ValueError(f"row {i} has no legal action")
            out[i] = legal[0] if len(legal) == 1 else self.search(
                obs[i], masks[i], context.tables, int(context.table_index[i]), int(context.seats[i]))
        return out

    def search(self, obs: np.ndarray, mask: np.ndarray, tables, b: int, seat: int) -> int:
        """The action of ``seat`` at table ``b`` of ``tables`` (see the module)."""
        if tables.rules != self.rules:
            raise ValueError(f"these tables play {tables.rules.game} with other rules than the agent's")
        if int(tables.current_player[b]) != seat:
            raise ValueError(f"seat {seat} is not to move at table {b}")
        candidates = np.flatnonzero(mask)
        C = len(candidates)
        sampler = self._sampler(obs)  # only the observation
        # (np.asarray: a table's random state comes back from clone_table as a numpy scalar, which
        # restore_table refuses; a 0-d array is what it wants)
        snapshot = {name: np.asarray(a) for name, a in tables.clone_table(b).items()}
        k = max(self.min_rollouts, self.rollouts // C)
        chunk = max(1, self.max_batch // C)
        values = np.concatenate([self._evaluate(snapshot, sampler, candidates, min(chunk, k - first), seat)
                                 for first in range(0, k, chunk)])  # [K, C]
        means = values.mean(axis=0)
        best = int(np.argmax(means))
        choice = int(candidates[best])
        if self.prior is not None:
            prior = int(self.prior.act(obs, mask))
            j = int(np.flatnonzero(candidates == prior)[0])
            diff = values[:, best] - values[:, j]
            se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
            if not diff.mean() > self.margin * se:
                choice = prior
        self.last_search = {"candidates": candidates, "values": means, "rollouts": len(values), "choice": choice}
        return choice

    # ------------------------------------------------- what a game of its own overrides (Blind)
    def _greedy(self, rules, seed):
        """The game's Greedy: the rollout policy and the prior."""
        return FamilyGreedyAgent(rules, seed=seed)

    def _sampler(self, obs: np.ndarray):
        """The hidden tiles' sampler, built from the observation row alone."""
        return FamilySampler(self.view, obs)

    def _determinize(self, tables, snapshot, sampler, k: int, C: int, seat: int) -> None:
        """Rows ``i * C .. i * C + C - 1`` of ``tables`` (C candidates) hold ``snapshot`` with the
        hidden tiles of sample i (the same sample for every candidate: common random numbers)."""
        hands, boneyard = sampler.sample(self.rng, k)
        sample_of_row = np.repeat(np.arange(k), C)
        determinize(tables, snapshot, hands[sample_of_row], boneyard[sample_of_row], seat)

    # ------------------------------------------------------------------ rollouts
    def _tables(self, rows: int):
        if rows not in self._scratch:
            if len(self._scratch) > 16:
                self._scratch.clear()
            self._scratch[rows] = tables_class(self.rules.game)(self.rules.game, rows, num_players=self.rules.num_players, seed=0,
                                               observation_dtype="float32", threads=1,
                                               **table_options(self.rules))
        return self._scratch[rows]

    def _evaluate(self, snapshot, sampler, candidates: np.ndarray, k: int, seat: int) -> np.ndarray:
        """[k, C]: the acting seat's relative points after each candidate on each of k samples."""
        C = len(candidates)
        rows = k * C
        tables = self._tables(rows)
        self._determinize(tables, snapshot, sampler, k, C, seat)
        n = self.rules.num_players
        gained = np.zeros((rows, n), np.int64)
        done = np.zeros(rows, bool)
        actions = np.tile(candidates.astype(np.int64), k)
        # Chickenfoot's episode is a match of hands (CK13): a rollout ends with the hand, whose
        # end (the penalties, in the step's points) is where the candidates differ.
        by_hand = self.rules.game == "chickenfoot"
        hand_at_start = np.asarray(tables.hand_number).copy() if by_hand else None
        for _ in range(MAX_ROLLOUT_STEPS):
            _, points, terminated, current = tables.step(actions, observe=False, autoreset=False,
                                                         allow_idle=True)
            gained[~done] += np.asarray(points)[~done, :n]
            done |= np.asarray(terminated, bool)
            if by_hand:
                done |= np.asarray(tables.hand_number) != hand_at_start
            if done.all():
                break
            live = np.flatnonzero(~done)
            actions = np.full(rows, tables.IDLE, np.int64)
            obs = tables.observe_rows(live, tables.current_player[live])
            actions[live] = self.policy.act_batch(obs, tables.masks[live])
        else:
            raise RuntimeError(f"a rollout took more than {MAX_ROLLOUT_STEPS} steps")
        others = (gained.sum(axis=1) - gained[:, seat]) / max(1, n - 1)
        return (gained[:, seat] - others).reshape(k, C)


def determinize(tables, snapshot, hands: np.ndarray, boneyard: np.ndarray, seat: int) -> None:
    """Every row r of ``tables``: ``snapshot`` (a ``clone_table``) with the hidden tiles replaced
    by ``FamilyTables.set_hidden`` (F24): the seats hold ``hands[r]`` (bool [S, N] by seat offset
    from ``seat``; offset 0, the observer's own hand, is its real hand) and the undrawn boneyard
    is ``boneyard[r]`` (top first). The random stream needs no replacing: within a hand nothing
    draws from it after the deal (family contract), and rollouts end with the hand."""
    n = tables.num_players
    for r in range(tables.num_tables):
        tables.restore_table(r, snapshot)
        by_seat = [np.flatnonzero(hands[r, (s - seat) % n]).tolist() for s in range(n)]
        tables.set_hidden(r, by_seat, boneyard[r].tolist())
