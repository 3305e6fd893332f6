"""benchmarks/ab.py: with fixed search sizes a run is deterministic, which is what makes its A/B pairs tight."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from bench_tools import load_benchmark


def load_ab() -> ModuleType:
    return load_benchmark("ab.py")


def test_fixed_sizes_make_a_table_repeat_exactly(monkeypatch: pytest.MonkeyPatch) -> None:
    ab = load_ab()
    ab.fix_sizes(4, 8, 30, patch=monkeypatch.setattr)
    first = ab.one_table(7, True)
    again = ab.one_table(7, True)
    assert first == again
    assert first["decisions"] and sum(first["tricks"]) == 13
    # The expert and the baseline both searched (their reasons say so) and nothing waited on a clock.
    reasons = " ".join(r for _, _, r in first["decisions"])
    assert "ISMCTS, " in reasons
    swapped = ab.one_table(7, False)
    assert swapped["expert_even"] is False and swapped["tricks"] != [] and sum(swapped["tricks"]) == 13


def test_compare_pairs_two_runs_deal_by_deal(tmp_path: Path, capsys: Any) -> None:
    ab = load_ab()
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps({"deal": i, "diff": d}) + "\n" for i, d in enumerate([10, -20, 30])))
    b.write_text("".join(json.dumps({"deal": i, "diff": d}) + "\n" for i, d in enumerate([12, -18, 32, 99])))
    ab.compare(type("Args", (), {"a": str(a), "b": str(b)})())
    out = capsys.readouterr().out
    assert "paired over 3 deals: +2.00 +-0.00" in out


def test_a_bad_variant_says_what_is_wrong(tmp_path: Path) -> None:
    ab = load_ab()
    ideas = tmp_path / "ideas.py"
    ideas.write_text("CALLED = []\n\ndef idea():\n    CALLED.append(1)\n")
    for spec, said in [("ideas.py", "FILE.py:FUNCTION"), (f"{tmp_path}/nope.py:idea", "no file"),
                       (f"{ideas}:other", "has no function other"), (f"{ideas}:CALLED", "has no function CALLED")]:
        with pytest.raises(SystemExit, match=said):
            ab.load_variant(spec)
    ab.load_variant(f"{ideas}:idea")  # a good one runs
