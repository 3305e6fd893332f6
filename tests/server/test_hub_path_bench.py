"""``benchmarks/hub_path.py`` runs the hub's own path and reports a figure it measured."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_tools import load_benchmark

pytestmark = pytest.mark.slow  # plays tables through a benchmark's own simulation (1.7-1.8 s a run)

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("database", "think", "least"), [("memory", 0.0, 100), ("sqlite", 0.02, 20)])
def test_the_hub_path_bench_plays_tables_and_reports_the_cpu_per_event(database: str, think: float,
                                                                       least: int) -> None:
    bench = load_benchmark("hub_path.py")
    got = bench._run(str(ROOT / "src"), 4, 0.5, database, think)
    # Four tables played for half a second (at once, or with people thinking 10-30 ms a move): many events
    # and no refused message, each event costing the loop some CPU and the process at least as much, and
    # the simulated people's own share taken off (measured, so above zero too).
    assert got["events"] > least and got["errors"] == 0, got
    assert 0 < got["us_per_event"] <= got["process_us_per_event"] < 100_000, got
    assert got["driver_us_per_event"] > 0, got
