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


# ------------------------------------------------------------------------------- per-side entry


def side_form(rules: object, bids: list[object] | None, tricks: list[int]) -> list[dict[str, object]]:
    """A per-seat hand as a player keeping score per side would type it."""
    from spades.core.record import parse_bid
    from spades.core.rules import Rules

    assert isinstance(rules, Rules)
    out: list[dict[str, object]] = []
    for seats in rules.layout.sides:
        side: dict[str, object] = {"tricks": sum(tricks[s] for s in seats)}
        if bids is not None:
            values = {s: parse_bid(bids[s]) for s in seats if bids[s] is not None}
            side["nil"] = [{"seat": s, "bid": v.text(), "tricks": tricks[s]} for s, v in values.items() if v.is_nil]
            numbers = [v for v in values.values() if not v.is_nil]
            total = sum(v.tricks for v in numbers)
            side["bid"] = (f"blind {total}" if numbers[0].blind else total) if numbers else None
        out.append(side)
    return out


def test_the_seed_hands_entered_per_side() -> None:
    sheet = ScoreSheet(load_rules("standard"))
    sheet.add_entry({"sides": [{"bid": 5, "tricks": 8},
                               {"bid": 6, "tricks": 5, "nil": [{"seat": 1, "bid": "nil", "tricks": 1}]}]})
    assert sheet.totals == [53, -160] and sheet.bags == [3, 0]
    sheet.add_entry({"sides": [{"bid": 5, "tricks": 9}, {"bid": 4, "tricks": 4}]})
    sheet.add_entry({"sides": [{"bid": 4, "tricks": 7}, {"bid": 6, "tricks": 6}]})
    assert sheet.totals == [50, -60] and sheet.bags == [0, 0]


@pytest.mark.parametrize("spec", ["standard", "six-handed", "casual",
                                  {"preset": "standard", "failed_nil_tricks": "count_for_partner"},
                                  {"preset": "standard", "boston": True, "set_penalty": "short"},
                                  {"preset": "standard", "blind_bids": True, "blind_behind": 0}])
def test_per_side_scores_as_the_same_hand_per_seat(spec: object) -> None:
    import random

    rules = load_rules(spec)
    lay = rules.layout
    rng = random.Random(5)
    checked = 0
    for _ in range(150):
        tricks = [0] * lay.n
        for _t in range(lay.hand_size):
            tricks[rng.randrange(lay.n)] += 1
        bids: list[object] = [None] * lay.n
        for seats in lay.sides:
            blind = rules.blind_bids and rng.random() < 0.2  # per side: all blind or none
            for s in seats:
                if rng.random() < 0.2 and not blind:
                    bids[s] = "nil"
                else:
                    bids[s] = f"blind {rng.randint(rules.blind_bid_min, 7)}" if blind else rng.randint(1, 6)
        per_seat, per_side = ScoreSheet(rules), ScoreSheet(rules)
        try:
            want = per_seat.add_hand(bids, tricks)
        except ScoreSheetError:
            continue
        assert per_side.add_entry({"sides": side_form(rules, bids, tricks)}) == want, (bids, tricks)
        checked += 1
    assert checked > 50


@pytest.mark.parametrize(
    ("sides", "message"),
    [
        ([{"bid": 5, "tricks": 8}], "sides must list 2"),
        ([{"bid": 5, "tricks": 8}, {"bid": 6, "tricks": 6}], "add up to 14"),
        ([{"bid": 1, "tricks": 8}, {"bid": 6, "tricks": 5}], "at least 2"),
        ([{"bid": "nil", "tricks": 8}, {"bid": 6, "tricks": 5}], "player by player"),
        ([{"bid": 5, "tricks": 8}, {"bid": 6, "tricks": 5, "nil": [{"seat": 0, "tricks": 0}]}], "seats [1, 3]"),
        ([{"bid": 5, "tricks": 8}, {"bid": 6, "tricks": 5, "nil": [{"seat": 1, "tricks": 6}]}], "more than"),
        ([{"bid": 5, "tricks": 8}, {"bid": 6, "tricks": 5, "nil": [{"seat": 1, "bid": 3}]}], "only nil"),
        ([{"bid": 5, "tricks": 8}, {"tricks": 5, "nil": [{"seat": 1}, {"seat": 3}]}], "must be theirs"),
        ([{"bid": 5, "tricks": -1}, {"bid": 6, "tricks": 5}], "whole number from 0 to 13"),
        ([{"bid": 5, "tricks": 8, "extra": 1}, {"bid": 6, "tricks": 5}], "unknown field"),
        ([{"bid": "blind 4", "tricks": 8}, {"bid": 6, "tricks": 5}], "do not allow"),
        ("sides", "sides must list 2"),
    ],
    ids=lambda x: str(x)[:40],
)
def test_bad_side_hands_change_nothing(sides: object, message: str) -> None:
    sheet = ScoreSheet(load_rules({"preset": "standard", "blind_behind": 0}))
    with pytest.raises(ScoreSheetError, match=message.replace("[", r"\[").replace("]", r"\]")):
        sheet.add_entry({"sides": sides})
    assert sheet.hands == [] and sheet.totals == [0, 0]


