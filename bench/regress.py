"""CPU regression benchmark: this tree against another commit, paired in one run.

Rerunnable (``python bench/regress.py --against REV``). It builds the stream-json benchmark
transcript (``bench/run.py``'s builder, ``--lines`` lines), extracts ``REV`` with ``git archive``
into a temporary folder, and then, round by round in shuffled order, runs on the same file:

* ``json.loads`` over every line (the baseline every ratio is taken against);
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

DEFAULT_ARGS = ["--strict", "--format", "json"]


def measure(argv: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, int, int]:
    """CPU seconds (user + system, reaped children included), wall seconds, peak RSS in KiB and
    exit status of one process."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    return usage.ru_utime + usage.ru_stime, wall, int(usage.ru_maxrss), os.waitstatus_to_exitcode(status)


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
                        help=f"argument of every check (repeatable; default {' '.join(DEFAULT_ARGS)}); "
                             "--jobs is added")
    parser.add_argument("--no-jobs2", action="store_true", help="leave out the --jobs 2 runs")
    args = parser.parse_args()
    check_args = args.check_arg or DEFAULT_ARGS
    jobs = ["1"] if args.no_jobs2 else ["1", "2"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        transcript = folder / "stream-json.jsonl"
        build_stream_json(transcript, args.lines)
        trees = {"current": ROOT, args.against: extract(args.against, folder)}
        runs = {"loads": ([sys.executable, "-c", LOADS_LOOP, str(transcript)], dict(os.environ))}
        for name, tree in trees.items():
            for count in jobs:
                argv = [sys.executable, "-m", "contract", "check", *check_args, "--jobs", count, str(transcript)]
                runs[f"{name} -j{count}"] = (argv, environment(tree))
        for name, (argv, env) in runs.items():
            status = measure(argv, env, folder)[3]  # also the warm-up: bytecode compiled, file cached
            if status != 0:
                raise SystemExit(f"{name}: exited {status} on the conformant transcript")
        got: dict[str, list[tuple[float, float, int, int]]] = {name: [] for name in runs}
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
        wall = statistics.median(w / b[1] for (_, w, *_), b in zip(found, loads, strict=True))
        print(f"  {name:>16}: CPU {statistics.median(f[0] for f in found):.2f} s ({cpu:.2f}x loads), "
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
