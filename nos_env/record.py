"""JSON hand records and playthroughs.

A *hand record* holds the deal, the seat on set, the starting chips, the
engine options and every decision taken, plus the outcome (ledger, chips,
end reason) so a replay can be checked. :func:`replay` rebuilds the exact
same hand from it.

A *playthrough* (after OpenSpiel's golden playthrough files) adds, for every
step, who acted, the legal actions he had, the payments the step caused and
every seat's chips after it, automatic steps included. The golden files in
``tests/golden/`` are playthroughs replayed and compared on every test run.
"""

from __future__ import annotations

import json
from pathlib import Path

from .deal import Deal
from .engine import Hand, Options
from .tiles import tile_str

FORMAT = "nos-hand-record/1"


class RecordMismatch(AssertionError):
    """A replay did not reproduce what the record says."""


def hand_record(hand: Hand) -> dict:
    return {
        "format": FORMAT,
        **hand.deal.to_json(),
        "on_set": hand.on_set,
        "first_hand": hand.first_hand,
        "chips_start": list(hand.chips_start),
        "options": {"auto_forced": hand.options.auto_forced, "illegal": hand.options.illegal},
        "actions": list(hand.actions),
        "announcement": str(hand.announcement) if hand.announcement else None,
        "phase": hand.phase,
        "end_reason": hand.end_reason,
        "chips": list(hand.chips),
        "ledger": [p.to_list() for p in hand.ledger],
    }


def start_from_record(record: dict) -> Hand:
    """The hand a record starts from, before any action."""
    if record.get("format", FORMAT) != FORMAT:
        raise ValueError(f"unknown record format {record.get('format')!r}, expected {FORMAT!r}")
    deal = Deal.from_tiles(record["hands"], record["boneyard_top_first"])
    opts = record.get("options") or {}
    return Hand(
        deal,
        on_set=record["on_set"],
        chips=record.get("chips_start"),
        first_hand=record.get("first_hand", False),
        options=Options(**opts),
    )


def replay(record: dict, verify: bool = True) -> Hand:
    """Replay a record's actions; with ``verify`` check chips, ledger and end."""
    hand = start_from_record(record)
    for i, text in enumerate(record["actions"]):
        try:
            hand.step(text)
        except ValueError as exc:
            raise RecordMismatch(f"action {i} ({text!r}) could not be replayed: {exc}") from exc
    if verify:
        got = hand_record(hand)
        for key in ("chips", "ledger", "end_reason", "phase"):
            if key in record and record[key] != got[key]:
                raise RecordMismatch(f"replay differs in {key}: record {record[key]!r}, replay {got[key]!r}")
    return hand


def playthrough(record: dict) -> dict:
    """A record with every step spelled out: seat, legal actions, payments, chips."""
    hand = start_from_record(record)
    steps: list[dict] = []

    def log_new_events(start: int, legal: list[str] | None) -> None:
        chips = list(steps[-1]["chips_after"]) if steps else list(hand.chips_start)
        for k, event in enumerate(hand.events[start:]):
            for p in event.payments:
                chips[p.payer] -= p.amount
                chips[p.payee] += p.amount
            step = {"seat": event.seat, "action": event.action}
            if event.automatic:
                step["automatic"] = True
            elif k == 0 and legal is not None:
                step["legal"] = legal
            step["payments"] = [p.to_list() for p in event.payments]
            step["chips_after"] = list(chips)
            steps.append(step)

    log_new_events(0, None)  # D12 forced decisions before the first choice
    for text in record["actions"]:
        legal = hand.legal_action_texts()
        start = len(hand.events)
        hand.step(text)
        log_new_events(start, legal)
    out = dict(hand_record(hand))
    out["steps"] = steps
    out["to_move"] = hand.to_move
    out["counts"] = hand.counts
    out["final_hands"] = [[tile_str(t) for t in h] for h in hand.hands]
    return out


def save(record: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())
