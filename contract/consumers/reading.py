"""The reading protocol: what a consumer under ``feed`` says it made of a stream, judged.

A consumer that finds a path in ``MILK_CONTRACT_READING`` (``VARIABLE``; ``contract.consumers.holding``
sets it for every run) may write there, as JSON Lines valid against ``schemas/reading.schema.json``,
what it did with each input line and, last, its assembled view of the run: the text and thinking of
each message's blocks, each tool call with its input and result, and the ending (docs/consumers.md,
"The reading protocol"). ``judge_reading`` holds that view against the wire's reference reading
(``Wire.load_reading``: the stream-json one is its reference consumer's ``reading``), and names what
went wrong: ``consumer.text-duplicated``, ``consumer.text-lost``, ``consumer.tool-call-lost``,
``consumer.ending-misread``, ``consumer.usage-summed``, ``consumer.line-misread``, and
``consumer.reading-schema`` for a file that breaks the protocol. ``silent`` is the silent misparse:
exit 0, no reading, no output, on a stream that carried a result. Nothing here knows a wire's lines:
the expected reading comes from the wire's descriptor.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.core.resources import data_dir

VARIABLE = "MILK_CONTRACT_READING"  # the side channel: a file path the consumer may write its reading to
MAX_READING_BYTES = 64 * 1024 * 1024  # of the reading file read back; past it the reading is not judged (a finding)
PER_RULE = 3  # findings kept per rule per stream: the first ones say what went wrong

READING_RULES = ("consumer.reading-schema", "consumer.text-duplicated", "consumer.text-lost",
                 "consumer.tool-call-lost", "consumer.ending-misread", "consumer.usage-summed",
                 "consumer.line-misread")
RULES = frozenset({*READING_RULES, "consumer.silent"})
NO_READING = f"the consumer wrote no reading ({VARIABLE}: docs/consumers.md, 'The reading protocol')"


@dataclass(frozen=True)
class Judged:
    """One finding of this module: its rule, its message (escaped), its hint."""

    rule: str
    message: str
    hint: str | None = None


Reference = Callable[[Iterable[bytes]], dict[str, Any]]


@functools.cache
def _validator() -> Any:
    from jsonschema import Draft202012Validator

    schema = json.loads((data_dir("schemas") / "reading.schema.json").read_text("utf-8"))
    return Draft202012Validator(schema)


def _show(value: Any, limit: int = 120) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return textsafe.text(clip(text, limit))


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells 1 from 1.0 and true from 1 (as ``--expect-json`` compares)."""
    try:
        return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    except (TypeError, ValueError, RecursionError):
        return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse(raw: bytes, overflowed: bool, lines: int, label: str) -> tuple[dict[str, Any] | None, list[Judged]]:
    """The reading a consumer wrote (``raw``), checked against the protocol: (its entries and view, or
    None, and the ``consumer.reading-schema`` findings). ``lines``: the input lines fed."""
    def broken(where: str, what: str) -> tuple[None, list[Judged]]:
        return None, [Judged("consumer.reading-schema",
                             f"expected a reading by the protocol (schemas/reading.schema.json) on {label}, "
                             f"found {where}{what}",
                             f"write one JSON object per line to ${VARIABLE}: line entries, then one view line, "
                             "the last")]
    if overflowed:
        return broken("", f"a reading file of more than {MAX_READING_BYTES} bytes: not judged")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return broken("", "a file that is not UTF-8")
    rows = [row for row in text.split("\n") if row.strip()]
    if not rows:
        return broken("", "an empty file (no view line)")
    entries: dict[int, str] = {}
    view: Any = None
    for number, row in enumerate(rows, 1):
        try:
            value = json.loads(row, parse_constant=_no_constant)
        except (ValueError, RecursionError):
            return broken(f"reading line {number}: ", f"not JSON ({textsafe.text(clip(row, 80))})")
        error = next(iter(sorted(_validator().iter_errors(value), key=lambda e: list(e.absolute_path))), None)
        if error is not None:
            pointer = "".join(f"/{part}" for part in error.absolute_path)
            return broken(f"reading line {number} at {textsafe.text(clip(pointer or '/', 120))}: ",
                          textsafe.text(clip(error.message, 200)))
        if "view" in value:
            if number != len(rows):
                return broken(f"reading line {number}: ", "a view line that is not the last")
            view = value["view"]
            continue
        line = value["line"]
        if line > lines:
            return broken(f"reading line {number} at /line: ",
                          f"{line}, past the {textsafe.counted(lines, 'line')} fed")
        if line in entries:
            return broken(f"reading line {number} at /line: ", f"{line} again (each input line at most once)")
        entries[line] = value["did"]
    if view is None:
        return broken("", "no view line (the last line of a reading is its view)")
    return {"entries": entries, "view": view}, []


