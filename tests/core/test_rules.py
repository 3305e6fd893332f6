"""The rule set: every option of rules.md by its public name and default, every value accepted, the
impossible combinations refused with the options in conflict named, and what a rule set implies for the
table and the cards (cards, sides, hand sizes, top trumps)."""

from __future__ import annotations

from typing import Any

import pytest

from spades.core import OPTIONS, CardError, Rules, RulesError, card_name, card_text, parse_face
from spades.core.cards import SPADES

# rules.md's table: option -> its default (the first value listed)
RULES_MD_DEFAULTS: dict[str, Any] = {
    "players": 4, "partnerships": True, "deck": "standard", "removed_cards": (), "top_trumps": (),
    "dealer_discard": 0, "first_bidder": "left_of_dealer", "team_bidding": False, "nil_points": 100,
    "blind_nil": True, "blind_nil_points": 200, "blind_behind": 100, "blind_pass": 2, "nil_pass": 0,
    "blind_bids": False, "blind_bid_min": 6, "min_side_bid": 0, "max_side_bid": None, "first_hand_bids": True,
    "misdeal": False, "first_lead": "left_of_dealer", "first_lead_spade": False, "spades_lead": "when_broken",
    "must_beat": False, "set_penalty": "bid", "bags": "penalty", "bag_limit": 10, "bag_penalty": 100,
    "failed_nil_tricks": "bags_if_made", "ten_for_two_hundred": False, "boston": False, "target": 500,
    "lose_at": None, "time_limit_minutes": None, "forced_bids": "none",
}

# Every value rules.md lists, each on its own over the defaults (with what it needs to be playable).
VALUES: list[tuple[str, Any, dict[str, Any]]] = [
    ("players", 2, {"blind_nil": False}), ("players", 3, {}), ("players", 6, {}),
    ("partnerships", False, {}), ("deck", "jokers", {"top_trumps": ["BJ", "LJ"]}),
    ("removed_cards", ["2C", "2H"], {}), ("top_trumps", ["2S"], {}), ("dealer_discard", 2,
                                                                     {"deck": "jokers", "top_trumps": ["BJ", "LJ"]}),
    ("first_bidder", "dealer", {}), ("team_bidding", True, {}), ("nil_points", 50, {}), ("blind_nil", False, {}),
    ("blind_nil_points", 100, {}), ("blind_behind", 0, {}), ("blind_pass", 2, {}),
    *[("nil_pass", k, {}) for k in (1, 2, 3, 4)], ("blind_bids", True, {}), ("blind_bid_min", 6, {}),
    ("min_side_bid", 4, {}), ("max_side_bid", 10, {}), ("first_hand_bids", False, {}), ("misdeal", True, {}),
    ("first_lead", "dealer", {}), ("first_lead", "lowest_club", {}), ("first_lead_spade", True, {}),
    ("spades_lead", "any_time", {}), ("must_beat", True, {}), ("set_penalty", "short", {}),
    *[("bags", m, {}) for m in ("none", "minus_one", "count_only", "minus_ten")], ("bag_limit", 10, {}),
    ("bag_penalty", 100, {}), ("failed_nil_tricks", "count_for_partner", {}), ("ten_for_two_hundred", True, {}),
    ("boston", True, {}), *[("target", t, {}) for t in (300, 400, 1000)], ("lose_at", -200, {}),
    ("time_limit_minutes", 60, {}), *[("forced_bids", f, {}) for f in ("suicide", "mirror", "whiz")],
]


def test_every_option_of_rules_md_with_its_default() -> None:
    assert list(OPTIONS) == list(RULES_MD_DEFAULTS)
    defaults = Rules()
    for name, want in RULES_MD_DEFAULTS.items():
        assert getattr(defaults, name) == want, name


@pytest.mark.parametrize(("name", "value", "needs"), VALUES, ids=lambda x: str(x))
def test_every_value_is_accepted(name: str, value: Any, needs: dict[str, Any]) -> None:
    options = {**needs, name: value}
    if name == "forced_bids" and value == "mirror":
        options["blind_nil"] = False
    rules = Rules.from_options(options)
    got = getattr(rules, name)
    assert (list(got) if isinstance(got, tuple) else got) == value
    assert Rules.from_options(rules.to_options()) == rules


