"""The server process's garbage collector (``spades.server.cli.tune_gc``): once the application is built,
what exists then is frozen out of collections and the young generation is larger."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from spades.server.cli import GC_THRESHOLD

PROBE = """
import gc, json, sys
from spades.server.cli import build_app
from spades.server.config import ServerConfig
before = {"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}
build_app(ServerConfig(database_url=sys.argv[1]))
print(json.dumps({"before": before, "after": {"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count()}}))
"""


def test_building_the_server_freezes_what_exists_and_sets_the_thresholds(tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", PROBE, f"sqlite:///{tmp_path / 'a.db'}"], capture_output=True,
                         text=True, check=True, timeout=120)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["before"] == {"threshold": [700, 10, 10], "frozen": 0}
    assert got["after"]["threshold"] == list(GC_THRESHOLD)
    assert got["after"]["frozen"] > 20_000  # the modules, classes and routes of the application
