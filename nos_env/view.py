"""Write a replay of Nos hand records as one static HTML page.

    nos-view RECORD.json -o PAGE.html
    python -m nos_env.view RECORD.json [MORE.json ...] -o PAGE.html [--viewer omniscient|SEAT]

The page needs no server and no network: the steps are embedded as JSON and
drawn as SVG by a small inline script, from the same scene as the
environment's ``rgb_array`` picture (``nos_env/draw/nos.py``). It shows the
table after every decision, every hand (a switch between the omniscient view
and one seat's view, D17), the legal actions at the decision and the one
taken, the payments, and navigation by buttons, a slider and the keyboard
(left/right arrows, Home, End; ``V`` cycles the viewer).

Input: hand records (``nos_env/record.py``; playthrough files are records
too). Several hands, e.g. a session's, are given as several files or one
file holding a JSON list of records; they are shown one after the other.
Every record is replayed and checked (chips, ledger, end) before the page
is written.

The page's address may name a step and a viewer: ``PAGE.html#step=12&view=2``
(``view=omniscient`` for every hand).
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from pathlib import Path

from .draw.base import CHAR_H, CHAR_W, PIP, PIP_CELLS, PIP_GRID, TILE_BACK, TILE_BACK_LINE, TILE_FACE
from .draw.nos import table_scene
from .record import LoadedRecord, RecordError, check_record, replay, start_from_record
from .render import OMNISCIENT, check_viewer
from .view_family import check_family_record, family_hand_steps, is_family_record, record_agents


def load_records(paths: list[str | Path]) -> list[dict]:
    """The hand records in ``paths``, in order: each file holds one record or a JSON list of them."""
    records = []
    for path in paths:
        try:
            data = json.loads(Path(path).read_text())
        except OSError as exc:
            raise RecordError(f"cannot be read: {exc.strerror or exc}", path) from exc
        except json.JSONDecodeError as exc:
            raise RecordError(f"not JSON: {exc}", path) from exc
        items = data if isinstance(data, list) else [data]
        if not items:
            raise RecordError("an empty list: a file holds one hand record or a list of them", path)
        for k, item in enumerate(items):
            record = LoadedRecord(item) if isinstance(item, dict) else item
            if is_family_record(item):
                record.path = f"{path}" + (f" [hand {k}]" if isinstance(data, list) else "")
                check_family_record(record)
                records.append(record)
                continue
            if isinstance(record, LoadedRecord):
                record.path = f"{path}" + (f" [hand {k}]" if isinstance(data, list) else "")
            else:
                raise RecordError(f"hand {k} is a {type(item).__name__}, not a record (a JSON object)", path)
            check_record(record)
            records.append(record)
    return records


def hand_steps(record: dict) -> dict:
    """One hand's replay: its start and every decision, each with the scene after it (a family
    record: ``nos_env/view_family.py``)."""
    if is_family_record(record):
        return family_hand_steps(record)
    replay(record, verify=True)  # a record that does not replay to its own outcome is refused
    hand = start_from_record(record)

    def frame(decision: dict | None, first_event: int) -> dict:
        events = [{"seat": e.seat, "action": e.action, "automatic": e.automatic,
                   "payments": [p.to_list() for p in e.payments]} for e in hand.events[first_event:]]
        return {"decision": decision, "events": events, "chips": list(hand.chips), "phase": hand.phase,
                "to_move": hand.to_move, "scene": table_scene(hand).to_json()["ops"]}

    frames = [frame(None, 0)]  # the start, after any D12 forced decisions
    for text in record["actions"]:
        decision = {"seat": hand.to_move, "legal": hand.legal_action_texts(), "taken": text}
        start = len(hand.events)
        hand.step(text)
        frames.append(frame(decision, start))
    scene = table_scene(hand).to_json()
    return {"kind": "nos", "game": "nos", "score_label": "Chips", "width": scene["width"], "height": scene["height"],
            "background": scene["background"], "num_players": hand.num_players,
            "source": getattr(record, "path", None) or "",
            "announcement": str(hand.announcement) if hand.announcement else None,
            "end_reason": hand.end_reason, "chips_start": list(hand.chips_start), "chips": list(hand.chips),
            "frames": frames, "agents": record_agents(record)}


def page(records: list[dict], viewer: int | str = OMNISCIENT, title: str = "Nos replay", hand: int = 1) -> str:
    """The HTML page replaying ``records`` (checked hand records), opening on ``viewer``'s view at
    the start of record number ``hand`` (counted from 1; the address's ``#step=`` wins)."""
    if not records:
        raise ValueError("no hand records to show")
    if isinstance(hand, bool) or not isinstance(hand, int) or not 1 <= hand <= len(records):
        raise ValueError(f"the hand to open on must be 1..{len(records)} (the records given), got {hand!r}")
    hands = [hand_steps(r) for r in records]
    most = max(h["num_players"] for h in hands)
    try:
        check_viewer(viewer, most)
    except ValueError:
        raise ValueError(f"the viewer must be a seat 0..{most - 1} of these hands or {OMNISCIENT!r}, "
                         f"got {viewer!r}") from None
    data = {
        "title": title, "viewer": viewer, "hands": hands,
        "start": sum(len(h["frames"]) for h in hands[:hand - 1]), "width": hands[0]["width"], "height": hands[0]["height"],
        "background": hands[0]["background"],
        "style": {"char_w": CHAR_W, "char_h": CHAR_H, "pip": PIP, "face": TILE_FACE, "back": TILE_BACK,
                  "back_line": TILE_BACK_LINE, "pip_grid": PIP_GRID,
                  "pip_cells": {str(k): v for k, v in PIP_CELLS.items()}},
    }
    # JSON inside <script>: "</" would end the element, so it is written "<\/" (same JSON).
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return PAGE.replace("__TITLE__", html.escape(title)).replace("__DATA__", payload)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="nos-view", description="Write one static HTML page that replays Nos hand records and family game records.")
    parser.add_argument("records", nargs="+", metavar="RECORD.json",
                        help="hand record files (nos_env/record.py); a file may hold a JSON list of records")
    parser.add_argument("-o", "--output", metavar="PAGE.html",
                        help="the page to write (default: the first record's name with .html, beside it)")
    parser.add_argument("--viewer", default=OMNISCIENT,
                        help=f"the view the page opens on: {OMNISCIENT!r} (default: every hand) or a seat number")
    parser.add_argument("--title", default=None, help="the page's title (default: the record file names)")
    parser.add_argument("--hand", type=int, default=1, metavar="K",
                        help="open the page on the K-th record of the files (counted from 1, as the page's "
                             "'hand K of N'; a tournament's deal file holds one per rotation)")
    parser.add_argument("--open", action="store_true",
                        help="open the written page in the web browser (Python's webbrowser module)")
    args = parser.parse_args(argv)
    viewer = args.viewer if args.viewer == OMNISCIENT else int(args.viewer) if args.viewer.isdigit() else None
    if viewer is None:
        parser.error(f"--viewer must be {OMNISCIENT!r} or a seat number, got {args.viewer!r}")
    output = Path(args.output) if args.output else Path(args.records[0]).with_suffix(".html")
    names = ", ".join(Path(p).name for p in args.records)
    title = args.title or f"Replay: {names}"
    try:
        records = load_records(args.records)
        text = page(records, viewer, title, hand=args.hand)
    except ValueError as exc:  # RecordError, a viewer beyond the table's seats, --hand beyond the records
        print(f"nos-view: error: {exc}", file=sys.stderr)
        return 2
    output.write_text(text, encoding="utf-8")
    steps = sum(len(r["actions"]) for r in records)
    print(f"wrote {output} ({len(records)} hand(s), {steps} decisions, {len(text) // 1024} KB)")
    if args.open:
        import webbrowser

        address = output.resolve().as_uri()
        if not webbrowser.open(address):  # no browser here (a server, ssh): say where the page is
            print(f"nos-view: no web browser found; open {address}")
    return 0


