"""Scoring as pure functions, from the data tables in tests/data/scoring/ (one row per case).

Readings of rules.md that the tables fix (the engine's decisions, documented here):
- A solo player's failed nil: its contract is 0, which counts as made, so its tricks are bags.
- A Boston with any blind bid in it scores the blind Boston (400).
- A blind contract's short-set (``set_penalty: short``) loses double per trick short, as the bid would.
- Team bidding: the partner who gave no number (``null``) plays toward the side's total.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spades.core import BidValue, RulesError, apply_bags, parse_bid, score_hand
from spades.core.scoring import blind_eligible_sides, game_outcome, tie_note
from spades.variants import load_rules

DATA = Path(__file__).resolve().parent.parent / "data" / "scoring"


def load_cases() -> list[Any]:
    out = []
    for path in sorted(DATA.glob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            out.append(pytest.param(case, id=f"{path.stem}: {case['label']}"))
    return out


CASES = load_cases()


def parse_bids(bids: list[Any] | None) -> list[BidValue | None] | None:
    if bids is None:
        return None
    return [None if b is None else parse_bid(b) for b in bids]


def test_the_tables_are_all_there() -> None:
    assert len(CASES) >= 60
    labels = [c.values[0]["label"] for c in CASES]
    assert len(labels) == len(set(labels))


@pytest.mark.parametrize("case", CASES)
def test_scoring_table(case: dict[str, Any]) -> None:
    rules = load_rules(case["rules"])
    n = rules.layout.n
    bags = list(case.get("bags_before", [0] * rules.layout.sides_count))
    totals = [0] * rules.layout.sides_count
    time_up = False
    for i, hand in enumerate(case["hands"]):
        assert len(hand["tricks"]) == n and sum(hand["tricks"]) == rules.layout.hand_size, "bad table row"
        sides = score_hand(rules, parse_bids(hand["bids"]), hand["tricks"], bags)
        got = [{"points": s.points, "bags": s.bags_total} for s in sides]
        want = [{"points": e["points"], "bags": e["bags"]} for e in hand["expect"]]
        assert got == want, [[ln.text for ln in s.lines] for s in sides]
        for k, s in enumerate(sides):
            assert s.points == sum(ln.points for ln in s.lines)
            totals[k] += s.points
            bags[k] = s.bags_total
            if "total" in hand["expect"][k]:
                assert totals[k] == hand["expect"][k]["total"]
        # The end of the game: no row follows it, and a case's 'winner' is the side that won (null: going on).
        time_up = time_up or hand.get("time_up", False)
        over, winner = game_outcome(rules, totals, time_up)
        assert not over or i == len(case["hands"]) - 1, "a hand after the end of the game"
    if "winner" in case:
        assert (over, winner) == (case["winner"] is not None, case["winner"])


def test_worked_hand_lines_explain_the_points() -> None:
    rules = load_rules("standard")
    ns, ew = score_hand(rules, parse_bids([3, "nil", 2, 6]), [5, 1, 3, 4], [0, 0])
    assert [(ln.text, ln.points) for ln in ns.lines] == [("contract of 5 made", 50), ("3 bags", 3)]
    assert [ln.points for ln in ew.lines] == [-100, -60]
    assert ns.made is True and ew.made is False
    assert (ns.contract, ew.contract, ns.tricks, ew.tricks) == (5, 6, 8, 5)


@pytest.mark.parametrize(
    ("mode", "count", "new", "want"),
    [
        ("penalty", 0, 3, (3, 3)),
        ("penalty", 7, 3, (-97, 0)),
        ("penalty", 9, 12, (-188, 1)),
        ("penalty", 5, 0, (0, 5)),
        ("count_only", 7, 3, (-100, 0)),
        ("count_only", 2, 3, (0, 5)),
        ("none", 0, 12, (12, 0)),
        ("minus_one", 0, 4, (-4, 0)),
        ("minus_ten", 0, 4, (-40, 0)),
    ],
    ids=lambda x: str(x),
)
def test_apply_bags(mode: str, count: int, new: int, want: tuple[int, int]) -> None:
    points, after, _ = apply_bags(load_rules({"bags": mode}), count, new)
    assert (points, after) == want


@pytest.mark.parametrize(
    ("behind", "totals", "want"),
    [
        (100, [0, 0], [False, False]),
        (100, [0, 100], [True, False]),
        (100, [1, 100], [False, False]),
        (100, [-150, -50], [True, False]),
        (0, [0, 500], [True, True]),
        (100, [0, 50, 100], [True, False, False]),
        (100, [100, 100, 0], [False, False, True]),
    ],
    ids=lambda x: str(x),
)
def test_blind_eligibility_is_100_behind_the_leading_other_side(behind: int, totals: list[int],
                                                                  want: list[bool]) -> None:
    players = 4 if len(totals) == 2 else 3
    rules = load_rules({"blind_behind": behind, "players": players})
    assert blind_eligible_sides(rules, totals) == want


@pytest.mark.parametrize(
    ("options", "totals", "time_up", "want"),
    [
        ({}, [499, 480], False, (False, None)),
        ({}, [500, 480], False, (True, 0)),
        ({}, [510, 530], False, (True, 1)),
        ({}, [520, 520], False, (False, None)),
        ({"target": 300}, [300, -10], False, (True, 0)),
        ({"lose_at": -200}, [-200, 50], False, (True, 1)),
        ({"lose_at": -200}, [-199, 50], False, (False, None)),
        ({"lose_at": -200}, [-200, -200], False, (False, None)),
        ({"time_limit_minutes": 30}, [120, 80], True, (True, 0)),
        ({"time_limit_minutes": 30}, [120, 120], True, (False, None)),
        ({"players": 3}, [500, 500, 200], False, (False, None)),
        ({"players": 3}, [510, 500, 200], False, (True, 0)),
    ],
    ids=lambda x: str(x),
)
def test_game_outcome(options: dict[str, Any], totals: list[int], time_up: bool, want: Any) -> None:
    assert game_outcome(load_rules(options), totals, time_up) == want


def test_score_hand_refuses_wrong_lengths() -> None:
    rules = load_rules("standard")
    with pytest.raises(ValueError, match="one trick count per seat"):
        score_hand(rules, None, [13, 0, 0], [0, 0])


def test_bidless_hand_scores_ten_a_trick() -> None:
    sides = score_hand(load_rules("standard"), None, [4, 3, 3, 3], [5, 0])
    assert [(s.points, s.bags, s.bags_total, s.made) for s in sides] == [(70, 0, 5, None), (60, 0, 0, None)]


def test_unknown_preset_is_refused() -> None:
    with pytest.raises(RulesError, match="unknown preset"):
        load_rules("nope")


def test_tie_note_says_why_a_tied_game_goes_on() -> None:
    rules = load_rules("standard")
    note = tie_note(rules, [510, 510])
    assert note is not None and "510" in note and "tie never ends a game" in note
    assert game_outcome(rules, [510, 510]) == (False, None)  # the note and the rule agree
    assert tie_note(rules, [520, 510]) is None  # a winner: nothing goes on
    assert tie_note(rules, [300, 300]) is None  # not at the end yet: no tie to explain
    timed = tie_note(load_rules({"preset": "standard", "time_limit_minutes": 30}), [120, 120], time_up=True)
    assert timed is not None and "time is up" in timed


def test_tied_at_end_gives_the_reason_a_game_past_its_end_goes_on() -> None:
    from spades.core.rules import Rules
    from spades.core.scoring import game_outcome, tied_at_end

    r = Rules(target=500, lose_at=-200)
    assert tied_at_end(r, [510, 510]) and game_outcome(r, [510, 510]) == (False, None)
    assert not tied_at_end(r, [490, 490])  # not at the end yet: no reason to give
    assert not tied_at_end(r, [520, 510])  # over: the leader wins
    assert tied_at_end(r, [-250, -250])  # the losing floor reached, tied
    assert tied_at_end(r, [100, 100], time_up=True) and not tied_at_end(r, [100, 90], time_up=True)
