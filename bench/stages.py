"""Where the checking time goes, per line: the pipeline's stages added one at a time.

Rerunnable (``python bench/stages.py``). It builds the stream-json benchmark transcript
(``bench/run.py``'s builder) in memory and times, in this process and with CPU time
(``time.process_time``), each stage on top of the previous one:

1. ``json.loads`` of every line (the baseline);
2. the reader (``contract.reader.read_records``: framing, strict parse, decoded-escape scan);
3. + the fail-closed guard around it (``failsafe.GuardedRecords``);
4. + the schema step (``pipeline.SchemaStep``);
5. + each rule machine of the wire behind its guard (``failsafe.Machines``), one at a time;
6. the whole one-process check (``pipeline.check_stream``: collector, requirement bookkeeping);
7. the report written as ``--format json``.

Each stage is the median of ``--rounds`` runs; the table gives microseconds per line, the
increment over the stage before, and the multiple of the ``json.loads`` stage. ``--cprofile N``
then prints the N functions with the most own time in the whole check, for the detail.
Absolute times move with the machine's load; the increments and multiples are what to compare.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from run import build_stream_json  # noqa: E402

from contract import failsafe, reporters  # noqa: E402
from contract.pipeline import SchemaStep, check_stream  # noqa: E402
from contract.reader import DEFAULT_MAX_LINE_BYTES, read_records  # noqa: E402
from contract.report import Report  # noqa: E402
from contract.wires import get  # noqa: E402

WIRE = "stream-json"


class Quiet:
    """A sink that keeps nothing (the stages before the collector)."""

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def exercised(self, rule: str) -> None:
        pass


def stages(data: bytes) -> list[tuple[str, Callable[[], object]]]:
    """(name, run-once function) for each stage, in order."""
    wire = get(WIRE)

    def loads() -> None:
        for line in data.split(b"\n"):
            if line:
                json.loads(line)

    def reader() -> None:
        for _ in read_records(data, Quiet(), DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi):
            pass

    def guarded() -> None:
        out = Quiet()
        for _ in failsafe.GuardedRecords(read_records(data, out, DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi), out):
            pass

    def schema() -> None:
        out = Quiet()
        validate = SchemaStep(WIRE, out)
        for record in failsafe.GuardedRecords(read_records(data, out, DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi), out):
            validate(record)

    def with_machine(index: int) -> Callable[[], None]:
        def run() -> None:
            out = Quiet()
            validate = SchemaStep(WIRE, out)
            machines = failsafe.Machines(wire.machines()[index:index + 1], out, wire.schema_rule)
            feed = machines.feed
            records = failsafe.GuardedRecords(read_records(data, out, DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi), out)
            for record in records:
                validate(record)
                feed(record)
            machines.finish()
        return run

    def whole() -> Report:
        return check_stream(data, WIRE, strict=True, ignore=(), max_line_bytes=DEFAULT_MAX_LINE_BYTES, source="-")

    def reported() -> None:
        reporters.write_json(whole(), io.StringIO())

    found: list[tuple[str, Callable[[], object]]] = [("json.loads", loads), ("reader", reader),
                                                   ("+ guard", guarded), ("+ schema step", schema)]
    for index, machine in enumerate(wire.machines()):
        found.append((f"+ {type(machine).__name__} (alone)", with_machine(index)))
    found += [("check_stream (all)", whole), ("+ json report", reported)]
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cprofile", type=int, default=0, metavar="N",
                        help="also print the N functions with the most own time in the whole check")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "stream-json.jsonl"
        build_stream_json(path, args.lines)
        data = path.read_bytes()
    lines = data.count(b"\n")
    per_line: dict[str, float] = {}
    for name, run in stages(data):
        times = []
        for _ in range(args.rounds):
            start = time.process_time()
            run()
            times.append(time.process_time() - start)
        per_line[name] = statistics.median(times) / lines * 1e6
    base = per_line["json.loads"]
    print(f"{lines} stream-json lines, CPU per line (median of {args.rounds} rounds)")
    print(f"  {'stage':<34} {'us/line':>8} {'step':>8} {'x loads':>8}")
    previous = 0.0
    for name, cost in per_line.items():
        step = cost - (per_line["+ schema step"] if "(alone)" in name else previous)
        print(f"  {name:<34} {cost:8.2f} {step:+8.2f} {cost / base:8.2f}")
        if "(alone)" not in name:
            previous = cost
    if args.cprofile:
        _top(data, args.cprofile)
    return 0


def _top(data: bytes, count: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    check_stream(data, WIRE, strict=True, ignore=(), max_line_bytes=DEFAULT_MAX_LINE_BYTES, source="-")
    profiler.disable()
    text = io.StringIO()
    stats: Any = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(count)
    print(text.getvalue())


if __name__ == "__main__":
    raise SystemExit(main())
