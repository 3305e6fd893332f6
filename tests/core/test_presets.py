"""The presets are core data: the record reader and the fair-dealing check resolve rules themselves, each
distinct rule set is parsed once, and ``spades.variants`` stays a re-export of the same objects."""

from __future__ import annotations

from typing import Any

import pytest

import spades.core.presets as presets
import spades.variants
from spades.core import PRESETS, Rules, RulesError, load_rules


def test_variants_re_exports_the_core_presets() -> None:
    assert spades.variants.PRESETS is PRESETS and spades.variants.load_rules is load_rules


def test_each_rule_set_is_parsed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Any] = []
    real = Rules.from_options

    def counting(options: Any) -> Rules:
        calls.append(options)
        return real(options)

    monkeypatch.setattr(Rules, "from_options", staticmethod(counting))
    presets._parsed_rules.cache_clear()
    spec = {"preset": "jokers", "target": 250}
    first = load_rules(spec)
    assert load_rules({"target": 250, "preset": "jokers"}) is first  # the same spec, written otherwise
    assert load_rules('{"preset": "jokers", "target": 250}') is not None
    assert len(calls) == 2  # the mapping once, the JSON text once
    with pytest.raises(RulesError, match="unknown preset"):
        load_rules({"preset": "nope"})
    with pytest.raises(RulesError, match="unknown preset"):
        load_rules({"preset": "nope"})  # errors are never cached as rules
