"""``milk-contract feed --transport``: conformant streams delivered the way real pipes deliver them.

Every stream here is conformant under ``check --strict`` (a golden, at most with a padding member
added where the wire's ``Feeds`` says a line may carry provider detail: stream-json's ``_meta``); only how its
bytes arrive is hostile, so every consumer must pass every case:

- ``line-over-1mib`` / ``line-over-16mib``: a line of more than 1 MiB (ClickHouse/nerve#424 saw
  a 1,304,261-byte one; anthropics/claude-agent-sdk-python#98) and of more than 16 MiB;
- ``split-64k``: a 320 KiB line written in 64 KiB pieces, each once the consumer took the one
  before, so its reads end mid-line at 64 KiB (oven-sh/bun#21516);
- ``split-arbitrary``: a run written in pieces of seeded arbitrary sizes, cut anywhere (mid-line,
  mid-UTF-8 character);
- ``slow-drip``: a run written a few bytes at a time, with a pause after each;
- ``pause-mid-line``: a line written in two halves, a pause between;
- ``one-write``: the whole run in one write, unpaced;
- ``held-open``: the run written, then stdin held open a while after the result before the end of
  input (anthropics/claude-code#25629). The consumer may finish at the result line or at the end
  of input: both pass (it must have read the result line, the last, and must not hang).

Each golden is first fed as recorded, line by line (the control, ``contract.consumers.feed.controls``):
a consumer that fails it is reported for that and gets none of that golden's deliveries.
The judgement is the feed's (``contract.consumers.feed.judge``): crash, hang, early exit, and the
``--expect-*`` expectation. A consumer that reads with a fixed 64 KiB buffer and parses each read
on its own (no reassembly of a line split across reads) fails ``split-64k`` and the long lines.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from contract.consumers.broken_feed import feeds_of
from contract.consumers.feed import (
    DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_TIMEOUT,
    Expectation,
    Failure,
    Feed,
    FeedResult,
    controls,
    hold,
    judge,
    record,
)
from contract.core import textsafe
from contract.wires import Wire

MIB = 1024 * 1024
PIECE = 64 * 1024
PAUSE_SECONDS = 0.5  # mid-line, and after the result (held open)
DRIP_BYTES, DRIP_SECONDS = 7, 0.0005


@dataclass(frozen=True)
class Delivery:
    """One conformant stream and how its bytes are written: pieces, each with a pause after it."""

    name: str
    description: str
    source: str
    data: bytes
    chunks: tuple[tuple[bytes, float], ...]
    linger: float = 0.0


def padded(data: bytes, size: int, wire: Wire | str | None = None) -> bytes:
    """``data`` with a padding member of about ``size`` bytes (in the wire's ``Feeds.padding``, on its
    ``Feeds.padded_line``): still conformant."""
    feeds = feeds_of(wire)[1]
    lines = data.split(b"\n")
    target = orjson.loads(lines[feeds.padded_line])
    meta = dict(target.get(feeds.padding) or {})
    meta["x_milk_contract_padding"] = "p" * size
    target[feeds.padding] = meta
    lines[feeds.padded_line] = orjson.dumps(target)
    return b"\n".join(lines)


def _cut(data: bytes, size: int) -> tuple[tuple[bytes, float], ...]:
    return tuple((data[at:at + size], 0.0) for at in range(0, len(data), size))


def _arbitrary(data: bytes, seed: int) -> tuple[tuple[bytes, float], ...]:
    rng = random.Random(seed)
    pieces: list[tuple[bytes, float]] = []
    at = 0
    while at < len(data):
        step = rng.choice((1, 2, 3, rng.randint(1, 64), rng.randint(64, 4096)))
        pieces.append((data[at:at + step], 0.0))
        at += step
    return tuple(pieces)


def _lines(data: bytes) -> tuple[tuple[bytes, float], ...]:
    return tuple((line + b"\n", 0.0) for line in data.split(b"\n")[:-1])


def _mid_line(data: bytes, line: int) -> tuple[tuple[bytes, float], ...]:
    lines = [piece for piece, _ in _lines(data)]
    half = len(lines[line]) // 2
    return (*((piece, 0.0) for piece in lines[:line]), (lines[line][:half], PAUSE_SECONDS),
            (lines[line][half:], 0.0), *((piece, 0.0) for piece in lines[line + 1:]))


def deliveries(golden: Any, seed: int = 0, huge: bool = True) -> list[Delivery]:
    """Every hostile delivery of ``golden`` (``huge``: with the line over 16 MiB)."""
    data, wire = golden.data(), golden.wire
    feeds = feeds_of(wire)[1]
    one, split = padded(data, MIB + MIB // 4, wire), padded(data, 5 * PIECE, wire)
    cases = [
        Delivery("line-over-1mib", f"a line of more than 1 MiB (an {feeds.padding} member)",
                 "ClickHouse/nerve#424; anthropics/claude-agent-sdk-python#98", one, _lines(one)),
        Delivery("split-64k", "a 320 KiB line written in 64 KiB pieces, so reads end mid-line",
                 "oven-sh/bun#21516", split, _cut(split, PIECE)),
        Delivery("split-arbitrary", f"the run in pieces of arbitrary sizes (seed {seed}), cut anywhere",
                 "oven-sh/bun#21516", data, _arbitrary(data, seed)),
        Delivery("slow-drip", f"the run {DRIP_BYTES} bytes at a time, a pause after each", "a slow pipe", data,
                 tuple((piece, DRIP_SECONDS) for piece, _ in _cut(data, DRIP_BYTES))),
        Delivery("pause-mid-line", f"a line in two halves, {PAUSE_SECONDS}s apart", "a producer flushing mid-line",
                 data, _mid_line(data, feeds.padded_line)),
        Delivery("one-write", "the whole run in one write", "a producer that buffers its output", data,
                 ((data, 0.0),)),
        Delivery("held-open", f"stdin held open {PAUSE_SECONDS}s after the result line",
                 "anthropics/claude-code#25629", data, _lines(data), linger=PAUSE_SECONDS),
    ]
    if huge:
        big = padded(data, 16 * MIB + MIB // 2, wire)
        cases.insert(1, Delivery("line-over-16mib", f"a line of more than 16 MiB (an {feeds.padding} member)",
                                 "ClickHouse/nerve#424 (past every 16 MiB default)", big, _lines(big)))
    return cases


def feed_transport(
    argv: Sequence[str],
    goldens: Sequence[Any],
    *,
    expect: Expectation | None = None,
    seed: int | None = None,
    timeout: float = DEFAULT_TIMEOUT,
    max_output_bytes: int = DEFAULT_MAX_OUTPUT_BYTES,
    huge: bool = True,
    wire: Wire | str | None = None,
) -> FeedResult:
    """Feed the consumer every hostile delivery of each golden of ``wire``; the verdict."""
    expect = expect if expect is not None else Expectation()
    feed = Feed(list(argv), seed, feeds_of(wire)[0])
    for golden in goldens:
        with feed.guarded("consumer", "transport feeder"):
            # the control: the golden as recorded, line by line, before its hostile deliveries
            passed = controls(feed, argv, [golden], {"timeout": timeout, "max_output_bytes": max_output_bytes},
                              expect, "its hostile deliveries")
            if isinstance(passed, FeedResult):
                return passed
            for case in deliveries(golden, feed.seed % 2**16, huge=huge) if passed else ():
                feed.doing = f"{golden.name} delivered {case.name}"
                outcome = hold(list(argv), case.data, timeout=timeout, pace=0.0, chunks=case.chunks,
                               linger=case.linger, max_output_bytes=max_output_bytes)
                stopped = feed.held(outcome)
                if stopped is not None:
                    return stopped
                label = f"{textsafe.text(golden.name)} delivered {case.name} ({case.description})"
                held = expect.spoken(textsafe.text(golden.name)) if golden.name in feed.spoke else expect
                findings = judge(outcome, case.data, held, label, wire=golden.wire)
                record(feed.result, feed.out, Failure(golden.name, f"{golden.name}~{case.name}",
                                                      f"{case.description}; from {case.source}", case.data,
                                                      outcome, findings))
        if feed.faulted:
            break
    return feed.end(*(("consumer.output",) if expect.given else ()), "consumer.early-exit")


__all__ = ["Delivery", "deliveries", "feed_transport", "padded"]
