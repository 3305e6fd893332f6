"""The ``spades shuffle`` sub-application, through Typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spades.shuffle.cli import app, parse_passes

runner = CliRunner()


def test_distance_json_has_exactly_the_public_keys() -> None:
    result = runner.invoke(app, ["distance", "--cards", "52", "--passes", "1-10", "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)
    assert [r["passes"] for r in rows] == list(range(1, 11))
    for r in rows:
        assert set(r) == {"passes", "tv", "separation", "bits_left"}
    assert [round(r["tv"], 3) for r in rows] == [1.0, 1.0, 1.0, 1.0, 0.924, 0.614, 0.334, 0.167, 0.085, 0.043]
    assert rows[6]["bits_left"] == pytest.approx(0.5239, abs=1e-4)


def test_distance_table() -> None:
    result = runner.invoke(app, ["distance", "--passes", "6-8"])
    assert result.exit_code == 0, result.output
    assert "total variation" in result.stdout
    assert "0.6135" in result.stdout and "0.3341" in result.stdout and "0.1672" in result.stdout
    assert "0.9962" in result.stdout  # separation after 8 riffles


def test_distance_single_count_and_two_decks() -> None:
    result = runner.invoke(app, ["distance", "--cards", "104", "--passes", "8", "--json"])
    assert result.exit_code == 0
    (row,) = json.loads(result.stdout)
    assert row["passes"] == 8
    assert row["tv"] < 0.5 < json.loads(runner.invoke(
        app, ["distance", "--cards", "104", "--passes", "7", "--json"]).stdout)[0]["tv"]


@pytest.mark.parametrize(("args", "words"), [
    (["distance", "--passes", "5-2"], "--passes '5-2'"),
    (["distance", "--passes", "x"], "--passes 'x'"),
    (["distance", "--passes", "1-100000"], "at most"),
    (["distance", "--cards", "0"], "--cards 0"),
    (["distance", "--cards", "-3"], "--cards -3"),
    (["distance", "--plot", "out.pdf"], "--plot"),
    (["simulate", "--passes", "5-2"], "--passes '5-2'"),
    (["simulate", "--bias", "1"], "--bias"),
    (["simulate", "--bias", "0"], "--bias"),
    (["simulate", "--bias", "-0.5"], "--bias"),
    (["simulate", "--model", "faro"], "--model 'faro'"),
    (["simulate", "--trials", "0"], "--trials 0"),
    (["simulate", "--alpha", "2"], "--alpha"),
])
def test_bad_input_is_one_line_and_exit_2(args: list[str], words: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert result.exception is None or isinstance(result.exception, SystemExit)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("Error: ")
    assert words in lines[0]
    assert "Traceback" not in result.output


def test_parse_passes() -> None:
    assert parse_passes("1-10", 20) == range(1, 11)
    assert parse_passes(" 3 - 4 ", 20) == range(3, 5)
    assert parse_passes("7", 20) == range(7, 8)
    assert parse_passes("0-0", 20) == range(0, 1)
    for bad in ("", "-3", "1-", "a-b", "4-3", "1-21", "1.5-2"):
        with pytest.raises(ValueError):
            parse_passes(bad, 20)


def test_simulate_table_and_answer() -> None:
    result = runner.invoke(app, ["simulate", "--model", "riffle", "--passes", "0-8", "--trials", "300",
                                 "--seed", "4"])
    assert result.exit_code == 0, result.output
    assert "perfect" in result.stdout
    answer = [line for line in result.stdout.splitlines() if line.startswith("Tonight's deck needs")]
    assert len(answer) == 1
    assert answer[0].endswith("passes of riffle")


def test_simulate_json() -> None:
    args = ["simulate", "--model", "machine", "--passes", "2-7", "--trials", "200", "--seed", "9", "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["model"] == "machine" and data["trials"] == 200 and data["seed"] == 9
    assert [f["passes"] for f in data["figures"]] == [2, 3, 4, 5, 6, 7]
    assert "passes_needed" in data
    assert data["passes_needed"] is None or 2 <= data["passes_needed"] <= 7
    again = runner.invoke(app, args)
    assert json.loads(again.stdout) == data


def test_simulate_answer_when_the_range_is_too_short() -> None:
    result = runner.invoke(app, ["simulate", "--model", "overhand", "--passes", "1-2", "--trials", "200"])
    assert result.exit_code == 0
    assert "Tonight's deck needs more than 2 passes of overhand" in result.stdout


@pytest.mark.parametrize("suffix", [".png", ".svg"])
def test_plots(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("matplotlib")
    sim = tmp_path / f"sim{suffix}"
    result = runner.invoke(app, ["simulate", "--model", "riffle", "--passes", "0-3", "--trials", "50",
                                 "--plot", str(sim), "--json"])
    assert result.exit_code == 0, result.output
    assert sim.stat().st_size > 1000
    dist = tmp_path / f"dist{suffix}"
    result = runner.invoke(app, ["distance", "--passes", "1-12", "--plot", str(dist)])
    assert result.exit_code == 0, result.output
    head = dist.read_bytes()[:8]
    assert head.startswith(b"\x89PNG") if suffix == ".png" else b"<?xml" in head or b"<svg" in head


def test_help() -> None:
    result = runner.invoke(app, ["--help"])
    assert result.exit_code == 0
    assert "distance" in result.stdout and "simulate" in result.stdout