@pytest.mark.parametrize(
    ("options", "named"),
    [
        ({"players": 3, "partnerships": True}, "players, partnerships"),
        ({"players": 2, "partnerships": True, "blind_nil": False}, "players, partnerships"),
        ({"players": 3, "nil_pass": 2}, "partnerships, nil_pass"),
        ({"partnerships": False, "team_bidding": True}, "partnerships, team_bidding"),
        ({"partnerships": False, "failed_nil_tricks": "count_for_partner"}, "partnerships, failed_nil_tricks"),
        ({"partnerships": False, "forced_bids": "suicide"}, "partnerships, forced_bids"),
        ({"partnerships": False, "blind_pass": 3}, "partnerships, blind_pass"),
        ({"players": 2}, "players, blind_nil"),
        ({"players": 2, "blind_nil": False, "blind_bids": True}, "players, blind_bids"),
        ({"players": 2, "blind_nil": False, "misdeal": True}, "players, misdeal"),
        ({"players": 2, "blind_nil": False, "dealer_discard": 2}, "players, dealer_discard"),
        ({"players": 2, "blind_nil": False, "removed_cards": ["2C"]}, "players, removed_cards"),
        ({"players": 2, "blind_nil": False, "first_lead": "lowest_club"}, "first_lead, players"),
        ({"dealer_discard": 2}, "dealer_discard, deck, removed_cards"),
        ({"deck": "jokers"}, "deck, top_trumps"),
        ({"deck": "jokers", "top_trumps": ["BJ"]}, "deck, top_trumps"),
        ({"top_trumps": ["BJ"]}, "deck, top_trumps"),
        ({"removed_cards": ["LJ"]}, "deck, removed_cards"),
        ({"removed_cards": ["2S"], "top_trumps": ["2S"]}, "top_trumps, removed_cards"),
        ({"min_side_bid": 6, "max_side_bid": 5}, "min_side_bid, max_side_bid"),
        ({"blind_nil": False, "blind_behind": 0}, "blind_behind, blind_nil, blind_bids"),
        ({"blind_nil": False, "blind_nil_points": 100}, "blind_nil, blind_nil_points, blind_pass"),
        ({"blind_bid_min": 4}, "blind_bids, blind_bid_min"),
        ({"bags": "none", "bag_limit": 5}, "bags, bag_limit, bag_penalty"),
        ({"bags": "minus_ten", "bag_penalty": 50}, "bags, bag_limit, bag_penalty"),
        ({"first_lead": "lowest_club", "first_lead_spade": True}, "first_lead, first_lead_spade"),
        ({"forced_bids": "mirror"}, "forced_bids, blind_nil"),
        ({"forced_bids": "whiz", "blind_bids": True}, "forced_bids, blind_bids"),
        ({"forced_bids": "whiz", "min_side_bid": 4}, "forced_bids, min_side_bid"),
        ({"forced_bids": "whiz", "team_bidding": True}, "forced_bids, team_bidding"),
        ({"forced_bids": "suicide", "team_bidding": True}, "forced_bids, team_bidding"),
        ({"lose_at": -200, "target": 50}, None),
        ({"target": 50, "lose_at": -10}, None),
        ({"removed_cards": [f"{r}{s}" for r in "23456789T" for s in "CDH"]}, "players, deck, removed_cards"),
        ({"partnerships": False, "min_side_bid": 13, "removed_cards": [f"{r}{s}" for r in "23" for s in "CDH"]},
         "min_side_bid, players, deck, removed_cards"),
        ({"players": 6, "min_side_bid": 13, "removed_cards": [f"{r}{s}" for r in "23456789" for s in "CDH"]},
         "min_side_bid"),
    ],
    ids=lambda x: str(x),
)
def test_impossible_combinations_are_refused_naming_the_options(options: dict[str, Any], named: str | None) -> None:
    try:
        Rules.from_options(options)
    except RulesError as e:
        if named is not None:
            assert f"cannot be played together: {named}" in str(e)
        return
    assert named is None, "accepted"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"players": 5}, "players cannot be 5"),
        ({"players": "4"}, "players cannot be '4'"),
        ({"players": True}, "players cannot be True"),
        ({"team_bidding": 1}, "team_bidding cannot be 1"),
        ({"nil_points": 55}, "multiple of 10"),
        ({"nil_points": 50.0}, "whole number"),
        ({"target": 20}, "target cannot be 20"),
        ({"target": None}, "target cannot be null"),
        ({"lose_at": 0}, "lose_at cannot be 0"),
        ({"removed_cards": "2C"}, "must be a list of cards"),
        ({"removed_cards": ["2C", "2c"]}, "lists 2C twice"),
        ({"top_trumps": ["XX"]}, "top_trumps: 'XX' is not a card"),
        ({"colour": "red"}, "unknown option 'colour'"),
        ({"deck": ["standard"]}, "deck cannot be"),
    ],
    ids=lambda x: str(x),
)
def test_bad_values_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(RulesError, match=message.replace("(", r"\(")):
        Rules.from_options(options)


