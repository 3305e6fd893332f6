"""The named presets (the tables people play, as options over the defaults) and loading a rule set.

A rule set is shared as a preset name (``"cutthroat"``) or an object with ``preset`` and overrides
(``{"preset": "standard", "nil_points": 50}``); ``load_rules`` accepts both, and ``parse_overrides``
reads the command line's ``--set name=value``. The presets are rules data, so they live in the core:
the record format and the fair-dealing checks resolve a record's rules here. ``spades.variants``
re-exports them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from spades.core.errors import RulesError
from spades.core.rules import OPTIONS, Rules


@dataclass(frozen=True)
class Preset:
    """A named table: its options over the defaults and a line on who plays it."""

    name: str
    options: Mapping[str, Any]
    description: str


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("standard", {}, "Four players in two partnerships, 52 cards, nil 100, blind nil 200 when 100 "
                               "behind, ten bags cost 100, game to 500."),
        Preset("cutthroat", {"partnerships": False, "must_beat": True},
               "Four players, no partners: each bids and scores alone, and must beat the trick when able "
               "(as pagat records it)."),
        Preset("three-handed", {"players": 3, "bags": "minus_ten"},
               "Three players alone, 17 cards each with the last card set aside unseen; every over-trick "
               "costs 10."),
        Preset("three-handed-jokers", {"players": 3, "deck": "jokers", "top_trumps": ["BJ", "LJ", "2S"],
                                       "bags": "minus_ten"},
               "Three players alone with both jokers: 54 cards, 18 each; jokers and the two of spades "
               "are the top trumps."),
        Preset("two-handed", {"players": 2, "blind_nil": False},
               "Two players draw their hands from the stock (keep one, discard one), then bid and play "
               "alone; 26 cards stay unseen."),
        Preset("six-handed", {"players": 6, "removed_cards": ["2C"]},
               "Six players in three facing partnerships, two decks less both twos of clubs (102 cards, "
               "17 each); of two identical cards the second played wins."),
        Preset("jokers", {"deck": "jokers", "removed_cards": ["2C", "2H"], "top_trumps": ["BJ", "LJ", "2S"]},
               "Big joker, little joker and the two of spades over the ace; the twos of clubs and hearts "
               "come out so 52 cards remain."),
        Preset("jokers-54", {"deck": "jokers", "top_trumps": ["BJ", "LJ", "2S"], "dealer_discard": 2},
               "All 54 cards: 13 each and the dealer takes the last two, then discards two face down."),
        Preset("new-york", {"deck": "jokers", "removed_cards": ["2C", "2H"],
                            "top_trumps": ["BJ", "LJ", "2D", "2S"]},
               "Jokers, with the two of diamonds a spade between the little joker and the two of spades."),
        Preset("suicide", {"forced_bids": "suicide", "min_side_bid": 4},
               "One partner of each side must bid nil and the other at least 4 (a popular online table)."),
        Preset("mirror", {"forced_bids": "mirror", "blind_nil": False},
               "Everyone bids exactly the spades they hold (no spades: nil); the play decides the rest."),
        Preset("whiz", {"forced_bids": "whiz"},
               "Bid nil or the number of spades you hold; blind nil still allowed when behind."),
        Preset("casual", {"nil_points": 50, "blind_nil_points": 100, "blind_behind": 0, "bags": "none",
                          "target": 300},
               "A gentle home game: nil 50, blind nil 100 any time, no bag penalty, game to 300."),
        Preset("tournament", {"blind_nil": False, "nil_pass": 0, "min_side_bid": 4, "target": 500},
               "Club play: no blind nil, each side bids at least 4, bags cost 100 at ten."),
    )
}
"""Every named table, by its public name."""


def load_rules(spec: Any) -> Rules:
    """A rule set from a preset name, a JSON string, or a mapping ``{"preset": ..., option: value}``.

    Without ``preset`` a mapping starts from ``standard``. Unknown presets and options are refused. Rule
    sets are immutable, so each distinct spec is parsed once and shared (a table's rules on the way from
    its creation to its ``Game``, a record's on every replay).
    """
    if isinstance(spec, Rules):
        return spec
    try:
        key = json.dumps(spec, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return _parse_rules(spec)  # (not JSON data: the parse says what is wrong)
    return _parsed_rules(key)


@lru_cache(maxsize=512)
def _parsed_rules(key: str) -> Rules:
    return _parse_rules(json.loads(key))


def _parse_rules(spec: Any) -> Rules:
    if isinstance(spec, str):
        text = spec.strip()
        if text.startswith("{"):
            try:
                spec = json.loads(text)
            except json.JSONDecodeError as e:
                raise RulesError(f"rules are not valid JSON: {e.msg}") from None
        else:
            spec = {"preset": text}
    if not isinstance(spec, Mapping):
        raise RulesError(f"rules must be a preset name or an object, not {spec!r}")
    spec = dict(spec)
    name = spec.pop("preset", "standard")
    if not isinstance(name, str) or name not in PRESETS:
        raise RulesError(f"unknown preset {name!r}; the presets are: {', '.join(PRESETS)}")
    options = dict(PRESETS[name].options)
    options.update(spec)
    return Rules.from_options(options)


def rules_spec(preset: str, overrides: Mapping[str, Any]) -> Any:
    """The record's ``rules`` value for a preset and overrides (a bare name when there are none)."""
    return {"preset": preset, **overrides} if overrides else preset


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """Read ``name=value`` pairs (the CLI's ``--set``); values are JSON, or plain words as strings."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise RulesError(f"--set takes name=value, not {item!r}")
        if name not in OPTIONS:
            raise RulesError(f"unknown option {name!r}; the options are: {', '.join(OPTIONS)}")
        raw = raw.strip()
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            value = raw
        out[name] = value
    return out


__all__ = ["PRESETS", "Preset", "load_rules", "parse_overrides", "rules_spec"]
