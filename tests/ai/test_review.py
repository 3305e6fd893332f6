"""The game review (``spades.ai.review``): honest on the blunder suite and on close calls, deterministic,
and the search's per-candidate values it is built on."""

from __future__ import annotations

import json
import math
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from spades.ai.arena import build_bot
from spades.ai.knowledge import Knowledge
from spades.ai.review import THRESHOLDS, label_for, positions, review_game_position, review_position, review_record
from spades.ai.search import pimc_play
from spades.core import Game, Look, action_to_dict, view_hand
from spades.core.actions import Action, Discard, Draw, Play
from spades.core.cards import SPADES
from spades.variants import read_record

from .blunders import Position, load_positions

DATA = Path(__file__).resolve().parents[1] / "data"
POSITIONS = load_positions()
CLOSE = sorted((DATA / "close_calls").glob("*.json"))

def _at_decision(pos: Position) -> Game:
    """The position's game, with the implied look made when the recorded decision is a number bid."""
    game = pos.game
    v = view_hand(game.hand, pos.seat)
    if v.hand is None and Look(pos.seat) in v.legal:
        game.apply(Look(pos.seat))
    return game


def _legal(game: Game, seat: int, shape: dict[str, Any]) -> Action:
    for a in view_hand(game.hand, seat).legal:
        if action_to_dict(a) == shape:
            return a
    raise AssertionError(f"{shape} is not legal here")


def _good_action(game: Game, pos: Position) -> Action:
    """The listed good action, else the normal player's choice (which avoids every blunder of the suite);
    for the bid positions (whose label only says "not nil") the review's own expert bid."""
    if pos.expected:
        return _legal(game, pos.seat, pos.expected[0])
    if pos.label == "no_sure_nil":
        assert pos.forbidden is not None
        d = review_game_position(game, _legal(game, pos.seat, pos.forbidden[0]))
        assert d is not None
        return d.best
    v = view_hand(game.hand, pos.seat)
    return build_bot("normal", 0, None).decide(v, tuple(game.totals), None, tuple(game.bags)).action


FIRST_OF_EACH = [p for i, p in enumerate(POSITIONS) if i == 0 or POSITIONS[i - 1].label != p.label]


@pytest.mark.parametrize("pos", FIRST_OF_EACH, ids=[p.name for p in FIRST_OF_EACH])
def test_review_on_one_position_of_each_label(pos: Position) -> None:
    check_position(pos)


@pytest.mark.slow
@pytest.mark.parametrize("pos", POSITIONS, ids=[p.name for p in POSITIONS])
def test_review_flags_the_blunder_and_never_the_good_action(pos: Position) -> None:
    check_position(pos)


def check_position(pos: Position) -> None:
    """The listed blunder is flagged a mistake or a blunder, and the good action is fine: in every
    position (those whose blunder cost nothing were rewritten: ``tests/data/blunders/README.md``)."""
    game = _at_decision(pos)
    good = review_game_position(game, _good_action(game, pos))
    assert good is not None and good.label == "fine", good
    if pos.forbidden is None:
        return
    bad = review_game_position(game, _legal(game, pos.seat, pos.forbidden[0]))
    assert bad is not None
    assert bad.label in ("mistake", "blunder"), f"{pos.label}: {bad}"


def test_every_blunder_position_is_checked() -> None:
    """No exception list: the suite's property is asserted for every position with a listed blunder."""
    assert len([p for p in POSITIONS if p.forbidden is not None]) >= 90


NO_OVERTAKE_11 = next(p for p in POSITIONS if p.name == "no_overtake_11")


def test_the_check_fails_when_the_labels_do(monkeypatch: pytest.MonkeyPatch) -> None:
    """The property can fail: with the mistake and blunder thresholds broken (set too high), the blunder
    that passes with the real thresholds is no longer flagged and the check says so."""
    check_position(NO_OVERTAKE_11)
    monkeypatch.setitem(THRESHOLDS, "mistake", 1000.0)
    monkeypatch.setitem(THRESHOLDS, "blunder", 1000.0)
    with pytest.raises(AssertionError, match="no_overtake: ReviewedDecision"):
        check_position(NO_OVERTAKE_11)


