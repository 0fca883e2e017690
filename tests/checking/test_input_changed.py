"""A file that changes while it is checked is never conformant: checker.input-changed.

One process reads a regular file to the end it meets, two stop at the size the check began with
(contract.checking.parallel), so a capture still being written would get two different verdicts, and
either could say "conformant" of bytes the file no longer holds alone. The change is made from
inside the check (the step that reads the file is wrapped), so the tests do not race the checker.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import contract
from contract.checking import checker, parallel
from contract.core.resources import data_dir

HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"


def _changing(step: Callable[..., Any], path: Path, change: Callable[[Path], None]) -> Callable[..., Any]:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        report = step(*args, **kwargs)
        change(path)  # after the bytes were judged, before the check is over
        return report
    return wrapped


def _append(path: Path) -> None:
    with open(path, "ab") as handle:
        handle.write(b'{"type":"assistant"}\n')


def _rewrite(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data)  # the same bytes, written again: only the modification time tells
    stamp = os.stat(path).st_mtime_ns + 1_000_000_000
    os.utime(path, ns=(stamp, stamp))


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    path = tmp_path / "capture.jsonl"
    path.write_bytes(HELLO.read_bytes())
    return path


@pytest.mark.parametrize("change", [_append, _rewrite], ids=["grew", "rewritten"])
def test_one_process_a_file_that_changed_is_not_conformant(
        capture: Path, change: Callable[[Path], None], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(checker, "check_stream", _changing(checker.check_stream, capture, change))  # type: ignore[attr-defined]  # patched where checker looks it up (not re-exported)
    report = contract.check(capture, jobs=1)
    assert not report.conformant
    assert report.counts == {"checker.input-changed": 1}
    (finding,) = report.violations
    assert "changed while it was checked" in finding.message


def test_two_processes_a_file_that_grew_is_not_conformant(capture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(parallel, "worth_it", lambda *_: True)
    monkeypatch.setattr(parallel, "check_file", _changing(parallel.check_file, capture, _append))
    report = contract.check(capture, jobs=2)
    assert not report.conformant
    assert report.counts == {"checker.input-changed": 1}
    assert "bytes when the check began" in report.violations[0].message


def test_an_unchanged_file_and_a_stream_pass(capture: Path) -> None:
    """The near miss: nothing changed; and bytes or a pipe have no size to hold them to."""
    report = contract.check(capture, jobs=1)
    assert report.conformant
    assert "checker.input-changed" in report.exercised
    assert contract.check(capture.read_bytes()).conformant
    read, write = os.pipe()
    os.write(write, capture.read_bytes())
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        piped = contract.check(pipe)
    assert piped.conformant
    assert "checker.input-changed" in piped.exercised  # as the file: the reports alike


def test_it_cannot_be_ignored(capture: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="cannot be ignored"):
        contract.check(capture, ignore=["checker.input-changed"])
