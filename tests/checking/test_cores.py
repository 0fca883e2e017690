"""The default ``--jobs``: two processes only when the probe finds a second core free.

``contract.checking.cores.choose`` reads the machine's runnable threads a few times; the choice and its
note are checked here on counts given to it (both sides of ``BUSY``, and a machine whose count
cannot be read), and a default check of a large file is held to the ``--jobs 1`` report with one
note more, whichever way the probe went on this machine.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contract.checking import cores
from contract.checking.checker import check
from tests.support import shapes


def _choice(counts: list[int | None]) -> cores.Choice:
    given = iter(counts)
    return cores.choose(2, lambda: next(given), lambda _: None)


def test_an_idle_machine_gets_two_processes() -> None:
    choice = _choice([1, 1, 2, 1])  # this thread, and another for one sample in four
    assert choice.two
    assert choice.others == pytest.approx(0.25)
    assert "checked in two processes (a second core was free: 0.2 other" in choice.note


def test_a_core_held_by_another_process_keeps_the_check_in_one() -> None:
    choice = _choice([2, 2, 3, 2])
    assert not choice.two
    assert "checked in one process (another process held a core: 1.2 other runnable" in choice.note


def test_a_load_that_cannot_be_read_leaves_the_choice_as_before() -> None:
    choice = _choice([1, None])
    assert choice.two
    assert choice.others is None
    assert "could not be read" in choice.note


def test_the_probe_reads_this_machine() -> None:
    count = cores.runnable()
    assert count is None or count >= 1  # this thread is running while it reads


@pytest.mark.process
def test_a_default_check_of_a_large_file_says_how_it_was_checked(tmp_path: Path) -> None:
    path = tmp_path / "large.jsonl"
    path.write_bytes(shapes.stream("goldens", 9000, shapes.DATES["the 30th"]))
    assert path.stat().st_size >= 2 * 1024 * 1024
    auto: dict[str, Any] = check(path, "stream-json").to_json()
    one = check(path, "stream-json", jobs=1).to_json()
    [note] = [n for n in auto["notes"] if n.startswith("--jobs unset: ")]
    assert "checked in two processes" in note or "checked in one process" in note
    assert auto | {"notes": [n for n in auto["notes"] if n != note]} == one
