"""docs/shuffle-lab.md: its tables are what the code computes."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spades.shuffle.cli import app
from spades.shuffle.mixing import mixing_table

DOC = Path(__file__).resolve().parents[2] / "docs" / "shuffle-lab.md"


def _rows(name: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- {name}:start -->(.*?)<!-- {name}:end -->", text, re.S)
    assert m, f"table {name} missing from {DOC.name}"
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in m.group(1).strip().splitlines()]
    return rows[2:]  # after the header and the rule


def _bits(x: float) -> str:
    return f"{x:.4f}" if x >= 1e-3 else f"{x:.3g}"


@pytest.mark.parametrize(("name", "cards"), [("mixing-52", 52), ("mixing-104", 104)])
def test_exact_tables(name: str, cards: int) -> None:
    rows = _rows(name)
    passes = [int(r[0]) for r in rows]
    assert passes == list(range(passes[0], passes[-1] + 1))
    if cards == 52:
        assert passes == list(range(1, 13))
    for row, f in zip(rows, mixing_table(cards, range(passes[0], passes[-1] + 1)), strict=True):
        assert row == [str(f.passes), f"{f.tv:.4f}", f"{f.separation:.4f}", _bits(f.bits_left)]


def _simulate_json(command: str) -> dict[str, Any]:
    args = shlex.split(command.strip("`"))
    assert args[:3] == ["spades", "shuffle", "simulate"]
    result = CliRunner().invoke(app, [*args[2:], "--json"])
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    return data


@pytest.mark.slow
def test_simulation_answers() -> None:
    rows = _rows("simulations")
    assert len(rows) >= 4
    for command, answer in rows:
        assert _simulate_json(command)["passes_needed"] == int(answer), command


@pytest.mark.slow
def test_machine_table() -> None:
    data = _simulate_json("spades shuffle simulate --model machine --passes 0-10 --trials 10000 --seed 1")
    figures = [*data["figures"], data["uniform"]]
    rows = _rows("machine-table")
    assert len(rows) == len(figures)
    for row, f in zip(rows, figures, strict=True):
        p = min(f["spades_p"], f["shape_p"], f["pairs_p"])
        label = "perfect" if f["passes"] is None else str(f["passes"])
        assert row == [label, f"{f['spades_tv']:.4f}", f"{f['shape_tv']:.4f}", f"{f['same_trick_pairs']:.4f}",
                       f"{p:.2g}", "yes" if f["uniform_like"] else "no"]
