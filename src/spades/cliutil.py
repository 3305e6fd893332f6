"""Helpers shared by the ``spades`` command's modules: one-line errors with exit status 2, reading a
JSON file, the rule set of ``--rules`` / ``--set``, and saying which extra a command needs."""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import typer

from spades.core.errors import SpadesError
from spades.core.presets import load_rules, parse_overrides, rules_spec
from spades.core.rules import Rules

SERVER_MODULES = ("fastapi", "uvicorn", "sqlalchemy", "alembic", "argon2", "openskill", "platformdirs", "orjson",
                  "limits")
"""What ``spades[server]`` installs (by import name) and ``spades serve`` needs."""
LAB_MODULES = ("matplotlib",)
"""What ``spades[lab]`` installs: the shuffle lab's plots."""


def missing_modules(modules: Sequence[str]) -> list[str]:
    """The modules of ``modules`` that cannot be imported here."""
    out = []
    for name in modules:
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            out.append(name)
    return out


def need_extra(extra: str, what: str, modules: Sequence[str]) -> None:
    """Fail with one line saying which extra to install when ``what`` (a command) needs missing modules."""
    missing = missing_modules(modules)
    if missing:
        fail(f"{what} needs the {extra} extra ({', '.join(missing)} not installed): pip install 'spades[{extra}]'")


def fail(message: str, code: int = 2) -> NoReturn:
    """Print one line to stderr and exit."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def read_json_file(path: Path) -> Any:
    """Read a JSON file, or fail with one line naming the problem."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")
    except UnicodeDecodeError:
        fail(f"{path} is not a UTF-8 text file")
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        fail(f"{path} is not valid JSON: {e.msg} at line {e.lineno} column {e.colno}")
    except RecursionError:
        fail(f"{path} is not usable JSON: it is nested too deeply")
    except ValueError as e:  # e.g. a number with more digits than Python converts
        fail(f"{path} is not usable JSON: {e}")


def rules_from_cli(preset: str | None, sets: list[str] | None, base: Any = None) -> tuple[Rules, Any]:
    """The rule set of ``--rules`` and ``--set`` (over ``base``, a record's rules, when given)."""
    try:
        overrides = parse_overrides(sets or [])
        if preset is not None:
            spec: Any = preset
            if preset.strip().startswith("{"):
                spec = json.loads(preset)
        else:
            spec = base if base is not None else "standard"
        if isinstance(spec, str):
            spec = {"preset": spec}
        if not isinstance(spec, dict):
            raise SpadesError(f"rules must be a preset name or an object, not {spec!r}")
        spec = {**spec, **overrides}
        rules = load_rules(spec)
    except json.JSONDecodeError as e:
        fail(f"--rules is not valid JSON: {e.msg}")
    except SpadesError as e:
        fail(str(e))
    except (RecursionError, ValueError) as e:  # JSON nested too deeply, numbers too long
        fail(f"--rules is not usable JSON: {e}")
    name = spec.get("preset", "standard")
    extra = {k: v for k, v in spec.items() if k != "preset"}
    return rules, rules_spec(name, extra)
