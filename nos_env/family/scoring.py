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


def play_points(hand, seat: int) -> int:
    """The points a placement (the set or a play) scores at once; 0 in the blocking games."""
    game = hand.rules.game
    if game in ("block", "draw", "cross", "double_nine_cross", "matador", "fours"):
        return 0  # F16, MA6, FO5: nothing scores during play
    raise NotImplementedError(f"play scores of {game}")


def end_of_hand(hand, out_side: int | None) -> None:
    """F15: the winning side, then its award (credited through ``hand.credit``)."""
    rules = hand.rules
    counts = hand.side_counts()
    w = hand_winner(rules, counts, out_side)
    hand.winner_side = w
    if w is None:
        return  # F15: a shared lowest count: nobody scores for the end
    game = rules.game
    if game in ("block", "draw", "cross", "double_nine_cross", "matador", "fours"):
        points = blocking_award(rules, counts, w, out_side is None, stock_pips(hand))
    else:
        raise NotImplementedError(f"end award of {game}")
    hand.end_points = points
    hand.credit(sides(rules)[w], points)
