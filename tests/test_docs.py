"""The docs hold: the Python examples run as written, the rules page carries every decision, citations and links resolve."""

import re
from pathlib import Path

import pytest

from conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "docs" / "scripting.md", ROOT / "docs" / "agents.md", ROOT / "docs" / "family.md"]


def python_blocks(path):
    return re.findall(r"```python\n(.*?)```", path.read_text(), flags=re.S)


@pytest.mark.parametrize("path", DOCS, ids=[p.name for p in DOCS])
def test_python_examples_run(path):
    blocks = python_blocks(path)
    assert blocks, f"no python examples in {path.name}"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(path), "exec"), namespace)  # examples share names, like a reader's session


def test_readme_gives_exactly_the_two_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    commands = [c.strip() for c in re.findall(r"```sh\n(.*?)\n\s*```", readme, flags=re.S)]
    assert len(commands) == 2
    assert "-m train --config configs/quick.yaml" in commands[0] and "pytest" in commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert commands[1] in ci


# ------------------------------------------------------------------ the scoring games' rules pages
#: The game pages written from the booklet's and block-and-draw's scoring games, with the prefix
#: of their decisions (MA1, AF1, ...). A fixed table, so a missing page fails instead of shrinking.
SCORING_GAME_PAGES = {"matador": "MA", "all_fives": "AF", "fives_and_threes": "FT", "five_up": "FU", "bergen": "BE",
                      "fours": "FO"}
#: The rows these pages' summary tables carry (first column), in this order; others may sit between.
SCORING_SUMMARY_ROWS = ("players", "set", "hand size", "layout", "matching", "opening", "drawing",
                        "scoring during play", "end of a hand", "end award", "match", "default options")


def test_rules_pages_matador_all_fives_fives_and_threes_five_up_bergen_fours():
    rules = ROOT / "docs" / "rules"
    owned = {}
    for game, prefix in SCORING_GAME_PAGES.items():
        text = (rules / f"{game}.md").read_text()
        assert text.startswith("# ") and f"(`{game}`)" in text.splitlines()[0], f"{game}.md: title names no game id"
        # The summary table: the "## Summary" section's table, its rows named as above.
        summary = re.search(r"^## Summary\n(.*?)(?=^## )", text, flags=re.M | re.S)
        assert summary, f"{game}.md has no '## Summary' section"
        rows = re.findall(r"^\| ([^|]+?) \|", summary.group(1), flags=re.M)
        assert tuple(r for r in rows if r in SCORING_SUMMARY_ROWS) == SCORING_SUMMARY_ROWS, (game, rows)
        # Decisions: one "### AF1. Title" heading each, numbered 1..n without gaps, each with its
        # question, texts, decision and reason, and listed in that order in the table at the end.
        sections = re.split(r"^(?=#{2,3} )", text, flags=re.M)
        numbers = []
        for section in sections:
            m = re.match(rf"### {prefix}(\d+)\. ", section)
            if m:
                numbers.append(int(m.group(1)))
                for part in ("**Question.**", "**Texts.**", "**Decision.**", "**Why.**"):
                    assert part in section, f"{game}.md: {prefix}{m.group(1)} lacks {part}"
        assert numbers and numbers == list(range(1, len(numbers) + 1)), (game, numbers)
        glance = [int(n) for n in re.findall(rf"^\| {prefix}(\d+) \|", text, flags=re.M)]
        assert glance == numbers, f"{game}.md: the decisions-at-a-glance table lists {glance}"
        owned[prefix] = set(numbers)
    # Every citation of these prefixes, on any rules page or tracked file, names an existing decision.
    files = set(tracked_text_files()) | set(rules.glob("*.md"))
    unknown = [f"{path.relative_to(ROOT)}:{number}: {p}{n}"
               for path in sorted(files) if path.exists()
               for number, line in enumerate(path.read_text().splitlines(), 1)
               for p, n in re.findall(r"\b(" + "|".join(owned) + r")(\d+)\b", line)
               if int(n) not in owned[p]]
    assert not unknown, f"decisions cited but not on their game's page: {unknown}"


# ------------------------------------------------------------------ the rules page and citations
RULES_PAGE = ROOT / "docs" / "rules" / "nos.md"
DECISIONS = range(1, 26)  # D1..D25


def tracked_text_files():
    """The repository's own text files (code, tests, docs, configs, data), as git lists them."""
    import subprocess

    names = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    return [ROOT / n for n in names if n.endswith((".py", ".md", ".yaml", ".yml", ".toml", ".txt", ".json"))]


def test_the_rules_page_keeps_sections_1_to_13_in_order():
    headings = re.findall(r"^## §(\d+) ", RULES_PAGE.read_text(), flags=re.M)
    assert headings == [str(n) for n in range(1, 14)]


def test_every_decision_has_exactly_one_entry_of_its_own_on_the_rules_page():
    text = RULES_PAGE.read_text()
    entries = [int(n) for n in re.findall(r"^- \*\*D(\d+)\. ", text, flags=re.M)]
    assert sorted(entries) == list(DECISIONS), entries
    index = [int(n) for n in re.findall(r"^\| D(\d+) \|", text, flags=re.M)]
    assert index == list(DECISIONS), index  # the "decisions at a glance" table, in order


