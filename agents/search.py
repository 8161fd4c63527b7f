"""Search: determinized Monte-Carlo over the fast engine, with tactics (or greedy) rollouts.

For each decision (a row of ``act_batch``: one seat at one fast-engine table,
given by ``context``) with more than one legal action:

1. **Candidates.** Every legal action, except:
   - announcements, with ``announce_top_k`` set: only that many best by greedy's
     own announcement score (own tiles playable at the opening; seeded
     tie-break), since 43-60 are legal (default None: all of them, searched by
     sequential halving, see the budget below);
   - a closing (close=1) that is certainly wrong is dropped: after its play
     the closer still holds a tile that fits somewhere, or more unseen tiles
     fit than the boneyard's last two could hide (D14); it would cost 40 to
     everyone and change nothing else. This is read from the public layout,
     the unseen tiles and the agent's own hand only.
2. **Determinizations.** ``K = max(min_rollouts, rollouts // candidates)``
   samples of the hidden tiles are drawn by :class:`agents.sampler.HiddenSampler`
   from the row's observation alone (uniform over the assignments consistent
   with it). The same K samples serve every candidate (common random numbers:
   candidates are compared on the same deals, which removes most of the
   noise from the comparison).
3. **Scratch batch.** One :class:`~nos_env.fast_engine.FastTables` batch of
   ``K * candidates`` tables (split into batches of at most ``max_batch``
   rows, whole samples each: from 256 tables on, FastTables steps on every
   core, which only slows rollouts down on a busy machine). Each row is the
   real table's snapshot (``tables.rollout_snapshot(b)``: the rollout stops at the end of
   this hand, the history is cleared) with every hidden part overwritten (D17) by
   ``FastTables.set_hidden``: other seats' hands by the sample, their dealt tiles by what the
   sample and the public record imply (sampled hand | the tiles they placed,
   a declarer's non-face-up doubles and a drawn set tile left out, D8/D9),
   the undrawn boneyard by the sampled order (drawn slots cleared), and the random
   stream replaced (``set_random_state``). The observer's own hand and the public structure
   (layout, phase, turn, waits, chips, pass records) are kept. The masks are
   recomputed from the new hands, and checked against the real mask (it depends only
   on the acting seat's hand).
4. **Rollouts.** The candidate is applied with ``step(..., autoreset=False)``,
   then every seat plays :class:`agents.greedy.GreedyAgent`'s policy until each
   table's hand is over. The policy is evaluated in vectorised form: in the
   declare, immediate and play phases greedy's scores depend on the action
   only, so they are one fixed score vector (taken from ``GreedyAgent.scores``
   itself) plus a seeded tie-break; in the set and announce phases (only
   reachable when the searched decision is a set) the rows are observed and
   ``GreedyAgent.act_batch`` decides.
   The scratch tables are built with ``illegal_action="penalty"`` so the whole
   batch can be stepped while some tables are finished: a finished table's
   row gets action 0 (its mask is all zeros) and whatever the penalty does to
   it afterwards is ignored, because each table's result is read at the step
   it terminates. Live rows' actions are checked against their masks, so a
   policy bug still raises. Decisions with one legal action are applied by the
   engine (``auto_forced=True``, D12: the results are the same either way,
   and the rollouts need fewer steps).
5. **Score.** A candidate's value is the mean, over its K rollouts, of the
   acting seat's chip change from the decision to the end of the hand (its
   chips when the table terminates minus its chips at the decision). The best
   mean wins (ties: the first candidate in action order).

By default (``rollout="tactics"``) the rollouts are played by the Tactics agent,
not greedy: it judges candidates against strong play, and only with it does Search
beat Tactics (docs/agents.md). With ``compiled=True`` (the default) that is the
compiled Tactics (``nos_env/games/nos/tactics.py``, the same scores as
:class:`agents.tactics.TacticsAgent`, checked on recorded positions): after the
candidate's step, one ``FastTables.tactics_playout`` call plays every scratch table
to the end of the hand (observe, decide, apply, settle, all compiled), about ten
times faster than stepping the Python agent on observed rows (``compiled=False``,
the agent ``search-python``). The two play the very same rollouts when Tactics'
tie-break noise is off (``tie_noise=False``), so they then choose the same actions
from the same seed (tests/test_search.py). ``rollout="greedy"`` uses the fast
greedy scorer above.

6. **Safeguard** (``prior="tactics"``, the default): a few dozen rollouts
   cannot separate candidates a few chips apart (a hand's result spreads by
   tens of chips), so a plain argmax mostly picks at random among near-equal
   moves. The agent therefore starts from the prior policy's action
   (:class:`agents.tactics.TacticsAgent`) and switches to the best searched
   candidate only when its advantage, measured on the same samples (paired
   differences), exceeds ``margin`` standard errors (default 2). With
   ``prior=None`` the search takes the plain argmax. The prior may also be any
   agent object, a trained model for one (``prior=ModelAgent(path)``, the agent
   ``search+model:PATH`` in ``agents.registry``): the search then keeps the
   model's move unless its rollouts show a better one clearly. Such a prior sees
   only the row's observation and mask (``act_batch`` without a context), and
   ``act_batch`` asks it once for all its rows.

Budget (defaults): ``rollouts=64`` rollouts per decision in all, split evenly
over the candidates with at least ``min_rollouts=2`` each; a set or announcement
decision (once a hand, and it decides the game played) gets ``opening_rollouts="auto"``,
64 times ``rollouts`` (4,096; None: as many as a play), spent by sequential halving
(``halving=True``, :meth:`SearchAgent._halving`) over every legal announcement; a declare
decision (D9) or a play with a closing among its candidates (D14) gets ``key_rollouts="auto"``,
16 times ``rollouts`` (1,024). A typical play decision has 2-6
candidates, so 10-32 rollouts each. The speed of the compiled Tactics paid for the
opening budget, which is where Search gains most over Tactics (docs/agents.md);
``OLD_BUDGET`` (8 announcements, every decision split evenly like a play) is the budget before it.

Batching (compiled Tactics, no time limit): ``act_batch`` makes each row's random draws in
row order, exactly as one :meth:`search` per row would, and plays the play decisions of all its
rows in one scratch batch (``FastTables.determinize_parts``, one step, one play-out call), so
the per-call work is paid once for many rows; the choices are the same.

With ``time_limit`` (seconds) the agent repeats step 2-4 with fresh samples
until the time is used (at least once); otherwise it is deterministic given
its seed and its inputs. With a single legal action it answers at once.

D17: the agent reads the engine's arrays only for the public structure and its
own hand; every hidden tile comes from the sampler, which sees only the
observation. ``tests/test_search.py`` checks that permuting the real hidden
tiles leaves the decision and every value estimate unchanged.
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from nos_env.encoding import NUM_ACTIONS, OBSERVATION_SIZE
from nos_env.fast_engine import FastTables, accepted_after_plays, tactics_rows
from nos_env.tiles import DOUBLES_MASK, popcount

from . import features as F
from .base import Agent, BatchContext, float_observations
from .greedy import GreedyAgent, obs_set_tile
from .sampler import HiddenSampler
from .tactics import TacticsAgent


class SearchAgent(Agent):
    name = "search"

    def __init__(
        self,
        seed: int | None = 0,
        rollouts: int = 64,
        min_rollouts: int = 2,
        announce_top_k: int | None = None,
        time_limit: float | None = None,
        prune_wrong_closes: bool = True,
        max_batch: int = 255,
        rollout: str = "tactics",
        prior: str | Agent | None = "tactics",
        margin: float = 2.0,
        compiled: bool = True,
        opening_rollouts: int | str | None = "auto",
        tie_noise: bool = True,
        halving: bool = True,
        key_rollouts: int | str | None = "auto",
    ):
        super().__init__(seed)
        #: Tactics (rollouts and prior) compiled (FastTables.tactics_playout, fast_engine.tactics_rows)
        #: or the Python agent (the Search of before, about 10x slower; same scores, other tie-breaks)
        self.compiled = bool(compiled)
        if not (prior in (None, "greedy", "tactics") or isinstance(prior, Agent)):
            raise ValueError(f"prior must be None, 'greedy', 'tactics' or an agent object (such as a "
                             f"trained model's ModelAgent), got {prior!r}")
        self.margin = float(margin)
        if rollout not in ("greedy", "tactics"):
            raise ValueError(f"rollout must be 'greedy' or 'tactics', got {rollout!r}")
        self.rollout = rollout
        if rollouts < 1 or min_rollouts < 1 or (announce_top_k is not None and announce_top_k < 1):
            raise ValueError("rollouts, min_rollouts and announce_top_k must be positive (announce_top_k: "
                             "or None, every legal announcement)")
        self.rollouts = int(rollouts)
        if opening_rollouts == "auto":
            opening_rollouts = OPENING_PER_ROLLOUT * self.rollouts
        if opening_rollouts is not None and (isinstance(opening_rollouts, str) or opening_rollouts < 1):
            raise ValueError(f"opening_rollouts must be 'auto', a positive number or None, got {opening_rollouts!r}")
        #: the budget of a set or announcement decision (once a hand, and the one that decides the
        #: game played); None: ``rollouts``
        self.opening_rollouts = None if opening_rollouts is None else int(opening_rollouts)
        if key_rollouts == "auto":
            key_rollouts = KEY_PER_ROLLOUT * self.rollouts
        if key_rollouts is not None and (isinstance(key_rollouts, str) or key_rollouts < 1):
            raise ValueError(f"key_rollouts must be 'auto', a positive number or None, got {key_rollouts!r}")
        #: the budget of a declare decision (D9) and of a play decision where closing is among the
        #: candidates (D14): two-way choices worth tens of chips; None: ``rollouts``
        self.key_rollouts = None if key_rollouts is None else int(key_rollouts)
        #: opening decisions (set, announce) by sequential halving (see _halving) instead of one
        #: even split of the budget
        self.halving = bool(halving)
        self.min_rollouts = int(min_rollouts)
        #: None: every legal announcement is a candidate
        self.announce_top_k = None if announce_top_k is None else int(announce_top_k)
        self.time_limit = time_limit
        self.prune_wrong_closes = prune_wrong_closes
        self.max_batch = int(max_batch)
        self.greedy = GreedyAgent(seed=None if seed is None else seed + 7919)
        # Greedy's scores where they do not depend on the observation (declare, immediate, play).
        self._static = self.greedy.scores(np.zeros((1, OBSERVATION_SIZE), np.float32),
                                          np.ones((1, NUM_ACTIONS), np.int8))[0]
        # Rollouts by the Tactics agent are slower but judge candidates against stronger play.
        self.rollout_agent = None
        self._kernel_params = None
        if self.compiled and "tactics" in (rollout, prior):
            from .tactics import kernel_params

            self._kernel_params = kernel_params()
        #: Tactics breaks ties (rollouts, prior) by seeded noise; without it the first best action
        #: wins, and the compiled and the Python Tactics then play the very same rollouts, so the
        #: two Searches make the same choices from the same seed (tests/test_search.py)
        self.tie_noise = bool(tie_noise)
        if rollout == "tactics":
            self.rollout_agent = TacticsAgent(seed=None if seed is None else seed + 104729)
        # The prior policy's choice stands unless the search shows a better one clearly (see search()).
        self.prior = None
        #: the prior is an agent object given by the caller (a trained model), with its own seed
        self._prior_is_object = isinstance(prior, Agent)
        if prior == "tactics":
            self.prior = TacticsAgent(seed=None if seed is None else seed + 15485863)
        elif prior == "greedy":
            self.prior = GreedyAgent(seed=None if seed is None else seed + 15485863)
        elif self._prior_is_object:
            self.prior = prior
        if not self.tie_noise:
            for agent in (self.rollout_agent, None if self._prior_is_object else self.prior):
                if isinstance(agent, TacticsAgent):
                    agent._noise = np.zeros
        self._scratch: dict = {}
        self.last_search: dict | None = None  # candidates, values, rollouts of the last searched decision

    # ------------------------------------------------------------------ api
    def act_batch(self, obs: np.ndarray, masks: np.ndarray, context: BatchContext | None = None) -> np.ndarray:
        if context is None or context.tables is None or context.table_index is None or context.seats is None:
            raise ValueError("SearchAgent needs a BatchContext with tables, table_index and seats "
                             "(the fast-engine tables the rows come from)")
        obs = float_observations(obs)
        B = obs.shape[0]
        out = np.empty(B, np.int64)
        # With the compiled Tactics and no time limit, the decisions of plays (an even split that
        # fits one scratch batch) are drawn row by row (the same random draws, in the same order,
        # as one search() per row) and then played together: one scratch batch, one determinize,
        # one step and one playout call for many rows (tests/test_search.py: the same choices).
        batched = self._kernel_params is not None and self.rollout == "tactics" and self.time_limit is None
        legal_counts = (np.asarray(masks) != 0).sum(axis=1)
        if (legal_counts == 0).any():
            raise ValueError(f"row {int(np.flatnonzero(legal_counts == 0)[0])} has no legal action")
        # An agent object as the prior (a trained model) decides all the searched rows in one call:
        # a network's forward pass costs about the same for one row as for a hundred.
        priors = None
        if self._prior_is_object:
            searched = np.flatnonzero(legal_counts > 1)
            priors = np.full(B, -1, np.int64)
            if len(searched):
                priors[searched] = self.prior.act_batch(obs[searched], np.asarray(masks)[searched])
                # Checked for every row before any row's search draws from the generator.
                illegal = searched[np.asarray(masks)[searched, priors[searched]] == 0]
                if len(illegal):
                    raise ValueError(f"the prior {self.prior!r} chose action {priors[illegal[0]]}, which is not "
                                     f"legal in row {illegal[0]}: it must choose among each row's legal actions")
        waiting = []  # (row, setup, draw)
        for i in range(B):
            if legal_counts[i] == 1:
                out[i] = np.flatnonzero(masks[i])[0]
                continue
            tables, b, seat = context.tables, int(context.table_index[i]), int(context.seats[i])
            prior_action = None if priors is None else int(priors[i])
            if not batched:
                out[i] = self._complete(self._setup(obs[i], masks[i], tables, b, seat, prior_action))
                continue
            setup = self._setup(obs[i], masks[i], tables, b, seat, prior_action)
            k = max(self.min_rollouts, setup["budget"] // len(setup["candidates"]))
            if len(setup["candidates"]) == 1 or self._halves(setup) \
                    or k * len(setup["candidates"]) > self.max_batch:
                out[i] = self._complete(setup)
                continue
            waiting.append((i, setup, self._draw(setup, k)))
        group, rows = [], 0
        for item in waiting + [None]:
            size = 0 if item is None else len(item[2]["actions"])
            if group and (item is None or rows + size > self.max_batch):
                for (i, setup, _), values in zip(group, self._play_draws([d for _, _, d in group],
                                                                         context.tables.num_players)):
                    out[i] = self._decide(setup["candidates"], values, setup["prior_action"])
                group, rows = [], 0
            if item is not None:
                group.append(item)
                rows += size
        return out

    def search(self, obs: np.ndarray, mask: np.ndarray, tables: FastTables, b: int, seat: int) -> int:
        """The action for one decision of ``seat`` at table ``b`` of ``tables`` (see the module docstring);
        ``obs`` is the seat's observation, float32 or compact."""
        return self._complete(self._setup(obs, mask, tables, b, seat))

    def _setup(self, obs, mask, tables: FastTables, b: int, seat: int, prior_action: int | None = None) -> dict:
        """Everything a decision's search needs before its rollouts: the checks, the sampler, the
        public snapshot, the candidates, the budget and the prior's action (``prior_action``: an
        agent object's, already decided for this row by act_batch)."""
        obs = float_observations(np.asarray(obs)[None, :])[0]
        n = tables.num_players
        b = tables.check_table(b)
        if int(tables.current_player[b]) != seat:
            raise ValueError(f"seat {seat} is not to move at table {b}")
        if not np.array_equal(tables.masks[b] != 0, np.asarray(mask) != 0):
            raise ValueError(f"the mask given for table {b} is not the table's")
        sampler = HiddenSampler(obs, compiled=self.compiled)  # only the observation
        public = tables.rollout_snapshot(b)
        candidates = self._candidates(obs, mask, public, sampler, n, seat)
        setup = {"public": public, "sampler": sampler, "candidates": candidates, "n": n, "seat": seat,
                 "budget": self.rollouts, "opening": False, "prior_action": None}
        if len(candidates) == 1:
            return setup
        setup["opening"] = opening = F.KIND[candidates[0]] in (F.SET, F.ANNOUNCE)
        if self.opening_rollouts is not None and opening:
            setup["budget"] = self.opening_rollouts
        elif self.key_rollouts is not None and self._key_decision(candidates):
            setup["budget"] = self.key_rollouts
        if self.prior is not None:
            if prior_action is None:
                prior_action = self._prior_action(obs, mask)
            setup["prior_action"] = int(prior_action)  # (act_batch checked an agent prior's moves)
        return setup

    def _halves(self, setup) -> bool:
        return self.halving and setup["opening"] and self.time_limit is None and len(setup["candidates"]) > 2

    def _complete(self, setup) -> int:
        """The rollouts and the choice of one decision set up by _setup."""
        candidates = setup["candidates"]
        if len(candidates) == 1:
            self.last_search = {"candidates": candidates, "values": np.zeros(1), "rollouts": 0}
            return int(candidates[0])
        args = (setup["public"], setup["sampler"], candidates, setup["budget"], setup["n"], setup["seat"])
        if self._halves(setup):
            values = self._halving(*args, setup["prior_action"])
        else:
            values = self._even(*args)
        return self._decide(candidates, values, setup["prior_action"])

    def _decide(self, candidates, values, prior_action) -> int:
        """The choice from the values [samples, C] (every candidate on the same samples; NaN: dropped
        by halving before them): the best mean among the last round's, unless the safeguard keeps
        the prior's action."""
        means = np.nanmean(values, axis=0) if np.isnan(values).any() else values.mean(axis=0)
        best = int(np.argmax(np.where(np.isnan(values[-1]), -np.inf, means)))
        choice = int(candidates[best])
        if prior_action is not None:
            # Policy improvement with a safeguard: keep the prior's action unless the best
            # candidate beats it on the same samples by more than `margin` standard errors.
            where = np.flatnonzero(candidates == prior_action)
            if len(where):
                diff = values[:, best] - values[:, where[0]]
                se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.inf
                if not (np.isfinite(self.margin) and diff.mean() > self.margin * se):  # inf: always keep it
                    choice = prior_action
        self.last_search = {"candidates": candidates, "values": means, "rollouts": len(values), "choice": choice,
                            "samples": (~np.isnan(values)).sum(axis=0)}  # per candidate
        return choice

    def _even(self, public, sampler, candidates, budget, n, seat) -> np.ndarray:
        """Values [samples, C]: the budget split evenly over the candidates (at least ``min_rollouts``
        each), repeated with fresh samples until ``time_limit`` is used (if given)."""
        C = len(candidates)
        k = max(self.min_rollouts, budget // C)
        results = []
        start = time.perf_counter()
        while True:
            results.append(self._values(public, sampler, candidates, k, n, seat))
            if self.time_limit is None or time.perf_counter() - start >= self.time_limit:
                break
        return np.concatenate(results)

    def _halving(self, public, sampler, candidates, budget, n, seat, prior_action) -> np.ndarray:
        """Values [samples, C] by sequential halving (Karnin et al. 2013): ceil(log2 C) rounds of
        equal budget; each round plays every candidate still in on fresh common samples, then keeps
        the better half by its mean over all its rounds. The prior's action is never dropped (the
        safeguard compares with it on the same samples). The candidates that are still in at the end
        were played on every sample, so the final choice compares them on many more samples than an
        even split gives (a 43-60-way announcement: about 6 times more at equal budget). A
        candidate's column is NaN for the rounds after it was dropped."""
        C = len(candidates)
        alive = np.arange(C)
        keep_always = np.flatnonzero(candidates == prior_action)
        rounds = max(1, int(np.ceil(np.log2(C - len(keep_always)))))
        blocks = []
        for r in range(rounds):  # after rounds - 1 halvings at most 2 are left besides the prior's
            k = max(self.min_rollouts, budget // (rounds * len(alive)))
            block = np.full((k, C), np.nan)
            block[:, alive] = self._values(public, sampler, candidates[alive], k, n, seat)
            blocks.append(block)
            if r < rounds - 1:
                others = np.setdiff1d(alive, keep_always)  # (the prior's is kept besides the better half)
                means = np.concatenate(blocks)[:, others].mean(axis=0)
                order = others[np.argsort(-means, kind="stable")]
                alive = np.union1d(order[: (len(others) + 1) // 2], keep_always)
        return np.concatenate(blocks)

    def _values(self, public, sampler, candidates, k, n, seat) -> np.ndarray:
        """Chip changes [k, C]: k fresh samples x candidates, in scratch batches of whole samples."""
        chunk = max(1, self.max_batch // len(candidates))  # samples per scratch batch
        return np.concatenate([self._evaluate(public, sampler, candidates, min(chunk, k - first), n, seat)
                               for first in range(0, k, chunk)])

    @staticmethod
    def _key_decision(candidates) -> bool:
        """A declare decision (D9) or a play with a closing among the candidates (D14)."""
        kind = F.KIND[candidates]
        return bool((kind == F.DECLARE).any() or ((kind == F.PLAY) & F.CLOSE[candidates]).any())

    def _prior_action(self, obs, mask) -> int:
        if self._prior_is_object:
            action = int(self.prior.act_batch(obs[None, :], np.asarray(mask)[None, :])[0])
            if not mask[action]:  # before any rollout draws from the generator
                raise ValueError(f"the prior {self.prior!r} chose action {action}, which is not legal: it must "
                                 f"choose among the row's legal actions")
            return action
        if self._kernel_params is not None and isinstance(self.prior, TacticsAgent):
            noise = self.rng.integers(0, 2**63, 1, dtype=np.int64).astype(np.uint64) if self.tie_noise else None
            return int(tactics_rows(obs[None, :], np.asarray(mask, np.int8)[None, :], self._kernel_params,
                                    noise=noise)[0])
        return int(self.prior.act(obs, mask))

    # ----------------------------------------------------------- candidates
    def _candidates(self, obs, mask, public, sampler, n, seat) -> np.ndarray:
        legal = np.flatnonzero(mask)
        kind = F.KIND[legal]
        keep = np.ones(len(legal), bool)
        announce = kind == F.ANNOUNCE
        if self.announce_top_k is not None and announce.sum() > self.announce_top_k:
            hand = int(F.hand_bits(obs[None, :])[0])
            set_tile = int(obs_set_tile(obs[None, :])[0])
            score = popcount(hand & F.OPENING_PLAYABLE[set_tile][F.ANN[legal]]).astype(np.float64)
            score += self.rng.random(len(legal)) * 1e-3
            score[~announce] = -np.inf
            top = np.argsort(-score)[: self.announce_top_k]
            keep &= ~announce
            keep[top] = True
        if self.prune_wrong_closes:
            closes = np.flatnonzero((kind == F.PLAY) & F.CLOSE[legal])
            if len(closes):
                keep[closes] = ~self._certainly_wrong_closes(obs, legal[closes] - 1, sampler, n)
        return legal[keep]

    @staticmethod
    def _certainly_wrong_closes(obs, plays, sampler, n) -> np.ndarray:
        """D14 from public facts, per play (the close=0 twins): after it a tile that must be counted fits.

        Wrong for sure if the closer still holds a fitting tile, or if more unseen tiles fit than the
        boneyard's last two (never counted) could hide: the others are in hands still in the game or
        drawable. Never wrong when the tile ends the hand (at most one player then holds tiles; D21).
        What fits after the play is read from the observation (``accepted_after_plays``: the layout's
        public structure is all the rules read)."""
        c = sampler.constraints
        fits = accepted_after_plays(np.repeat(obs[None, :], len(plays), axis=0), plays)
        sizes = np.array(c.sizes[:n], np.int64)
        holders_after = int((sizes[1:] > 0).sum()) + (1 if sizes[0] > 1 else 0)
        own = int(c.own) & ~(1 << F.TILE[plays])  # the closer's hand after each play
        unseen_fitting = popcount(fits & c.unseen)
        wrong = ((own & fits) != 0) | (unseen_fitting > min(2, c.boneyard_size))
        return wrong & (holders_after > 1)

    # ------------------------------------------------------------ rollouts
    def _evaluate(self, public, sampler, candidates, k, n, seat) -> np.ndarray:
        """Chip change of ``seat`` for each of k samples x candidates (rows sample-major)."""
        C = len(candidates)
        rows = k * C
        if self.rollout == "tactics" and self._kernel_params is not None:
            setup = {"public": public, "sampler": sampler, "candidates": candidates, "n": n, "seat": seat}
            return self._play_draws([self._draw(setup, k)], n)[0]
        tables = self._tables(rows, n)
        sample_of_row = np.repeat(np.arange(k), C)
        tables.restore_all(public)
        hands, bones = sampler.sample_bits(self.rng, k)
        _determinize(tables, sample_of_row, hands, bones, sampler, seat, n)  # masks recomputed
        tables.set_random_state(self.rng.integers(0, 2**63, rows, dtype=np.int64).astype(np.uint64))
        if (tables.masks != public["MASK"]).any():
            raise RuntimeError("a determinized table's mask differs from the real one")
        before = tables.chips[:, seat]
        after = np.zeros(rows, np.int64)
        done = np.zeros(rows, bool)
        actions = np.tile(np.asarray(candidates, np.int64), k)
        score = None
        if self.rollout_agent is None:
            noise = self.rng.random((rows, NUM_ACTIONS), dtype=np.float32) * 1e-3  # greedy's tie-break, per rollout
            score = (self._static[None, :] + noise).astype(np.float32)  # greedy's scores, declare/immediate/play
        while True:
            _, terminated, _, _, _ = tables.step(actions, observe=False, autoreset=False)
            newly = terminated & ~done
            after[newly] = tables.chips[newly, seat]
            done |= newly
            if done.all():
                break
            actions = self._rollout_actions(tables, done, score)
        return (after - before).reshape(k, C)

    def _draw(self, setup, k) -> dict:
        """The random draws of k samples x candidates compiled rollouts, in the order the search has
        always made them (samples, random states, tie-break streams): the batch is played later by
        _play_draws, alone or with other decisions' draws."""
        public, sampler, candidates, n, seat = (setup[key] for key in ("public", "sampler", "candidates", "n", "seat"))
        C = len(candidates)
        rows = k * C
        hands, bones = sampler.sample_bits(self.rng, k)
        seats, held, dealt = _hidden_sets(hands, sampler, sampler.set_tile, seat, n)
        states = self.rng.integers(0, 2**63, rows, dtype=np.int64).astype(np.uint64)
        noise = self.rng.integers(0, 2**63, rows, dtype=np.int64).astype(np.uint64) if self.tie_noise \
            else np.zeros(rows, np.uint64)
        return {"part": (public, seats, held, dealt, bones, np.repeat(np.arange(k), C)), "states": states,
                "noise": noise, "actions": np.tile(np.asarray(candidates, np.int64), k), "seat": seat, "k": k, "C": C}

    def _play_draws(self, draws, n) -> list:
        """Play the drawn rollouts of one or more decisions in one scratch batch (FastTables.determinize_parts,
        one step of the candidates, one compiled Tactics playout to the end of the hand); each
        decision's chip changes [k, C] of its seat."""
        rows = sum(len(d["actions"]) for d in draws)
        size = -(-rows // 4) * 4  # (fewer sizes of scratch batch than row counts; at most 3 rows wasted)
        if size > self.max_batch:
            size = rows
        pad = size - rows  # padding rows repeat the last table; their results are dropped
        parts = [d["part"] for d in draws]
        if pad:
            public, seats, held, dealt, bones, sample_of_row = parts[-1]
            parts[-1] = (public, seats, held, dealt, bones, np.concatenate([sample_of_row, np.repeat(sample_of_row[-1:], pad)]))

        def column(key):
            x = np.concatenate([d[key] for d in draws])
            return np.concatenate([x, np.repeat(x[-1:], pad)])

        tables = self._tables(size, n)
        try:
            tables.determinize_parts(parts, column("states"))
        except ValueError as exc:
            raise RuntimeError(f"the sample does not fit the table: {exc}") from exc
        seat_of_row = np.concatenate([np.full(len(d["actions"]), d["seat"]) for d in draws] + [np.full(pad, draws[-1]["seat"])])
        # (determinize_parts checks that the real mask is what each position allows: the masks of
        # the rows are the real one, the seat to move's legal actions do not depend on hidden tiles)
        everyone = np.arange(size)
        before = tables.chips[everyone, seat_of_row]
        # Every seat plays the compiled Tactics to the end of the hand, in one call.
        tables.step(column("actions"), observe=False, autoreset=False)
        tables.tactics_playout(self._kernel_params, column("noise") if self.tie_noise else None)
        gain = tables.chips[everyone, seat_of_row] - before
        out, first = [], 0
        for d in draws:
            out.append(gain[first:first + d["k"] * d["C"]].reshape(d["k"], d["C"]))
            first += d["k"] * d["C"]
        return out

    def _rollout_actions(self, tables, done, score) -> np.ndarray:
        masks = tables.masks
        actions = np.zeros(len(done), np.int64)
        phase = tables.phase
        if self.rollout_agent is not None:
            live = np.flatnonzero(~done)
            obs = tables.observe(np.maximum(tables.current_player, 0))
            actions[live] = self.rollout_agent.act_batch(obs[live], masks[live])
            early = np.zeros(len(done), bool)
        else:
            _best_legal(masks, score, done, actions)
            early = ~done & (phase <= OPENING_PHASES)
        if early.any():
            obs = tables.observe(np.maximum(tables.current_player, 0))
            actions[early] = self.greedy.act_batch(obs[early], masks[early])
        actions[done] = 0  # finished tables: ignored (penalty option, see the module docstring)
        live = np.flatnonzero(~done)
        if (masks[live, actions[live]] == 0).any():
            raise RuntimeError("the rollout policy chose an illegal action")
        return actions

    def _tables(self, rows: int, n: int) -> FastTables:
        key = (rows, n)
        if key not in self._scratch:
            if len(self._scratch) > 64:
                self._scratch.clear()
            self._scratch[key] = FastTables(rows, n, seed=0, hands_per_episode=1, illegal_action="penalty",
                                            auto_forced=True, observation_dtype="float32")
        return self._scratch[key]


#: A set or announcement decision's budget by default: this many times a play's.
OPENING_PER_ROLLOUT = 64

#: A declare or closing decision's budget by default: this many times a play's.
KEY_PER_ROLLOUT = 16

#: The Search of before the compiled Tactics searched 8 announcements and gave every decision
#: the same budget, split evenly.
OLD_BUDGET = {"announce_top_k": 8, "opening_rollouts": None, "halving": False, "key_rollouts": None}


class PythonSearchAgent(SearchAgent):
    """The Search of before the compiled Tactics (``compiled=False``): the Python Tactics agent
    plays the rollouts and gives the prior. Same method, about ten times slower."""

    name = "search-python"

    def __init__(self, seed: int | None = 0, **kwargs):
        if "compiled" in kwargs:
            raise ValueError("search-python is SearchAgent(compiled=False); use 'search' to choose")
        kwargs = {**OLD_BUDGET, **kwargs}  # the budget it had (the new one would take it minutes a decision)
        super().__init__(seed, compiled=False, **kwargs)


# ------------------------------------------------------------------ helpers
#: The set and announce phases (FastTables.phase at most this): greedy's scores there need the observation.
OPENING_PHASES = FastTables.PHASES.index("announce")


@njit(cache=True)
def _best_legal(MASK, score, done, out):
    """Per live row, the legal action with the highest score (greedy's choice)."""
    for b in range(MASK.shape[0]):
        if done[b]:
            continue
        best = -1
        top = np.float32(-np.inf)
        for a in range(MASK.shape[1]):
            if MASK[b, a] and (best < 0 or score[b, a] > top):
                best = a
                top = score[b, a]
        out[b] = best


def _hidden_sets(hands, sampler, set_tile, seat, n):
    # (set_tile: the sampler's, read from the observation; the engine's arrays stay in nos_env)
    """The other seats (offsets 1..n-1) and, per sample, their hands and dealt tiles (int64 [k, n-1]):
    what a determinization writes (hands [k, n] by offset, from the sampler)."""
    c = sampler.constraints
    seats = [(seat + r) % n for r in range(1, n)]
    held = np.ascontiguousarray(hands[:, 1:])
    dealt = np.empty_like(held)
    for r in range(1, n):
        hand = hands[:, r]
        if c.declared[r]:  # D9: his dealt doubles still held are the face-up ones
            kept = (hand & ~DOUBLES_MASK) | c.face_up[r]
        else:
            kept = hand
        dealt[:, r - 1] = kept | c.placed[r]
        if c.set_drawn_by == r:  # D8: a tile drawn for the set was not dealt
            dealt[:, r - 1] &= ~(1 << set_tile)
    return seats, held, dealt


def _determinize(tables, sample_of_row, hands, bones, sampler, seat, n) -> None:
    """Overwrite every hidden part of each row with its sample (hands [k, n] by offset, bones [k, size]):
    the uncompiled Search's way (set_hidden on per-row copies)."""
    seats, held, dealt = _hidden_sets(hands, sampler, sampler.set_tile, seat, n)
    try:
        tables.set_hidden(seats, held[sample_of_row], dealt[sample_of_row], bones[sample_of_row])
    except ValueError as exc:
        raise RuntimeError(f"the sample does not fit the table: {exc}") from exc
