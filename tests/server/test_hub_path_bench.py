"""``benchmarks/hub_path.py`` runs the hub's own path and reports a figure it measured."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_hub_path_bench_plays_tables_and_reports_the_loops_cpu_per_event() -> None:
    spec = importlib.util.spec_from_file_location("bench_hub_path", ROOT / "benchmarks" / "hub_path.py")
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    got = bench._run(str(ROOT / "src"), 4, 0.5)
    # Four tables played flat out for half a second: hundreds of events, each costing the loop some CPU,
    # and the simulated people's own share taken off (measured, so above zero too).
    assert got["events"] > 100 and got["errors"] == 0, got
    assert 0 < got["us_per_event"] < 100_000, got
    assert got["driver_us_per_event"] > 0, got
