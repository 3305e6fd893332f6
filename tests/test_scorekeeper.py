"""The score sheet for real cards: the seed's worked hands, checks of what is typed in (nothing changes
on a bad hand), team bidding totals, the first hand without bids, and the end of the game."""

from __future__ import annotations

import pytest

from spades.scorekeeper import ScoreSheet, ScoreSheetError
from spades.variants import load_rules


def test_the_seed_bag_sequence() -> None:
    sheet = ScoreSheet(load_rules("standard"))
    sheet.add_hand([3, "nil", 2, 6], [5, 1, 3, 4])
    assert sheet.totals == [53, -160] and sheet.bags == [3, 0]
    sheet.add_hand([3, 2, 2, 2], [5, 2, 4, 2])
    assert sheet.totals == [107, -120] and sheet.bags == [7, 0]
    sheet.add_hand([2, 3, 2, 3], [4, 3, 3, 3])
    assert sheet.totals == [50, -60] and sheet.bags == [0, 0]
    d = sheet.to_dict()
    assert [[s["total"] for s in h["sides"]] for h in d["hands"]] == [[53, -160], [107, -120], [50, -60]]
    assert d["winner"] is None


@pytest.mark.parametrize(
    ("bids", "tricks", "message"),
    [
        ([3, 3, 3, 3], [4, 3, 3], "tricks must list 4"),
        ([3, 3, 3, 3], [4, 3, 3, 4], "add up to 14"),
        ([3, 3, 3], [4, 3, 3, 3], "bids must list 4"),
        ([3, "x", 3, 3], [4, 3, 3, 3], "seat 1"),
        ([3, 3, 3, 20], [4, 3, 3, 3], "at most 13"),
        (["blind nil", 3, 3, 3], [4, 3, 3, 3], "100 points behind"),
        ([3, 3, 3, 3], [4, 3, True, 3], "whole numbers"),
        ([3, None, 3, 3], [4, 3, 3, 3], "seat 1"),
        ("3333", [4, 3, 3, 3], "bids must list"),
    ],
    ids=lambda x: str(x),
)
def test_bad_hands_change_nothing(bids: object, tricks: object, message: str) -> None:
    sheet = ScoreSheet(load_rules("standard"))
    sheet.add_hand([3, 3, 3, 3], [4, 3, 3, 3])
    before = (list(sheet.totals), list(sheet.bags), len(sheet.hands))
    with pytest.raises(ScoreSheetError, match=message) as e:
        sheet.add_hand(bids, tricks)  # type: ignore[arg-type]
    assert e.value.hand == 1
    assert (sheet.totals, sheet.bags, len(sheet.hands)) == before


def test_blind_nil_when_100_behind() -> None:
    sheet = ScoreSheet(load_rules("standard"))
    sheet.add_hand([6, 1, 6, 1], [6, 0, 7, 0])
    assert sheet.totals == [121, -20]
    sheet.add_hand([3, "blind nil", 3, 3], [3, 0, 4, 6])
    assert sheet.totals[1] == -20 + 200 + 33


def test_team_bidding_total_with_a_silent_partner() -> None:
    sheet = ScoreSheet(load_rules({"team_bidding": True}))
    sheet.add_hand([7, 4, None, None], [3, 2, 4, 4])
    assert sheet.totals == [70, 42]
    with pytest.raises(ScoreSheetError, match="partner gave the side's total"):
        sheet.add_hand(["nil", 4, None, None], [0, 4, 5, 4])


def test_first_hand_without_bids() -> None:
    sheet = ScoreSheet(load_rules({"first_hand_bids": False}))
    with pytest.raises(ScoreSheetError, match="without bids"):
        sheet.add_hand([3, 3, 3, 3], [4, 3, 3, 3])
    sheet.add_hand(None, [4, 3, 3, 3])
    assert sheet.totals == [70, 60]
    sheet.add_hand([3, 3, 3, 3], [4, 3, 3, 3])
    assert sheet.totals == [131, 120]


def test_the_game_ends_and_a_tie_plays_on() -> None:
    sheet = ScoreSheet(load_rules({"target": 100}))
    sheet.add_hand([5, 1, 1, 1], [5, 1, 1, 6])  # 60, 25 (5 bags)
    sheet.add_hand([3, 1, 1, 1], [3, 1, 1, 8])  # 40, 27 - 100
    assert sheet.totals == [100, -48] and sheet.over and sheet.winner == 0
    with pytest.raises(ScoreSheetError, match="already over"):
        sheet.add_hand([3, 3, 3, 3], [4, 3, 3, 3])
    tie = ScoreSheet(load_rules({"target": 50, "bags": "count_only"}))
    tie.add_hand([3, 3, 2, 2], [4, 3, 3, 3])
    assert tie.totals == [50, 50] and not tie.over and tie.winner is None
    tie.add_hand([4, 3, 2, 2], [5, 2, 3, 3])
    assert tie.totals == [110, 100] and tie.over and tie.winner == 0


def test_timed_end_is_passed_in() -> None:
    sheet = ScoreSheet(load_rules({"time_limit_minutes": 30}))
    sheet.add_hand([3, 3, 3, 3], [4, 3, 3, 3])
    assert not sheet.over
    sheet.add_hand([3, 3, 3, 3], [4, 3, 3, 3], time_up=True)
    assert sheet.over and sheet.winner == 0


def test_three_and_six_players() -> None:
    three = ScoreSheet(load_rules("three-handed"))
    three.add_hand([5, 6, 4], [6, 6, 5])
    assert three.totals == [40, 60, 30]
    six = ScoreSheet(load_rules("six-handed"))
    six.add_hand([3, 2, 4, 3, 2, 3], [3, 2, 4, 2, 3, 3])
    assert six.totals == [-60, 41, 70]
