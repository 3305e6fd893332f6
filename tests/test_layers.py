"""The layers import only inward, every one of them.

``core`` imports nothing else of the project (and no I/O, no global random state). ``variants``,
``scorekeeper`` and ``shuffle`` build on core alone; ``ai`` on core and the presets; ``storage`` keeps
events and accounts and knows nothing of the server, the players or the pages; ``web`` (the pages'
Python: the score sheet's and the shuffle lab's HTTP helpers) uses the rule layers and never the
server or the computer players' insides; the ``server`` composes them all, reaching the computer
players only through their public modules. Only the command line sits above the server.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "spades"

AI_PUBLIC = {"ai", "ai.base", "ai.suggest", "ai.review"}
"""The computer players' public face: ``make_bot`` and the levels, hints, reviews. The rest is inside."""

ALLOWED: dict[str, set[str]] = {
    "core": {"core"},
    "variants": {"core", "variants"},
    "scorekeeper": {"core", "scorekeeper"},
    "shuffle": {"core", "shuffle"},
    "ai": {"core", "variants", "ai", "cliutil"},  # cliutil: ai/cli.py's commands share the CLI helpers
    "storage": {"core", "storage"},
    "web": {"core", "variants", "scorekeeper", "shuffle", "web"} | AI_PUBLIC,
    "server": {"core", "variants", "scorekeeper", "shuffle", "storage", "web", "server", "cliutil"} | AI_PUBLIC,
    "bench": {"core", "variants"},
    "cliutil": {"core", "variants"},
    "terminal": {"core", "variants"} | AI_PUBLIC,
    "cli": {"*"},  # the command line: the top, may use every layer
    "__init__": set(),
}
"""Per layer (a subpackage, or a top-level module by its name): what of the project it may import. An
entry names a layer (any module in it) or one module of a layer (``ai.base``)."""


def unit_of(path: Path) -> str:
    rel = path.relative_to(SRC)
    return rel.parts[0] if len(rel.parts) > 1 else rel.stem


def project_imports(path: Path) -> set[str]:
    """The project modules a file imports, as ``layer`` or ``layer.module`` (``ai.base``)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            raise AssertionError(f"{path.relative_to(SRC)}: relative import (write spades.… in full)")
        for name in names:
            parts = name.split(".")
            if parts[0] == "spades" and len(parts) > 1:
                found.add(".".join(parts[1:3]))
    return found


def allowed(layer: str, target: str) -> bool:
    rules = ALLOWED[layer]
    if "*" in rules or target in rules:
        return True
    top = target.split(".")[0]
    # A whole layer named: any module in it; except ``ai``, named only by its public modules.
    return top in rules and top != "ai"


def test_every_layer_has_a_rule() -> None:
    units = {unit_of(f) for f in SRC.rglob("*.py")}
    assert units <= set(ALLOWED), f"layers without a rule here: {sorted(units - set(ALLOWED))}"


@pytest.mark.parametrize("layer", sorted(set(ALLOWED) - {"cli"}))
def test_layer_imports_only_inward(layer: str) -> None:
    files = sorted(f for f in SRC.rglob("*.py") if unit_of(f) == layer)
    assert files, f"no modules in {layer}"
    for f in files:
        own = {t for t in project_imports(f) if t.split(".")[0] == layer}
        bad = {t for t in project_imports(f) - own if not allowed(layer, t)}
        assert not bad, f"{f.relative_to(SRC)} imports spades.{', spades.'.join(sorted(bad))}"


def test_the_rules_allow_no_cycle() -> None:
    # A layer that may import another must not be importable by it (the command line is the top).
    for a, targets in ALLOWED.items():
        for b in {t.split(".")[0] for t in targets} - {a, "*"}:
            assert a not in {t.split(".")[0] for t in ALLOWED.get(b, set())}, f"{a} and {b} may import each other"


def test_the_check_sees_a_bad_import(tmp_path: Path) -> None:
    # The guard must be able to fail: a storage module importing the server is caught.
    f = tmp_path / "bad.py"
    f.write_text("from spades.server.hub import Hub\nimport spades.ai.rollout\n", encoding="utf-8")
    found = project_imports(f)
    assert found == {"server.hub", "ai.rollout"}
    assert not allowed("storage", "server.hub")
    assert not allowed("web", "ai.rollout") and allowed("web", "ai.suggest")
    assert not allowed("core", "variants")


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


def test_the_hub_is_composed_not_subclassed() -> None:
    # One table pipeline for one process and a cluster: a cluster gives ``Hub`` other parts
    # (``spades.server.parts``) instead of overriding its methods, so no class in the package extends it.
    subclasses = []
    for f in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                names = {b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases}
                if "Hub" in names:
                    subclasses.append(f"{f.relative_to(SRC)}: {node.name}")
    assert not subclasses, f"Hub is extended by {subclasses}: plug an Ownership or a Bus into it instead"
