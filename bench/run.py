"""Throughput and memory benchmark: does checking cost more than parsing?

Rerunnable (``python bench/run.py`` or ``tox -e bench``). It builds a conformant stream-json
transcript of ``--lines`` lines from the goldens, then times, paired and repeated in the same
run (these machines are noisy, so only ratios within a round mean anything):

* the whole ``milk-contract check`` process, all MUST rules on;
* a plain ``json.loads`` loop over the same file, also as a whole process;
* the validator-per-line baseline (``jsonschema.validate`` per line). At about 24 lines a second
  it would take hours on the whole file, so it is timed on a sample and scaled per line.

It reports the median ratio of three rounds, and peak RSS of the check process at three
transcript sizes (flat memory means the peak does not grow with the length). The same is done
for a subagent-stdio conversation built from its goldens.
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
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contract.core.resources import data_dir  # noqa: E402

LOADS_LOOP = "import json,sys\nfor line in open(sys.argv[1],'rb'):\n    json.loads(line)\n"
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


def timed(argv: list[str]) -> tuple[float, int, int]:
    """Wall seconds, peak RSS in KiB, and exit status of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return wall, int(usage.ru_maxrss), proc.returncode


def compare(transcript: Path, wire: str, rounds: int, extra: list[str] | None = None) -> dict[str, Any]:
    check = [sys.executable, "-m", "contract", "check", "--wire", wire, *(extra or []), str(transcript)]
    loads = [sys.executable, "-c", LOADS_LOOP, str(transcript)]
    status = timed(check)[2]
    if status != 0:
        raise SystemExit(f"the generated {wire} transcript is not conformant (exit {status}): a benchmark bug")
    ratios, checks, baselines, peaks = [], [], [], []
    for _ in range(rounds):
        pair = [("check", check), ("loads", loads)]
        random.shuffle(pair)  # neither side always runs first, on a warmer cache
        got = {name: timed(argv) for name, argv in pair}
        checks.append(got["check"][0])
        baselines.append(got["loads"][0])
        peaks.append(got["check"][1])
        ratios.append(got["check"][0] / got["loads"][0])
    return {
        "check_s": statistics.median(checks),
        "loads_s": statistics.median(baselines),
        "ratio_median": statistics.median(ratios),
        "ratios": [round(r, 3) for r in ratios],
        "peak_rss_mib": max(peaks) / 1024,
    }


def per_line_baseline(transcript: Path, wire: str, sample: int, loads_s: float, lines: int) -> float:
    schema = data_dir("schemas") / f"{wire}.schema.json"
    done = subprocess.run([sys.executable, "-c", PER_LINE, str(transcript), str(schema), str(sample)],
                          capture_output=True, text=True, check=True)
    return float(done.stdout) * lines / loads_s


def flatness(build: Any, wire: str, sizes: list[int], folder: Path) -> list[tuple[int, float]]:
    out = []
    for size in sizes:
        path = folder / f"{wire}-{size}.jsonl"
        build(path, size)
        _, rss, _status = timed([sys.executable, "-m", "contract", "check", "--wire", wire, str(path)])
        out.append((size, rss / 1024))
        path.unlink()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--sample", type=int, default=200, help="lines for the validator-per-line baseline")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--wire", choices=("stream-json", "subagent-stdio"), action="append",
                        help="measure only this wire (repeatable; default both)")
    parser.add_argument("--check-arg", action="append", default=[], metavar="ARG",
                        help="pass ARG to the timed check (repeatable), e.g. --check-arg=--coverage")
    args = parser.parse_args()
    results: dict[str, Any] = {
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "lines": args.lines,
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for wire, build in (("stream-json", build_stream_json), ("subagent-stdio", build_subagent)):
            if args.wire and wire not in args.wire:
                continue
            path = folder / f"{wire}.jsonl"
            build(path, args.lines)
            found = compare(path, wire, args.rounds, args.check_arg)
            found["size_mib"] = path.stat().st_size / 2**20
            found["per_line_validate_ratio"] = per_line_baseline(path, wire, args.sample, found["loads_s"], args.lines)
            found["peak_rss_by_lines"] = flatness(build, wire, [args.lines // 4, args.lines // 2, args.lines], folder)
            path.unlink()
            results[wire] = found
            if not args.json:
                _print(wire, found, args.lines)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print(f"machine: {results['machine']}")
    return 0


def _print(wire: str, r: dict[str, Any], lines: int) -> None:
    print(f"{wire}: {lines} lines, {r['size_mib']:.1f} MiB")
    print(f"  milk-contract check   {r['check_s']:.2f} s  (median of paired rounds)")
    print(f"  json.loads loop       {r['loads_s']:.2f} s")
    print(f"  ratio check/loads     {r['ratio_median']:.3f}  (rounds: {r['ratios']})")
    print(f"  validate-per-line     {r['per_line_validate_ratio']:.0f}x the json.loads loop (sampled)")
    print(f"  peak RSS              {r['peak_rss_mib']:.0f} MiB")
    steps = ", ".join(f"{n} lines: {m:.0f} MiB" for n, m in r["peak_rss_by_lines"])
    print(f"  peak RSS by length    {steps}")


if __name__ == "__main__":
    raise SystemExit(main())