def test_from_options_needs_a_mapping() -> None:
    with pytest.raises(RulesError, match="object of option names"):
        Rules.from_options(["players"])  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "face"),
    [("AS", 51), ("2C", 0), ("TD", 21), ("10D", 21), ("td", 21), (" qh ", 36), ("BJ", 53), ("lj", 52)],
)
def test_card_text(text: str, face: int) -> None:
    assert parse_face(text) == face
    assert parse_face(card_text(face)) == face
    assert card_text(face + 54) == card_text(face)


@pytest.mark.parametrize("text", ["1S", "AX", "", "A", "10", "ASS", None, 5, "J"])
def test_not_cards(text: Any) -> None:
    with pytest.raises(CardError, match="is not a card"):
        parse_face(text)


def test_card_names() -> None:
    assert card_name(parse_face("QH")) == "queen of hearts"
    assert card_name(parse_face("TD")) == "10 of diamonds"
    assert card_name(53) == "big joker"


@pytest.mark.parametrize(
    ("options", "n", "sides", "hand_size", "deck"),
    [
        ({}, 4, ((0, 2), (1, 3)), 13, 52),
        ({"partnerships": False}, 4, ((0,), (1,), (2,), (3,)), 13, 52),
        ({"players": 3}, 3, ((0,), (1,), (2,)), 17, 52),
        ({"players": 3, "deck": "jokers", "top_trumps": ["BJ", "LJ"]}, 3, ((0,), (1,), (2,)), 18, 54),
        ({"players": 2, "blind_nil": False}, 2, ((0,), (1,)), 13, 52),
        ({"players": 6, "removed_cards": ["2C"]}, 6, ((0, 3), (1, 4), (2, 5)), 17, 102),
        ({"players": 6}, 6, ((0, 3), (1, 4), (2, 5)), 17, 104),
        ({"deck": "jokers", "removed_cards": ["2C", "2H"], "top_trumps": ["BJ", "LJ", "2S"]}, 4,
         ((0, 2), (1, 3)), 13, 52),
        ({"deck": "jokers", "top_trumps": ["BJ", "LJ", "2S"], "dealer_discard": 2}, 4, ((0, 2), (1, 3)), 13, 54),
    ],
    ids=lambda x: str(x),
)
def test_layout(options: dict[str, Any], n: int, sides: Any, hand_size: int, deck: int) -> None:
    lay = Rules.from_options(options).layout
    assert (lay.n, lay.sides, lay.hand_size, len(lay.deck)) == (n, sides, hand_size, deck)
    assert len(set(lay.deck)) == deck
    for i, side in enumerate(lay.sides):
        for s in side:
            assert lay.side_of[s] == i
            assert lay.partner[s] == (None if len(side) == 1 else next(x for x in side if x != s))


def test_new_york_top_trumps_order_and_suits() -> None:
    lay = Rules.from_options({"deck": "jokers", "removed_cards": ["2C", "2H"],
                              "top_trumps": ["BJ", "LJ", "2D", "2S"]}).layout
    order = ["BJ", "LJ", "2D", "2S", "AS", "KS", "3S"]
    powers = [lay.power[parse_face(c)] for c in order]
    assert powers == sorted(powers, reverse=True)
    assert all(lay.effective_suit[parse_face(c)] == SPADES for c in order)
    assert lay.effective_suit[parse_face("3D")] == 1
    assert lay.spade_mask >> parse_face("2D") & 1
    assert not lay.suit_mask[1] >> parse_face("2D") & 1
    assert lay.spade_mask.bit_count() == 13 + 3


def test_removed_cards_take_out_both_copies_with_two_decks() -> None:
    lay = Rules.from_options({"players": 6, "removed_cards": ["2C"]}).layout
    assert parse_face("2C") not in lay.deck and parse_face("2C") + 54 not in lay.deck
    assert parse_face("3C") in lay.deck and parse_face("3C") + 54 in lay.deck


def test_every_option_has_a_plain_label_a_group_and_its_values_in_words() -> None:
    from spades.core.rules import GROUPS

    for opt in OPTIONS.values():
        assert opt.label and opt.label != opt.name, opt.name
        assert opt.group in GROUPS, opt.name
        if opt.choices and not all(type(c) is int for c in opt.choices):
            assert len(opt.words) == len(opt.choices), opt.name
        assert "_" not in " ".join(opt.words), opt.name  # words, not code names
    assert OPTIONS["spades_lead"].value_words("any_time") == "any time"
    assert OPTIONS["first_bidder"].value_words("left_of_dealer") == "the player left of the dealer"
    assert OPTIONS["blind_nil"].value_words(False) == "not allowed"
    assert OPTIONS["max_side_bid"].value_words(None) == "no limit"
    assert OPTIONS["nil_points"].value_words(50) == "50"
    assert {o.group for o in OPTIONS.values()} == set(GROUPS)
