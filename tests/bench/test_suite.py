"""``bench/suite.py --update-slow`` writes the slow list as docs/development.md says: it adds the process
tests at the threshold or above, never a kept one (by id or by its module's ``path::``), never a
test its source marks deep or one that starts no process; it keeps a listed test's cost unless the
run ran it, and drops a listed test no longer collected. Misuse is exit 2. Nothing here is timed:
the rows are made up."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import suite


@pytest.fixture
def slow_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "slow.json"
    path.write_text(json.dumps({"about": "kept as is", "threshold": 0.2,
                                "keep": ["t/a.py::kept", "t/whole.py::"],
                                "tests": {"t/a.py::listed": 0.9, "t/a.py::gone": 0.5}}))
    monkeypatch.setattr(suite, "SLOW_FILE", path)
    monkeypatch.setattr("tests.support.depth.SLOW_FILE", path)
    return path


ROWS: list[suite.Row] = [
    ("t/a.py::listed", 0.01, True, False),  # skipped in this run: keeps its listed cost
    ("t/a.py::slow", 0.3, True, False),  # added
    ("t/a.py::at_the_bar", 0.2, True, False),  # added
    ("t/a.py::quick", 0.19, True, False),
    ("t/a.py::kept", 5.0, True, False),
    ("t/whole.py::any[1]", 5.0, True, False),
    ("t/a.py::in_process", 5.0, False, False),
    ("t/a.py::marked_deep", 5.0, True, True),
]


def test_the_update_adds_keeps_and_drops_as_documented(slow_file: Path) -> None:
    added, dropped = suite._update(ROWS, None, ran_listed=False)
    written = json.loads(slow_file.read_text())
    assert written["tests"] == {"t/a.py::at_the_bar": 0.2, "t/a.py::listed": 0.9, "t/a.py::slow": 0.3}
    assert (added, dropped) == (2, 1)
    assert written["about"] == "kept as is"
    assert written["keep"] == ["t/a.py::kept", "t/whole.py::"]


def test_a_run_of_the_listed_tests_measures_them_again(slow_file: Path) -> None:
    suite._update(ROWS, 0.25, ran_listed=True)
    written = json.loads(slow_file.read_text())
    assert written["tests"] == {"t/a.py::listed": 0.01, "t/a.py::slow": 0.3}
    assert written["threshold"] == 0.25


def test_a_listed_test_its_source_now_marks_deep_is_dropped(slow_file: Path) -> None:
    rows: list[suite.Row] = [("t/a.py::listed", 0.0, True, True), ("t/a.py::gone", 0.0, True, False)]
    assert suite._update(rows, None, ran_listed=False) == (0, 1)
    assert json.loads(slow_file.read_text())["tests"] == {"t/a.py::gone": 0.5}


@pytest.mark.parametrize("argv", [["--load", "-1"], ["--threshold", "0"], ["--update-slow", "tests/docs"],
                                  ["--nope"]])
def test_misuse_is_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        suite.main(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.strip()
