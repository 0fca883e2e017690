"""What recording arrival times costs a live run: the same run with the clock and without it, paired.

Rerunnable (``python bench/timeline.py``). It builds a conformant stream-json transcript of
``--lines`` lines from the goldens (bench/run.py's builder), then runs ``milk-contract run``'s
harness (``contract.live.harness.run_stream``) on ``cat`` of it, in this process, two ways,
shuffled and repeated in the same run (these machines are noisy, so only the paired ratio
means anything):

* ``timed``: as shipped, stdout read through ``contract.live.timeline.Clock`` (one
  ``time.monotonic()`` and one LF count per read, the result line spotted per line);
* ``untimed``: the same run with the clock's reader swapped for a plain buffered reader of the
  same size on the same pipe (the clock then notes nothing).

It prints the median wall time of each and the median of the per-round ratios timed/untimed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from run import build_stream_json  # noqa: E402

from contract.live import timeline  # noqa: E402
from contract.live.harness import run_stream  # noqa: E402

_TIMED = timeline.timed


# The untimed clock sees no line: thresholds out of reach, so neither run is judged on time.
UNREACHED = timeline.Liveness(first_line_within=1e9, max_gap=1e9, exit_grace=1e9)


def _untimed(fd: int, start: float, max_gap: float = 1e9) -> tuple[timeline.Clock, Any]:
    """A clock that is never read through, and a plain reader of the same buffer size on the pipe."""
    return timeline.Clock(fd, start, max_gap), open(fd, "rb", buffering=timeline.READ_BYTES, closefd=False)


def one(transcript: Path, clocked: bool) -> float:
    timeline.timed = _TIMED if clocked else _untimed
    try:
        began = time.perf_counter()
        report = run_stream(["cat", str(transcript)], timeout=600, liveness=UNREACHED)
        took = time.perf_counter() - began
    finally:
        timeline.timed = _TIMED
    if not report.conformant:
        raise SystemExit(f"the benchmark stream is not conformant: {sorted(report.counts)}")
    if clocked and (report.timeline is None or report.timeline.lines != report.lines):  # type: ignore[attr-defined]  # a Timeline behind the protocol
        raise SystemExit("the clocked run did not time every line")
    return took


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=200_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        transcript = Path(folder) / "stream.jsonl"
        build_stream_json(transcript, args.lines)
        one(transcript, True)  # warm the page cache and the imports
        times: dict[bool, list[float]] = {True: [], False: []}
        ratios = []
        for _ in range(args.rounds):
            order = [True, False]
            random.shuffle(order)
            got = {clocked: one(transcript, clocked) for clocked in order}
            for clocked, took in got.items():
                times[clocked].append(took)
            ratios.append(got[True] / got[False])
    print(f"{args.lines} lines, {args.rounds} paired rounds (harness, cat of the transcript):")
    print(f"  timed   median {statistics.median(times[True]):.3f} s")
    print(f"  untimed median {statistics.median(times[False]):.3f} s")
    print(f"  ratio timed/untimed: median {statistics.median(ratios):.3f} (rounds: "
          f"{', '.join(f'{r:.3f}' for r in ratios)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
