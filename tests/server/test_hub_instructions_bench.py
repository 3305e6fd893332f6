"""``benchmarks/hub_instructions.py`` plays the same games in every run (what makes two checkouts' counts
comparable), without a refused move. (The count itself needs valgrind, which the tests do not install.)"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bench_tools import load_benchmark

pytestmark = pytest.mark.slow  # plays tables through a benchmark's own simulation (1.7-1.8 s a run)

ROOT = Path(__file__).resolve().parents[2]


def _play(events: int) -> dict[str, object]:
    bench = load_benchmark("hub_instructions.py")
    out = subprocess.run([sys.executable, "-c", bench.ONE_RUN, str(events), "4"], env=bench.run_env(str(ROOT / "src")),
                         check=True,
                         capture_output=True, text=True, timeout=120).stdout
    got: dict[str, object] = json.loads(out.strip().splitlines()[-1])
    return got


def test_every_run_plays_the_same_games_to_the_events_asked() -> None:
    first, second = _play(120), _play(120)
    assert first["refused"] == 0 and isinstance(first["events"], int) and first["events"] >= 120, first
    assert first["games"] == second["games"], (first, second)
