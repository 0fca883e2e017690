"""``milk-contract feed --broken``: streams no conformant milk writes but real pipes deliver.

A consumer meets broken streams in the field: a run cut mid-way (the producer killed, or exiting 0
having written half), no result line, an empty stream from a producer that exited 0, the result
line cut mid-line, a result followed by more lines, endings that contradict themselves, a banner
that is not JSON on stdout (docs/consumers.md names the public thread each comes from). None is
conformant (``check`` says which rules each breaks), so nothing obliges a consumer to read them
well; what it owes its caller is an honest ending. A consumer fed one passes when it

- is not killed by a signal (``consumer.crash``) and does not hang (``consumer.hang``), and
- does not report the run as a success (``consumer.dishonest``, policy): with ``--expect-json``
  the member it maps to ``/is_error`` must say ``true`` (failed) or ``null`` (not known), whatever
  its exit status, or it exits non-zero with no report; without it, a non-zero exit status is the
  honest ending (exit 0 is what a caller reads as success).

Whether it read a broken stream to its end is not judged here (a consumer may stop at the first
line it cannot trust). Before them each golden they are made from is fed as recorded, the control
(``contract.consumers.feed.controls``): a consumer that fails it (``/bin/false``, a module that does not
exist, ``sh -c 'exit 3'``) is reported for that, and no broken stream of that golden is fed (a
non-zero exit there would pass for an honest ending). The producer's exit status is part of some
cases' story (exit 0 with an empty stream) but a consumer reading a pipe never sees it, so it is stated, not delivered.
Each broken stream is also a vector (``contract.consumers.vectors``, group ``must-not-succeed``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from contract.consumers.feed import (
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_PACE,
    DEFAULT_TIMEOUT,
    Expectation,
    Failure,
    Feed,
    FeedResult,
    Finding,
    Outcome,
    controls,
    hold,
    record,
)
from contract.consumers.feed import WIRE as FEED_WIRE
from contract.consumers.judging import judge_read
from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.live.harness import describe_status

RULES = frozenset({"consumer.dishonest"})
WIRE = FEED_WIRE  # the stream wire (contract.consumers.feed)
DEFAULT_GOLDEN = "tool_calls"  # long enough to be cut in the middle, a success result to contradict
IS_ERROR = "/is_error"
MIN_LINES = 3  # init, something, result: a shorter run cannot be cut in its middle
BANNER = b"Update available: milk 0.43.0 -> run `milk update` to install\n"


class BrokenUsage(ValueError):
    """Options ``--broken`` cannot judge with (misuse: the CLI says so on one line)."""


@dataclass(frozen=True)
class Broken:
    """One broken stream: what it is, where it comes from, and what the producer exited with."""

    wire: str
    name: str  # <golden>-<kind>
    kind: str
    description: str
    source: str  # the public thread (or the seed's words) the case comes from
    data: bytes
    producer_status: int = 0  # not delivered: a consumer reading a pipe never sees it


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


def _streams(lines: list[bytes]) -> dict[str, bytes]:
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


def _chosen(goldens: Sequence[Any] | None) -> list[Any]:
    from contract.goldens.store import load

    return list(goldens) if goldens is not None else [load(WIRE, DEFAULT_GOLDEN)]


def _lines(golden: Any) -> list[bytes]:
    return [raw for raw in golden.data().split(b"\n") if raw.strip()]


def broken_streams(goldens: Sequence[Any] | None = None) -> list[Broken]:
    """Every broken stream made from each golden (by default the one ``DEFAULT_GOLDEN``)."""
    found: list[Broken] = []
    for golden in _chosen(goldens):
        lines = _lines(golden)
        if len(lines) < MIN_LINES:  # init, something, result: a shorter run cannot be cut in its middle
            continue
        for kind, data in _streams(lines).items():
            what, source, status = KINDS[kind]
            found.append(Broken(WIRE, f"{golden.name}-{kind}", kind, f"{what} (from the golden {golden.name})",
                                source, data, status))
    return found


def is_error_member(members: Mapping[str, str] | None) -> str | None:
    """The member of an ``--expect-json`` contract that reports ``/is_error``; BrokenUsage when
    a contract is given without one (honesty could not be read from it)."""
    if members is None:
        return None
    for name, pointer in members.items():
        if pointer == IS_ERROR:
            return name
    raise BrokenUsage(f"--broken reads the consumer's reported state from the member it maps to {IS_ERROR}: "
                      "--expect-json names none")


def _report(stdout: bytes) -> Any:
    lines = [raw for raw in stdout.split(b"\n") if raw.strip()]
    try:
        return orjson.loads(lines[-1]) if lines else None
    except orjson.JSONDecodeError:
        return None


def judge_broken(outcome: Outcome, member: str | None, label: str) -> list[Finding]:
    """The findings on a consumer fed one broken stream; ``member``: the one reporting is_error
    (``--expect-json``), or None (the exit status is then the consumer's report)."""
    tail = outcome.stderr.strip().splitlines()
    said = f"; its stderr ends: {textsafe.text(clip(tail[-1], 300))}" if tail else ""
    if outcome.hung:
        return [Finding("consumer.hang", f"expected the consumer to end on {label}, found it still running after "
                        f"{outcome.elapsed:.3g}s; killed it and its process group{said}",
                        "a broken stream still ends: exit (non-zero) at the end of input")]
    if outcome.status is not None and outcome.status < 0:
        return [Finding("consumer.crash", f"expected the consumer to end on {label}, found it "
                        f"{describe_status(outcome.status)}{said}",
                        "a stream that is not a whole run is an error to report, not a reason to die")]
    if member is None:
        if outcome.status == 0:
            return [Finding("consumer.dishonest", f"expected a non-zero exit status on {label} (it is not a whole "
                            f"run), found exit status 0, which a caller reads as success{said}",
                            "exit non-zero when the stream ends without one result line last, or is not JSON")]
        return []
    report = _report(outcome.stdout)
    value = report.get(member, ...) if isinstance(report, dict) else ...
    if value is True or value is None:
        return []  # it says the run failed, or that how it ended is not known
    if value is ... and outcome.status != 0:
        return []  # no report, a non-zero exit: nothing was claimed
    found = ("no JSON object on its last stdout line" if not isinstance(report, dict) else
             f"no member {textsafe.text(clip(member))}" if value is ... else
             f"{textsafe.text(clip(member))} = {textsafe.text(clip(orjson.dumps(value).decode(), 80))}")
    return [Finding("consumer.dishonest", f"expected the consumer's report on {label} to say the run failed or is "
                    f"incomplete ({textsafe.text(clip(member))} true or null), found {found} and "
                    f"{describe_status(outcome.status or 0)}{said}",
                    "report is_error null (not known) when the stream has no single result line last, and "
                    "true when the result says the run failed")]


def feed_broken(
    argv: Sequence[str],
    goldens: Sequence[Any] | None = None,
    *,
    members: Mapping[str, str] | None = None,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    pace: float = DEFAULT_PACE,
    pty: bool = False,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
) -> FeedResult:
    """Feed the consumer every broken stream; the verdict. BrokenUsage for a contract without is_error."""
    member = is_error_member(members)
    chosen = _chosen(goldens)
    if not broken_streams(chosen):
        raise BrokenUsage("no golden fed has the three lines a broken stream is cut from")
    feed = Feed(list(argv), seed, WIRE)
    feed.result.broken = True
    options: dict[str, Any] = {"timeout": timeout, "pace": pace, "pty": pty, "max_output_bytes": max_output_bytes}
    expect = Expectation(None, dict(members) if members is not None else None)
    judged: tuple[str, ...] = ("consumer.early-exit", *(("consumer.output",) if expect.given else ()))
    with feed.guarded("consumer", "broken-stream feeder"):
        # the control: each golden as recorded first; only the goldens it passed give broken streams
        passed = controls(feed, argv, [g for g in chosen if len(_lines(g)) >= MIN_LINES], options, expect,
                          "its broken streams")
        if isinstance(passed, FeedResult):
            return passed
        streams = broken_streams(passed)
        if streams:
            judged += ("consumer.dishonest",)
        for broken in streams:
            feed.doing = f"the broken stream {broken.name}"
            outcome = hold(list(argv), broken.data, **options)
            stopped = feed.held(outcome)
            if stopped is not None:
                return stopped
            label = f"the broken stream {textsafe.text(broken.name)} ({textsafe.text(broken.kind)})"
            findings = judge_broken(outcome, member, label)
            if not findings and not outcome.hung:  # a reading that says the run succeeded is a report too
                findings = judge_read(outcome, broken.data, label, broken=True)
            record(feed.result, feed.out, Failure(broken.name, broken.name,
                                                  f"{broken.description}; from {broken.source}", broken.data,
                                                  outcome, findings))
    return feed.end(*judged)


__all__ = ["KINDS", "RULES", "Broken", "BrokenUsage", "broken_streams", "feed_broken", "is_error_member",
           "judge_broken"]
