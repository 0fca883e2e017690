"""Reports on foreign transcripts (other agent CLIs' output) are short enough for a person.

Every foreign transcript gets exit 1, a text report of at most 40 lines (a finding repeated on
every line is one entry with a count; issue 51) and a JSON report that keeps every occurrence:
the sample written here (tests/data/foreign/, always), and the corpus of real transcripts when
one is given (tests/support/outside.py: not in the checkout; without it those cases skip, saying
how to get it).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from contract import cli
from tests.support.outside import FOREIGN_SAMPLE, NO_FOREIGN_CORPUS, foreign_corpus, foreign_transcripts

SAMPLES = sorted(FOREIGN_SAMPLE.glob("*/*.jsonl"))
TRANSCRIPTS = foreign_transcripts()
MAX_LINES = 40  # the notes, the findings, one requirement line of counts, the verdict (issue 51)
_TIMES = re.compile(r"^    ×(\d+) on lines ")
_CORPUS = [pytest.param(p, id=f"corpus/{p.parent.name}/{p.stem}") for p in TRANSCRIPTS] or \
    [pytest.param(None, id="corpus", marks=pytest.mark.skip(reason=NO_FOREIGN_CORPUS))]


def _id(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


@pytest.mark.parametrize("wire", ["stream-json", "auto", "subagent-stdio"])
@pytest.mark.parametrize("path", [*(pytest.param(p, id=f"sample/{_id(p)}") for p in SAMPLES), *_CORPUS])
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


def test_the_sample_is_in_the_checkout() -> None:
    assert [p.relative_to(FOREIGN_SAMPLE).as_posix() for p in SAMPLES] == ["claude-code/sample-max-turns.jsonl"]


@pytest.mark.skipif(foreign_corpus() is None, reason=NO_FOREIGN_CORPUS)
def test_the_corpus_is_where_the_tests_look() -> None:
    assert len(TRANSCRIPTS) >= 8