def test_per_side_with_team_bidding_and_a_bidless_first_hand() -> None:
    sheet = ScoreSheet(load_rules({"preset": "standard", "team_bidding": True, "first_hand_bids": False}))
    with pytest.raises(ScoreSheetError, match="without bids"):
        sheet.add_entry({"sides": [{"bid": 5, "tricks": 8}, {"tricks": 5}]})
    sheet.add_entry({"sides": [{"tricks": 8}, {"tricks": 5}]})
    assert sheet.totals == [80, 50]
    sheet.add_entry({"sides": [{"bid": 1, "tricks": 1}, {"bid": 12, "tricks": 12}]})  # one total per side
    assert sheet.totals == [90, 170]
    with pytest.raises(ScoreSheetError, match="not both"):
        sheet.add_entry({"sides": [], "tricks": [1, 2, 3, 4]})


@pytest.mark.parametrize(
    ("spec", "bids", "message"),
    [
        ({"min_side_bid": 4}, [2, 3, 1, 3], "side 0: its contract is 3, and min_side_bid is 4"),
        ({"min_side_bid": 4}, ["nil", 3, "nil", 3], "side 0: its contract is 0"),
        ({"min_side_bid": 4}, ["nil", 3, 3, 3], "side 0: its contract is 3"),
        ({"max_side_bid": 10}, [6, 3, 5, 3], "side 0: its contract is 11, and max_side_bid is 10"),
        ({"preset": "cutthroat", "min_side_bid": 4}, [4, "nil", 4, 5], "side 1: its contract is 0"),
        ("suicide", [4, "nil", 5, "nil"], "side 0: in suicide exactly one partner bids nil, not 0"),
        ({"forced_bids": "suicide"}, ["nil", 4, "nil", 5], "side 0: in suicide exactly one partner bids nil, not 2"),
        ("tournament", [1, 2, 2, 3], "side 0: its contract is 3"),
    ],
    ids=lambda x: str(x),
)
def test_bids_the_rules_forbid_between_partners_are_refused(spec: object, bids: list[object], message: str) -> None:
    # min_side_bid, max_side_bid and suicide are played in the engine's bidding; the sheet holds typed-in
    # bids to them too, rather than score a hand that could not have been bid.
    sheet = ScoreSheet(load_rules(spec))
    with pytest.raises(ScoreSheetError, match=message):
        sheet.add_hand(bids, [4, 3, 3, 3])
    assert sheet.hands == [] and sheet.totals == [0] * len(sheet.totals)


def test_bids_within_the_side_limits_score() -> None:
    sheet = ScoreSheet(load_rules({"min_side_bid": 4, "max_side_bid": 10}))
    sheet.add_hand(["nil", 3, 4, 7], [0, 3, 5, 5])
    assert sheet.totals == [141, -100]  # nil 100 + 40 + 1 bag; 10 bid, 8 taken
    suicide = ScoreSheet(load_rules("suicide"))
    suicide.add_hand(["nil", 5, 4, "nil"], [0, 6, 4, 3])
    assert suicide.totals == [140, -46]  # 5 made with 6, and the failed nil: 50 + 1 + 3 bags - 100


def test_time_up_is_typed_in_with_the_hand() -> None:
    sheet = ScoreSheet(load_rules({"time_limit_minutes": 30}))
    sheet.add_entry({"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3]})
    assert not sheet.over
    sheet.add_entry({"sides": [{"bid": 6, "tricks": 7}, {"bid": 6, "tricks": 6}], "time_up": True})
    assert sheet.over and sheet.winner == 0
    with pytest.raises(ScoreSheetError, match="true or false"):
        ScoreSheet(load_rules({"time_limit_minutes": 30})).add_entry(
            {"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3], "time_up": "yes"})
    # Only a timed game has a time to run out.
    untimed = ScoreSheet(load_rules("standard"))
    with pytest.raises(ScoreSheetError, match="time_limit_minutes"):
        untimed.add_entry({"bids": [3, 3, 3, 3], "tricks": [4, 3, 3, 3], "time_up": True})
    assert untimed.hands == []
