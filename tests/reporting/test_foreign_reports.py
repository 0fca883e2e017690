"""Reports on foreign transcripts (other agent CLIs' output) are short enough for a person.

Every transcript in ../shared/corpus/foreign/ gets exit 1, a text report of at most 60 lines
(a finding repeated on every line is one entry with a count), and a JSON report that keeps every
occurrence. The corpus lives beside the checkout, not in the package: without it the tests skip.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contract import cli
from tests.support.paths import ROOT

FOREIGN = ROOT.parent / "shared" / "corpus" / "foreign"
TRANSCRIPTS = sorted(FOREIGN.glob("*/*.jsonl")) if FOREIGN.is_dir() else []
MAX_LINES = 64  # the findings, then the requirement lines (not-applicable rules by reason, wrapped at 80)
_TIMES = re.compile(r"^    ×(\d+) on lines ")

pytestmark = pytest.mark.skipif(not TRANSCRIPTS, reason=f"no foreign corpus at {FOREIGN}")


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("wire", ["stream-json", "auto", "subagent-stdio"])
@pytest.mark.parametrize("path", TRANSCRIPTS, ids=[_id(p) for p in TRANSCRIPTS])
def test_foreign_transcript_report_fits_a_screen(
    path: Path, wire: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.run(["check", "--wire", wire, "--format", "json", str(path)]) == 1
    report = json.loads(capsys.readouterr().out)
    total = sum(report["counts"].values())
    assert report["dropped"] == 0
    assert len(report["violations"]) == total  # every occurrence kept
    assert _counts(report["violations"]) == report["counts"]

    assert cli.run(["check", "--wire", wire, str(path)]) == 1
    text = capsys.readouterr().out.splitlines()
    assert len(text) <= MAX_LINES, "\n".join(text)
    assert f": {total} findings " in text[-1]
    if not any(line.startswith("… ") for line in text):  # nothing elided: the groups add up
        assert _grouped_total(text) == total


def _counts(violations: list[dict[str, object]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for violation in violations:
        rule = str(violation["rule"])
        counts[rule] = counts.get(rule, 0) + 1
    return counts


def _grouped_total(text: list[str]) -> int:
    """Occurrences the text report accounts for: 1 per finding line, or its count."""
    total = 0
    for line in text[:-1]:
        times = _TIMES.match(line)
        if times:
            total += int(times.group(1)) - 1  # the finding line above already counted one
        elif " [MUST]" in line or " [SHOULD]" in line:
            total += 1
    return total


def test_the_corpus_is_where_the_tests_look() -> None:
    assert len(TRANSCRIPTS) >= 8
