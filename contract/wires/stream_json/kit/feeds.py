"""What ``feed --broken`` and ``feed --transport`` make of stream-json's goldens (``Wire.feeds``).

``--broken``: the broken streams a consumer meets in the field, each cut from a golden's lines
(a run cut mid-way, no result line, an empty stream, the result cut mid-line, a result followed
by more, endings that contradict themselves, a banner on stdout); docs/consumers.md names the
public thread each comes from. ``--transport``: conformant long lines, made by an ``_meta`` member
("provider detail confined to the extension/_meta reserved fields") on the first line after init.
The feeds themselves, and their judgement, are generic (``contract.consumers.broken_feed``,
``contract.consumers.transport``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import orjson

from contract.wires.base import Feeds

BANNER = b"Update available: milk 0.43.0 -> run `milk update` to install\n"

# kind -> (what it is, where it comes from, the producer's exit status)
KINDS: dict[str, tuple[str, str, int]] = {
    "cut-mid-run-exit-0": ("the run cut after half its lines, at a line's end; the producer exited 0",
                           "anthropics/claude-code#8126 (no result line)", 0),
    "cut-mid-run-exit-1": ("the run cut in the middle of a line; the producer exited 1",
                           "anthropics/claude-code#8126 (no result line)", 1),
    "no-result": ("every line but the result line", "anthropics/claude-code#8126", 0),
    "empty-exit-0": ("an empty stream; the producer exited 0", "PerryTS/perry#9400", 0),
    "result-cut-mid-line": ("the result line cut in its middle, no end of line",
                            "oven-sh/bun#21516 (a line truncated at a read boundary)", 0),
    "result-then-more": ("the result line followed by another line",
                         "the seed's framing: exactly one terminal result last", 0),
    "success-is-error": ('the result subtype "success" with is_error true', "anthropics/claude-code#79500", 0),
    "error-subtype-not-error": ('the result subtype "error_during_execution" with is_error false; the producer '
                                "exited 0", "anthropics/claude-code#79500", 0),
    "banner": ("a banner that is not JSON on stdout before the run",
               "the seed's framing: one UTF-8 JSON object per line", 0),
}


def _lf(lines: Iterable[bytes]) -> bytes:
    return b"".join(line + b"\n" for line in lines)


def _result_with(result: bytes, **members: Any) -> bytes:
    line = orjson.loads(result)
    line.update(members)
    return orjson.dumps(line)


def _after(lines: list[bytes]) -> bytes:
    """A copy of the line before the result, numbered after the result (a line past the end)."""
    line = orjson.loads(lines[-2])
    result = orjson.loads(lines[-1])
    if type(result.get("seq")) is int:
        line["seq"] = result["seq"] + 1
    return orjson.dumps(line)


def streams(lines: list[bytes]) -> dict[str, bytes]:
    """One broken stream per kind, in ``KINDS``' order, from a golden's object lines (the result last)."""
    half = max(1, len(lines) // 2)
    body, result = lines[:-1], lines[-1]
    middle = lines[min(half, len(lines) - 1)]
    return {
        "cut-mid-run-exit-0": _lf(lines[:half]),
        "cut-mid-run-exit-1": _lf(lines[:half]) + middle[: len(middle) // 2],
        "no-result": _lf(body),
        "empty-exit-0": b"",
        "result-cut-mid-line": _lf(body) + result[: len(result) // 2],
        "result-then-more": _lf([*lines, _after(lines)]),
        "success-is-error": _lf([*body, _result_with(result, subtype="success", is_error=True)]),
        "error-subtype-not-error": _lf([*body, _result_with(result, subtype="error_during_execution",
                                                             is_error=False)]),
        "banner": BANNER + _lf(lines),
    }


FEEDS = Feeds(
    golden="tool_calls",  # long enough to be cut in the middle, a success result to contradict; many kinds
    min_lines=3,  # init, something, result: a shorter run cannot be cut in its middle
    kinds=KINDS,
    streams=streams,
    failed="/is_error",
    honest=("report is_error null (not known) when the stream has no single result line last, and "
            "true when the result says the run failed"),
    padding="_meta",
    padded_line=1,  # the first after init (an assistant line in every golden)
)
