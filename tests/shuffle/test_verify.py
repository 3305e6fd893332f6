"""spades verify: deals re-derived from revealed seeds, end to end through a record."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spades.cli import app
from spades.core import Game, Look, deal_order, record_of
from spades.shuffle import commitment, derive_permutation
from spades.variants import load_rules

runner = CliRunner()


def verifiable_record(preset: str, hands: int = 2) -> dict[str, Any]:
    """A record whose deals come from server seeds and client seeds, as the server deals."""
    rules = load_rules({"preset": preset, "lose_at": -300} if preset != "mirror" else preset)
    game = Game(rules, first_dealer=1)
    rng = random.Random(5)
    seeds = []
    while len(game.results) < hands and not game.over:
        if game.awaiting_deal:
            seed = f"{rng.getrandbits(256):064x}"
            clients = [f"client-{len(seeds)}-{s}" for s in range(rules.layout.n)]
            seeds.append((seed, clients))
            perm = derive_permutation(seed, clients, len(rules.layout.deck))
            game.start_hand(deal_order(rules, perm))
        legal = game.legal_actions()
        looks = [a for a in legal if isinstance(a, Look)]
        game.apply(looks[0] if looks else rng.choice(legal))
    rec = record_of(game, preset)
    for hd, (seed, clients) in zip(rec["hands"], seeds, strict=True):
        hd.update(commitment=commitment(seed), seed=seed, client_seeds=clients)
    return rec


@pytest.mark.parametrize("preset", ["standard", "two-handed", "six-handed", "three-handed", "jokers-54"])
def test_verify_accepts_honest_deals(tmp_path: Path, preset: str) -> None:
    f = tmp_path / "game.json"
    f.write_text(json.dumps(verifiable_record(preset)))
    result = runner.invoke(app, ["verify", str(f), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] is True and len(report["hands"]) >= 2
    assert all(h["ok"] for h in report["hands"])


def test_verify_rejects_a_swapped_card(tmp_path: Path) -> None:
    rec = verifiable_record("standard")
    deal = rec["hands"][1]["deal"]
    deal[0][0], deal[1][0] = deal[1][0], deal[0][0]
    f = tmp_path / "game.json"
    f.write_text(json.dumps(rec))
    result = runner.invoke(app, ["verify", str(f), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert [h["ok"] for h in report["hands"]] == [True, False]
    assert "seat 0" in report["hands"][1]["reason"]


def test_verify_rejects_a_seed_that_does_not_match_its_commitment(tmp_path: Path) -> None:
    rec = verifiable_record("standard")
    rec["hands"][0]["seed"] = "0" * 64
    f = tmp_path / "game.json"
    f.write_text(json.dumps(rec))
    result = runner.invoke(app, ["verify", str(f)])
    assert result.exit_code == 1
    assert "does not match the commitment" in result.stdout


def test_verify_reports_an_unrevealed_seed_and_bad_files(tmp_path: Path) -> None:
    rec = verifiable_record("standard")
    del rec["hands"][1]["seed"]
    f = tmp_path / "game.json"
    f.write_text(json.dumps(rec))
    result = runner.invoke(app, ["verify", str(f), "--json"])
    assert result.exit_code == 1
    assert "not been revealed" in json.loads(result.stdout)["hands"][1]["reason"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    result = runner.invoke(app, ["verify", str(bad)])
    assert result.exit_code == 2
    assert "not valid JSON" in result.output


def test_verify_reports_the_client_seeds_and_catches_a_changed_one(tmp_path: Path) -> None:
    rec = verifiable_record("standard")
    rec["hands"][0]["client_seeds"] = ["a" * 32, "(bot)", "(none)", "(bot)"]
    hd = rec["hands"][0]
    perm = derive_permutation(hd["seed"], hd["client_seeds"], 52)
    order = deal_order(load_rules({"preset": "standard", "lose_at": -300}), perm)
    lay = load_rules("standard").layout
    from spades.core.cards import card_text

    first = (hd["dealer"] + 1) % lay.n
    hd["deal"] = [[card_text(c) for c in order[(s - first) % lay.n::lay.n]] for s in range(lay.n)]
    f = tmp_path / "game.json"
    f.write_text(json.dumps(rec))
    result = runner.invoke(app, ["verify", str(f), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["hands"][0]["client_seeds"] == ["a" * 32, "(bot)", "(none)", "(bot)"]
    text = runner.invoke(app, ["verify", str(f)]).stdout
    assert f"client seeds by seat: 1 {'a' * 32}, 2 (bot), 3 (none), 4 (bot)" in text
    # A player's seed changed after the fact: the same server seed deals other cards.
    hd["client_seeds"] = ["b" * 32, "(bot)", "(none)", "(bot)"]
    f.write_text(json.dumps(rec))
    result = runner.invoke(app, ["verify", str(f), "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["hands"][0]["reason"].endswith("are not the ones the seeds deal")