@pytest.mark.parametrize("path", CLOSE, ids=[p.stem for p in CLOSE])
def test_close_calls_are_never_flagged(path: Path) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    info = data["close_call"]
    for shape in info["actions"]:
        game = read_record(data)
        d = review_game_position(game, _legal(game, info["seat"], shape))
        assert d is not None and d.label == "fine", d


def test_there_are_close_calls() -> None:
    assert len(CLOSE) >= 8


def test_labels_need_twice_the_standard_error_and_the_threshold() -> None:
    assert label_for(THRESHOLDS["blunder"] + 1, 1.0) == "blunder"
    assert label_for(THRESHOLDS["blunder"] + 1, (THRESHOLDS["blunder"] + 1) / 2) == "fine"
    assert label_for(THRESHOLDS["mistake"] + 0.5, 0.1) == "mistake"
    assert label_for(THRESHOLDS["inaccuracy"] + 0.1, 0.01) == "inaccuracy"
    assert label_for(THRESHOLDS["inaccuracy"] - 0.1, 0.0) == "fine"
    assert label_for(-50.0, 1.0) == "fine"


def _short_record() -> dict[str, Any]:
    data = json.loads((DATA / "records" / "standard.json").read_text(encoding="utf-8"))
    data["hands"] = data["hands"][:1]
    return data


def test_a_review_is_deterministic_for_its_seed_and_has_the_issue_shape() -> None:
    data = _short_record()
    data["hands"][0]["actions"] = data["hands"][0]["actions"][:24]
    a = review_record(data, seat=1, seed=5).to_json()
    b = review_record(data, seat=1, seed=5).to_json()
    assert a == b
    assert a["seat"] == 1 and a["decisions"]
    d = a["decisions"][0]
    assert set(d) >= {"hand", "action", "played", "best", "expected", "loss", "label", "reason"}
    assert set(d["expected"]) == {"played", "best", "stderr"}
    assert set(a["summary"]) >= {"points_lost", "by_label"}
    assert set(a["summary"]["points_lost"]) == {"bidding", "play"}
    # Every reviewed action is the record's own action at that index.
    for d in a["decisions"]:
        if "look" not in d["played"]:
            assert data["hands"][d["hand"]]["actions"][d["action"]] == d["played"]


def test_decisions_with_one_legal_action_are_not_reviewed() -> None:
    data = _short_record()
    todo, _ = positions(data, seat=1)
    assert todo and all(len(p.view.legal) > 1 for p in todo)
    game = read_record(data)
    plays = [a for a in game.hands[0].actions if a.seat == 1 and isinstance(a, Play)]
    assert len([p for p in todo if isinstance(p.played, Play)]) < len(plays)  # the last card had no choice


def test_the_search_returns_each_candidates_values_and_keeps_the_played_card() -> None:
    data = _short_record()
    game = read_record({**data, "hands": [{**data["hands"][0], "actions": data["hands"][0]["actions"][:20]}]})
    v = view_hand(game.hand, game.hand.to_act)
    k = Knowledge.from_view(v)
    cards = [a.card for a in v.legal if isinstance(a, Play)]
    worst = cards[-1]
    _, stats = pimc_play(v, k, tuple(game.totals), tuple(game.bags), float("inf"), random.Random(1),
                         prior=cards[0], max_worlds=40, min_worlds=40, keep=(worst,))
    assert len(stats.values[worst]) == stats.worlds
    for c, vals in stats.values.items():
        assert stats.means[c] == pytest.approx(sum(vals) / len(vals))


# ---------------------------------------------------------------------- the command


