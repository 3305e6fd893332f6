"""``decode_message``'s depth limit: exactly ``MAX_DEPTH`` levels pass, one more is refused, and brackets
inside strings count for nothing (the walk is skipped only when the text cannot be too deep)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spades.server.protocol import MAX_DEPTH, ProtocolError, decode_message


def nested(levels: int) -> str:
    value: Any = 1
    for _ in range(levels - 1):  # the message object itself is the first level
        value = [value]
    return json.dumps({"type": "action", "id": "x", "action": value})


def test_the_deepest_message_accepted_and_the_first_refused() -> None:
    assert decode_message(nested(MAX_DEPTH), None, 10_000)["type"] == "action"
    with pytest.raises(ProtocolError) as refused:
        decode_message(nested(MAX_DEPTH + 1), None, 10_000)
    assert refused.value.code == "too_deep"


def test_brackets_inside_strings_do_not_make_a_message_deep() -> None:
    text = json.dumps({"type": "chat", "text": "[[[[{{{{[[[[" * 5})
    assert decode_message(text, None, 10_000)["text"].startswith("[[[[")
    deep_with_strings = json.dumps({"type": "x", "a": [[[[[[["[]"]]]]]]]})
    with pytest.raises(ProtocolError, match="at most 6 levels"):
        decode_message(deep_with_strings, None, 10_000)
