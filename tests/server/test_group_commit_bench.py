"""``benchmarks/group_commit.py`` stores its commits and reports what it measured, with and without a busy
thread beside them (``--busy``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench_tools import load_benchmark

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("busy", [False, True])
def test_the_group_commit_bench_reports_a_commits_cpu_and_its_time(busy: bool) -> None:
    bench = load_benchmark("group_commit.py")
    got = bench.run(str(ROOT / "src"), 30, 20, 5, busy)
    # Twenty commits of five tables' events each, after 40 events a table: both figures measured, so above
    # zero, and a commit of five rows well under a second even beside a thread that never stops.
    assert 0 < got["us_cpu_per_event"] < 1_000_000, got
    assert 0 < got["ms_per_commit"] < 1000, got
