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
path), for the detail. ``--blocks`` then splits stage 8 for a wire with a lone batch machine
(stream-json): each step of the block path timed alone over the file's blocks (``block_steps``).
Absolute times move with the machine's load; the increments and multiples are what to compare.
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

from run import BUILDERS as BUILDERS  # noqa: E402  # re-exported: the tests build with it

from bench import yardstick  # noqa: E402
from contract.checking import failsafe  # noqa: E402
from contract.checking.capture_coverage import Sample  # noqa: E402
from contract.checking.pipeline import SchemaStep, check_stream  # noqa: E402
from contract.checking.schema import engine  # noqa: E402
from contract.core.jsonline import Spellings  # noqa: E402
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, Record, blocks, read_records  # noqa: E402
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


BLOCK_STEPS = ("split into blocks", "orjson, each line", "types and lengths", "canonical spelling",
               "schema, each block", "facts", "the machine, by facts")


def block_steps(data: bytes) -> tuple[dict[str, float], int]:
    """CPU seconds of each step of the block path (stage 8, ``pipeline.check_blocks`` with
    ``proof.clean_block`` and the machine's ``feed_batch``), each step timed alone, summed over the
    file's blocks, and the lines fed by their facts. Each step calls the project's own function for
    it: ``reader.blocks``; ``orjson.loads``; the proof's type and length checks; ``Spellings.unproven``;
    the schema engine's ``all_valid``; the machine's ``block_facts``, then ``feed_facts`` (or
    ``feed_batch`` when the facts are declined). The first block goes line by line (``feed``), as in
    the check; a block this walk cannot prove is fed line by line too, untimed (none, on the
    benchmark's transcripts)."""
    import orjson

    wire = get(WIRE)
    [machine] = wire.machines()
    eng, spellings, out = engine(WIRE), Spellings(), Quiet()
    spent = dict.fromkeys(BLOCK_STEPS, 0.0)
    clock = time.process_time
    number = by_facts = 0
    pieces = blocks(io.BufferedReader(io.BytesIO(data)), DEFAULT_MAX_LINE_BYTES)
    while True:
        start = clock()
        block = next(pieces, None)
        spent["split into blocks"] += clock() - start
        if block is None:
            break
        bodies = block.bodies
        start = clock()
        values = list(map(orjson.loads, bodies))
        middle = clock()
        typed = set(map(type, values)) == {dict} and max(map(len, bodies)) <= DEFAULT_MAX_LINE_BYTES
        end = clock()
        spent["orjson, each line"] += middle - start
        spent["types and lengths"] += end - middle
        start = clock()
        spelt = not spellings.unproven(bodies, values)
        middle = clock()
        valid = eng.all_valid(values)
        end = clock()
        spent["canonical spelling"] += middle - start
        spent["schema, each block"] += end - middle
        if not (number and typed and spelt and valid):
            for offset, value in enumerate(values):
                machine.feed(Record(number + offset + 1, bodies[offset], value), out)
        else:
            start = clock()
            facts = machine.block_facts(values)  # type: ignore[attr-defined]  # the batch machine's
            middle = clock()
            taken = facts is not None and machine.feed_facts(  # type: ignore[attr-defined]
                number + 1, facts, out, values.__getitem__)
            if not taken:
                machine.feed_batch(number + 1, values, out)  # type: ignore[attr-defined]
            spent["facts"] += middle - start
            spent["the machine, by facts"] += clock() - middle
            by_facts += len(values) if taken else 0
        number += len(bodies)
    machine.finish(out)
    return spent, by_facts


def _print_blocks(data: bytes, rounds: int, pick: Callable[[list[float]], float], bare: float) -> None:
    runs = [block_steps(data) for _ in range(rounds)]
    lines = data.count(b"\n")
    print(f"  the block path, step by step ({runs[0][1]} of {lines} lines by facts):")
    total = 0.0
    for step in BLOCK_STEPS:
        cost = pick([spent[step] for spent, _ in runs]) / lines * 1e6
        total += cost
        print(f"    {step:<40} {cost:8.2f}")
    print(f"    {'the steps together':<40} {total:8.2f}  ({total / bare:.2f}x the bare loop's {bare:.2f})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wire", choices=tuple(BUILDERS), default="stream-json", help="the wire (default stream-json)")
    parser.add_argument("--lines", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--median", action="store_true", help="the median of the rounds, not the best")
    parser.add_argument("--blocks", action="store_true",
                        help="also time each step of the block path alone (a wire with a lone batch machine)")
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
    if args.blocks:
        _print_blocks(data, args.rounds, pick, per_line["bare loop (orjson + jsonschema-rs)"])
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
