"""Coverage-guided fuzzing of the reader and both checkers with atheris (libFuzzer), by hand.

The property is the suite's (tests/live/test_fuzz.py): ``contract.check(data, wire=…)`` returns a
report, never an exception, for stream-json, subagent-stdio and auto, and the report renders
as text and JSON. The first input byte picks the wire and the line limit; the rest is the stream.

atheris is not a dependency of milk-contract; install it into the venv to run this::

    pip install atheris
    mkdir -p /tmp/milk-fuzz && cp goldens/*/*.jsonl /tmp/milk-fuzz/    # seeds, outside the checkout
    python fuzz/atheris_check.py /tmp/milk-fuzz -max_total_time=600 -max_len=65536 -rss_limit_mb=1024
    python fuzz/atheris_check.py -runs=1 crash-<sha1>              # replay a crash it saved

libFuzzer writes crashing inputs as ``crash-*`` files in the working directory; add each as a
case in tests/hostile/cases.py once it is fixed. ``-jobs=2 -workers=2`` runs two in parallel.
"""

from __future__ import annotations

import sys

import atheris  # type: ignore[import-untyped,import-not-found,unused-ignore]  # not a dependency

with atheris.instrument_imports():
    from contract import check
    from contract.reporting.reporters import render_json, render_text

WIRES = ("stream-json", "subagent-stdio", "auto")
LIMITS = (64 * 1024 * 1024, 16, 200)


def one_input(data: bytes) -> None:
    if not data:
        return
    head, body = data[0], data[1:]
    report = check(body, wire=WIRES[head % 3], max_line_bytes=LIMITS[(head // 3) % 3])
    render_json(report)
    render_text(report)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
