"""Named presets and loading a rule set: a thin re-export of ``spades.core.presets`` (and the record
reader of ``spades.core.record``), kept so that ``from spades.variants import load_rules`` goes on working."""

from __future__ import annotations

from spades.core.presets import PRESETS, Preset, load_rules, parse_overrides, rules_spec
from spades.core.record import read_record

__all__ = ["PRESETS", "Preset", "load_rules", "parse_overrides", "read_record", "rules_spec"]
