"""D17 and D25 over whole deals: being asked reveals nothing.

Two deals that differ only in tiles hidden from one seat (the observer) are
played through the AEC environment with the same public actions: the observer
and the setter act from their own masks with one shared random stream (the
observer never draws: a drawn tile is no longer hidden from him), every other
seat says no-declare, declines its immediate doubles and draws. Both
deals must then give the observer the same observation after every step, the
same mask at each of its turns, the same rewards, and the same sequence of
seats asked (``agent_selection``). Before D25 the declaration window asked only
players dealt the table's count of doubles (D8, D9) and the immediate window
only players holding a double that fitted (D10), so the sequence of seats asked
told the observer about hidden tiles; the guard test below checks that the
deals used here would have shown that leak.
"""

from __future__ import annotations

import numpy as np
import pytest

import nos_env
from nos_env.deal import Deal, hand_size
from nos_env.engine import DECLARED_DOUBLES
from nos_env.tiles import is_double, tile_str

BACKENDS = ["fast", "reference"]
COUNTS = [3, 4, 5]
PAIRS = 12  # deal pairs per player count and backend


def deal_pair(n: int, rng: np.random.Generator, pack_doubles: bool):
    """(deal, twin, on_set, observer): the twin shuffles every tile of the hands of the seats
    other than the observer and the setter, and of the boneyard. The setter (who holds a double,
    so he sets from his hand) keeps his hand, the observer his own. With ``pack_doubles`` the
    hidden doubles go first, so the first free seat of the twin holds as many as it can: the
    twins then differ in who may declare (D8) and who holds a double to place at once (D10)."""
    while True:
        deal = Deal.random(n, rng)
        setters = [s for s in range(n) if any(is_double(t) for t in deal.hands[s])]
        if setters:
            break
    on_set = int(rng.choice(setters))
    observer = int(rng.integers(n))
    fixed = {on_set, observer}
    hidden = [t for s in range(n) if s not in fixed for t in deal.hands[s]] + list(deal.boneyard)
    shuffled = [hidden[i] for i in rng.permutation(len(hidden))]
    if pack_doubles:
        shuffled.sort(key=lambda t: not is_double(t))  # stable: the order is otherwise random
    hands, k = [], 0
    for s in range(n):
        if s in fixed:
            hands.append(list(deal.hands[s]))
        else:
            hands.append(shuffled[k:k + hand_size(n)])
            k += hand_size(n)
    twin = Deal(tuple(tuple(h) for h in hands), tuple(shuffled[k:]))
    return deal, twin, on_set, observer


def as_option(deal: Deal) -> dict:
    return {"hands": [[tile_str(t) for t in h] for h in deal.hands],
            "boneyard_top_first": [tile_str(t) for t in deal.boneyard]}


def public_run(backend: str, deal: Deal, on_set: int, observer: int, seed: int):
    """Play the public action sequence described above; return what the observer sees."""
    env = nos_env.env(num_players=deal.num_players, backend=backend)
    env.reset(options={"deal": as_option(deal), "on_set": on_set})
    raw = env.unwrapped
    me = f"player_{observer}"
    rng = np.random.default_rng(seed)
    seen = []
    while not all(env.terminations.values()):
        agent = env.agent_selection
        seat = int(agent.split("_")[1])
        view = env.observe(me)
        mask = env.observe(agent)["action_mask"]
        step = {"to_move": seat, "observation": view["observation"].tolist(), "rewards": dict(env.rewards)}
        if seat in (observer, on_set):
            choices = np.flatnonzero(mask)
            if seat == observer:
                step["mask"] = mask.tolist()
                # A tile the observer draws is no longer hidden from him: the twins may part there.
                choices = [int(i) for i in choices if raw.action_to_text(int(i)) != "draw"]
                if not choices:
                    seen.append(step)
                    break
            action = int(rng.choice(choices))
        else:
            texts = {raw.action_to_text(int(i)) for i in np.flatnonzero(mask)}
            public = [t for t in ("no-declare", "decline", "draw") if t in texts]
            if not public:
                break  # this seat must play or pass: its move now depends on its own tiles
            action = raw.text_to_action(public[0])
        seen.append(step)
        env.step(action)
    return seen


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", COUNTS)
def test_d25_twin_deals_look_the_same_to_the_observer(backend, n):
    rng = np.random.default_rng(100 + n)
    steps = 0
    for k in range(PAIRS):
        deal, twin, on_set, observer = deal_pair(n, rng, pack_doubles=k % 2 == 0)
        a = public_run(backend, deal, on_set, observer, seed=k)
        b = public_run(backend, twin, on_set, observer, seed=k)
        assert [s["to_move"] for s in a] == [s["to_move"] for s in b], "the seats asked differ"
        assert a == b
        steps += len(a)
    assert steps > PAIRS * (2 * n + 2)  # every pair got past the set, the announcement and both windows


def _seats_asked_before_d25(deal: Deal, n: int) -> tuple[int, ...]:
    """The declaration window's seats under D9 without D25: those dealt the table's count (D8)."""
    return tuple(s for s in range(n) if (n, sum(map(is_double, deal.hands[s]))) in DECLARED_DOUBLES)


@pytest.mark.parametrize("n", COUNTS)
def test_guard_the_twins_would_have_shown_the_old_leak(n):
    """Guard: among the pairs above, some twins differ in who was dealt the count of doubles, so
    the pre-D25 window would have asked different seats and the test above would have failed."""
    rng = np.random.default_rng(100 + n)
    pairs = [deal_pair(n, rng, pack_doubles=k % 2 == 0) for k in range(PAIRS)]
    assert any(_seats_asked_before_d25(d, n) != _seats_asked_before_d25(t, n) for d, t, _, _ in pairs)