def expected_reading(reference: Reference, data: bytes) -> dict[str, Any]:
    """The wire's reference reading of the stream ``data`` (its lines as fed, split at each newline)."""
    lines = data.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    return reference(lines)


def judge_reading(found: dict[str, Any], expected: dict[str, Any], label: str, broken: bool = False) -> list[Judged]:
    """A consumer's reading (``parse``'s) held against the reference reading of the stream it was fed.

    ``broken`` (``feed --broken``): nothing obliges a consumer to read a broken stream well, so only
    its ending is judged there: one that says the run succeeded is ``consumer.dishonest``.
    """
    view, want = found["view"], expected["view"]
    if broken:
        ending = view["ending"]
        if ending is not None and ending["failed"] is False:
            return [Judged("consumer.dishonest",
                           f"expected the reading's /view/ending/failed on {label} to be true or null (the stream is "
                           "not a whole run: how it ended is not known), found false",
                           "read failed null when the stream has no single result line last")]
        return []
    out = _Findings(label)
    _lines(found["entries"], expected["lines"], out)
    _messages(view["messages"], want["messages"], out)
    _calls(view["tool_calls"], want["tool_calls"], out)
    _ending(view["ending"], want["ending"], out)
    return out.found


class _Findings:
    """Findings of one reading, at most ``PER_RULE`` per rule (a note of how many more)."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.found: list[Judged] = []
        self.counts: dict[str, int] = {}

    def add(self, rule: str, pointer: str, expected: str, found: str, hint: str | None = None) -> None:
        count = self.counts[rule] = self.counts.get(rule, 0) + 1
        if count <= PER_RULE:
            self.found.append(Judged(rule, f"expected {expected} at {pointer} of the reading on {self.label}, "
                                           f"found {found}", hint))


def _lines(entries: dict[int, str], lines: list[dict[str, Any]], out: _Findings) -> None:
    for entry in lines:
        number = entry["line"]
        if entries.get(number) == "error" and entry["did"] != "error":
            out.add("consumer.line-misread", f"input line {number}", "a line it reads or ignores (a JSON object)",
                    '"did": "error"', "ignore line types, subtypes and members you do not recognize")


def _texts(messages: list[Any]) -> list[tuple[int, dict[str, Any]]]:
    """The messages that carry text or thinking, with their index in the reading."""
    return [(index, message) for index, message in enumerate(messages) if message["blocks"]]


_DUPLICATED = "a text assembled once: the completed block, or its deltas concatenated, never both nor a frame twice"
_LOST = "every text and thinking block of a completed assistant message, each in its own place"


def _messages(found: list[Any], want: list[Any], out: _Findings) -> None:
    have, need = _texts(found), _texts(want)
    for position in range(max(len(have), len(need))):
        if position >= len(have):
            _, message = need[position]
            out.add("consumer.text-lost", "/view/messages",
                    f"message {_show(message['id'], 60)} with {textsafe.counted(len(message['blocks']), 'block')}",
                    "no such message", _LOST)
            continue
        index, got = have[position]
        where = f"/view/messages/{index}"
        if position >= len(need):
            out.add("consumer.text-duplicated", where, f"{textsafe.counted(len(need), 'message')} with text",
                    f"one more: {_show(got['blocks'], 80)}", _DUPLICATED)
            continue
        _, message = need[position]
        _blocks(got["blocks"], message["blocks"], where, out)


def _blocks(got: list[Any], need: list[Any], where: str, out: _Findings) -> None:
    for index in range(max(len(got), len(need))):
        at = f"{where}/blocks/{index}"
        if index >= len(got):
            block = need[index]
            out.add("consumer.text-lost", at, f"a {block['type']} block {_show(block['text'], 80)}", "none", _LOST)
            continue
        if index >= len(need):
            out.add("consumer.text-duplicated", at, f"{textsafe.counted(len(need), 'block')}",
                    f"one more: {_show(got[index], 80)}", _DUPLICATED)
            continue
        have, block = got[index], need[index]
        if have["type"] != block["type"]:
            out.add("consumer.text-lost", f"{at}/type", _show(block["type"]), _show(have["type"]), _LOST)
            continue
        if have["text"] == block["text"]:
            continue
        if block["text"] and len(have["text"]) > len(block["text"]) and block["text"] in have["text"]:
            out.add("consumer.text-duplicated", f"{at}/text", _show(block["text"]), _show(have["text"]), _DUPLICATED)
        else:
            out.add("consumer.text-lost", f"{at}/text", _show(block["text"]), _show(have["text"]), _LOST)


_CALL = "each tool call in the order of its tool_use: its id, name, parsed input, and the first tool_result naming it"


def _calls(got: list[Any], need: list[Any], out: _Findings) -> None:
    for index in range(max(len(got), len(need))):
        at = f"/view/tool_calls/{index}"
        if index >= len(got):
            out.add("consumer.tool-call-lost", at, f"the call {_show(need[index]['id'], 60)} "
                    f"({_show(need[index]['name'], 40)})", "no such call", _CALL)
            continue
        if index >= len(need):
            out.add("consumer.tool-call-lost", at, textsafe.counted(len(need), "tool call"),
                    f"one more: {_show(got[index], 80)}", _CALL)
            continue
        for member in ("id", "name", "input", "result", "is_error"):
            if not _same(got[index][member], need[index][member]):
                out.add("consumer.tool-call-lost", f"{at}/{member}", _show(need[index][member]),
                        _show(got[index][member]), _CALL)


_ENDING = ("the terminal result line as written: is_error (the boolean contract, whatever the subtype), subtype, "
           "result (null when it has none), usage")


def _ending(got: dict[str, Any] | None, need: dict[str, Any] | None, out: _Findings) -> None:
    if need is None or got is None:
        if need is not got:
            out.add("consumer.ending-misread", "/view/ending", _show(need), _show(got), _ENDING)
        return
    if need["failed"] is None:
        if got["failed"] is False:  # the run is not whole: how it ended is not known, and never a success
            out.add("consumer.ending-misread", "/view/ending/failed", "true or null", "false", _ENDING)
    elif got["failed"] is not need["failed"]:
        out.add("consumer.ending-misread", "/view/ending/failed", _show(need["failed"]), _show(got["failed"]), _ENDING)
    for member in ("subtype", "result"):
        if not _same(got[member], need[member]):
            out.add("consumer.ending-misread", f"/view/ending/{member}", _show(need[member]), _show(got[member]),
                    _ENDING)
    if _same(got["usage"], need["usage"]):
        return
    if _summed(got["usage"], need["usage"]):
        out.add("consumer.usage-summed", "/view/ending/usage", _show(need["usage"]), _show(got["usage"]),
                "the result's usage is the run's, cumulative: report it as written, never add it to itself "
                "or to other lines' counts")
    else:
        out.add("consumer.ending-misread", "/view/ending/usage", _show(need["usage"]), _show(got["usage"]), _ENDING)


def _summed(got: Any, need: Any) -> bool:
    """Whether ``got`` counts more than ``need`` somewhere (a count added again), and never less."""
    if not isinstance(got, dict) or not isinstance(need, dict):
        return False
    more = False
    for key, value in need.items():
        have = got.get(key)
        if not _number(value) or not _number(have):
            continue
        if have < value:
            return False
        more = more or have > value
    return more


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def silent(status: int | None, hung: bool, reading: bytes | None, stdout_bytes: int, stdout: bytes,
           carried_result: bool, label: str) -> list[Judged]:
    """The silent misparse: exit 0, no reading, nothing on stdout, on a stream that carried a result."""
    if hung or status != 0 or reading is not None or not carried_result:
        return []
    if stdout_bytes > len(stdout) or stdout.strip():
        return []
    return [Judged("consumer.silent",
                   f"expected the consumer to say something of {label}, which carried a result line, found it "
                   f"exited 0 with no output and no reading (${VARIABLE})",
                   "a parser that falls through on a line it does not know and prints nothing tells its caller "
                   "nothing happened: report the result (or write a reading)")]


__all__ = ["MAX_READING_BYTES", "NO_READING", "READING_RULES", "RULES", "VARIABLE", "Judged", "Reference",
           "expected_reading", "judge_reading", "parse", "silent"]
