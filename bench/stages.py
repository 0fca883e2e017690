"""Where the checking time goes, per line: the pipeline's stages added one at a time.

Rerunnable (``python bench/stages.py [--wire subagent-stdio]``). It builds the benchmark transcript
of the wire (``bench/run.py``'s builders) in memory and times, in this process and with CPU time
(``time.process_time``), each stage against the one it adds to (the "over" column):

1. ``json.loads`` of every line (the baseline), and the bare loop (``bench/yardstick.py``: orjson
   and jsonschema-rs per line, issue 50's yardstick);
2. the reader (``contract.core.reader.read_records``: framing, strict parse, decoded-escape scan);
3. + the fail-closed guard around it (``failsafe.GuardedRecords``);
4. + the schema step (``pipeline.SchemaStep``);
5. + each rule machine of the wire behind its guard (``failsafe.Machines``), one at a time, line
   by line, into a sink that keeps nothing and whose ``exercised`` does nothing;
6. the same with ``exercised`` the collector's bound ``set.add`` (the requirement bookkeeping:
   the table also says how many calls a line makes);
7. the whole check line by line (``pipeline.check_stream`` of a readline-only source, as a live
   pipe is read: + the collector);
8. the whole check as a file is checked (``check_stream`` of a buffer: blocks proven by C-level
   passes and fed to ``feed_batch``, ``pipeline.check_blocks``);
9. + the requirement verdicts of the report (``requirements.verdicts``, a fixed cost per report);
10. + the report written as ``--format json`` (verdicts included).

Each stage is the best of ``--rounds`` runs (the least disturbed by the other work on a shared
machine; ``--median`` takes the median instead); the table gives microseconds per line, the
increment over the stage it adds to, and the multiple of the ``json.loads`` stage.
``--cprofile N`` then prints the N functions with the most own time in the whole check (the file
path), for the detail. Absolute times move with the machine's load; the increments and multiples
are what to compare.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
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

from run import BUILDERS  # noqa: E402

from bench import yardstick  # noqa: E402
from contract.checking import failsafe  # noqa: E402
from contract.checking.capture_coverage import Sample  # noqa: E402
from contract.checking.pipeline import SchemaStep, check_stream  # noqa: E402
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, read_records  # noqa: E402
from contract.core.resources import data_dir  # noqa: E402
from contract.reporting import reporters  # noqa: E402
from contract.rules import requirements  # noqa: E402
from contract.rules.report import Report  # noqa: E402
from contract.wires import get  # noqa: E402

WIRE = "stream-json"  # --wire changes it


class Quiet:
    """A sink that keeps nothing (the stages before the collector)."""

    def emit(self, rule: str, line: int | None, pointer: str | None, message: str,
             hint: str | None = None) -> None:
        pass

    def note(self, text: str) -> None:
        pass

    def exercised(self, rule: str) -> None:
        pass


class Keeping(Quiet):
    """A sink that keeps nothing but the exercised rules, as the collector does (a bound ``set.add``)."""

    def __init__(self) -> None:
        self.rules: set[str] = set()
        self.exercised = self.rules.add  # type: ignore[method-assign, assignment]  # the collector's own


class Counting(Quiet):
    """A sink that counts ``exercised`` calls."""

    calls = 0

    def exercised(self, rule: str) -> None:
        self.calls += 1


class _ReadlineOnly:
    """A source with only ``readline``: the reader takes it line by line, as a live pipe."""

    def __init__(self, data: bytes) -> None:
        self.readline = io.BytesIO(data).readline


Stage = tuple[str, str | None, Callable[[], object]]  # name, the stage it adds to, run once


def _check(source: object) -> Report:
    return check_stream(source, WIRE, strict=True, ignore=(), max_line_bytes=DEFAULT_MAX_LINE_BYTES,  # type: ignore[arg-type]  # a readline-only stand-in too
                        source="-", sample=Sample())


def stages(data: bytes) -> list[Stage]:
    """(name, the stage it adds to, run-once function) for each stage, in order."""
    wire = get(WIRE)

    def loads() -> None:
        for line in data.split(b"\n"):
            if line:
                json.loads(line)

    def records(out: Quiet) -> failsafe.GuardedRecords:
        return failsafe.GuardedRecords(read_records(data, out, DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi), out)

    def reader() -> None:
        for _ in read_records(data, Quiet(), DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi):
            pass

    def guarded() -> None:
        for _ in records(Quiet()):
            pass

    def schema() -> None:
        out = Quiet()
        validate = SchemaStep(WIRE, out)
        for record in records(out):
            validate(record)

    def with_machine(index: int, sink: type[Quiet]) -> Callable[[], None]:
        def run() -> None:
            out = sink()
            validate = SchemaStep(WIRE, out)
            machines = failsafe.Machines(wire.machines()[index:index + 1], out, wire.schema_rule)
            feed = machines.feed
            for record in records(out):
                validate(record)
                feed(record)
            machines.finish()
        return run

    report = _check(data)

    def verdicts() -> None:
        requirements.verdicts(report)

    def reported() -> None:
        reporters.write_json(report, io.StringIO())

    schema_bytes = (data_dir("schemas") / f"{WIRE}.schema.json").read_bytes()

    def bare() -> None:
        yardstick.bare_loop((line for line in data.split(b"\n") if line), schema_bytes)

    found: list[Stage] = [("json.loads", None, loads), ("bare loop (orjson + jsonschema-rs)", None, bare),
                          ("reader", None, reader),
                          ("+ guard", "reader", guarded), ("+ schema step", "+ guard", schema)]
    for index, machine in enumerate(wire.machines()):
        name = type(machine).__name__
        found.append((f"+ {name}, line by line", "+ schema step", with_machine(index, Quiet)))
        found.append((f"+ {name}'s exercised() kept", f"+ {name}, line by line", with_machine(index, Keeping)))
    found += [("check_stream, line by line", "+ schema step", lambda: _check(_ReadlineOnly(data))),
              ("check_stream, blocks (a file)", None, lambda: _check(data)),
              ("requirement verdicts", None, verdicts),
              ("json report", None, reported)]
    return found


def exercised_calls(data: bytes) -> float:
    """``exercised`` calls per line, line by line."""
    wire = get(WIRE)
    out = Counting()
    machines = failsafe.Machines(wire.machines(), out, wire.schema_rule)
    for record in read_records(data, out, DEFAULT_MAX_LINE_BYTES, ansi=wire.ansi):
        machines.feed(record)
    machines.finish()
    return out.calls / max(1, data.count(b"\n"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wire", choices=tuple(BUILDERS), default="stream-json", help="the wire (default stream-json)")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--median", action="store_true", help="the median of the rounds, not the best")
    parser.add_argument("--cprofile", type=int, default=0, metavar="N",
                        help="also print the N functions with the most own time in the whole check")
    args = parser.parse_args()
    global WIRE
    WIRE = args.wire
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{WIRE}.jsonl"
        BUILDERS[WIRE](path, args.lines)
        data = path.read_bytes()
    lines = data.count(b"\n")
    found = stages(data)
    times: dict[str, list[float]] = {name: [] for name, _, _ in found}
    for _ in range(args.rounds):  # round by round, so a burst of load spoils one round of each stage
        for name, _, run in found:
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    pick = statistics.median if args.median else min
    per_line = {name: pick(spent) / lines * 1e6 for name, spent in times.items()}
    base = per_line["json.loads"]
    print(f"{lines} {WIRE} lines, CPU per line ({'median' if args.median else 'best'} of {args.rounds} "
          f"rounds; load average {os.getloadavg()[0]:.1f})")
    print(f"  {'stage':<42} {'us/line':>8} {'over':>8} {'x loads':>8}  over")
    for name, over, _ in found:
        cost = per_line[name]
        step = cost - per_line[over] if over else cost
        print(f"  {name:<42} {cost:8.2f} {step:+8.2f} {cost / base:8.2f}  {over or ''}")
    print(f"  exercised() calls per line, line by line: {exercised_calls(data):.1f}")
    if args.cprofile:
        _top(data, args.cprofile)
    return 0


def _top(data: bytes, count: int) -> None:
    profiler = cProfile.Profile()
    profiler.enable()
    _check(data)
    profiler.disable()
    text = io.StringIO()
    stats: Any = pstats.Stats(profiler, stream=text)
    stats.sort_stats("tottime").print_stats(count)
    print(text.getvalue())


if __name__ == "__main__":
    raise SystemExit(main())
