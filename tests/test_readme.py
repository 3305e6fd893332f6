"""The README's examples work as written: its Python blocks run, its score-sheet JSON scores, its preset
table names every preset, and the conflict message it quotes is the one the engine gives."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spades.cli import app
from spades.core import RulesError
from spades.variants import PRESETS, load_rules, parse_overrides

README = Path(__file__).resolve().parent.parent / "README.md"
TEXT = README.read_text(encoding="utf-8") if README.exists() else ""
pytestmark = pytest.mark.skipif(not TEXT, reason="no README.md")


def blocks(lang: str) -> list[str]:
    return re.findall(rf"```{lang}\n(.*?)```", TEXT, flags=re.S)


@pytest.mark.parametrize("code", blocks("python") or [""], ids=lambda c: c.splitlines()[0] if c else "none")
def test_python_blocks_run(code: str) -> None:
    exec(compile(code, str(README), "exec"), {"__name__": "readme"})


def test_score_json_example_scores(tmp_path: Path) -> None:
    (doc,) = [json.loads(b) for b in blocks("json") if '"hands"' in b]
    path = tmp_path / "tonight.json"
    path.write_text(json.dumps(doc))
    result = CliRunner().invoke(app, ["score", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["hands"][0]["sides"][0] | {"lines": None} == {"points": 53, "total": 53, "bags": 3, "lines": None}


def test_every_preset_is_in_the_readme_table() -> None:
    for name in PRESETS:
        assert f"| `{name}` |" in TEXT


def test_the_quoted_conflict_message() -> None:
    m = re.search(r"`--rules (\S+) --set (\w+)=(\w+)` gives\s+`([^`]+)`", TEXT)
    assert m is not None
    preset, option, value, message = m.groups()
    with pytest.raises(RulesError) as err:
        load_rules({"preset": preset, option: json.loads(value)})
    assert str(err.value) == message


def test_the_rules_examples_load() -> None:
    for spec in re.findall(r"--rules '(\{.*?\})'", TEXT):
        load_rules(spec)
    for preset, sets in re.findall(r"spades \w+ (?:\S+ )?--rules (\w[\w-]*)((?: --set \S+)*)", TEXT):
        overrides = parse_overrides(re.findall(r"--set (\S+)", sets))  # as the command reads them
        load_rules({"preset": preset, **overrides})
