"""docs/fair-dealing.md: its worked example and reference implementation agree with the code."""

from __future__ import annotations

import hashlib
import hmac
import re
from pathlib import Path
from typing import Any

import pytest

from spades.core.cards import card_text
from spades.shuffle.fair import (
    byte_stream,
    commitment,
    derive_permutation,
    hmac_message,
    new_server_seed,
)

DOC = Path(__file__).resolve().parents[2] / "docs" / "fair-dealing.md"


def _section(name: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"<!-- {name}:start -->(.*?)<!-- {name}:end -->", text, re.S)
    assert m, f"section {name} missing from {DOC.name}"
    return m.group(1)


def _example() -> dict[str, str]:
    block = re.search(r"```text\n(.*?)```", _section("worked-example"), re.S)
    assert block
    fields = {}
    for line in block.group(1).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return fields


def test_worked_example_matches_the_code() -> None:
    ex = _example()
    seed = ex["server seed"]
    seeds = re.findall(r'"([^"]*)"', ex["client seeds"])
    n = int(ex["cards"])
    assert ex["commitment"] == commitment(seed)
    assert ex["block 0 message"].encode("ascii") == hmac_message(seeds, 0)
    assert ex["block 0"] == hmac.new(bytes.fromhex(seed), hmac_message(seeds, 0), hashlib.sha256).hexdigest()
    perm = derive_permutation(seed, seeds, n)
    assert [int(x) for x in ex["permutation"].split()] == perm
    dealt = [card_text(c) for c in perm]  # the standard deck is 0..51
    assert ex["dealt"].split() == dealt
    for seat, key in enumerate(["dealer's left", "second seat", "third seat", "dealer"]):
        assert ex[key].split() == dealt[seat::4]


def test_worked_draws_match_the_byte_stream() -> None:
    ex = _example()
    seeds = re.findall(r'"([^"]*)"', ex["client seeds"])
    stream = byte_stream(ex["server seed"], seeds)
    rows = [
        [cell.strip() for cell in line.strip().strip("|").split("|")]
        for line in _section("worked-draws").splitlines()
        if line.startswith("| ") and line[2].isdigit()
    ]
    assert len(rows) >= 5
    for i, m, x, limit, result, j, swap in rows:
        assert int(m) == int(i) + 1
        byte = next(stream)
        assert int(x) == byte
        assert int(limit) == 256 - 256 % int(m)
        if result == "rejected":
            assert byte >= int(limit)
            assert j == "" and swap == ""
        else:
            assert byte < int(limit)
            assert result == f"{byte} mod {m}"
            assert int(j) == byte % int(m)
            assert swap == f"perm[{i}] and perm[{j}]"


def _reference() -> dict[str, Any]:
    block = re.search(r"```python\n(.*?)```", _section("reference-implementation"), re.S)
    assert block
    namespace: dict[str, Any] = {"__name__": "reference"}
    exec(compile(block.group(1), "fair-dealing.md", "exec"), namespace)
    return namespace


def test_reference_implementation_is_self_contained() -> None:
    block = re.search(r"```python\n(.*?)```", _section("reference-implementation"), re.S)
    assert block
    assert "spades" not in re.findall(r"^\s*(?:from|import)\s+(\w+)", block.group(1), re.M)


@pytest.mark.parametrize("n", [0, 1, 2, 13, 52, 54, 102, 104, 300])
def test_reference_implementation_agrees_with_the_code(n: int) -> None:
    ref = _reference()
    for i in range(5):
        seed = hashlib.sha256(f"doc-{n}-{i}".encode()).hexdigest()
        seeds = [f"player{i}", "é🂡\n\"", ""][: i % 4]
        assert ref["spades_deal_1"](seed, seeds, n) == derive_permutation(seed, seeds, n)
        assert ref["commitment_of"](seed) == commitment(seed)
    fresh = new_server_seed()
    assert ref["spades_deal_1"](fresh, ["x"], 52) == derive_permutation(fresh, ["x"], 52)


def test_table_example_is_a_verified_record_hand(tmp_path: Path) -> None:
    import json

    from typer.testing import CliRunner

    from spades.cli import app
    from spades.shuffle.fair import check_client_seed
    from spades.variants import read_record

    block = re.search(r"```json\n(.*?)```", _section("table-example"), re.S)
    assert block
    record = json.loads(block.group(1))
    hd = record["hands"][0]
    seeds = hd["client_seeds"]
    assert seeds[1] == seeds[3] == "(bot)" and seeds[2] == "(none)"
    assert check_client_seed(seeds[0]) == seeds[0]  # a seed a player's page may send
    assert hd["commitment"] == commitment(hd["seed"])
    perm = derive_permutation(hd["seed"], seeds, 52)
    dealt = [card_text(c) for c in perm]
    assert hd["deal"] == [dealt[seat::4] for seat in range(4)]  # dealer 3: seat 0 is the dealer's left
    assert hmac_message(seeds, 0).decode("ascii") in DOC.read_text(encoding="utf-8")
    read_record(record)  # the record reader accepts the client seeds
    path = tmp_path / "game.json"
    path.write_text(block.group(1), encoding="utf-8")
    shown = re.search(r"```text\n\$ spades verify game.json\n(.*?)```", _section("table-verify"), re.S)
    assert shown
    result = CliRunner().invoke(app, ["verify", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout == shown.group(1)
