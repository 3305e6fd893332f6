"""``pip install spades`` is the engine, the players, the score sheet and the command line; the server and
the lab's plots are extras. A command that needs a missing extra says which one to install."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_hidden(hidden: list[str], args: list[str]) -> subprocess.CompletedProcess[str]:
    # The modules in ``hidden`` cannot be imported in the child (a None in sys.modules), as if not installed.
    code = ("import sys\n"
            f"for m in {hidden!r}: sys.modules[m] = None\n"
            f"sys.argv = ['spades', *{args!r}]\n"
            "from spades.cli import main\nmain()\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


@pytest.mark.parametrize("args", [["serve", "--port", "1"], ["bench", "server", "--players", "1"]])
def test_server_commands_say_which_extra_is_missing(args: list[str]) -> None:
    out = run_hidden(["fastapi", "uvicorn"], args)
    assert out.returncode == 2
    assert "needs the server extra (fastapi, uvicorn not installed): pip install 'spades[server]'" in out.stderr


def test_the_engine_commands_work_without_the_extras() -> None:
    out = run_hidden(["fastapi", "uvicorn", "sqlalchemy", "matplotlib", "redis", "psycopg"], ["rules", "--json"])
    assert out.returncode == 0, out.stderr
    assert '"standard"' in out.stdout


def test_a_plot_without_matplotlib_names_the_lab_extra(tmp_path: Path) -> None:
    out = run_hidden(["matplotlib"], ["shuffle", "distance", "--passes", "1-2", "--plot", str(tmp_path / "p.png")])
    assert out.returncode != 0
    assert "pip install 'spades[lab]'" in out.stderr + out.stdout


def test_the_extras_hold_what_the_commands_check() -> None:
    from spades.cliutil import LAB_MODULES, SERVER_MODULES

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    base = {d.split("==")[0].split("[")[0].lower() for d in project["dependencies"]}
    assert base == {"typer", "rich"}
    extras = project["optional-dependencies"]
    server = {d.split("==")[0].split("[")[0].lower().replace("-cffi", "") for d in extras["server"]}
    assert set(SERVER_MODULES) <= server
    assert {d.split("==")[0] for d in extras["lab"]} == set(LAB_MODULES)
    assert "spades[server,lab]" in extras["dev"]
