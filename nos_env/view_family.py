"""The replay page's steps for a family record (issue 17): ``nos-view`` on any family game.

A family record (``nos_env/family/record.py``: game, num_players, options, seed or deal,
actions, scores; Blind's ``BlindGame.record()``: game, options, seed, stream_state,
actions) is replayed decision by decision on the reference engine. Each step holds the table
after the decision as the family picture's scene (``nos_env/draw/family.py``, the one
``render_mode="rgb_array"`` paints: tiles carry their owner so the page hides what a viewer
may not see), the legal actions at the decision in the family grammar, the one taken, the
points it scored and the scores. ``nos_env/view.py`` writes them into the same page as Nos
hands.
"""

from __future__ import annotations

from .family_env import FAMILY_GAMES
from .record import RecordError


def is_family_record(item: object) -> bool:
    """Whether ``item`` claims to be a family record (its ``game`` names a family game)."""
    return isinstance(item, dict) and item.get("game") in FAMILY_GAMES


def _start(record: dict):
    """The game of ``record`` before its first decision (ValueError for a bad record)."""
    from .family.record import replay_any

    # extra keys, such as a tournament's "tournament" facts, are for people and other tools
    return replay_any(dict(record, actions=[]))


def check_family_record(record: dict) -> None:
    """Raise :class:`RecordError` unless ``record`` has the keys a family record needs."""
    path = getattr(record, "path", None)
    missing = [k for k in ("game", "options", "actions") if k not in record]
    if missing:
        raise RecordError(f"missing key(s) {missing}; a family record needs game, num_players, options, "
                          "seed (or deal) and actions", path)
    if not isinstance(record["actions"], list) or not all(
            isinstance(a, int) and not isinstance(a, bool) for a in record["actions"]):
        raise RecordError("'actions' of a family record must be a list of action indices (integers)", path)


def _winner_text(game) -> str:
    w = game.winner
    if w is None:
        return "no winner"
    seats = [int(s) for s in w] if isinstance(w, (list, tuple)) else [int(w)]
    return "winner: seat" + ("s " if len(seats) > 1 else " ") + ", ".join(map(str, seats))


def family_hand_steps(record: dict) -> dict:
    """One family game's replay for the page: its start and every decision with the scene after it.
    A record whose actions are not legal, or whose final scores differ from its own, is refused."""
    from .draw.family import table_scene
    from .family_backends import encoding_module
    from .family_view import finished_hand_view, table_view

    path = getattr(record, "path", None)
    check_family_record(record)
    name = record["game"]
    try:
        game = _start(record)
    except (ValueError, TypeError, KeyError) as exc:
        raise RecordError(f"not a valid {name} record: {exc}", path) from exc
    encoding = encoding_module(name)
    rules = game.rules
    blind = name == "blind"
    told = 0  # Blind: events already listed (turn-ups and forced plays are its own events)

    def events_since(decision: dict | None, points: list[int]) -> list[dict]:
        nonlocal told
        note = ", ".join(f"seat {s} {p:+d}" for s, p in enumerate(points) if p)
        if blind:
            lines = game.describe_events()
            out = [{"seat": None, "action": line, "automatic": False, "payments": [], "note": ""}
                   for line in lines[told:]]
            told = len(lines)
            if out and note:
                out[-1]["note"] = note
            return out
        if decision is None:
            return []
        return [{"seat": decision["seat"], "action": decision["taken"], "automatic": False, "payments": [],
                 "note": note}]

    def frame(decision: dict | None, points: list[int], ended: bool = False) -> dict:
        """The table after ``decision``; ``ended``: the decision ended a hand of a match and the
        next was dealt in the same step, so the frame shows the hand that ended (finished_hand_view)
        and a frame of the new deal follows."""
        view = finished_hand_view(game, name) if ended else table_view(game, name)
        scene = table_scene(view).to_json()
        done = bool(game.done)
        number = view.hand_number
        return {"decision": decision, "events": events_since(decision, points), "points": points,
                "chips": [int(s) for s in game.scores], "hand": number,
                "phase": "over" if done else f"hand {number + 1}" + (" over" if ended else ""),
                "to_move": None if done or ended else int(game.to_move), "scene": scene["ops"]}

    start_scores = [int(s) for s in game.scores]
    frames = [frame(None, [0] * rules.num_players)]
    finished = len(getattr(game, "finished_hands", ()))
    for i, action in enumerate(record["actions"]):
        legal = [int(a) for a in game.legal_actions()]
        if action not in legal:
            raise RecordError(f"decision {i}: action {action} is not legal; legal: {legal}", path, i)
        decision = {"seat": int(game.to_move), "legal": [encoding.describe(a, rules) for a in legal],
                    "taken": encoding.describe(action, rules)}
        points = [int(p) for p in game.step(action)]
        # A match (FamilyGame) deals its next hand in the step that ends one: show the end, then the deal.
        ended = not blind and not game.done and len(game.finished_hands) > finished
        finished = len(getattr(game, "finished_hands", ()))
        frames.append(frame(decision, points, ended))
        if ended:
            deal = frame(None, [0] * rules.num_players)
            deal["events"] = [{"seat": None, "action": f"hand {int(game.hand_number) + 1} dealt", "automatic": True,
                               "payments": [], "note": ""}]
            frames.append(deal)
    final = [int(s) for s in game.scores]
    if "scores" in record and list(record["scores"]) != final:
        raise RecordError(f"the record says the scores are {record['scores']}, its actions give {final}", path)
    if "done" in record and bool(record["done"]) != bool(game.done):
        raise RecordError(f"the record says done={record['done']}, its actions give done={game.done}", path)
    sample = table_scene(table_view(game, name)).to_json()
    # The hands of the record, for the page's hand list: the frames of each, and the points it gave
    # (the scores' change from its deal to its end; a next hand's scoring forced set is counted with
    # the step that dealt it, as the engine reports it: contract, engines 6).
    hands = []
    for k, f in enumerate(frames):
        if not hands or hands[-1]["number"] != f["hand"]:
            hands.append({"number": f["hand"], "first": k, "last": k, "chips_start": frames[k - 1]["chips"] if k else start_scores})
        hands[-1]["last"] = k
    for h in hands:
        h["points"] = [int(a) - int(b) for a, b in zip(frames[h["last"]]["chips"], h["chips_start"])]
        del h["chips_start"]
    return {"kind": "family", "game": name, "num_players": int(rules.num_players),
            "source": path or "", "announcement": None,
            "end_reason": _winner_text(game) if game.done else "unfinished", "chips_start": start_scores,
            "chips": final, "score_label": "Scores", "width": sample["width"], "height": sample["height"],
            "background": sample["background"], "frames": frames, "hands": hands,
            # Blind's choices name only the tile just turned up, which every seat saw (BD3): a seat's
            # view may show them. Elsewhere they would show the decider's tiles.
            "public_legal": blind,
            "agents": record_agents(record)}


def record_agents(record: dict) -> list[str] | None:
    """The agent at each seat, when a tournament wrote the record (its "tournament" facts)."""
    facts = record.get("tournament")
    agents = facts.get("agents") if isinstance(facts, dict) else None
    return [str(a) for a in agents] if isinstance(agents, list) else None
