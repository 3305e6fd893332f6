"""Named presets as rules.md describes them, and loading a rule set from a name, JSON text, a mapping or
the command line's ``--set name=value``."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spades.core import RecordError, Rules, RulesError
from spades.variants import PRESETS, load_rules, parse_overrides, read_record, rules_spec

# rules.md's description of each preset, as the options that must hold.
PRESET_FACTS: dict[str, dict[str, Any]] = {
    "standard": {},
    "cutthroat": {"players": 4, "partnerships": False, "must_beat": True},
    "three-handed": {"players": 3, "deck": "standard", "bags": "minus_ten", "partnerships": False},
    "three-handed-jokers": {"players": 3, "deck": "jokers", "partnerships": False},
    "two-handed": {"players": 2, "partnerships": False},
    "six-handed": {"players": 6, "removed_cards": ("2C",), "partnerships": True},
    "jokers": {"deck": "jokers", "removed_cards": ("2C", "2H"), "top_trumps": ("BJ", "LJ", "2S")},
    "jokers-54": {"deck": "jokers", "removed_cards": (), "dealer_discard": 2, "top_trumps": ("BJ", "LJ", "2S")},
    "new-york": {"deck": "jokers", "top_trumps": ("BJ", "LJ", "2D", "2S")},
    "suicide": {"forced_bids": "suicide"},
    "mirror": {"forced_bids": "mirror"},
    "whiz": {"forced_bids": "whiz"},
    "casual": {"nil_points": 50, "target": 300},
    "tournament": {"min_side_bid": 4},
}
HAND_SIZE = {"three-handed": 17, "three-handed-jokers": 18, "six-handed": 17}
DECK = {"six-handed": 102, "three-handed-jokers": 54, "jokers-54": 54}


def test_presets_are_the_listed_ones() -> None:
    assert set(PRESETS) == set(PRESET_FACTS)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_is_what_rules_md_says(name: str) -> None:
    rules = load_rules(name)
    for option, value in PRESET_FACTS[name].items():
        assert getattr(rules, option) == value, option
    assert rules.layout.hand_size == HAND_SIZE.get(name, 13)
    assert len(rules.layout.deck) == DECK.get(name, 52)
    assert PRESETS[name].description
    assert load_rules({"preset": name}) == rules == load_rules(json.dumps({"preset": name}))


def test_preset_plus_overrides() -> None:
    rules = load_rules({"preset": "standard", "nil_points": 50, "target": 300})
    assert (rules.nil_points, rules.target) == (50, 300)
    assert load_rules('{"preset": "cutthroat", "target": 300}') == Rules(partnerships=False, must_beat=True, target=300)
    assert load_rules({"nil_points": 50}) == Rules(nil_points=50)  # no preset: standard
    assert load_rules(Rules(target=300)) == Rules(target=300)
    assert load_rules({"preset": "jokers", "removed_cards": ["2C", "2D"]}).removed_cards == ("2C", "2D")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("chess", "unknown preset 'chess'"),
        ({"preset": 3}, "unknown preset 3"),
        ('{"preset": ', "not valid JSON"),
        (7, "preset name or an object"),
        ({"preset": "standard", "nil_point": 50}, "unknown option 'nil_point'"),
        ({"preset": "three-handed", "nil_pass": 2}, "partnerships, nil_pass"),
    ],
    ids=lambda x: str(x),
)
def test_bad_specs(spec: Any, message: str) -> None:
    with pytest.raises(RulesError, match=message):
        load_rules(spec)


def test_parse_overrides() -> None:
    got = parse_overrides(["nil_points=50", "bags = minus_one", "removed_cards=[\"2C\",\"2H\"]",
                           "lose_at=null", "boston=true"])
    assert got == {"nil_points": 50, "bags": "minus_one", "removed_cards": ["2C", "2H"], "lose_at": None,
                   "boston": True}
    assert load_rules({"preset": "standard", **got}).bags == "minus_one"
    with pytest.raises(RulesError, match="name=value"):
        parse_overrides(["nil_points"])
    with pytest.raises(RulesError, match="unknown option 'nope'"):
        parse_overrides(["nope=1"])


def test_rules_spec() -> None:
    assert rules_spec("standard", {}) == "standard"
    assert rules_spec("standard", {"target": 300}) == {"preset": "standard", "target": 300}


def test_read_record_text_and_mapping() -> None:
    doc = {"format": "spades-record/1", "rules": "two-handed", "hands": []}
    assert read_record(json.dumps(doc)).totals == read_record(doc).totals == [0, 0]
    with pytest.raises(RecordError):
        read_record("nope")
