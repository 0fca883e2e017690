"""CPU regression benchmark: this tree against json.loads on many shapes, or against another commit.

``python bench/regress.py`` (the catalogue, issue 34) builds streams of several shapes and dates
from the shape catalogue (tests/support/shapes.py: ``CATALOGUE`` below picks them), and for each, round by
round in shuffled order, runs ``json.loads`` over every line, the bare loop (``orjson.loads`` and a
compiled jsonschema-rs validator per line, ``bench/yardstick.py``: issue 50's yardstick), ``check
ARGS --jobs 1`` and ``check ARGS`` with ``--jobs`` unset (the default's choice), and prints each
check's CPU and wall as a multiple of the ``json.loads`` loop's in the same round, ``--jobs 1``'s CPU
as a multiple of the bare loop's too (medians over the rounds), the facts coverage of the stream
(``contract.checking.fastpath``), and the median and worst shape.

``python bench/regress.py --against REV``: it builds the stream-json benchmark
transcript (``bench/run.py``'s builder, ``--lines`` lines), extracts ``REV`` with ``git archive``
into a temporary folder, and then, round by round in shuffled order, runs on the same file:

* ``json.loads`` over every line and the bare loop (the two baselines every ratio is taken against);
* ``python -m contract check ARGS --jobs 1 FILE`` with this tree first on ``PYTHONPATH``, and
  the same with ``REV``'s tree (the CPU figures);
* the same two with ``--jobs 2`` (the wall figures: two processes pay only in wall time, and
  only when the second core is free), unless ``--no-jobs2``.

Both checks use this interpreter and its installed dependencies, so only the package's own code
differs. Every process runs in the temporary folder: ``python -m`` puts the working directory
ahead of ``PYTHONPATH``, so run from the repository root both would otherwise import this tree.
CPU is user plus system time from ``wait4`` (the process and the children it reaped, so a
two-process check counts its worker too), peak memory its ``ru_maxrss``; wall time is printed
beside it. These machines are shared and noisy, so the figures that mean something are the
medians of the per-round ratios, never one absolute time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from run import build_stream_json  # noqa: E402  (it puts the checkout first on sys.path)

from bench.yardstick import argv as loop_argv  # noqa: E402

# (body, date, stamp style, line spelling): the shapes timed, each a stream of --lines lines
CATALOGUE = [
    ("goldens", "new year's day", "ms", "compact"),
    ("goldens", "the 30th", "ms", "compact"),
    ("goldens", "the year's end", "trimmed", "compact"),
    ("goldens", "a leap day, to March", "+05:30", "compact"),
    ("goldens", "the 31st", "us", "go"),
    ("golden tool_calls", "the 30th", "ms", "compact"),
    ("golden streaming_thinking", "the 29th", "ms", "compact"),
    ("golden subagent_tasks", "the 31st, to February", "ms", "compact"),
    ("golden session_housekeeping", "the 30th, to May", "s", "compact"),
    ("strategies 0", "the 30th", "ms", "compact"),
    ("foreign claude-code--yoke-capture-partial-messages", "the 30th", "ms", "compact"),
    ("foreign claude-code--archistrator-success_with_tools", "the 31st", "ms", "spaced"),
    ("foreign opencode--software-factory-opencode-run", "the year's end", "ms", "compact"),
]

DEFAULT_ARGS = ["--strict", "--format", "json"]
CHOICES = {"two": "two processes", "one": "one process", "": "no choice noted"}  # measure()'s choice, said


def measure(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, int, str]:
    """CPU seconds (user + system, reaped children included), wall seconds, peak RSS in KiB, exit
    status and what the default ``--jobs`` chose (``choice``) of one process."""
    report = cwd / "report.out"  # a file, not a pipe: nothing reads while the check runs
    with report.open("wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
    chose = choice(report.read_bytes())
    report.unlink()
    return usage.ru_utime + usage.ru_stime, wall, int(usage.ru_maxrss), os.waitstatus_to_exitcode(status), chose


def choice(report: bytes) -> str:
    """"two" or "one": the processes a JSON report's notes say the default ``--jobs`` used; "" where
    they say none (``--jobs`` given, a file too small to split, or not a JSON report)."""
    for line in report.splitlines():
        if b"--jobs unset: checked in two" in line:
            return "two"
        if b"--jobs unset: checked in one" in line:
            return "one"
    return ""


def extract(rev: str, into: Path) -> Path:
    """The tree of ``rev`` (a commit, tag or branch of this repository) under ``into``."""
    archive = into / "tree.tar"
    with archive.open("wb") as out:
        subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", rev], stdout=out, check=True)
    tree = into / "tree"
    with tarfile.open(archive) as tar:
        tar.extractall(tree, filter="data")
    archive.unlink()
    return tree


def environment(tree: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(tree)  # ahead of the editable install's path entry
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # both trees compile once, then run from bytecode
    return env


def catalogue(lines: int, rounds: int, check_args: list[str], only: list[str] | None) -> int:
    """Every shape of ``CATALOGUE`` (or those named in ``only``) against json.loads, paired."""
    rows = []
    by_choice: dict[str, list[float]] = {}  # the default's choice -> its wall over --jobs 1's, each round
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for body, date, style, spelling in CATALOGUE:
            name = f"{body}, {date}, {style}, {spelling}"
            if only and not any(word in name for word in only):
                continue
            path = folder / "shape.jsonl"
            built = _build(path, lines, body, date, style, spelling)
            if not built["conformant"]:
                raise SystemExit(f"{name}: not conformant: {built['violations']}")
            runs = {loop: (loop_argv(loop, path, "stream-json"), dict(os.environ)) for loop in ("loads", "bare")}
            for label, jobs in (("-j1", ["--jobs", "1"]), ("default", [])):
                argv = [sys.executable, "-m", "contract", "check", *check_args, *jobs, str(path)]
                runs[label] = (argv, environment(ROOT))
            got = _rounds(runs, rounds, folder)
            loads = got["loads"]
            cpu = statistics.median(c / b[0] for (c, *_), b in zip(got["-j1"], loads, strict=True))
            bare = statistics.median(c / b[0] for (c, *_), b in zip(got["-j1"], got["bare"], strict=True))
            wall1 = statistics.median(w / b[1] for (_, w, *_), b in zip(got["-j1"], loads, strict=True))
            wall = statistics.median(w / b[1] for (_, w, *_), b in zip(got["default"], loads, strict=True))
            paired = statistics.median(d[1] / j[1] for d, j in zip(got["default"], got["-j1"], strict=True))
            rss = max(f[2] for f in got["-j1"]) / 1024
            chosen = _chosen(got["default"], got["-j1"])
            for d, j in zip(got["default"], got["-j1"], strict=True):
                by_choice.setdefault(d[4], []).append(d[1] / j[1])
            rows.append((name, cpu, wall1, wall, paired, built["coverage"], rss, bare))
            print(f"{name}: {built['lines']:,} lines, {path.stat().st_size / 2**20:.0f} MiB, facts "
                  f"{100 * built['coverage']:.2f} % | --jobs 1 CPU {cpu:.3f}x loads, {bare:.3f}x bare, "
                  f"wall {wall1:.3f}x | "
                  f"default wall {wall:.3f}x (paired with --jobs 1: {paired:.3f}; {chosen}) | "
                  f"peak RSS {rss:.0f} MiB", flush=True)
            for text in built["text"][1:]:
                print(f"    {text}")
            path.unlink()
    if not rows:
        raise SystemExit("no shape of the catalogue matched")
    cpus = [row[1] for row in rows]
    worst = max(rows, key=lambda row: row[1])
    print(f"{len(rows)} shapes, {lines} lines each, {rounds} paired rounds, check {' '.join(check_args)} "
          f"(load average {os.getloadavg()[0]:.1f} at the end)")
    print(f"  --jobs 1 CPU x loads: median {statistics.median(cpus):.3f}, worst {worst[1]:.3f} ({worst[0]})")
    worst_bare = max(rows, key=lambda row: row[7])
    print(f"  --jobs 1 CPU x bare loop: median {statistics.median(r[7] for r in rows):.3f}, "
          f"worst {worst_bare[7]:.3f} ({worst_bare[0]})")
    print(f"  default wall / --jobs 1 wall, paired: median {statistics.median(r[4] for r in rows):.3f}, "
          f"worst {max(r[4] for r in rows):.3f}")
    for label, ratios in sorted(by_choice.items(), reverse=True):
        print(f"  the default, {CHOICES[label]}, in {len(ratios)} rounds: its wall / --jobs 1 wall in the same round, "
              f"median {statistics.median(ratios):.3f}, worst {max(ratios):.3f}")
    print(f"  facts coverage: lowest {100 * min(r[5] for r in rows):.2f} %")
    return 0


def _chosen(default: list[tuple[float, float, int, int, str]], one: list[tuple[float, float, int, int, str]]) -> str:
    """What the default chose round by round, and its wall over ``--jobs 1``'s in the same round for
    each choice (where it kept one process both ran the same code: the spread is the machine's)."""
    parts = []
    for label in CHOICES:
        ratios = [d[1] / j[1] for d, j in zip(default, one, strict=True) if d[4] == label]
        if ratios:
            parts.append(f"{CHOICES[label]} {len(ratios)} of {len(default)}: {statistics.median(ratios):.3f}")
    return ", ".join(parts)


BUILD = (
    "import json, sys\n"
    "sys.path.insert(0, sys.argv[1])\n"
    "from contract.checking.fastpath import measure\n"
    "from tests.support import shapes\n"
    "path, lines, body, date, style, spelling = sys.argv[2:]\n"
    "data = shapes.stream(body, int(lines), shapes.DATES[date], style, spelling=spelling)\n"
    "open(path, 'wb').write(data)\n"
    "coverage, report = measure(data)\n"
    "print(json.dumps({'conformant': report.conformant, 'lines': report.lines, 'coverage': coverage.coverage,\n"
    "                  'text': coverage.lines_of_text(), 'violations': [str(v) for v in report.violations[:2]]}))\n"
)


def _build(path: Path, lines: int, body: str, date: str, style: str, spelling: str) -> dict[str, Any]:
    """Write a catalogue stream and measure its facts coverage, in a child process: this one stays
    small, since a child's peak RSS starts from its parent's (Linux keeps it across exec)."""
    done = subprocess.run([sys.executable, "-c", BUILD, str(ROOT), str(path), str(lines), body, date, style, spelling],
                          capture_output=True, text=True, check=True)
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _rounds(runs: dict[str, tuple[list[str], dict[str, str]]], rounds: int,
            folder: Path) -> dict[str, list[tuple[float, float, int, int, str]]]:
    """A warm-up of each run (it must exit 0), then ``rounds`` rounds of all, in shuffled order."""
    for name, (argv, env) in runs.items():
        status = measure(argv, env, folder)[3]  # also the warm-up: bytecode compiled, file cached
        if status != 0:
            raise SystemExit(f"{name}: exited {status} on a conformant transcript")
    got: dict[str, list[tuple[float, float, int, int, str]]] = {name: [] for name in runs}
    for _ in range(rounds):
        order = list(runs)
        random.shuffle(order)  # no side always runs first, on a warmer cache
        for name in order:
            got[name].append(measure(*runs[name], folder))
    return got


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="REV", help="the commit to compare with (else: the catalogue)")
    parser.add_argument("--lines", type=int, default=None, help="lines a stream (400,000; 100,000 a shape)")
    parser.add_argument("--rounds", type=int, default=None, help="paired rounds (5; 3 a shape)")
    parser.add_argument("--shape", action="append", metavar="WORDS",
                        help="only the catalogue's shapes whose name holds WORDS (repeatable)")
    parser.add_argument("--check-arg", action="append", metavar="ARG",
                        help=f"argument of every check (repeatable; default {' '.join(DEFAULT_ARGS)}); "
                             "--jobs is added")
    parser.add_argument("--no-jobs2", action="store_true", help="leave out the --jobs 2 runs")
    args = parser.parse_args()
    check_args = args.check_arg or DEFAULT_ARGS
    if args.against is None:
        return catalogue(args.lines or 100_000, args.rounds or 3, check_args, args.shape)
    args.lines, args.rounds = args.lines or 400_000, args.rounds or 5
    jobs = ["1"] if args.no_jobs2 else ["1", "2"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        transcript = folder / "stream-json.jsonl"
        build_stream_json(transcript, args.lines)
        trees = {"current": ROOT, args.against: extract(args.against, folder)}
        runs = {loop: (loop_argv(loop, transcript, "stream-json"), dict(os.environ)) for loop in ("loads", "bare")}
        for name, tree in trees.items():
            for count in jobs:
                argv = [sys.executable, "-m", "contract", "check", *check_args, "--jobs", count, str(transcript)]
                runs[f"{name} -j{count}"] = (argv, environment(tree))
        for name, (argv, env) in runs.items():
            status = measure(argv, env, folder)[3]  # also the warm-up: bytecode compiled, file cached
            if status != 0:
                raise SystemExit(f"{name}: exited {status} on the conformant transcript")
        got: dict[str, list[tuple[float, float, int, int, str]]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            order = list(runs)
            random.shuffle(order)  # no side always runs first, on a warmer cache
            for name in order:
                got[name].append(measure(*runs[name], folder))
    print(f"{args.lines} lines, {args.rounds} paired rounds, check {' '.join(check_args)} --jobs N "
          f"(load average {os.getloadavg()[0]:.1f} at the end)")
    loads = got["loads"]
    for name, found in got.items():
        cpu = statistics.median(c / b[0] for (c, *_), b in zip(found, loads, strict=True))
        bare = statistics.median(c / b[0] for (c, *_), b in zip(found, got["bare"], strict=True))
        wall = statistics.median(w / b[1] for (_, w, *_), b in zip(found, loads, strict=True))
        print(f"  {name:>16}: CPU {statistics.median(f[0] for f in found):.2f} s ({cpu:.2f}x loads, "
              f"{bare:.2f}x bare), "
              f"wall {statistics.median(f[1] for f in found):.2f} s ({wall:.2f}x loads), "
              f"peak RSS {max(f[2] for f in found) / 1024:.0f} MiB")
    for count in jobs:
        mine, theirs = got[f"current -j{count}"], got[f"{args.against} -j{count}"]
        cpus = [m[0] / t[0] for m, t in zip(mine, theirs, strict=True)]
        walls = [m[1] / t[1] for m, t in zip(mine, theirs, strict=True)]
        print(f"  current / {args.against} --jobs {count}: CPU {statistics.median(cpus):.3f}x "
              f"(rounds: {', '.join(f'{p:.3f}' for p in cpus)}), wall {statistics.median(walls):.3f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
