"""A transcript line the suite shows for copying (``feed`` and ``fuzz`` failures) is valid JSON as
printed, whatever it holds, and still shows no unsafe character raw (``textsafe.json_line``).

Before, the shared escaping showed the backslash of a JSON escape as ``\\u005c``: a line holding
``"a\\u000ab"`` was printed ``"a\\u005cu000ab"``, which decodes to another string.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from contract.consumers.feed import Failure, FeedResult, Outcome
from contract.consumers.feed import describe as describe_feed
from contract.core import textsafe
from contract.core.textsafe import UNSAFE, json_line
from contract.live.fuzz import FuzzResult
from contract.live.fuzz import describe as describe_fuzz
from contract.rules.report import Report

HOSTILE = "x\n\u202eevil\u2066\x1b[2J\x00 \\u000a \U0001fffe"  # (a lone surrogate cannot be in UTF-8 bytes)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner, max_size=3), max_leaves=8)


@given(JSON_VALUES, st.booleans())
def test_a_json_line_is_shown_as_valid_json_of_the_same_value(value: Any, ascii_only: bool) -> None:
    line = json.dumps({"v": value}, ensure_ascii=ascii_only)
    shown = json_line(line)
    assert UNSAFE.search(shown) is None
    assert json.loads(shown) == json.loads(line)


def test_json_whitespace_between_tokens_stays_whitespace() -> None:
    assert json_line('{"a":\t1,\r"b":2}') == '{"a": 1, "b":2}'


def test_a_line_that_is_not_json_is_still_escaped() -> None:
    shown = json_line("not json \x1b[2J\u202e")
    assert UNSAFE.search(shown) is None
    assert shown == "not json \\u001b[2J\\u202e"


def _line() -> str:
    return json.dumps({"type": "system", "subtype": "init", "text": HOSTILE}, ensure_ascii=False)


def _shown(text: str, line_number: int) -> str:
    prefix = f"{line_number:>4} "
    (shown,) = [line for line in text.splitlines() if line.startswith(prefix)]
    return shown[len(prefix):]


def test_a_failing_feed_stream_is_shown_as_json_that_pastes_back() -> None:
    line = _line()
    outcome = Outcome(1, False, b"", 0, "", 1, 1, 0.1)
    failure = Failure("hello", "hello+x", "a change", (line + "\n").encode(), outcome, [])
    text = describe_feed(FeedResult(Report(wire="stream-json"), 1, [failure]), "replay", max_line_chars=10_000)
    shown = _shown(text, 1)
    assert json.loads(shown) == json.loads(line)
    assert "\\u005c" not in shown
    assert all(UNSAFE.search(line) is None for line in text.splitlines())


def test_a_failing_fuzz_transcript_is_shown_as_json_that_pastes_back() -> None:
    line = _line()
    result = FuzzResult(Report(wire="subagent-stdio"), 1, 1, plan=(), transcript=(line + "\n").encode())
    text = describe_fuzz(result, "replay", max_line_chars=10_000)
    assert json.loads(_shown(text, 1)) == json.loads(line)
    assert all(UNSAFE.search(line) is None for line in text.splitlines())


def test_the_text_escaping_is_unchanged_elsewhere() -> None:
    """Near miss: a report's own text keeps the injective form (a backslash before u shown escaped)."""
    assert textsafe.text("\\u000a") == "\\u005cu000a"
