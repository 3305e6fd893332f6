"""The layers import only inward: core imports nothing else of the project; ai, shuffle and
scorekeeper import core but not the server, storage or each other's insides."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "spades"

ALLOWED = {
    "core": {"core"},
    "variants": {"core", "variants"},
    "ai": {"core", "variants", "ai", "cliutil"},  # cliutil: ai/cli.py's commands share the CLI helpers
    "shuffle": {"core", "shuffle"},
    "scorekeeper": {"core", "scorekeeper"},
}


def project_imports(path: Path) -> set[str]:
    """The spades subpackages a module imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "spades" and len(parts) > 1:
                found.add(parts[1])
    return found


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_layer_imports_only_inward(layer: str) -> None:
    files = sorted((SRC / layer).rglob("*.py"))
    assert files, f"no modules in {layer}"
    for f in files:
        bad = project_imports(f) - ALLOWED[layer]
        assert not bad, f"{f.relative_to(SRC)} imports spades.{', spades.'.join(sorted(bad))}"


def test_core_has_no_io_or_global_randomness() -> None:
    for f in sorted((SRC / "core").rglob("*.py")):
        tree = ast.parse(f.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                for m in mods:
                    assert m.split(".")[0] not in {"asyncio", "socket", "os", "pathlib", "sqlite3"}, (
                        f"{f.name} imports {m}")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                # random.shuffle(...) / random.random() on the module: global random state
                v = node.func.value
                if isinstance(v, ast.Name) and v.id == "random" and node.func.attr != "Random":
                    raise AssertionError(f"{f.name}:{node.lineno} uses the global random state")
