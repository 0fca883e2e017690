"""Throughput and memory benchmark: what does checking cost beside parsing and validating alone?

Rerunnable (``python bench/run.py`` or ``tox -e bench``). For each wire (stream-json, and a
subagent-stdio conversation) and each length (``--lines``, repeatable; 100,000 and 400,000 by
default) it builds a conformant transcript from the goldens and runs, as whole processes, in
shuffled order round by round (``--rounds``, at least 3):

* ``milk-contract check --jobs 1`` (every MUST rule on, one process);
* the yardsticks of ``bench/yardstick.py``: a ``json.loads`` loop, an ``orjson.loads`` loop and the
  bare loop (``orjson.loads`` and a compiled jsonschema-rs validator of the wire's own schema per
  line, issue 50's yardstick).

Every figure is CPU (user + system of the whole process and the children it reaped, from
``os.wait4``), not wall: the machines this runs on are shared (while the figures in BENCHMARKS.md
were taken, eight sessions shared two cores), and CPU is what a busy neighbour moves least. A ratio
is taken within a round (check and loop on the same file, moments apart) and the median of the
rounds' ratios is reported: check over ``json.loads``, check over the bare loop, and each loop
over ``json.loads``. Peak RSS is the check process's ``ru_maxrss`` at each length (flat memory:
it does not grow with the length); for stream-json, the share of lines the fast path (the block
facts) judged and the reasons for the rest (``contract.checking.fastpath``). ``--sample N`` adds
the ``jsonschema.validate``-per-line baseline of the earlier reports, timed on N lines and
scaled (at about 24 lines a second it cannot run over a whole file).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.yardstick import LOOPS  # noqa: E402
from bench.yardstick import argv as loop_argv  # noqa: E402
from contract.core.resources import data_dir  # noqa: E402

PER_LINE = (
    "import json,sys,time,jsonschema\n"
    "schema=json.load(open(sys.argv[2]))\n"
    "lines=open(sys.argv[1],'rb').readlines()[:int(sys.argv[3])]\n"
    "t=time.perf_counter()\n"
    "for line in lines:\n    jsonschema.validate(json.loads(line), schema)\n"
    "print((time.perf_counter()-t)/len(lines))\n"
)


# -- building transcripts from the goldens ----------------------------------------------------


def _golden_lines(wire: str) -> list[list[dict[str, Any]]]:
    folder = data_dir("goldens") / wire
    return [
        [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
        for path in sorted(folder.glob("*.jsonl"))
    ]


def _remap_ids(obj: Any, suffix: str) -> Any:
    """Give tool ids a per-repetition suffix so every tool_use/tool_result pair stays unique."""
    if isinstance(obj, dict):
        out = {}
        for key, value in obj.items():
            is_tool_id = key in ("tool_use_id", "parent_tool_use_id") or (
                key == "id" and obj.get("type") == "tool_use"
            )
            if is_tool_id and isinstance(value, str):
                out[key] = value + suffix
            elif key in ("_meta", "extension", "input", "task", "tool_use_result"):
                out[key] = value  # free-form payloads: not the wire's ids
            else:
                out[key] = _remap_ids(value, suffix)
        return out
    if isinstance(obj, list):
        return [_remap_ids(item, suffix) for item in obj]
    return obj


def build_stream_json(path: Path, lines: int) -> None:
    goldens = _golden_lines("stream-json")
    init = dict(goldens[0][0])
    caps: set[str] = set()
    for golden in goldens:
        caps.update(golden[0].get("capabilities", []))
    init["capabilities"] = sorted(caps)
    # The body of each golden: everything between init and result that does not reset the run.
    bodies = [
        [o for o in golden[1:-1] if not (o.get("type") == "system" and o.get("subtype") == "init")]
        for golden in goldens
    ]
    result = goldens[0][-1]
    session = init["session_id"]
    start = 1_767_225_600.0
    seq = 0
    with path.open("w", encoding="utf-8") as out:

        def write(obj: dict[str, Any]) -> None:
            nonlocal seq
            obj = dict(obj, seq=seq, session_id=session)
            stamp = time.gmtime(start + seq // 1000)
            obj["ts"] = time.strftime("%Y-%m-%dT%H:%M:%S", stamp) + f".{seq % 1000:03d}Z"
            out.write(json.dumps(obj, separators=(",", ":"), ensure_ascii=False) + "\n")
            seq += 1

        write(init)
        rep = 0
        while seq < lines - 1:
            body = bodies[rep % len(bodies)]
            for obj in _remap_ids(body, f"_{rep}"):
                if seq >= lines - 1:
                    break
                write(obj)
            rep += 1
        write(result)


def build_subagent(path: Path, lines: int) -> None:
    """Repeat a golden conversation's command/response/event pattern with rising revisions."""
    goldens = [g for g in _golden_lines("subagent-stdio") if any(o.get("type") == "subagent_event" for o in g)]
    golden = max(goldens, key=len)
    revision = 0
    written = 0
    with path.open("w", encoding="utf-8") as out:
        while written < lines:
            for obj in golden:
                obj = json.loads(json.dumps(obj))
                snapshot = obj.get("data") or obj.get("snapshot")
                if snapshot is not None:
                    revision += 1
                    snapshot["revision"] = revision
                    snapshot["epoch"] = "bench"
                    if obj.get("type") == "subagent_event":
                        obj["revision"] = revision
                        obj["epoch"] = "bench"
                out.write(json.dumps(obj, separators=(",", ":")) + "\n")
                written += 1


