"""``spades suggest``, ``spades arena`` and ``spades bench bots`` through the command line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spades.ai import make_bot
from spades.ai.arena import merge_arenas, run_arena
from spades.ai.bots import DEFAULT_BUDGET
from spades.cli import app
from spades.core import Game, record_of, seeded_shuffler, view_hand
from spades.variants import load_rules

runner = CliRunner()


def _record(tmp_path: Path, actions: int, preset: str = "standard") -> Path:
    game = Game(load_rules(preset), first_dealer=0, shuffler=seeded_shuffler(5))
    bots = [make_bot("normal", s) for s in range(game.rules.layout.n)]
    for _ in range(actions):
        h = game.hand
        game.apply(bots[h.to_act].decide(view_hand(h, h.to_act), tuple(game.totals)).action)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record_of(game, preset)), encoding="utf-8")
    return path


def test_suggest_gives_the_seat_an_action_and_a_reason(tmp_path: Path) -> None:
    path = _record(tmp_path, 13)
    result = runner.invoke(app, ["suggest", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["seat"] == data["action"]["seat"]
    assert "play" in data["action"]
    assert data["reason"]
    assert data["level"] == "normal"


def test_suggest_in_the_bidding_and_in_words(tmp_path: Path) -> None:
    path = _record(tmp_path, 1)
    result = runner.invoke(app, ["suggest", str(path), "--level", "expert", "--budget", "0.01"])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("seat 2: bid")


def test_suggest_refuses_bad_input(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2]", encoding="utf-8")
    assert runner.invoke(app, ["suggest", str(bad)]).exit_code == 2
    path = _record(tmp_path, 3)
    result = runner.invoke(app, ["suggest", str(path), "--level", "genius"])
    assert result.exit_code == 2
    assert "unknown level" in result.output


def test_arena_json_has_the_documented_keys() -> None:
    result = runner.invoke(app, ["arena", "normal", "random", "--deals", "6", "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for key in ("diff_per_hand", "ci95", "deals", "hands_played", "a_stats", "b_stats"):
        assert key in data
    low, high = data["ci95"]
    assert low <= data["diff_per_hand"] <= high
    assert data["diff_per_hand"] > 0
    for key in ("game_wins", "make_rate", "bags_per_hand", "nil_success"):
        assert key in data["a_stats"]


def test_arena_other_rules_and_table_output() -> None:
    result = runner.invoke(app, ["arena", "easy", "random", "--deals", "3", "--rules", "three-handed"])
    assert result.exit_code == 0, result.output
    assert "points per hand" in result.stdout


def test_bench_bots_json() -> None:
    result = runner.invoke(app, ["bench", "bots", "--hands", "1", "--levels", "easy,normal", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [f["level"] for f in data["levels"]] == ["easy", "normal"]
    assert all(f["median_ms"] >= 0 for f in data["levels"])


def test_merging_two_arena_runs_pools_their_pairs() -> None:
    rules = load_rules("standard")
    one = run_arena(rules, "easy", "random", 3, seed=4)
    two = run_arena(rules, "easy", "random", 4, seed=5)
    merged = merge_arenas([one, two])
    assert merged["deals"] == one["deals"] + two["deals"]
    assert merged["hands_played"] == one["hands_played"] + two["hands_played"]
    want = (one["pairs"]["sum"] + two["pairs"]["sum"]) / merged["deals"]
    assert merged["diff_per_hand"] == round(want, 2)
    low, high = merged["ci95"]
    assert low < merged["diff_per_hand"] < high
    assert merge_arenas([one]) == one
    with pytest.raises(ValueError, match="cannot merge"):
        merge_arenas([one, run_arena(rules, "normal", "random", 1, seed=6)])


def test_arena_can_count_the_budget_in_cpu_time() -> None:
    result = runner.invoke(app, ["arena", "ismcts", "normal", "--deals", "1", "--seed", "3", "--budget", "0.002",
                                 "--cpu-clock", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["clock"], data["budget"]) == ("cpu", 0.002)
    wall = run_arena(load_rules("standard"), "easy", "random", 1, seed=4)
    assert (wall["clock"], wall["budget"]) == ("wall", DEFAULT_BUDGET)
    with pytest.raises(ValueError, match="different clocks"):
        merge_arenas([wall, {**wall, "clock": "cpu"}])
