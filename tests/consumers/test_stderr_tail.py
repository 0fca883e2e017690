"""What a consumer's crash finding quotes of its stderr (contract.core.stderr_tail), and its hint.

A Node consumer's thrown ``Error: …`` is far from its last line (``Node.js v20…``): the finding
quotes the first error-looking block and the last lines, bounded, in the text and the JSON report.
The crash hint follows the stream that failed: a golden as recorded is not about values the
consumer does not recognize; a future variant is.
"""

from __future__ import annotations

import json
import shutil
import sys

import pytest

from contract import cli
from contract.core import stderr_tail
from contract.core.stderr_tail import LINE_CHARS, excerpt, excerpt_lines, first_block
from tests.support.paths import TESTS

NODE_CONSUMER = ["node", str(TESTS / "faulty_consumers" / "throws_on_stop_reason.js")]
STRICT = [sys.executable, "-m", "contract.reference.strict_consumer"]
VARIANT_HINT = "ignore line types, subtypes, block and delta types and members you do not recognize"

NODE_STDERR = "\n".join([
    "/srv/sdk/consumer.js:11", '    throw new Error("unknown stop_reason error");', "    ^", "",
    "Error: unknown stop_reason error", "    at Interface.<anonymous> (/srv/sdk/consumer.js:11:11)",
    *(f"    at frame{n} (node:internal:{n})" for n in range(20)), "", "Node.js v20.20.2"])
PYTHON_STDERR = "\n".join(["starting", "Traceback (most recent call last):", '  File "c.py", line 3, in <module>',
                           '    raise KeyError("stop_reason")', "KeyError: 'stop_reason'", "exiting"])


def test_the_thrown_error_is_kept_though_the_last_line_is_nodes_version() -> None:
    shown = excerpt(NODE_STDERR)
    assert shown.startswith("Error: unknown stop_reason error | at Interface.<anonymous>")
    assert shown.endswith("Node.js v20.20.2")
    assert "…" in shown  # the frames between the block and the tail are left out, and it says so


def test_a_python_traceback_is_kept_to_its_exception_line() -> None:
    assert first_block(PYTHON_STDERR.splitlines()) == PYTHON_STDERR.splitlines()[1:5]
    assert excerpt_lines(PYTHON_STDERR) == PYTHON_STDERR.splitlines()  # short: all of it, no line twice


def test_stderr_without_an_error_is_its_last_lines_only() -> None:
    """Near miss: an indented 'Error' (a quoted line) or a word ending in 'error' starts no block."""
    lines = [f"progress {n}" for n in range(20)] + ["    Error: only quoted here", "no terror here"]
    assert first_block(lines) == []
    assert excerpt_lines("\n".join(lines)) == lines[-stderr_tail.TAIL_LINES:]


def test_every_line_is_bounded_and_says_what_was_cut() -> None:
    shown = excerpt_lines("Error: " + "x" * 5000)
    assert shown == ["Error: " + "x" * (LINE_CHARS - 7) + f"…({5007 - LINE_CHARS} more characters)"]
    lines = excerpt_lines(NODE_STDERR)
    assert len(lines) <= stderr_tail.BLOCK_LINES + stderr_tail.TAIL_LINES + 1


needs_node = pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")


@needs_node
@pytest.mark.process
def test_a_crashing_node_consumers_error_is_in_the_text_finding(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["feed", "--scenario", "hello", "--", *NODE_CONSUMER])
    out = capsys.readouterr().out
    assert code == 1, out
    (finding,) = [line for line in out.splitlines() if " consumer.crash " in line]
    assert "its stderr: Error: unknown stop_reason error | at " in finding
    assert "Node.js v" in finding
    assert "golden as recorded" in out
    assert VARIANT_HINT not in out  # the golden as recorded failed: not a matter of unknown values


@needs_node
@pytest.mark.process
def test_a_crashing_node_consumers_error_is_in_the_json_finding(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["feed", "--format", "json", "--scenario", "hello", "--", *NODE_CONSUMER])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    (crash,) = [v for v in report["violations"] if v["rule"] == "consumer.crash"]
    assert "Error: unknown stop_reason error" in crash["message"]
    assert "golden as recorded" in crash["hint"]


@pytest.mark.process
def test_a_future_variants_crash_keeps_the_unknown_values_hint(capsys: pytest.CaptureFixture[str]) -> None:
    code = cli.run(["feed", "--format", "json", "--future", "--examples", "3", "--seed", "1",
                    "--shrink-seconds", "5", "--scenario", "hello", "--", *STRICT])
    report = json.loads(capsys.readouterr().out)
    assert code == 1
    crashes = [v for v in report["violations"] if v["rule"] == "consumer.crash"]
    assert crashes
    assert all(VARIANT_HINT in v["hint"] for v in crashes)
    assert all("its stderr: " in v["message"] for v in crashes)  # the strict consumer says why on stderr


def test_the_text_report_shows_an_emitters_first_error_and_its_last_lines() -> None:
    """An emitter's stderr (kept by the harness as a bounded tail) is shown the same way: the
    error far above the last lines is not lost behind five lines of later chatter."""
    from contract.reporting.reporters import render_text
    from contract.rules.report import Report

    chatter = [f"shutting down {n}" for n in range(10)]
    report = Report(wire="stream-json", source="milk", lines=1, stderr="\n".join([PYTHON_STDERR, *chatter]))
    text = render_text(report)
    assert "emitter stderr (the first error, then the last lines):" in text
    assert "  | KeyError: 'stop_reason'" in text
    assert "  | shutting down 9" in text
    assert "  | shutting down 3" not in text  # only the last lines after the block
    plain = render_text(Report(wire="stream-json", source="milk", lines=1, stderr="\n".join(chatter)))
    assert "emitter stderr (last lines):" in plain  # near miss: no error, the last lines only