# -- measuring --------------------------------------------------------------------------------


class Run(NamedTuple):
    """One process: CPU seconds (user + system, reaped children included), wall seconds, peak RSS
    in KiB, exit status."""

    cpu: float
    wall: float
    rss_kib: int
    status: int


def measure(argv: list[str]) -> Run:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return Run(usage.ru_utime + usage.ru_stime, wall, int(usage.ru_maxrss), os.waitstatus_to_exitcode(status))


def check_argv(transcript: Path, wire: str, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "contract", "check", "--wire", wire, "--jobs", "1", *extra, str(transcript)]


def paired_rounds(runs: dict[str, list[str]], rounds: int) -> dict[str, list[Run]]:
    """A warm-up of each run (each must exit 0: the transcripts are conformant), then ``rounds``
    rounds of all of them in shuffled order (no run always first, on a warmer cache)."""
    for name, argv in runs.items():
        status = measure(argv).status
        if status != 0:
            raise SystemExit(f"{name} exited {status} on a generated transcript: a benchmark bug")
    got: dict[str, list[Run]] = {name: [] for name in runs}
    for _ in range(rounds):
        order = list(runs)
        random.shuffle(order)
        for name in order:
            got[name].append(measure(runs[name]))
    return got


def ratio(got: dict[str, list[Run]], top: str, bottom: str) -> tuple[float, list[float]]:
    """The median over the rounds of ``top``'s CPU over ``bottom``'s in the same round, and each round's."""
    each = [a.cpu / b.cpu for a, b in zip(got[top], got[bottom], strict=True)]
    return statistics.median(each), [round(r, 3) for r in each]


def compare(transcript: Path, wire: str, rounds: int, extra: list[str]) -> dict[str, Any]:
    """``check --jobs 1`` and the three yardstick loops on ``transcript``, paired, in CPU."""
    runs = {"check": check_argv(transcript, wire, extra)}
    runs.update((loop, loop_argv(loop, transcript, wire)) for loop in LOOPS)
    got = paired_rounds(runs, rounds)
    found: dict[str, Any] = {name: {"cpu_s": statistics.median(r.cpu for r in got[name]),
                                    "wall_s": statistics.median(r.wall for r in got[name])} for name in runs}
    for top, bottom in (("check", "loads"), ("check", "bare"), ("orjson", "loads"), ("bare", "loads")):
        found[f"{top}/{bottom}"], found[f"{top}/{bottom} rounds"] = ratio(got, top, bottom)
    found["check_peak_rss_mib"] = max(r.rss_kib for r in got["check"]) / 1024
    return found


def per_line_baseline(transcript: Path, wire: str, sample: int, loads_s: float, lines: int) -> float:
    schema = data_dir("schemas") / f"{wire}.schema.json"
    done = subprocess.run([sys.executable, "-c", PER_LINE, str(transcript), str(schema), str(sample)],
                          capture_output=True, text=True, check=True)
    return float(done.stdout) * lines / loads_s


