"""Counting hands, the end-of-hand award and the scores made during play.

Family page F14 (counts), F15 (the winner), F16 (the blocking games' award), F17 (the
boneyard to the winner), F20 (teams), F18 (targets); the scoring games' pages for their play
scores and awards (All Fives AF3/AF4/AF7/AF8, Fives & Threes FT1/FT2, Five Up FU4..FU7,
Bergen BE2/BE3/BE5/BE6).
"""

from __future__ import annotations

from .rules import FamilyRules


def tile_count(rules: FamilyRules, a: int, b: int) -> int:
    """F14: a tile counts its pips ([0-0] counts 0); a double d with double_counts_one_end counts d."""
    if a == b and rules.double_counts_one_end:
        return a
    return a + b


def hand_count(rules: FamilyRules, tiles, ts) -> int:
    return sum(tile_count(rules, *ts.tiles[t]) for t in tiles)


def round5(x: int) -> int:
    """The nearest multiple of 5, halves up (AF8: 5*floor((x+2)/5); 1, 2 -> 0; 3..7 -> 5)."""
    return 5 * ((x + 2) // 5)


def sides(rules: FamilyRules) -> list[list[int]]:
    """The scoring sides: each seat alone, or with teams the two partnerships (F20)."""
    n = rules.num_players
    if rules.teams:
        return [[0, 2], [1, 3]]
    return [[s] for s in range(n)]


def hand_winner(rules: FamilyRules, counts: list[int], out_side: int | None) -> int | None:
    """F15/F20: the side that went out, else the unique lowest count (None if it is shared)."""
    if out_side is not None:
        return out_side
    low = min(counts)
    lows = [i for i, c in enumerate(counts) if c == low]
    return lows[0] if len(lows) == 1 else None


def blocking_award(rules: FamilyRules, counts: list[int], w: int, blocked: bool, stock_pips: int) -> int:
    """F16 (and F20 for teams, BL4's one point): what the winning side w scores at the end.

    points(w) = Σ_{i≠w} c_i − [blocked and difference]·(sides−1)·c_w + [stock_to_winner]·stock."""
    if rules.hand_scoring == "one_point":  # BL4
        return 1
    others = [c for i, c in enumerate(counts) if i != w]
    points = sum(others)
    if blocked and rules.blocked_scoring == "difference":
        points -= len(others) * counts[w]
    if rules.stock_to_winner:  # F17
        points += stock_pips
    return points


def stock_pips(hand) -> int:
    """F17: the pips of every tile still in the boneyard (the reserve included)."""
    return sum(a + b for a, b in (hand.ts.tiles[t] for t in hand.boneyard))


def end_count(layout) -> int:
    """E, the sum of the ends (AF4; Five Up FU4 with its spinners).

    v(a) = 2·o(a) if arm a's last tile is a double with nothing beyond it, else o(a), for every
    non-empty arm; the set tile adds, while L0 or L1 is empty: [p-q] p for an empty L0 and q for
    an empty L1, a set double [d-d] 2d once. An empty crosswise arm counts nothing (FU4)."""
    E = 0
    for arm in layout.arms:
        if arm.tiles:
            E += 2 * arm.open if layout.arm_double_end(arm.number) else arm.open
    p, q = layout.tile(layout.set_tile)
    empty0, empty1 = not layout.arms[0].tiles, not layout.arms[1].tiles
    if p == q:
        E += 2 * p if (empty0 or empty1) else 0
    else:
        E += p * empty0 + q * empty1
    return E


def bergen_points(layout) -> int:
    """BE3: 0 if the two ends differ; 3 if they are equal and one end's last tile is a double
    lying across with nothing beyond it (the set double alone excepted); else 2."""
    x0, x1 = layout.arms[0].open, layout.arms[1].open
    if x0 != x1:
        return 0
    return 3 if layout.arm_double_end(0) or layout.arm_double_end(1) else 2


def play_points(hand, seat: int) -> int:
    """The points a placement (the set or a play) scores at once; 0 in the blocking games.

    All Fives (AF3): E if E > 0 and 5 | E; Fives & Threes (FT1): E if 5 | E or 3 | E, once;
    Five Up (FU5): E / 5 if 5 | E; Bergen (BE3): 2 or 3 for equal ends."""
    game = hand.rules.game
    if game in ("block", "draw", "cross", "double_nine_cross", "matador", "fours"):
        return 0  # F16, MA6, FO5: nothing scores during play
    if game == "bergen":
        return bergen_points(hand.layout)
    E = end_count(hand.layout)
    if E <= 0:
        return 0
    if game == "all_fives":
        return E if E % 5 == 0 else 0
    if game == "fives_and_threes":
        return E if E % 5 == 0 or E % 3 == 0 else 0
    assert game == "five_up", game
    return E // 5 if E % 5 == 0 else 0


def rounded_award(rules: FamilyRules, counts: list[int], w: int) -> int:
    """All Fives AF7/AF8 (in pips) and Five Up FU6 (in fives): Σ_l round5(P(l) − P(w)), or
    round5 of the sum under award_rounding="total"; Fives & Threes FT2 unrounded."""
    diffs = [c - counts[w] for i, c in enumerate(counts) if i != w]
    if rules.award_rounding == "none":
        return sum(diffs)
    pips = round5(sum(diffs)) if rules.award_rounding == "total" else sum(round5(d) for d in diffs)
    return pips // 5 if rules.game == "five_up" else pips


def bergen_blocked_winner(hand) -> int | None:
    """BE5/BE6: the one player without a double; among several, the lowest count (a tie: none);
    if everybody holds a double, the holder of the lowest double."""
    rules, ts = hand.rules, hand.ts
    counts = hand.counts()
    no_double = [s for s, h in enumerate(hand.hands) if not any(ts.tiles[t][0] == ts.tiles[t][1] for t in h)]
    if len(no_double) == 1:
        return no_double[0]
    if no_double:
        low = min(counts[s] for s in no_double)
        lows = [s for s in no_double if counts[s] == low]
        return lows[0] if len(lows) == 1 else None
    lowest = min((ts.tiles[t][0], s) for s, h in enumerate(hand.hands) for t in h
                 if ts.tiles[t][0] == ts.tiles[t][1])
    return lowest[1]


def end_of_hand(hand, out_side: int | None) -> None:
    """F15: the winning side, then its award (credited through ``hand.credit``)."""
    rules = hand.rules
    game = rules.game
    if game == "bergen":  # BE5: one point, to the player who went out or by the doubles rule
        w = out_side if out_side is not None else bergen_blocked_winner(hand)
        hand.winner_side = w
        if w is not None:
            hand.end_points = 1
            hand.credit([w], 1)
        return
    counts = hand.side_counts()
    w = hand_winner(rules, counts, out_side)
    hand.winner_side = w
    if w is None:
        return  # F15: a shared lowest count: nobody scores for the end
    if game in ("block", "draw", "cross", "double_nine_cross", "matador", "fours"):
        points = blocking_award(rules, counts, w, out_side is None, stock_pips(hand))
    else:
        points = rounded_award(rules, counts, w)
    hand.end_points = points
    hand.credit(sides(rules)[w], points)
