"""Exact one-step advantages over Greedy, read off the real table: the ``rollout_advantage`` teacher.

Why: distilling Search (train/distill.py) tied Greedy. Search's labels are slow (tens a second)
and noisy (a few dozen determinized rollouts shared by every move), and the student could not
tell Search's good departures from its bad ones. Here each label is cheap and exact instead.

At a learner decision of a real game (the learner's seat against the opponents of the training
tables), every legal move ``a`` is played on a copy of the table (``clone_table``: the real
hidden hands and the real boneyard order, so the draws are the ones the game would make), and
then every seat, the learner's too, plays Greedy until the hand ends. The label of ``a`` is the
learner seat's relative points over that rest of the hand (its points minus the mean of the
other seats', the training reward). All moves of a decision see the same hidden tiles and the
same draws (common random numbers), and the continuation is deterministic (Greedy's first
best-scored move, without its random tie-break), so

    A(s, a) = value(a) - value(Greedy's move)

is the exact gain of departing from Greedy once, here, with these hidden tiles. The policy only
sees its observation, so a regression on these labels learns E[A | observation], averaged over
the hidden tiles as they really occur behind it: the one-step improvement over Greedy that
Search estimates by sampling. The true hands are used for the labels only (as a privileged
critic reads them); the policy plays from its seat's view.

Cost: one playout per (decision, legal move). The playouts of all tables and moves of a step
run together on one scratch table batch (the fast engine's batch step, Greedy batched over the
live rows), a few thousand labels a second on one core.

A hand is the horizon: within a hand nothing draws from a table's random stream after the deal
(the family contract; Chickenfoot and Mexican Train deal the next hand from it), so a copy plays
exactly the game's own future for every seat that keeps to Greedy.
"""

from __future__ import annotations


import numpy as np

#: The teacher name of the config's ``distill`` section that collects these labels.
ROLLOUT_TEACHER = "rollout_advantage"

#: Playouts stop after this many steps (a hand of double-nine with draws is far shorter).
MAX_PLAYOUT_STEPS = 2000


def continuation_greedy(rules):
    """The game's Greedy agent (Mexican Train and Blind have their own), which plays every seat of
    the playouts."""
    if rules.game == "blind":
        from agents.family.blind import BlindGreedyAgent

        return BlindGreedyAgent(rules, seed=0)
    if rules.game == "mexican_train":
        from agents.family.mexican_train import MexicanTrainGreedyAgent

        return MexicanTrainGreedyAgent(rules, seed=0)
    from agents.family.greedy import FamilyGreedyAgent

    return FamilyGreedyAgent(rules, seed=0)


