"""The repository stands alone: ``docs/rules.md`` and ``docs/record.md`` match the code they describe (every
option and preset, with its values, meaning and options; the record's keys and a record that replays), and
every link in the README and the docs points to a file inside the repository."""

from __future__ import annotations

import json
import re
from pathlib import Path

from spades.core.presets import PRESETS
from spades.core.record import ACTION_KEYS, FORMAT, read_record
from spades.core.rules import OPTIONS

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"


def table_rows(text: str, heading: str) -> list[list[str]]:
    """The body rows of the first table after ``heading``, as cells."""
    section = text.split(heading, 1)[1]
    rows: list[list[str]] = []
    started = False
    for line in section.splitlines():
        if line.startswith("|"):
            started = True
            cells = [c.strip() for c in line.strip().strip("|").split(" | ")]
            if not set("".join(cells)) <= set("-| "):
                rows.append(cells)
        elif started:
            break
    return rows[1:]  # (the header)


def test_rules_md_names_every_option_with_its_values_and_meaning() -> None:
    rows = table_rows((DOCS / "rules.md").read_text(encoding="utf-8"), "## Every house rule")
    assert [r[0] for r in rows] == [f"`{name}`" for name in OPTIONS]
    for name, values, meaning in rows:
        option = OPTIONS[name.strip("`")]
        assert (values, meaning) == (option.values, option.meaning), name


def test_rules_md_gives_every_preset_its_options() -> None:
    rows = table_rows((DOCS / "rules.md").read_text(encoding="utf-8"), "## Presets")
    assert [r[0] for r in rows] == [f"`{name}`" for name in PRESETS]
    for name, options, description in rows:
        preset = PRESETS[name.strip("`")]
        assert json.loads(options.strip("`")) == dict(preset.options), name
        assert description == preset.description, name


def test_record_md_example_replays_and_names_every_key() -> None:
    text = (DOCS / "record.md").read_text(encoding="utf-8")
    assert f"`\"{FORMAT}\"`" in text
    example = re.search(r"```json\n(.*?)\n```", text, re.S)
    assert example is not None
    game = read_record(example.group(1))
    assert len(game.hands) == 1 and len(game.hand.actions) == 10
    for key in (*ACTION_KEYS, "rules", "players", "hands", "dealer", "deal", "out", "stock", "actions", "time_up",
                "commitment", "seed", "client_seeds"):
        assert f"`{key}`" in text, key


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)[^)]*\)|<(https?://[^>]+)>")


def markdown_files() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md")), *sorted((ROOT / "benchmarks").glob("*.md")),
            *sorted((ROOT / "src").rglob("*.md"))]


def test_every_link_stays_inside_the_repository() -> None:
    checked = 0
    for md in markdown_files():
        for m in LINK.finditer(md.read_text(encoding="utf-8")):
            target = m.group(1) or m.group(2)
            where = f"{md.relative_to(ROOT)}: {target}"
            if re.match(r"https?://(127\.0\.0\.1|localhost)[:/]", target):
                continue  # the app this repository runs, on the reader's own machine
            assert not re.match(r"[a-z][a-z0-9+.-]*:", target), f"{where} points outside the repository"
            path = target.split("#", 1)[0]
            if not path:
                continue  # an anchor on the same page
            assert not path.startswith("/"), f"{where}: write links relative to the file"
            resolved = (md.parent / path).resolve()
            assert resolved.is_relative_to(ROOT), f"{where} points outside the repository"
            assert resolved.exists(), f"{where} does not exist"
            checked += 1
    assert checked >= 10
