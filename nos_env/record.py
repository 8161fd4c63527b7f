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
from .engine import Hand
from .options import Options
from .tiles import tile_str

FORMAT = "nos-hand-record/1"
#: Keys every record needs; the others have defaults (format, first_hand, chips_start, options)
#: or are outcomes checked by replay (announcement, phase, end_reason, chips, ledger).
REQUIRED = ("hands", "boneyard_top_first", "on_set", "actions")
OPTION_KEYS = ("auto_forced", "illegal")


class RecordError(ValueError):
    """A record that cannot be read or replayed: names the file (when loaded from one), the
    key or the action index, and what is wrong."""

    def __init__(self, message: str, path: str | Path | None = None, step: int | None = None):
        self.path = None if path is None else str(path)
        self.step = step
        where = "record" + (f" {self.path}" if self.path else "") + (f", action {step}" if step is not None else "")
        super().__init__(f"{where}: {message}")


class RecordMismatch(RecordError, AssertionError):
    """A replay did not reproduce what the record says (also an AssertionError, as before)."""


class LoadedRecord(dict):
    """A record read by :func:`load`: a plain dict that remembers its file for error messages."""

    path: str | None = None


def _path(record) -> str | None:
    return getattr(record, "path", None)


def check_record(record: object) -> None:
    """Raise :class:`RecordError` for a missing key, an unknown option or a non-string action."""
    path = _path(record)
    if not isinstance(record, dict):
        raise RecordError(f"a record must be a JSON object (dict), got {type(record).__name__}", path)
    if record.get("format", FORMAT) != FORMAT:
        raise RecordError(f"unknown record format {record.get('format')!r}, expected {FORMAT!r}", path)
    missing = [k for k in REQUIRED if k not in record]
    if missing:
        raise RecordError(f"missing key(s) {missing}; a record needs {list(REQUIRED)}", path)
    opts = record.get("options")
    if opts is not None:
        if not isinstance(opts, dict):
            raise RecordError(f"'options' must be an object with keys among {list(OPTION_KEYS)}, got {opts!r}", path)
        unknown = sorted(set(opts) - set(OPTION_KEYS))
        if unknown:
            raise RecordError(f"unknown option(s) {unknown}; known: {list(OPTION_KEYS)}", path)
    actions = record["actions"]
    if not isinstance(actions, list):
        raise RecordError(f"'actions' must be a list of action texts, got {type(actions).__name__}", path)
    for i, text in enumerate(actions):
        if not isinstance(text, str):
            raise RecordError(f"an action must be a text such as 'draw' or 'set 4-4', got {text!r}", path, i)
    if "num_players" in record and isinstance(record["hands"], list) and record["num_players"] != len(record["hands"]):
        raise RecordError(f"'num_players' is {record['num_players']!r} but 'hands' holds {len(record['hands'])}",
                          path)


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
    """The hand a record starts from, before any action (the record is checked first)."""
    check_record(record)
    path = _path(record)
    try:
        deal = Deal.from_tiles(record["hands"], record["boneyard_top_first"])
    except ValueError as exc:
        raise RecordError(f"bad deal ('hands', 'boneyard_top_first'): {exc}", path) from exc
    try:
        options = Options(**(record.get("options") or {}))
        return Hand(
            deal,
            on_set=record["on_set"],
            chips=record.get("chips_start"),
            first_hand=record.get("first_hand", False),
            options=options,
        )
    except ValueError as exc:
        raise RecordError(f"bad start ('on_set', 'chips_start', 'first_hand', 'options'): {exc}", path) from exc


def _step(hand: Hand, record: dict, i: int, text: str) -> None:
    try:
        hand.step(text)
    except ValueError as exc:
        raise RecordMismatch(f"{text!r} could not be replayed: {exc}", _path(record), i) from exc


def replay(record: dict, verify: bool = True) -> Hand:
    """Replay a record's actions; with ``verify`` check chips, ledger and end."""
    hand = start_from_record(record)
    for i, text in enumerate(record["actions"]):
        _step(hand, record, i, text)
    if verify:
        got = hand_record(hand)
        for key in ("chips", "ledger", "end_reason", "phase"):
            if key in record and record[key] != got[key]:
                raise RecordMismatch(f"replay differs in {key}: record {record[key]!r}, replay {got[key]!r}",
                                     _path(record))
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
    for i, text in enumerate(record["actions"]):
        legal = hand.legal_action_texts()
        start = len(hand.events)
        _step(hand, record, i, text)
        log_new_events(start, legal)
    out = dict(hand_record(hand))
    out["steps"] = steps
    out["to_move"] = hand.to_move
    out["counts"] = hand.counts
    out["final_hands"] = [[tile_str(t) for t in h] for h in hand.hands]
    return out


def save(record: dict, path: str | Path) -> None:
    Path(path).write_text(json.dumps(record, indent=1) + "\n")


def load(path: str | Path) -> LoadedRecord:
    """Read a record (or playthrough) file; errors about it name the file."""
    try:
        data = json.loads(Path(path).read_text())
    except json.JSONDecodeError as exc:
        raise RecordError(f"not JSON: {exc}", path) from exc
    if not isinstance(data, dict):
        raise RecordError(f"a record must be a JSON object, got {type(data).__name__}", path)
    record = LoadedRecord(data)
    record.path = str(path)
    check_record(record)
    return record