PAGE = r"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title>
<style>
body { margin: 0; background: #20262c; color: #e9ecef; font: 15px/1.4 system-ui, sans-serif; }
header, main { padding: 8px 14px; }
header h1 { font-size: 18px; margin: 0 0 6px; }
.controls { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.controls button { font: inherit; padding: 3px 10px; }
#slider { flex: 1 1 300px; }
main { display: flex; flex-wrap: wrap; gap: 14px; align-items: flex-start; }
#table svg { width: 100%; height: auto; display: block; border-radius: 4px; }
#table { flex: 3 1 700px; max-width: 1400px; }
aside { flex: 1 1 280px; max-width: 460px; }
aside h2 { font-size: 15px; margin: 10px 0 4px; color: #ffd43b; }
ol#legal { margin: 0; padding-left: 24px; font-family: monospace; max-height: 360px; overflow: auto; }
ol#legal li.taken { background: #ffd43b; color: #1f1f1f; font-weight: bold; }
ol#hands { margin: 0; padding-left: 24px; font-family: monospace; max-height: 240px; overflow: auto; }
ol#hands li { cursor: pointer; }
ol#hands li.current { background: #ffd43b; color: #1f1f1f; }
ul { margin: 0; padding-left: 20px; font-family: monospace; }
table.chips { border-collapse: collapse; font-family: monospace; }
table.chips td, table.chips th { padding: 1px 8px; text-align: right; }
.hint { color: #adb5bd; font-size: 13px; }
</style>
</head>
<body>
<header>
<h1 id="title"></h1>
<div class="controls">
<button id="first" title="Home">&laquo; first</button>
<button id="prev" title="left arrow">&#x25C0; back</button>
<button id="next" title="right arrow">forward &#x25B6;</button>
<button id="last" title="End">last &raquo;</button>
<input id="slider" type="range" min="0" value="0" aria-label="step" list="bounds"><datalist id="bounds"></datalist>
<label>view <select id="viewer"></select></label>
</div>
<div id="status"></div>
<div class="hint">Keys: &larr; &rarr; step, Home / End first and last step, V next view.</div>
</header>
<main>
<div id="table"></div>
<aside>
<h2>Decision</h2><div id="decision"></div>
<h2>Legal actions</h2><ol id="legal"></ol><div id="legal-note"></div>
<h2>Applied</h2><ul id="events"></ul>
<h2 id="chips-title">Chips</h2><div id="chips"></div>
<h2>Hands <span class="hint">(seat:points; click to go)</span></h2><ol id="hands"></ol>
</aside>
</main>
<script id="replay-data" type="application/json">__DATA__</script>
<script>
"use strict";
const DATA = JSON.parse(document.getElementById("replay-data").textContent);
const S = DATA.style;
// Every step of every hand, in order: [hand index, step index].
const STEPS = [];
DATA.hands.forEach((h, i) => h.frames.forEach((f, k) => STEPS.push([i, k])));
// Every hand played, in order: a record's one hand, or each hand of a match record
// (its "hands": the frames of each and the points it gave), placed among all steps.
const PARTS = [];
{
  let offset = 0;
  DATA.hands.forEach((h, i) => {
    const last = h.frames.length - 1;
    const parts = h.hands || [{number: 0, first: 0, last: last,
                               points: h.chips.map((c, s) => c - h.chips_start[s])}];
    parts.forEach((p) => {
      const label = parts.length > 1 ? (DATA.hands.length > 1 ? `game ${i + 1}, hand ${p.number + 1}` :
                                        `hand ${p.number + 1} of ${parts.length}`) : `hand ${i + 1}`;
      PARTS.push({record: i, number: p.number, count: parts.length, from: offset + p.first, to: offset + p.last,
                  points: p.points, label: label});
    });
    offset += h.frames.length;
  });
}
function signed(v) { return (v >= 0 ? "+" : "") + v; }
let at = 0;
let viewer = DATA.viewer;  // "omniscient" or a seat number

function esc(text) {
  return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}
function viewLabel() {
  return viewer === "omniscient" ? "view: every hand (omniscient)" : "view: seat " + viewer;
}
function textSvg(x, y, text, scale, colour) {
  const size = 10 * scale, w = text.length * S.char_w * scale;
  return `<text x="${x}" y="${y + 8.6 * scale}" font-family="monospace" font-size="${size}" fill="${colour}"` +
    (text.length ? ` textLength="${w}" lengthAdjust="spacingAndGlyphs"` : "") +
    ` xml:space="preserve">${esc(text)}</text>`;
}
function rectSvg(x0, y0, x1, y1, fill, outline, width) {
  const w = outline ? width : 0;
  return `<rect x="${x0 + w / 2}" y="${y0 + w / 2}" width="${x1 - x0 + 1 - w}" height="${y1 - y0 + 1 - w}"` +
    ` fill="${fill || "none"}"` + (outline ? ` stroke="${outline}" stroke-width="${width}"` : "") + "/>";
}
function tileSvg(op) {
  const [, x0, y0, x1, y1, first, second, outline, width, owner] = op;
  const visible = owner === -1 || viewer === "omniscient" || owner === viewer;
  if (!visible) {
    const inset = Math.max(2, Math.floor(Math.min(x1 - x0, y1 - y0) / 4));
    return rectSvg(x0, y0, x1, y1, S.back, outline, width) +
      rectSvg(x0 + inset, y0 + inset, x1 - inset, y1 - inset, null, S.back_line, 1);
  }
  let out = rectSvg(x0, y0, x1, y1, S.face, outline, width);
  const across = (x1 - x0) >= (y1 - y0), side = Math.min(x1 - x0, y1 - y0);
  let halves;
  if (across) {
    const mid = Math.floor((x0 + x1) / 2);
    out += `<line x1="${mid + 0.5}" y1="${y0 + 3}" x2="${mid + 0.5}" y2="${y1 - 3}" stroke="${S.pip}"/>`;
    halves = [[x0, y0, first], [mid, y0, second]];
  } else {
    const mid = Math.floor((y0 + y1) / 2);
    out += `<line x1="${x0 + 3}" y1="${mid + 0.5}" x2="${x1 - 3}" y2="${mid + 0.5}" stroke="${S.pip}"/>`;
    halves = [[x0, y0, first], [x0, mid, second]];
  }
  const r = Math.max(1, Math.round(side * 0.1));
  for (const [hx, hy, n] of halves) {
    const cells = S.pip_cells[String(n)];
    if (cells) {
      for (const [c, rr] of cells) {
        out += `<circle class="pip" cx="${hx + Math.round(S.pip_grid[c] * side) + 0.5}"` +
          ` cy="${hy + Math.round(S.pip_grid[rr] * side) + 0.5}" r="${r + 0.5}" fill="${S.pip}"/>`;
      }
    } else {
      out += textSvg(hx + (side - String(n).length * S.char_w) / 2, hy + (side - S.char_h) / 2, String(n), 1, S.pip);
    }
  }
  return out;
}
function sceneSvg(ops, hand) {
  let out = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${hand.width} ${hand.height}"` +
    ` role="img" aria-label="the table">` + `<rect width="100%" height="100%" fill="${hand.background}"/>`;
  for (const op of ops) {
    if (op[0] === "rect") out += rectSvg(op[1], op[2], op[3], op[4], op[5], op[6], op[7]);
    else if (op[0] === "text") out += textSvg(op[1], op[2], op[3], op[4], op[5]);
    else if (op[0] === "tile") out += tileSvg(op);
    else if (op[0] === "view") out += textSvg(op[1], op[2], viewLabel(), op[3], op[4]);
  }
  return out + "</svg>";
}
function payText(p) {
  return `seat ${p[0]} pays seat ${p[1]} ${p[2]} (${p[3]})`;
}
function show() {
  const [h, k] = STEPS[at];
  const hand = DATA.hands[h], f = hand.frames[k], n = hand.num_players;
  if (viewer !== "omniscient" && viewer >= n) viewer = "omniscient";
  document.getElementById("table").innerHTML = sceneSvg(f.scene, hand);
  const part = PARTS.find((p) => p.from <= at && at <= p.to);
  // A record is a hand, or (a family match) a game of several hands.
  const where = DATA.hands.length > 1 ?
    `${part.count > 1 ? "game" : "hand"} ${h + 1} of ${DATA.hands.length}, ` : "";
  const game = hand.kind === "family" ? `${hand.game}, ` : "";
  const inMatch = part.count > 1 ? `match hand ${part.number + 1} of ${part.count}, ` : "";
  // Decisions are counted, not frames: a match's page has a frame of each new deal too.
  const decisions = hand.frames.filter((x) => x.decision).length;
  const done = hand.frames.slice(0, k + 1).filter((x) => x.decision).length;
  const stepText = f.decision ? `decision ${done} of ${decisions}` : (k === 0 ? "the start" : "the deal");
  document.getElementById("status").textContent =
    `${where}${game}${inMatch}${stepText} | phase ${f.phase} | ` +
    (f.to_move === null ? (hand.kind === "family" && f.phase !== "over" ? "hand over, the next is dealt" :
                           `hand over (${hand.end_reason})`) : `seat ${f.to_move} to move`) + ` | ${viewLabel()}`;
  const d = f.decision;
  document.getElementById("decision").textContent =
    d ? `seat ${d.seat} chose: ${d.taken}` : "the deal, before the first decision";
  const legal = document.getElementById("legal"), note = document.getElementById("legal-note");
  legal.innerHTML = "";
  note.textContent = "";
  if (d && (viewer === "omniscient" || viewer === d.seat || hand.public_legal)) {
    for (const text of d.legal) {
      const li = document.createElement("li");
      li.textContent = text;
      if (text === d.taken) li.className = "taken";
      legal.appendChild(li);
    }
  } else if (d) {
    const count = d.legal.length === 1 ? "1 legal action" : `${d.legal.length} legal actions`;
    note.textContent = `${count}, hidden in seat ${viewer}'s view (they would show seat ${d.seat}'s tiles)`;
  }
  const events = document.getElementById("events");
  events.innerHTML = "";
  for (const e of f.events) {
    const li = document.createElement("li");
    li.textContent = (e.seat === null ? "" : `seat ${e.seat}: `) + e.action + (e.automatic ? " (automatic)" : "") +
      (e.note ? `   [${e.note}]` : "");
    if (e.payments.length) {
      const ul = document.createElement("ul");
      for (const p of e.payments) {
        const pi = document.createElement("li");
        pi.className = "payment";
        pi.textContent = payText(p);
        ul.appendChild(pi);
      }
      li.appendChild(ul);
    }
    events.appendChild(li);
  }
  const label = hand.score_label || "Chips";
  document.getElementById("chips-title").textContent = label;
  const agents = hand.agents || null;
  let rows = `<table class="chips"><tr><th>seat</th>${agents ? "<th>agent</th>" : ""}<th>${label.toLowerCase()}</th>` +
    `<th>${hand.kind === "family" ? "this game" : "this hand"}</th></tr>`;
  f.chips.forEach((c, s) => {
    const net = c - hand.chips_start[s];
    rows += `<tr><td>${s}</td>${agents ? `<td>${esc(agents[s])}</td>` : ""}<td>${c}</td><td>${signed(net)}</td></tr>`;
  });
  document.getElementById("chips").innerHTML = rows + "</table>";
  document.querySelectorAll("ol#hands li").forEach((li, j) => {
    li.className = PARTS[j] === part ? "current" : "";
  });
  const slider = document.getElementById("slider");
  slider.value = at;
  const select = document.getElementById("viewer");
  select.innerHTML = "";
  for (const v of ["omniscient"].concat([...Array(n).keys()])) {
    const o = document.createElement("option");
    o.value = String(v);
    o.textContent = v === "omniscient" ? "every hand (omniscient)" : `seat ${v}`;
    o.selected = v === viewer;
    select.appendChild(o);
  }
  history.replaceState(null, "", `#step=${at}&view=${viewer}`);
}
function go(to) {
  at = Math.max(0, Math.min(STEPS.length - 1, to));
  show();
}
function cycleViewer() {
  const n = DATA.hands[STEPS[at][0]].num_players;
  viewer = viewer === "omniscient" ? 0 : (viewer + 1 < n ? viewer + 1 : "omniscient");
  show();
}
document.getElementById("title").textContent = DATA.title;
document.getElementById("slider").max = STEPS.length - 1;
{
  const list = document.getElementById("hands"), bounds = document.getElementById("bounds");
  PARTS.forEach((p) => {
    const li = document.createElement("li");
    li.textContent = `${p.label}: ` + p.points.map((v, s) => `${s}:${signed(v)}`).join(" ");
    li.title = `steps ${p.from}..${p.to}; click to go to its start`;
    li.onclick = () => go(p.from);
    list.appendChild(li);
    const o = document.createElement("option");
    o.value = String(p.from);
    bounds.appendChild(o);
  });
}
document.getElementById("first").onclick = () => go(0);
document.getElementById("prev").onclick = () => go(at - 1);
document.getElementById("next").onclick = () => go(at + 1);
document.getElementById("last").onclick = () => go(STEPS.length - 1);
document.getElementById("slider").oninput = (e) => go(Number(e.target.value));
document.getElementById("viewer").onchange = (e) => {
  viewer = e.target.value === "omniscient" ? "omniscient" : Number(e.target.value);
  show();
};
document.addEventListener("keydown", (e) => {
  if (e.target && e.target.tagName === "SELECT") return;
  const keys = {ArrowRight: () => go(at + 1), ArrowLeft: () => go(at - 1), Home: () => go(0),
                End: () => go(STEPS.length - 1), v: cycleViewer, V: cycleViewer};
  if (keys[e.key]) { keys[e.key](); e.preventDefault(); }
});
// The address may name a step and a view: #step=12&view=2
const wanted = new URLSearchParams(location.hash.slice(1));
if (wanted.has("view")) {
  const v = wanted.get("view");
  viewer = /^[0-9]$/.test(v) ? Number(v) : "omniscient";  // show() falls back to omniscient past the seats
}
go(wanted.has("step") ? Number(wanted.get("step")) || 0 : DATA.start || 0);
</script>
</body>
</html>
"""


if __name__ == "__main__":
    sys.exit(main())