def test_every_cited_decision_exists_on_the_rules_page():
    defined = {int(n) for n in re.findall(r"^- \*\*D(\d+)\. ", RULES_PAGE.read_text(), flags=re.M)}
    unknown = []
    for path in tracked_text_files():
        for number, line in enumerate(path.read_text().splitlines(), 1):
            if "noqa" in line:  # pydocstyle codes (D212, D415) are not decisions
                continue
            unknown += [f"{path.relative_to(ROOT)}:{number}: D{d}" for d in re.findall(r"\bD(\d+)\b", line)
                        if int(d) not in defined]
    assert not unknown, f"decisions cited but not on docs/rules/nos.md: {unknown}"


def test_the_repository_cites_its_own_rules_page_not_the_shared_specification():
    # Only the rules page (its provenance) and the vector-copy comparison may name the shared
    # text; the vector files themselves are verbatim copies (their "source" field says RULES.md).
    allowed = {RULES_PAGE, ROOT / "tests" / "test_vector_files.py", Path(__file__).resolve()}
    outside = [f"{path.relative_to(ROOT)}:{number}"
               for path in tracked_text_files()
               if path not in allowed and not (path.parent == ROOT / "tests" / "data" / "vectors" and path.suffix == ".json")
               for number, line in enumerate(path.read_text().splitlines(), 1)
               if re.search(r"RULES\.md|/work/shared|\.\./shared\b|shared specification", line)]
    assert not outside, f"cite docs/rules/nos.md (or tests/data/vectors) instead: {outside}"


def test_relative_links_in_the_markdown_files_resolve():
    broken = []
    for path in tracked_text_files():
        if path.suffix != ".md":
            continue
        prose = re.sub(r"```.*?```", "", path.read_text(), flags=re.S)  # code, e.g. players[agent](env), is no link
        for target in re.findall(r"\]\(([^)\s]+)\)", prose):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue  # web addresses and in-page anchors
            if not (path.parent / target.split("#")[0]).exists():
                broken.append(f"{path.relative_to(ROOT)}: {target}")
    assert not broken, f"links to missing files: {broken}"


# ------------------------------------------------------------------ the domino family's rules pages
RULES_DIR = ROOT / "docs" / "rules"
#: decision prefix -> the page that owns it (family.md and the game pages of helper rules1)
FAMILY_PAGES_RULES1 = {"F": "family", "BL": "block", "DR": "draw", "CR": "cross",
                       "DN": "double_nine_cross", "BD": "blind", "CK": "chickenfoot",
                       "MT": "mexican_train"}
#: the rows every game page's summary table opens with, in this order
SUMMARY_ROWS = ("players", "set", "hand size", "layout", "matching", "drawing", "scoring", "end", "default options")


def summary_rows(text):
    """The first cells of the table under the page's "## Summary" heading, lower-cased, bold removed."""
    section = re.search(r"^## Summary\n(.*?)(?=^## )", text, flags=re.S | re.M)
    assert section, "no '## Summary' section"
    return [row.split("|")[1].strip().strip("*").lower()
            for row in section.group(1).splitlines() if row.startswith("|") and not row.startswith("|---")]


def test_rules_pages_family_block_draw_cross_double_nine_cross_blind():
    pages = {prefix: RULES_DIR / f"{name}.md" for prefix, name in FAMILY_PAGES_RULES1.items()}
    missing = [p.name for p in pages.values() if not p.exists()]
    assert not missing, f"rules pages missing: {missing}"
    for prefix, page in pages.items():
        text = page.read_text()
        # each decision is one "### F1. Title" heading, numbered 1..N without gaps or repeats
        numbers = [int(n) for n in re.findall(rf"^### {prefix}(\d+)\. ", text, flags=re.M)]
        assert numbers == list(range(1, len(numbers) + 1)), f"{page.name}: decisions {prefix}{numbers}"
        table = [int(n) for n in re.findall(rf"^\| {prefix}(\d+) \|", text, flags=re.M)]
        assert table == numbers, f"{page.name}: the decisions-at-a-glance table lists {prefix}{table}"
        if prefix != "F":
            rows = summary_rows(text)
            absent = [key for key in SUMMARY_ROWS if not any(r.startswith(key) for r in rows)]
            assert not absent, f"{page.name}: the summary table lacks the rows {absent} (has {rows})"
    # every citation of these decisions, on any rules page, names one that exists
    defined = {prefix: set(re.findall(rf"^### {prefix}(\d+)\. ", page.read_text(), flags=re.M))
               for prefix, page in pages.items()}
    unknown = []
    for path in sorted(RULES_DIR.glob("*.md")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            for prefix, n in re.findall(r"\b(F|BL|DR|CR|DN|BD|CK|MT)(\d+)\b", line):
                if n not in defined[prefix]:
                    unknown.append(f"{path.name}:{number}: {prefix}{n}")
    assert not unknown, f"decisions cited but not on their page: {unknown}"