COVERAGE = (
    "import sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from contract.checking.fastpath import measure\n"
    "coverage, _ = measure(open(sys.argv[2], 'rb').read())\n"
    "print('\\n'.join(coverage.lines_of_text()))\n"
)


def facts_coverage(transcript: Path) -> list[str]:
    """The share of lines the block facts judged, and why the rest were not (``contract.checking.fastpath``),
    measured in a child process: this one stays small (a child's peak RSS starts from its parent's)."""
    done = subprocess.run([sys.executable, "-c", COVERAGE, str(ROOT), str(transcript)],
                          capture_output=True, text=True, check=True)
    return done.stdout.splitlines()


BUILDERS: dict[str, Callable[[Path, int], None]] = {"stream-json": build_stream_json, "subagent-stdio": build_subagent}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, action="append",
                        help="transcript length (repeatable; default 100,000 and 400,000)")
    parser.add_argument("--rounds", type=int, default=3, help="paired rounds (default 3)")
    parser.add_argument("--sample", type=int, default=0,
                        help="also time jsonschema.validate per line on this many lines (default: not)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--wire", choices=tuple(BUILDERS), action="append",
                        help="measure only this wire (repeatable; default both)")
    parser.add_argument("--check-arg", action="append", default=[], metavar="ARG",
                        help="pass ARG to the timed check (repeatable), e.g. --check-arg=--strict")
    args = parser.parse_args()
    sizes = sorted(set(args.lines or [100_000, 400_000]))
    load = os.getloadavg()[0]
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "rounds": args.rounds, "check": " ".join(["check --jobs 1", *args.check_arg]),
        "load_average_start": round(load, 2),
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for wire, build in BUILDERS.items():
            if args.wire and wire not in args.wire:
                continue
            results[wire] = {}
            for size in sizes:
                path = folder / f"{wire}.jsonl"
                build(path, size)
                found = compare(path, wire, args.rounds, args.check_arg)
                found["size_mib"] = path.stat().st_size / 2**20
                if args.sample:
                    found["per_line_validate/loads"] = per_line_baseline(
                        path, wire, args.sample, found["loads"]["cpu_s"], size)
                if wire == "stream-json" and size == sizes[-1]:
                    found["facts"] = facts_coverage(path)
                path.unlink()
                results[wire][str(size)] = found
                if not args.json:
                    _print(wire, size, found)
    results["load_average_end"] = round(os.getloadavg()[0], 2)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        _summary(results, sizes)
    return 0


def _print(wire: str, lines: int, r: dict[str, Any]) -> None:
    print(f"{wire}: {lines:,} lines, {r['size_mib']:.1f} MiB", flush=True)
    for name in ("check", *LOOPS):
        print(f"  {name:<8} CPU {r[name]['cpu_s']:6.2f} s  wall {r[name]['wall_s']:6.2f} s  (medians)")
    for key in ("check/loads", "check/bare", "orjson/loads", "bare/loads"):
        print(f"  {key:<13} {r[key]:.3f}  (rounds: {r[key + ' rounds']})")
    if "per_line_validate/loads" in r:
        print(f"  validate-per-line {r['per_line_validate/loads']:.0f}x the json.loads loop (sampled)")
    print(f"  check peak RSS {r['check_peak_rss_mib']:.0f} MiB")
    for text in r.get("facts", []):
        print(f"  {text}")


def _summary(results: dict[str, Any], sizes: list[int]) -> None:
    """The table BENCHMARKS.md leads with."""
    print(f"\nmachine: {results['machine']}; load average {results['load_average_start']} at the start, "
          f"{results['load_average_end']} at the end; {results['check']}; CPU, medians of "
          f"{results['rounds']} paired rounds")
    print("| wire | lines | check / json.loads | check / bare loop | orjson / json.loads "
          "| bare / json.loads | check peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for wire in BUILDERS:
        for size in sizes:
            r = results.get(wire, {}).get(str(size))
            if r is not None:
                print(f"| {wire} | {size:,} | {r['check/loads']:.2f} | **{r['check/bare']:.2f}** | "
                      f"{r['orjson/loads']:.2f} | {r['bare/loads']:.2f} | {r['check_peak_rss_mib']:.0f} MiB |")


if __name__ == "__main__":
    raise SystemExit(main())