def greedy_moves(agent, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Greedy's move in each row, ties going to the lowest action id: Greedy's own scores
    without its seeded random tie-break, so that a playout is a function of the table alone.
    The family's Greedy is scored on the legal moves only (:func:`legal_greedy_moves`, the same
    moves: Chickenfoot's and Five Up's action spaces are wide, a few moves of them legal)."""
    from agents.family.greedy import FamilyGreedyAgent

    if type(agent) is FamilyGreedyAgent:
        return legal_greedy_moves(agent, obs, masks)
    score = np.asarray(agent.scores(obs, masks), np.float64).copy()
    score[np.asarray(masks) == 0] = -np.inf
    return score.argmax(axis=1).astype(np.int64)


def legal_greedy_moves(agent, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """:meth:`agents.family.greedy.FamilyGreedyAgent.scores`' best legal move (the lowest id of
    equals), computed for each row's legal moves only instead of every action: the same terms
    (pips, double bonus, the set's double bonus, following, Matador's kept matadors,
    Chickenfoot's [0-0], the points a play scores at once in the scoring games
    (:func:`legal_immediate_points`), going out, draw and pass last), the same sums."""
    from agents.family import greedy as G
    from agents.family.view import DRAW, PASS, PLAY, SET

    v = agent.view
    obs = v.check(obs, masks)
    masks = np.asarray(masks) != 0
    row, action = np.nonzero(masks)  # row-major: each row's legal moves in ascending order
    kind, tile = v.KIND[action], np.maximum(v.TILE[action], 0)
    play = kind == PLAY
    hand = v.slice(obs, "hand") > 0
    score = np.where(play | (kind == SET), v.PIPS[tile] + G.DOUBLE_BONUS * v.IS_DOUBLE[tile], 0.0)
    score = score + np.where(kind == SET, 20.0 * v.IS_DOUBLE[tile], 0.0)
    fits = G.fitting_table(v)  # [M+1, N]
    if v.seven:
        outward = v.OUTWARD_SIDE[action]
    else:
        open_end = v.slice(obs, "arm_open").argmax(axis=2)  # [B, A]
        exists = v.slice(obs, "arm_exists") > 0
        arm = np.maximum(v.ARM[action], 0)
        e = open_end[row, arm]
        outward = np.where(play & exists[row, arm], np.where(e == v.LOW[tile], v.HIGH[tile], v.LOW[tile]), -1)
    per_number = hand.astype(np.int64) @ fits.T.astype(np.int64)  # [B, M+1]
    o = np.maximum(outward, 0)
    follow = np.where(outward >= 0, per_number[row, o] - fits[o, tile], 0)
    score = score + np.where(play, G.FOLLOW * follow, 0.0)
    if v.seven:
        score = score - np.where(play, G.KEEP_MATADOR * G.matador_mask(v)[tile], 0.0)
    if agent.rules.game == "chickenfoot":
        score = score + np.where(play & (tile == v.index[(0, 0)]), G.CHICKENFOOT_ZERO_ZERO, 0.0)
    if agent.rules.game in G.SCORING_GAMES:
        score = score + G.POINT * legal_immediate_points(agent, obs, row, action, outward)
    last = hand.sum(axis=1) == 1
    score = score + np.where(play & last[row], G.GO_OUT, 0.0)
    score = np.where(kind == DRAW, -1000.0, np.where(kind == PASS, -2000.0, score))
    # The first best of each row (ascending ids): sort by row, then score descending, stably.
    order = np.lexsort((-score, row))
    first = np.ones(len(order), bool)
    first[1:] = row[order][1:] != row[order][:-1]
    out = np.full(masks.shape[0], -1, np.int64)
    out[row[order][first]] = action[order][first]
    return out


def make_labeler(env, capacity: int = 4096, samples: int = 0, seed: int = 0):
    """The labeller of ``env``'s game (a :class:`train.selfplay.SelfPlayVecEnv`): in Nos every
    move is measured against Tactics, the Nos hint, with compiled Tactics continuations
    (train/rollout_advantage_nos.py), on the real table or, with ``samples``, averaged over that
    many deals of the hidden tiles drawn from the seat's observation (``seed`` seeds them); in a
    family game against its Greedy (:class:`RolloutLabeler`), on the real table."""
    if env.game == "nos":
        from .rollout_advantage_nos import DeterminizedTacticsLabeler, TacticsRolloutLabeler

        if samples:
            return DeterminizedTacticsLabeler(env.tables.num_players, capacity, samples, seed)
        return TacticsRolloutLabeler(env.tables.num_players, capacity)
    if samples:
        raise ValueError(f"samples (labels averaged over deals of the hidden tiles) are Nos's; {env.game}'s "
                         f"labels are taken on the real table: leave samples 0")
    return RolloutLabeler(env.tables.rules, capacity)



def legal_immediate_points(agent, obs: np.ndarray, row: np.ndarray, action: np.ndarray,
                           outward: np.ndarray) -> np.ndarray:
    """:meth:`agents.family.greedy.FamilyGreedyAgent.immediate_points` for the (row, action) pairs
    given only (the legal moves): the points a play or a set scores at once by the page's formula
    on the open ends after it (AF/FT/FU end counts, Bergen's headers); 0 for draws and passes.
    ``outward``: the number each pair's play leaves open (-1: not a play or no such arm)."""
    from agents.family import greedy as G
    from agents.family.view import PLAY, SET

    v, game = agent.view, agent.rules.game
    kind, tile = v.KIND[action], np.maximum(v.TILE[action], 0)
    a = np.maximum(v.ARM[action], 0)
    exists = v.slice(obs, "arm_exists") > 0
    nonempty = exists & (v.slice(obs, "arm_count") > 0)  # [B, A]
    open_end = v.slice(obs, "arm_open").argmax(axis=2)
    dbl = (v.slice(obs, "arm_double_end") > 0) & nonempty
    set_block = v.slice(obs, "set_tile")
    has_set = set_block.any(axis=1)
    st = np.where(has_set, set_block.argmax(axis=1), 0)
    p, q, set_double = v.LOW[st][row], v.HIGH[st][row], v.IS_DOUBLE[st][row]
    tile_double = v.IS_DOUBLE[tile].astype(bool)
    o = outward

    def ends_after(which):
        placed = a == which
        empty_after = ~nonempty[row, which] & ~placed
        return np.where(placed, o, np.where(empty_after, p if which == 0 else q, open_end[row, which])), empty_after

    x0, e0 = ends_after(0)
    x1, e1 = ends_after(1)
    if game == "bergen":
        d0 = np.where(a == 0, tile_double, dbl[row, 0] & ~e0)
        d1 = np.where(a == 1, tile_double, dbl[row, 1] & ~e1)
        score = np.where(x0 == x1, np.where(d0 | d1, 3, 2), 0)
        set_score = np.where(v.IS_DOUBLE[tile], 2, 0)
    else:
        value = np.where(nonempty, np.where(dbl, 2 * open_end, open_end), 0)  # [B, A]
        total = value.sum(axis=1)[row] - value[row, a] + o * (1 + tile_double)
        set_part = np.where(set_double, np.where(e0 | e1, 2 * p, 0), p * e0 + q * e1)
        score = G.play_score(game, total + np.where(has_set[row], set_part, 0))
        set_score = G.play_score(game, v.PIPS[tile])
    return np.where((kind == PLAY) & (o >= 0), score, np.where(kind == SET, set_score, 0)).astype(np.float64)


def snapshot_names(tables) -> list[str]:
    """The per-table arrays a ``clone_table`` snapshot holds (the whole state of a table)."""
    return list(tables.clone_table(0))


def copy_rows(source, source_rows: np.ndarray, target, target_rows: np.ndarray, names: list[str]) -> None:
    """``target``'s rows ``target_rows`` become exact copies of ``source``'s rows ``source_rows``
    (every array of the snapshot: what ``restore_table(clone_table(b))`` does, for many rows at once)."""
    for name in names:
        getattr(target, name)[target_rows] = getattr(source, name)[source_rows]


class PlayoutLabeler:
    """What every labeller shares: :meth:`values` checks the decisions and plays every legal move
    of them in passes of at most ``capacity`` scratch rows (one row per (decision, move)); a
    labeller says which tables it takes (:meth:`_check_tables`) and how a pass is played out
    (:meth:`_play`: the acting seats' values after the moves)."""

    capacity: int

    def values(self, tables, rows, seats) -> np.ndarray:
        """float32 [len(rows), num_actions]: for each decision (table ``rows[i]`` of ``tables``,
        ``seats[i]`` to move there) and each legal move, the seat's value of the rest of the hand
        when it plays the move and then everyone plays the labeller's continuation; NaN where the
        move is illegal. ``tables`` is not changed."""
        rows, seats, masks = self._checked(tables, rows, seats)
        out = np.full(masks.shape, np.nan, np.float32)
        decision, move = np.nonzero(masks)  # one playout per (decision, legal move)
        for first in range(0, len(decision), self.capacity):
            part = slice(first, first + self.capacity)
            d, a = decision[part], move[part]
            out[d, a] = self._play(tables, rows[d], seats[d], a)
        return out

    def _checked(self, tables, rows, seats) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(rows, seats, masks of the rows, bool) of :meth:`values`'s decisions, checked."""
        self._check_tables(tables)
        rows = np.asarray(rows, np.int64)
        seats = np.asarray(seats, np.int64)
        if rows.shape != seats.shape or rows.ndim != 1:
            raise ValueError("rows and seats must be 1-D arrays of the same length")
        to_move = np.asarray(tables.current_player)[rows]
        if (to_move != seats).any():
            i = int(np.flatnonzero(to_move != seats)[0])
            raise ValueError(f"seat {seats[i]} is not to move at table {rows[i]} (seat {to_move[i]} is)")
        return rows, seats, np.asarray(tables.masks)[rows] != 0

    def _check_tables(self, tables) -> None:
        raise NotImplementedError

    def _play(self, tables, source_rows: np.ndarray, seats: np.ndarray, moves: np.ndarray) -> np.ndarray:
        raise NotImplementedError


class RolloutLabeler(PlayoutLabeler):
    """Plays every legal move of given decisions to the end of the hand, everyone on Greedy after it:
    a move's value (:meth:`values`) is the seat's relative points (its points minus the mean of the
    others') from the decision to the end of the hand.

    ``capacity``: rows of the scratch tables (one row per (decision, move)); more candidates than
    that are played in several passes."""

    def __init__(self, rules, capacity: int = 4096):
        from agents.family.games import table_options, tables_class

        if isinstance(capacity, bool) or not isinstance(capacity, int) or capacity < 1:
            raise ValueError(f"capacity must be a positive integer, got {capacity!r}")
        self.rules = rules
        self.capacity = capacity
        self.greedy = continuation_greedy(rules)
        self.scratch = tables_class(rules.game)(rules.game, capacity, num_players=rules.num_players, seed=0,
                                                observation_dtype="float32", threads=1, **table_options(rules))
        self.names = snapshot_names(self.scratch)
        self.playout_steps = 0  # batched engine steps taken, for the speed figures

    def _check_tables(self, tables) -> None:
        if tables.rules != self.rules:
            raise ValueError(f"these tables play {tables.rules.game} with other rules than the labeler's")

    def _play(self, tables, source_rows: np.ndarray, seats: np.ndarray, moves: np.ndarray) -> np.ndarray:
        """The seats' relative points after ``moves`` (one per copied row) and Greedy to the hand's end."""
        scratch, n = self.scratch, self.rules.num_players
        R = len(source_rows)
        live_rows = np.arange(R)
        copy_rows(tables, source_rows, scratch, live_rows, self.names)
        actions = np.full(self.capacity, scratch.IDLE, np.int64)
        actions[:R] = moves
        done = np.ones(self.capacity, bool)  # rows past R stay idle
        done[:R] = False
        hand = np.asarray(scratch.hand_number).copy()
        gained = np.zeros((self.capacity, n), np.int64)
        for _ in range(MAX_PLAYOUT_STEPS):
            _, points, terminated, _ = scratch.step(actions, observe=False, autoreset=False, allow_idle=True)
            self.playout_steps += 1
            gained[~done] += np.asarray(points)[~done, :n]
            done |= np.asarray(terminated, bool) | (np.asarray(scratch.hand_number) != hand)
            if done.all():
                break
            live = np.flatnonzero(~done)
            actions[:] = scratch.IDLE
            obs = scratch.observe_rows(live, scratch.current_player[live])
            actions[live] = greedy_moves(self.greedy, obs, scratch.masks[live])
        else:
            raise RuntimeError(f"a playout took more than {MAX_PLAYOUT_STEPS} steps")
        gained = gained[:R]
        own = gained[live_rows, seats]
        return (own - (gained.sum(axis=1) - own) / max(1, n - 1)).astype(np.float32)


def advantages(values: np.ndarray, hint: np.ndarray) -> np.ndarray:
    """[N, actions]: each legal move's value minus the value of the hinted (Greedy's) move; NaN
    where illegal."""
    values = np.asarray(values, np.float32)
    base = values[np.arange(len(values)), np.asarray(hint, np.int64)]
    if np.isnan(base).any():
        raise ValueError("a hinted move has no value (not a legal move of its decision)")
    return values - base[:, None]


def collect_advantage_labels(env, labeler, decisions: int, behaviour=None, log=None, phases=()) -> dict:
    """Play ``env``'s tables (a :class:`train.selfplay.SelfPlayVecEnv` with the Greedy hint, in Nos
    the Tactics hint; ``labeler`` from :func:`make_labeler`) until
    ``decisions`` learner decisions with more than one legal move are labelled; returns the
    format of :func:`train.distill.collect_labels` with ``values``: ``obs`` (as the policy reads
    them), ``masks``, ``actions`` (the move the learner played), ``hint`` (Greedy's move, the
    hint), ``values`` [N, actions] (:meth:`RolloutLabeler.values`) and ``seconds``.

    The learner plays ``behaviour(obs, masks) -> actions`` (default: the hint, i.e. Greedy), so
    the labels are taken at the positions that player reaches against the env's opponents.
    ``phases`` (Nos): label only the decisions of these phases (e.g. ``("set", "announce")``, the
    openings); empty: every decision."""
    from .distill import label_decisions, raw_observation_size

    if decisions < 1:
        raise ValueError(f"decisions must be positive, got {decisions}")
    if env.hint_agent is None:
        raise ValueError("the rollout_advantage labels need the hint (env.greedy_hint: true; in Nos "
                         "env.tactics_hint: true): the advantage is measured against the hinted move")
    size = raw_observation_size(env)

    def choose(obs, masks, take):
        hint = obs[:, size].astype(np.int64)
        actions = hint.copy() if behaviour is None else np.asarray(behaviour(obs, masks), np.int64)
        if not masks[np.arange(len(actions)), actions].all():
            raise RuntimeError("the behaviour policy chose an illegal move")
        return actions, labeler.values(env.tables, take, env.learner[take])

    keep = None
    if phases:
        from .rollout_advantage_nos import phase_filter

        keep = phase_filter(phases)
    data = label_decisions(env, decisions, choose, lambda actions, masks: "the behaviour policy chose an illegal move",
                           log, keep)
    data["hint"] = data["obs"].column(size).astype(np.int64)
    return data
