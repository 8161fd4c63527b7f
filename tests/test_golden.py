"""Golden playthroughs (after OpenSpiel): recorded hands, one or more per game.

Each file in tests/golden/ is replayed; every step's seat, legal actions,
payments and chips, and the final state, must match exactly. A change in
any rule shows up here as a precise diff. The files come from
tests/golden/generate.py and are reviewed by hand when they change.
"""

import json

import pytest

from conftest import GOLDEN
from nos_env.announcements import parse_announcement
from nos_env.record import playthrough, replay

FILES = sorted(GOLDEN.glob("*.json"))


def test_one_golden_hand_per_game():
    games = {parse_announcement(json.loads(f.read_text())["announcement"]).game for f in FILES}
    assert games == set(range(1, 18))
    endings = {json.loads(f.read_text())["end_reason"] for f in FILES}
    assert endings == {"out", "close", "blocked"}  # D23: all three ways a hand ends


@pytest.mark.parametrize("path", FILES, ids=[f.stem for f in FILES])
def test_golden_playthrough_replays_exactly(path):
    golden = json.loads(path.read_text())
    replay(golden)  # chips, ledger, end reason and phase
    again = playthrough(golden)
    assert len(again["steps"]) == len(golden["steps"])
    for i, (want, got) in enumerate(zip(golden["steps"], again["steps"])):
        assert got == want, f"step {i}"
    for key in ("to_move", "counts", "final_hands", "chips", "ledger", "end_reason"):
        assert again[key] == golden[key], key
    # The ledger is the steps' payments in order, and the chips follow from it.
    flat = [p for step in golden["steps"] for p in step["payments"]]
    assert flat == golden["ledger"]
    chips = list(golden["chips_start"])
    for payer, payee, amount, _ in flat:
        chips[payer] -= amount
        chips[payee] += amount
    assert chips == golden["chips"]
    assert sum(golden["chips"]) == sum(golden["chips_start"])
