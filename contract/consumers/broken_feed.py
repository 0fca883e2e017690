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
Which broken streams a wire has, and how they are cut from its lines, is the wire's (``Wire.feeds``,
in its kit); this module feeds and judges them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
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
    fed_wire,
    hold,
    record,
)
from contract.consumers.judging import judge_read
from contract.core import textsafe
from contract.core.jsonvalue import clip
from contract.live.harness import describe_status
from contract.wires import Wire, resolve
from contract.wires.base import Feeds

RULES = frozenset({"consumer.dishonest"})


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
    golden: str = ""  # the golden it is cut from


def feeds_of(wire: Wire | str | None = None) -> tuple[str, Feeds]:
    """The fed wire's name (by default the registry's first stream wire) and how its streams are made
    (``Wire.feeds``); BrokenUsage when it has none."""
    descriptor = resolve(wire if wire is not None else fed_wire())
    feeds = descriptor.load_feeds()
    if feeds is None:
        raise BrokenUsage(f"{descriptor.name} has no broken or transport streams of its own (Wire.feeds)")
    return descriptor.name, feeds


def _chosen(goldens: Sequence[Any] | None, wire: str, feeds: Feeds) -> list[Any]:
    from contract.goldens.store import load

    return list(goldens) if goldens is not None else [load(wire, feeds.golden)]


def _lines(golden: Any) -> list[bytes]:
    return [raw for raw in golden.data().split(b"\n") if raw.strip()]


def broken_streams(goldens: Sequence[Any] | None = None, wire: Wire | str | None = None) -> list[Broken]:
    """Every broken stream made from each golden of ``wire`` (by default its ``Feeds.golden``)."""
    name, feeds = feeds_of(wire)
    found: list[Broken] = []
    for golden in _chosen(goldens, name, feeds):
        lines = _lines(golden)
        if len(lines) < feeds.min_lines:  # a shorter run cannot be cut in its middle
            continue
        for kind, data in feeds.streams(lines).items():
            what, source, status = feeds.kinds[kind]
            found.append(Broken(name, f"{golden.name}-{kind}", kind, f"{what} (from the golden {golden.name})",
                                source, data, status, golden.name))
    return found


def is_error_member(members: Mapping[str, str] | None, wire: Wire | str | None = None) -> str | None:
    """The member of an ``--expect-json`` contract that reports the run failed (``Feeds.failed``,
    ``/is_error`` on stream-json); BrokenUsage when a contract is given without one (honesty could not
    be read from it)."""
    if members is None:
        return None
    failed = feeds_of(wire)[1].failed
    for name, pointer in members.items():
        if pointer == failed:
            return name
    raise BrokenUsage(f"--broken reads the consumer's reported state from the member it maps to {failed}: "
                      "--expect-json names none")


def _report(stdout: bytes) -> Any:
    lines = [raw for raw in stdout.split(b"\n") if raw.strip()]
    try:
        return orjson.loads(lines[-1]) if lines else None
    except orjson.JSONDecodeError:
        return None


def judge_broken(outcome: Outcome, member: str | None, label: str, wire: Wire | str | None = None) -> list[Finding]:
    """The findings on a consumer fed one broken stream of ``wire``; ``member``: the one reporting the
    run failed (``--expect-json``), or None (the exit status is then the consumer's report)."""
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
                            "exit non-zero when the stream is not a whole run, or is not JSON")]
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
                    feeds_of(wire)[1].honest)]


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
    wire: Wire | str | None = None,
) -> FeedResult:
    """Feed the consumer every broken stream of ``wire`` (by default the registry's first stream wire);
    the verdict. BrokenUsage for a contract without the member that says the run failed."""
    name, feeds = feeds_of(wire)
    member = is_error_member(members, name)
    chosen = _chosen(goldens, name, feeds)
    if not broken_streams(chosen, name):
        raise BrokenUsage(f"no golden fed has the {textsafe.counted(feeds.min_lines, 'line')} a broken stream "
                          "is cut from")
    feed = Feed(list(argv), seed, name)
    feed.result.broken = True
    options: dict[str, Any] = {"timeout": timeout, "pace": pace, "pty": pty, "max_output_bytes": max_output_bytes}
    expect = Expectation(None, dict(members) if members is not None else None)
    judged: tuple[str, ...] = ("consumer.early-exit", *(("consumer.output",) if expect.given else ()))
    with feed.guarded("consumer", "broken-stream feeder"):
        # the control: each golden as recorded first; only the goldens it passed give broken streams
        passed = controls(feed, argv, [g for g in chosen if len(_lines(g)) >= feeds.min_lines], options, expect,
                          "its broken streams")
        if isinstance(passed, FeedResult):
            return passed
        streams = broken_streams(passed, name)
        if streams:
            judged += ("consumer.dishonest",)
        for broken in streams:
            feed.doing = f"the broken stream {broken.name}"
            outcome = hold(list(argv), broken.data, **options)
            stopped = feed.held(outcome)
            if stopped is not None:
                return stopped
            label = f"the broken stream {textsafe.text(broken.name)} ({textsafe.text(broken.kind)})"
            findings = judge_broken(outcome, member, label, name)
            if not findings and not outcome.hung:  # a reading that says the run succeeded is a report too
                # a consumer whose control wrote a reading owes one here too, when it exits 0 (one that
                # stops with a failure status on a broken stream may stop before it writes)
                findings = judge_read(outcome, broken.data, label, name, broken=True,
                                      required=feed.spoke.get(broken.golden) if outcome.status == 0 else None)
            record(feed.result, feed.out, Failure(broken.name, broken.name,
                                                  f"{broken.description}; from {broken.source}", broken.data,
                                                  outcome, findings))
    return feed.end(*judged)


__all__ = ["RULES", "Broken", "BrokenUsage", "broken_streams", "feed_broken", "feeds_of", "is_error_member",
           "judge_broken"]
