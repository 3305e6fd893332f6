"""`spades replay`, `spades score` and `spades rules`, through Typer's test runner: the --json keys of
design.md, the exit codes (0; 1 at the first illegal thing of a record; 2 for any invalid input, with one
line naming the problem and never a traceback), and readable tables without --json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spades.cli import app
from spades.core import OPTIONS
from spades.variants import PRESETS

runner = CliRunner()
DATA = Path(__file__).resolve().parent / "data"


def run(*args: str) -> Any:
    result = runner.invoke(app, list(args))
    # Never a traceback: the only exception allowed out of a command is the exit itself.
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def one_line_error(result: Any, code: int = 2) -> str:
    assert result.exit_code == code, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    return lines[0]


def write(tmp_path: Path, doc: Any, name: str = "f.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


# ------------------------------------------------------------------------------------------- score

OK_HAND = {"hands": [{"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]}]}
WORKED = {"hands": [
    {"bids": [3, "nil", 2, 6], "tricks": [5, 1, 3, 4]},
    {"bids": [3, 2, 2, 2], "tricks": [5, 2, 4, 2]},
    {"bids": [2, 3, 2, 3], "tricks": [4, 3, 3, 3]},
]}


def test_score_json_the_seed_bag_sequence(tmp_path: Path) -> None:
    result = run("score", write(tmp_path, WORKED), "--json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert set(doc) == {"hands", "totals", "winner"}
    assert [[s["total"] for s in h["sides"]] for h in doc["hands"]] == [[53, -160], [107, -120], [50, -60]]
    assert [[s["bags"] for s in h["sides"]] for h in doc["hands"]] == [[3, 0], [7, 0], [0, 0]]
    assert [h["sides"][0]["points"] for h in doc["hands"]] == [53, 54, -57]
    assert {"points", "total", "bags"} <= set(doc["hands"][0]["sides"][0])
    assert doc["totals"] == [50, -60] and doc["winner"] is None


def test_score_table(tmp_path: Path) -> None:
    result = run("score", write(tmp_path, WORKED))
    assert result.exit_code == 0
    assert "+53 = 53 (3 bags)" in result.stdout and "-57 = 50 (0 bags)" in result.stdout
    assert "Winner: none yet" in result.stdout


def test_score_with_rules_and_overrides(tmp_path: Path) -> None:
    doc = {"hands": [{"bids": [3, "nil", 2, 6], "tricks": [5, 0, 3, 5]}]}
    result = run("score", write(tmp_path, doc), "--rules", "standard", "--set", "nil_points=50", "--json")
    assert json.loads(result.stdout)["totals"] == [53, -10]
    result = run("score", write(tmp_path, doc), "--rules", '{"preset": "casual"}', "--json")
    assert json.loads(result.stdout)["totals"] == [53, -10]
    doc["rules"] = {"preset": "standard", "nil_points": 50}
    result = run("score", write(tmp_path, doc), "--json")
    assert json.loads(result.stdout)["totals"] == [53, -10]
    result = run("score", write(tmp_path, doc), "--set", "nil_points=100", "--json")
    assert json.loads(result.stdout)["totals"] == [53, 40]


def test_score_a_timed_game_ends_after_the_hand_marked_time_up(tmp_path: Path) -> None:
    doc = {"hands": [{"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]},
                     {"bids": [3, 3, 3, 3], "tricks": [3, 4, 3, 3], "time_up": True}]}
    result = run("score", write(tmp_path, doc), "--rules", "casual", "--set", "time_limit_minutes=20", "--json")
    assert json.loads(result.stdout)["winner"] is None  # tied at the end of time: the game goes on
    doc["hands"].append({"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    result = run("score", write(tmp_path, doc), "--rules", "casual", "--set", "time_limit_minutes=20", "--json")
    assert json.loads(result.stdout)["winner"] == 0
    line = one_line_error(run("score", write(tmp_path, doc), "--rules", "casual"))
    assert "time_limit_minutes" in line and "hand 1" in line


def test_score_refuses_a_side_under_min_side_bid(tmp_path: Path) -> None:
    doc = {"hands": [{"bids": [1, 2, 1, 3], "tricks": [4, 3, 3, 3]}]}
    line = one_line_error(run("score", write(tmp_path, doc), "--rules", "tournament"))
    assert line == "error: hand 0: side 0: its contract is 2, and min_side_bid is 4"
    assert run("score", write(tmp_path, doc), "--rules", "tournament", "--set", "min_side_bid=0").exit_code == 0


def test_score_winner_is_a_side_index(tmp_path: Path) -> None:
    doc = {"rules": {"target": 100}, "hands": [{"bids": [3, 4, 3, 3], "tricks": [3, 4, 3, 3]},
                                                {"bids": [3, 4, 3, 3], "tricks": [3, 4, 3, 3]}]}
    doc["hands"][1]["tricks"] = [3, 4, 3, 3]
    result = run("score", write(tmp_path, doc), "--json")
    out = json.loads(result.stdout)
    assert out["totals"] == [120, 140] and out["winner"] == 1
    assert "Winner: side 1+3" in run("score", write(tmp_path, doc)).stdout


def test_score_cutthroat_has_a_side_per_seat(tmp_path: Path) -> None:
    doc = {"rules": "cutthroat", "hands": [{"bids": [3, "nil", 4, 5], "tricks": [4, 0, 4, 5]}]}
    out = json.loads(run("score", write(tmp_path, doc), "--json").stdout)
    assert out["totals"] == [31, 100, 40, 50]


def score_cases() -> list[Any]:
    out = []
    for path in sorted((DATA / "scoring").glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            if "bags_before" not in case:
                out.append(pytest.param(case, id=f"{path.stem}: {case['label']}"))
    return out


@pytest.mark.parametrize("case", score_cases())
def test_score_command_agrees_with_the_scoring_tables(tmp_path: Path, case: dict[str, Any]) -> None:
    doc = {"rules": case["rules"], "hands": [{k: h[k] for k in ("bids", "tricks", "time_up") if k in h}
                                             for h in case["hands"]]}
    result = run("score", write(tmp_path, doc), "--json")
    blind = any(isinstance(b, str) and b.startswith("blind") for h in case["hands"] for b in h["bids"] or [])
    if result.exit_code == 2 and blind:
        # the score sheet checks blind eligibility: these rows start level, so only 'blind_behind: 0' may
        assert "behind" in result.stderr
        return
    assert result.exit_code == 0, result.stderr
    got = [[{"points": s["points"], "bags": s["bags"]} for s in h["sides"]] for h in json.loads(result.stdout)["hands"]]
    want = [[{"points": e["points"], "bags": e["bags"]} for e in h["expect"]] for h in case["hands"]]
    assert got == want
    if "winner" in case:
        assert json.loads(result.stdout)["winner"] == case["winner"]


@pytest.mark.parametrize(
    ("doc", "args", "message"),
    [
        ("{not json", [], "not valid JSON"),
        ("[1, 2]", [], "must be an object with a list of hands"),
        ({"hands": [{"bids": [3, 3, 3, 3], "tricks": [3, 3, 3]}]}, [], "tricks must list 4 numbers"),
        ({"hands": [{"bids": [3, 3, 3, 3], "tricks": [3, 3, 3, 3]}]}, [], "add up to 12, not 13"),
        ({"hands": [{"bids": [3, 3, 3], "tricks": [4, 3, 3, 3]}]}, [], "bids must list 4 bids"),
        ({"hands": [{"bids": [3, "lots", 3, 3], "tricks": [4, 3, 3, 3]}]}, [], "'lots' is not a bid"),
        ({"hands": [{"bids": [3, 14, 3, 3], "tricks": [4, 3, 3, 3]}]}, [], "at most 13"),
        ({"hands": [{"bids": [3, 0, 3, 3], "tricks": [4, 3, 3, 3]}]}, [], "zero can only be bid as nil"),
        ({"hands": [{"bids": ["blind nil", 3, 3, 3], "tricks": [4, 3, 3, 3]}]}, [], "100 points behind"),
        ({"hands": [{"bids": ["blind 6", 3, 3, 3], "tricks": [4, 3, 3, 3]}]}, ["--set", "blind_behind=0"],
         "do not allow blind 6"),
        ({"hands": [{"bids": [3, 3, 3, 3], "tricks": [4, -3, 9, 3]}]}, [], "whole numbers from 0"),
        ({"hands": [{"bids": [3, 3, 3, 3]}]}, [], "a hand is an object with bids and tricks"),
        (OK_HAND, ["--set", "nil_point=50"],
         "unknown option 'nil_point'"),
        (OK_HAND, ["--set", "nil_points"], "name=value"),
        (OK_HAND, ["--set", "nil_points=abc"],
         "nil_points must be a whole number"),
        (OK_HAND, ["--rules", "chess"], "unknown preset 'chess'"),
        (OK_HAND, ["--rules", "{oops"], "--rules is not valid JSON"),
        (OK_HAND, ["--rules", "[1]"], "unknown preset"),
        (OK_HAND, ["--set", "players=3", "--set", "nil_pass=2"],
         "partnerships, nil_pass"),
        (OK_HAND, ["--set", "removed_cards=[\"XX\"]"],
         "removed_cards"),
        ({"rules": 7, "hands": []}, [], "preset name or an object"),
        ({"rules": {"preset": "standard", "deck": "tarot"}, "hands": []}, [], "deck cannot be 'tarot'"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_score_invalid_input_one_line_exit_2(tmp_path: Path, doc: Any, args: list[str], message: str) -> None:
    line = one_line_error(run("score", write(tmp_path, doc), *args))
    assert line.startswith("error: ") and message in line


def test_score_missing_file() -> None:
    line = one_line_error(run("score", "/nonexistent/x.json"))
    assert "cannot read" in line


def test_score_a_game_already_over(tmp_path: Path) -> None:
    doc = {"rules": {"target": 100}, "hands": [{"bids": [6, 1, 6, 1], "tricks": [6, 0, 7, 0]}] * 2}
    assert "already over" in one_line_error(run("score", write(tmp_path, doc)))


# ------------------------------------------------------------------------------------------- replay


def test_replay_json_keys() -> None:
    path = DATA / "records" / "standard.json"
    result = run("replay", str(path), "--json")
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert set(doc) == {"ok", "hands", "totals", "winner"} and doc["ok"] is True
    rec = json.loads(path.read_text())
    assert doc["totals"] == rec["expect"]["totals"] and doc["winner"] == rec["expect"]["winner"]
    for h in doc["hands"]:
        assert {"sides", "tricks"} <= set(h)
        assert len(h["tricks"]) == 4
        for s in h["sides"]:
            assert {"points", "total", "bags"} <= set(s)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_replay_every_preset(preset: str) -> None:
    result = run("replay", str(DATA / "records" / f"{preset}.json"))
    assert result.exit_code == 0, result.stderr
    assert "every deal and action is legal" in result.stdout and "Winner: side" in result.stdout


def broken_record(tmp_path: Path) -> str:
    rec = json.loads((DATA / "records" / "invalid.json").read_text())["base"]
    rec["hands"][0]["actions"][5]["play"] = "JH"
    return write(tmp_path, rec)


def test_replay_under_other_rules(tmp_path: Path) -> None:
    # --set changes the record's own rules (here: score the same game with bags counting for nothing),
    # --rules replaces them; the replay equals reading the record with those rules written in it.
    from spades.variants import read_record

    path = DATA / "records" / "standard.json"
    rec = json.loads(path.read_text())
    plain = json.loads(run("replay", str(path), "--json").stdout)
    other = json.loads(run("replay", str(path), "--set", "bags=minus_one", "--json").stdout)
    want = read_record({**rec, "rules": {"preset": "standard", "bags": "minus_one"}})
    assert other["ok"] and other["totals"] == want.totals != plain["totals"]
    same = json.loads(run("replay", str(path), "--rules", "casual", "--set", "bags=penalty", "--json").stdout)
    assert same["totals"] == read_record({**rec, "rules": {"preset": "casual", "bags": "penalty"}}).totals
    # Rules the deal does not fit: exit 1 at the first hand; unknown options: one line, exit 2.
    assert run("replay", str(path), "--rules", "jokers").exit_code == 1
    assert "unknown option" in one_line_error(run("replay", str(path), "--set", "nil=5"))


def test_replay_illegal_action_exit_1_json(tmp_path: Path) -> None:
    result = run("replay", broken_record(tmp_path), "--json")
    assert result.exit_code == 1
    doc = json.loads(result.stdout)
    assert doc["ok"] is False and set(doc["error"]) == {"hand", "action", "reason"}
    assert (doc["error"]["hand"], doc["error"]["action"]) == (0, 5)
    assert "follow suit" in doc["error"]["reason"]


def test_replay_illegal_action_exit_1_text(tmp_path: Path) -> None:
    line = one_line_error(run("replay", broken_record(tmp_path)), code=1)
    assert "hand 0, action 5" in line and "follow suit" in line


def test_replay_bad_deal_exit_1(tmp_path: Path) -> None:
    rec = json.loads((DATA / "records" / "invalid.json").read_text())["base"]
    rec["hands"][0]["deal"][0][0] = "7C"
    result = run("replay", write(tmp_path, rec), "--json")
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["action"] is None


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ("{", "not valid JSON"),
        ("[]", "a record is a JSON object"),
        ({"format": "x", "hands": []}, "format must be"),
        ({"format": "spades-record/1", "rules": {"nil_point": 5}, "hands": []}, "unknown option"),
        ({"format": "spades-record/1", "rules": {"players": 5}, "hands": []}, "players cannot be 5"),
        ({"format": "spades-record/1", "hands": 3}, "hands must be a list"),
    ],
    ids=lambda x: x if isinstance(x, str) else None,
)
def test_replay_invalid_input_exit_2(tmp_path: Path, doc: Any, message: str) -> None:
    line = one_line_error(run("replay", write(tmp_path, doc), "--json"))
    assert message in line


def test_replay_binary_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    assert "UTF-8" in one_line_error(run("replay", str(path)))


# ------------------------------------------------------------------------------------------- rules


def test_rules_lists_presets_and_options() -> None:
    result = run("rules")
    assert result.exit_code == 0
    for name in PRESETS:
        assert name in result.stdout
    for name in OPTIONS:
        assert name in result.stdout


def test_rules_json() -> None:
    doc = json.loads(run("rules", "--json").stdout)
    assert set(doc) == {"presets", "options"}
    assert set(doc["presets"]) == set(PRESETS) and set(doc["options"]) == set(OPTIONS)
    assert doc["options"]["nil_points"]["default"] == 100
    assert doc["presets"]["cutthroat"]["options"] == {"partnerships": False, "must_beat": True}


def test_main_turns_engine_errors_into_one_line(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from spades import cli

    monkeypatch.setattr(sys, "argv", ["spades", "score", "/nonexistent.json"])
    with pytest.raises(SystemExit) as e:
        cli.main()
    assert e.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


@pytest.mark.parametrize("command", ["score", "replay"])
@pytest.mark.parametrize(("text", "message"), [("[" * 100_000 + "]" * 100_000, "nested too deeply"),
                                               ('{"hands": [' + "1" * 5000 + "]}", "digits")],
                         ids=["deep", "long number"])
def test_unusable_json_is_one_line_exit_2(tmp_path: Path, command: str, text: str, message: str) -> None:
    """Fixed: a JSON document nested too deeply or with a too-long number gave a traceback."""
    assert message in one_line_error(run(command, write(tmp_path, text)))


def test_deep_rules_json_is_one_line_exit_2(tmp_path: Path) -> None:
    rules = '{"preset": ' + "[" * 50_000 + "]" * 50_000 + "}"
    assert "--rules is not usable JSON" in one_line_error(run("score", write(tmp_path, OK_HAND), "--rules", rules))