def _record_file(tmp_path: Path, actions: int = 30) -> Path:
    data = _short_record()
    data["hands"][0]["actions"] = data["hands"][0]["actions"][:actions]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_review_command_json(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from spades.cli import app

    result = CliRunner().invoke(app, ["review", str(_record_file(tmp_path)), "--seat", "2", "--json", "--seed", "3"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["seat"] == 2 and all(d["played"]["seat"] == 2 for d in data["decisions"])
    assert sum(data["summary"]["by_label"].values()) == len(data["decisions"])
    text = CliRunner().invoke(app, ["review", str(_record_file(tmp_path)), "--seat", "2", "--seed", "3"])
    assert text.exit_code == 0 and "decisions" in text.stdout


@pytest.mark.parametrize(("args", "says"), [
    (["--seat", "9"], "seat must be from 0 to 3"),
    (["--level", "normal"], "only the expert"),
    (["--budget", "0"], "--budget"),
])
def test_review_command_refuses_bad_options(tmp_path: Path, args: list[str], says: str) -> None:
    from typer.testing import CliRunner

    from spades.cli import app

    result = CliRunner().invoke(app, ["review", str(_record_file(tmp_path)), *args])
    assert result.exit_code == 2
    assert says in result.output


def test_review_command_refuses_bad_records(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from spades.cli import app

    bad = tmp_path / "bad.json"
    for text, says in (("[1]", "a record is a JSON object"), ("{", "not valid JSON"),
                       ('{"format": "spades-record/1", "hands": [{"dealer": 9}]}', "dealer")):
        bad.write_text(text, encoding="utf-8")
        result = CliRunner().invoke(app, ["review", str(bad)])
        assert result.exit_code == 2 and says in result.output, result.output
        assert len(result.output.strip().splitlines()) == 1


def test_bench_review_json() -> None:
    from typer.testing import CliRunner

    from spades.cli import app

    result = CliRunner().invoke(app, ["bench", "review", "--hands", "1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["hands"] == 1 and data["decisions_reviewed"] > 0 and data["wall_seconds"] > 0
    assert CliRunner().invoke(app, ["bench", "review", "--hands", "0"]).exit_code == 2


# ---------------------------------------------------------------------- every kind of decision


def _record(name: str) -> dict[str, Any]:
    return json.loads((DATA / "records" / f"{name}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize(("preset", "kind", "cls"), [
    ("jokers-54", "discard", "Discard"),
    ("two-handed", "draw", "Draw"),
    ("house-misdeal-nil-pass", "misdeal", "Misdeal"),
    ("house-team-bidding", "bid", "Accept"),
])
def test_discards_draws_misdeals_and_accepts_are_reviewed(preset: str, kind: str, cls: str) -> None:
    """The dealer's discard, the two-handed draw, misdeal calls and team-bidding accepts are measured like
    the other decisions (played against the expert's choice on the same deals), deterministically."""
    data = _record(preset)
    todo, skipped = positions(data)
    assert skipped == 0
    mine = [p for p in todo if type(p.played).__name__ == cls]
    assert mine and all(len(p.view.legal) > 1 for p in mine)
    p = mine[0]
    a = review_position(p, seed=2)
    b = review_position(p, seed=2)
    assert a is not None and a == b
    assert a.kind == kind and a.played == p.played and a.deals >= 24
    assert a.best in p.view.legal and a.label in ("fine", "inaccuracy", "mistake", "blunder")
    assert a.reason and math.isfinite(a.loss) and a.stderr >= 0
    if a.best != a.played:
        assert a.loss == pytest.approx(a.best_value - a.played_value)
    # In the JSON of a whole review, in the record's shape.
    shaped = a.to_json()
    assert shaped["played"] == action_to_dict(p.played) and shaped["kind"] == kind


def test_a_discard_that_throws_away_spades_is_flagged() -> None:
    """The dealer's discard is really measured: discarding the two best spades is a mistake or worse,
    the expert's own discard is fine."""
    data = _record("jokers-54")
    todo, _ = positions(data)
    p = next(p for p in todo if isinstance(p.played, Discard))
    assert p.view.hand is not None
    lay = p.view.rules.layout
    spades = sorted((c for c in p.view.hand if lay.effective_suit[c] == SPADES), key=lambda c: -lay.power[c])
    bad = replace(p, played=Discard(p.played.seat, tuple(spades[:2])))
    d = review_position(bad, seed=0)
    assert d is not None and d.label in ("mistake", "blunder"), d
    good = review_position(replace(p, played=d.best), seed=0)
    assert good is not None and good.label == "fine"


def test_every_draw_decision_is_reviewed() -> None:
    """Each turn of the two-handed draw (keep or let go: always two legal actions) is a decision."""
    data = _record("two-handed")
    todo, skipped = positions(data)
    game = read_record(data)
    draws = [a for a in game.hands[0].actions if isinstance(a, Draw)]
    assert draws and skipped == 0
    assert [p.played for p in todo if p.hand == 0 and isinstance(p.played, Draw)] == draws
