"""CPU regression benchmark: this tree against another commit, paired in one run.

Rerunnable (``python bench/regress.py --against REV``). It builds the stream-json benchmark
transcript (``bench/run.py``'s builder, ``--lines`` lines), extracts ``REV`` with ``git archive``
into a temporary folder, and then, round by round in shuffled order, runs three processes on the
same file:

* ``json.loads`` over every line (the baseline every ratio is taken against);
* ``python -m contract check ARGS FILE`` with this tree first on ``PYTHONPATH``;
* the same command with ``REV``'s tree first on ``PYTHONPATH``.

Both checks use this interpreter and its installed dependencies, so only the package's own code
differs. CPU is user plus system time from ``wait4`` (the process and the children it reaped, so a
two-process check counts its worker too); wall time is printed beside it. These machines are
shared and noisy, so the figures that mean something are the medians of the per-round ratios,
never one absolute time.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from run import LOADS_LOOP, build_stream_json  # noqa: E402

DEFAULT_ARGS = ["--strict", "--format", "json", "--jobs", "1"]


def cpu_and_wall(argv: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """CPU seconds (user + system, reaped children included), wall seconds and exit status."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return usage.ru_utime + usage.ru_stime, wall, os.waitstatus_to_exitcode(status)


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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="REV", help="the commit to compare with")
    parser.add_argument("--lines", type=int, default=400_000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--check-arg", action="append", metavar="ARG",
                        help=f"argument of both checks (repeatable; default {' '.join(DEFAULT_ARGS)})")
    args = parser.parse_args()
    check_args = args.check_arg or DEFAULT_ARGS
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        transcript = folder / "stream-json.jsonl"
        build_stream_json(transcript, args.lines)
        trees = {"current": ROOT, args.against: extract(args.against, folder)}
        runs = {"loads": ([sys.executable, "-c", LOADS_LOOP, str(transcript)], dict(os.environ))}
        for name, tree in trees.items():
            argv = [sys.executable, "-m", "contract", "check", *check_args, str(transcript)]
            runs[name] = (argv, environment(tree))
            status = cpu_and_wall(*runs[name])[2]  # also the warm-up: bytecode compiled, file cached
            if status != 0:
                raise SystemExit(f"{name}: the check exited {status} on the conformant transcript")
        cpu: dict[str, list[float]] = {name: [] for name in runs}
        wall: dict[str, list[float]] = {name: [] for name in runs}
        for _ in range(args.rounds):
            order = list(runs)
            random.shuffle(order)  # no side always runs first, on a warmer cache
            for name in order:
                used, elapsed, _status = cpu_and_wall(*runs[name])
                cpu[name].append(used)
                wall[name].append(elapsed)
    print(f"{args.lines} lines, {args.rounds} paired rounds, check {' '.join(check_args)}")
    for name in runs:
        ratios = [c / b for c, b in zip(cpu[name], cpu["loads"], strict=True)]
        wall_ratios = [w / b for w, b in zip(wall[name], wall["loads"], strict=True)]
        print(f"  {name:>12}: CPU {statistics.median(cpu[name]):.2f} s ({statistics.median(ratios):.2f}x loads),"
              f" wall {statistics.median(wall[name]):.2f} s ({statistics.median(wall_ratios):.2f}x loads)")
    paired = [c / r for c, r in zip(cpu["current"], cpu[args.against], strict=True)]
    print(f"  current / {args.against}: CPU {statistics.median(paired):.3f}x "
          f"(rounds: {', '.join(f'{p:.3f}' for p in paired)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
