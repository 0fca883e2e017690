"""What one consumer run is found to have done: the ``consumer.*`` findings, and the expectation.

The judging half of ``contract.consumers.feed``: ``judge`` turns an :class:`Outcome` (how a run
held by ``contract.consumers.holding.hold`` ended) into findings: a crash, a hang (with how far
the consumer had read), an early exit, and output that does not meet the :class:`Expectation`
(``--expect-stdout``, or ``--expect-json``'s members: pointers into the fed stream's result line).
The expectation is read and checked against the goldens here too (``load_members``,
``members_problem``), so a contract that could never hold is misuse before anything is fed.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import orjson

from contract.consumers import reading
from contract.consumers.holding import Outcome
from contract.core import textsafe
from contract.core.jsonvalue import clip, quoted, shown
from contract.core.jsonvalue import resolve as resolve_pointer
from contract.live.harness import describe_status
from contract.wires import Live, Wire, first, resolve


class ExpectationError(ValueError):
    """An expectation file that cannot be used (misuse: the CLI says so on one line)."""


@dataclass(frozen=True)
class Expectation:
    """What the consumer's stdout must be: exactly ``stdout``, and/or a last line reporting ``members``.

    ``members`` maps a member of the JSON object on the consumer's last non-empty stdout line to a
    JSON pointer into the fed stream's result line: ``{"is_error": "/is_error", "text": "/result"}``
    says the consumer reports the result's is_error and final text. A pointer that finds nothing
    (no result line, no such member) expects ``null``.
    """

    stdout: bytes | None = None
    members: Mapping[str, str] | None = None
    # The consumer says it speaks the reading protocol (a registered consumer's ``reading``,
    # docs/compat.md), or showed it did (it wrote a reading on the control run of the golden a
    # stream is made from): a run that wrote no reading is then a finding, not judged as silent.
    reading: bool = False
    reading_why: str = "the consumer is registered as speaking the reading protocol"

    def spoken(self, golden: str) -> Expectation:
        """This expectation for the streams made from ``golden``, whose control run wrote a reading."""
        return replace(self, reading=True, reading_why=spoken_on(golden))

    @property
    def given(self) -> bool:
        return self.stdout is not None or self.members is not None


def spoken_on(golden: str) -> str:
    """Why a reading is due on a stream made from ``golden`` (escaped): the consumer wrote one on it."""
    return f"the consumer wrote one on the golden {golden} as recorded"


def load_members(document: Any) -> dict[str, str]:
    """The members contract from a parsed JSON file; ExpectationError when it is not one."""
    if not isinstance(document, dict) or set(document) != {"members"} or not isinstance(document["members"], dict):
        raise ExpectationError('expected {"members": {NAME: "/json/pointer", ...}}')
    members = document["members"]
    if not members:
        raise ExpectationError("expected at least one member")
    for name, pointer in members.items():
        if not isinstance(pointer, str) or not (pointer == "" or pointer.startswith("/")):
            raise ExpectationError(f"member {quoted(clip(name))}: expected a JSON pointer, "  # the CLI escapes it
                                   f"found {clip(shown(pointer))}")
    return dict(members)


def members_problem(members: Mapping[str, str], goldens: Sequence[Any]) -> str | None:
    """Why an ``--expect-json`` contract cannot hold on these goldens (None when it can).

    A pointer finds nothing in a result line that lacks its member, and then expects ``null``
    (an error run's result has no ``/result``: a consumer reports none). A pointer that finds
    nothing in the result line of any golden fed expects ``null`` of every stream, so a typo
    such as ``/reslt`` would pass a consumer that reports nothing and fail a correct one: that
    is misuse, said before anything is fed.
    """
    results = [(golden.name, _result_line(golden.data(), golden.wire)) for golden in goldens]
    for name, pointer in members.items():
        if not any(result is not None and _found(result, pointer) for _, result in results):
            where = (f"golden {results[0][0]}" if len(results) == 1
                     else f"any of the {textsafe.counted(len(results), 'golden')} fed")
            return (f"member {quoted(clip(name))}: {quoted(clip(pointer))} finds nothing in the result line of "
                    f"{where}, so it could only ever expect null (a pointer into the stream's result line, "
                    "such as /result or /is_error, is needed)")
    return None


def hang_detail(outcome: Outcome) -> str:
    """What is known of how far a consumer found hanging got: lines written, and read when known."""
    whole = (f"all {textsafe.counted(outcome.lines, 'line')}" if outcome.fed == outcome.lines and outcome.lines != 1
             else f"{outcome.fed} of {textsafe.counted(outcome.lines, 'line')}")
    written = f"{whole}{' and the end of input' if outcome.ended else ''} written to its {outcome.through}"
    if not outcome.written:
        return written
    if outcome.read is None or outcome.unread is None:
        return f"{written}; how much of it it read is not known"
    taken = outcome.written - outcome.unread
    if taken <= 0:
        return f"{written}; it had read none of it (all {textsafe.counted(outcome.written, 'byte')} waiting unread)"
    if outcome.unread == 0:
        return f"{written}; it had read all of it"
    return (f"{written}; it had read {taken} of the {textsafe.counted(outcome.written, 'byte')} "
            f"({textsafe.counted(outcome.read or 0, 'line')} whole)")


def _pointer(document: Any, pointer: str) -> Any:
    """RFC 6901; None when the pointer finds nothing (the expectation is then null)."""
    return _walk(document, pointer)[1]


def _found(document: Any, pointer: str) -> bool:
    """Whether ``pointer`` finds a value in ``document`` (a null it finds is found)."""
    return _walk(document, pointer)[0]


def _walk(document: Any, pointer: str) -> tuple[bool, Any]:
    """RFC 6901: (found, the value found or None)."""
    return resolve_pointer(document, pointer)


def _result_line(data: bytes, wire: Wire | str | None = None) -> Any:
    """The last terminal line of ``data`` (``Wire.terminal`` in ``Wire.type_member``; ``wire`` by default
    the registry's first stream wire), or None (none there, or the wire has no terminal line)."""
    descriptor = resolve(wire) if wire is not None else first(Live.STREAM)
    if descriptor.terminal is None:
        return None
    for raw in reversed(data.split(b"\n")):
        with contextlib.suppress(orjson.JSONDecodeError):
            value = orjson.loads(raw) if raw.strip() else None
            if isinstance(value, dict) and value.get(descriptor.type_member) == descriptor.terminal:
                return value
    return None


def _same(a: Any, b: Any) -> bool:
    """JSON equality that tells 1 from 1.0 and true from 1 (a consumer reports what it read)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _show(value: bytes | str, limit: int = 120) -> str:
    text_ = value.decode("utf-8", "replace") if isinstance(value, bytes) else value
    return textsafe.text(clip(text_, limit))


@dataclass(frozen=True)
class Finding:
    rule: str
    message: str
    hint: str | None = None


def judge(outcome: Outcome, data: bytes, expect: Expectation, label: str, golden: bool = False,
          wire: Wire | str | None = None) -> list[Finding]:
    """The consumer findings for one run on ``data`` of ``wire`` (by default the registry's first stream
    wire: its terminal line is what ``expect.members`` point into); ``label`` names the stream (already
    escaped), ``golden`` says it is a golden as recorded (not a future variant), which the crash hint
    follows. A run that read the stream to its end and exited 0 is judged by what it said it made of
    it too (``judge_read``)."""
    findings = _judge(outcome, data, expect, label, golden, wire)
    if outcome.hung or outcome.status != 0 or any(f.rule == "consumer.early-exit" for f in findings):
        return findings  # it did not read the stream to its end: what it made of it is not judged
    return findings + judge_read(outcome, data, label, wire, required=expect.reading_why if expect.reading else None)


def judge_read(outcome: Outcome, data: bytes, label: str, wire: Wire | str | None = None,
               broken: bool = False, required: str | None = None) -> list[Finding]:
    """The reading protocol's findings on a run that exited 0 (``contract.consumers.reading``): its
    reading against the wire's reference reading, or, with none, the silent misparse (or, from a
    consumer that speaks the protocol, ``required`` saying how it is known, a reading missing)."""
    descriptor = resolve(wire) if wire is not None else first(Live.STREAM)
    if outcome.reading_not_file is not None:
        return [Finding("consumer.reading-schema", f"expected a reading of {label} in MILK_CONTRACT_READING as a "
                        f"file, found {outcome.reading_not_file} at its path (not read)",
                        "write the reading to the path as a regular file (schemas/reading.schema.json)")]
    if outcome.reading is None and required is not None:
        return [Finding("consumer.reading-schema", f"expected a reading of {label} in MILK_CONTRACT_READING "
                        f"({required}), found none",
                        "write the reading (schemas/reading.schema.json) on every stream, or on none")]
    if outcome.reading is None:
        if broken:
            return []
        return [Finding(f.rule, f.message, f.hint) for f in reading.silent(
            outcome.status, outcome.hung, None, outcome.stdout_bytes, outcome.stdout,
            _result_line(data, descriptor) is not None, label)]
    lines = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
    found, faults = reading.parse(outcome.reading, outcome.reading_overflowed, lines, label)
    if found is None:
        return [Finding(f.rule, f.message, f.hint) for f in faults]
    reference = descriptor.load_reading()
    if reference is None:
        return [Finding("consumer.reading-schema", f"expected no reading on {label}: the {descriptor.name} wire has no "
                        "reference reading to judge one against, found one (not judged)")]
    expected = reading.expected_reading(reference, data)
    return [Finding(f.rule, f.message, f.hint) for f in reading.judge_reading(found, expected, label, broken)]


def _judge(outcome: Outcome, data: bytes, expect: Expectation, label: str, golden: bool,
           wire: Wire | str | None) -> list[Finding]:
    findings: list[Finding] = []
    said = said_on_stderr(outcome.stderr)
    if outcome.hung:
        findings.append(Finding(
            "consumer.hang",
            f"expected the consumer to exit on {label}, found it still running after {outcome.elapsed:.3g}s "
            f"({hang_detail(outcome)}); killed it and its process group{said}",
            "a consumer exits at the end of its input (or after the result line), whatever else it saw"))
        return findings
    if outcome.status != 0:
        findings.append(Finding(
            "consumer.crash",
            f"expected exit status 0 on {label}, found {describe_status(outcome.status or 0)}{said}",
            crash_hint(golden)))
    elif outcome.left:  # exited 0 with some of the stream unread: its exit says nothing of the rest
        total = len(data)
        none = outcome.left >= total
        findings.append(Finding(
            "consumer.early-exit",
            f"expected the consumer to read {label} to its end before it exited, found it exited 0 with "
            + (f"none of its {textsafe.counted(total, 'byte')} read: nothing of the wire was exercised" if none
               else f"{outcome.left} of its {textsafe.counted(total, 'byte')} unread"
                    + (f" ({outcome.never} never written: the next line is written once the consumer has taken "
                       "the one before)" if outcome.never else ""))
            + f" ({outcome.fed} of {textsafe.counted(outcome.lines, 'line')} written to its {outcome.through}){said}",
            "read stdin to its end (or to the result line, the last); exit 0 only then"))
    if not expect.given:
        return findings
    if outcome.overflowed:
        findings.append(Finding(
            "consumer.output",
            f"expected output to compare on {label}, found {outcome.stdout_bytes} bytes, more than the "
            f"{len(outcome.stdout)} kept (--max-output-bytes): not compared"))
        return findings
    if expect.stdout is not None and outcome.stdout != expect.stdout:
        findings.append(Finding(
            "consumer.output",
            f"expected stdout {_show(expect.stdout)!s} on {label}, found {_show(outcome.stdout)!s}"))
    if expect.members is not None:
        findings.extend(_members(outcome.stdout, data, expect.members, label, wire))
    return findings


def said_on_stderr(stderr: str) -> str:
    """What a finding quotes of the consumer's stderr: its first error and last lines
    (contract.core.stderr_tail, bounded), escaped as the rest of the message is."""
    from contract.core.stderr_tail import excerpt

    shown = excerpt(stderr)
    return f"; its stderr: {textsafe.text(shown)}" if shown else ""


def crash_hint(golden: bool) -> str:
    """The hint a crash gets: a golden as recorded is today's wire, which the consumer does not
    read; only a future variant's crash is about values it does not recognize."""
    if golden:
        return ("this stream is a golden as recorded, what a conformant milk writes today: the consumer fails "
                "on the wire's current shape, not on anything new (its stderr says where)")
    return ("ignore line types, subtypes, block and delta types and members you do not recognize "
            "(the seed: 'consumers must ignore values they don't recognize')")


def _members(stdout: bytes, data: bytes, members: Mapping[str, str], label: str,
             wire: Wire | str | None) -> list[Finding]:
    lines = [raw for raw in stdout.split(b"\n") if raw.strip()]
    try:
        report = orjson.loads(lines[-1]) if lines else None
    except orjson.JSONDecodeError:
        report = None
    if not isinstance(report, dict):
        return [Finding("consumer.output",
                        f"expected a JSON object on the consumer's last stdout line on {label}, found "
                        + (_show(lines[-1]) if lines else "no output"))]
    result = _result_line(data, wire)
    found = []
    for name, pointer in members.items():
        want = _pointer(result, pointer) if result is not None else None
        have = report.get(name)
        if name not in report or not _same(have, want):
            got = "no such member" if name not in report else _show(json.dumps(have, ensure_ascii=False))
            found.append(Finding(
                "consumer.output",
                f"expected {textsafe.text(clip(name))} = {_show(json.dumps(want, ensure_ascii=False))} (the result "
                f"line's {textsafe.text(clip(pointer))}) on {label}, found {got}"))
    return found


__all__ = ["Expectation", "ExpectationError", "Finding", "crash_hint", "hang_detail", "judge", "judge_read",
           "load_members", "members_problem", "said_on_stderr"]
