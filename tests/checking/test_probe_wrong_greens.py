"""An outside probe's findings on `milk-contract check DIR`, fixed: each test was a strict xfail.

A directory's ``*.jsonl`` entry that cannot be read as a file (a dangling symlink, a FIFO, a
symlink to a device) is left out without a word: beside one conformant capture, `check DIR`
says "1 file: all conformant" and exits 0, where the same path named alone is exit 2 ("cannot
read"). A capture that went missing (an artifact not downloaded, a link to a moved file) is
thus a green run; `statement --captures DIR` reaches MUST+SHOULD the same way.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from contract.cli import run
from contract.goldens.store import load


def _folder(tmp_path: Path) -> Path:
    folder = tmp_path / "captures"
    folder.mkdir()
    shutil.copyfile(load("stream-json", "hello").path, folder / "a.jsonl")
    return folder


def test_a_folder_of_readable_captures_is_judged(tmp_path: Path) -> None:
    """The near miss: every entry a readable capture, conformant, exit 0."""
    assert run(["check", "-q", str(_folder(tmp_path))]) == 0


def test_a_dangling_symlink_named_alone_is_misuse(tmp_path: Path) -> None:
    link = tmp_path / "b.jsonl"
    link.symlink_to(tmp_path / "gone.jsonl")
    assert run(["check", str(link)]) == 2


@pytest.mark.parametrize("entry", ["dangling-symlink", "fifo", "device"])
def test_an_unreadable_capture_in_a_folder_is_not_left_out(tmp_path: Path, entry: str,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """Was a strict xfail (the probe: "1 file: all conformant", exit 0). Now misuse, one line naming it."""
    folder = _folder(tmp_path)
    if entry == "fifo":
        os.mkfifo(folder / "b.jsonl")
    elif entry == "device":
        (folder / "b.jsonl").symlink_to("/dev/zero")
    else:
        (folder / "b.jsonl").symlink_to(tmp_path / "gone.jsonl")
    capsys.readouterr()
    assert run(["check", "-q", str(folder)]) == 2
    err = capsys.readouterr().err
    assert "b.jsonl: a *.jsonl entry that is not a readable file" in err
    assert err.count("\n") == 1


def test_other_entries_beside_the_captures_are_not_judged(tmp_path: Path) -> None:
    """The near miss: a FIFO or a dangling link that is not named *.jsonl is no capture, and left alone."""
    folder = _folder(tmp_path)
    os.mkfifo(folder / "pipe")
    (folder / "notes.txt").symlink_to(tmp_path / "gone.txt")
    assert run(["check", "-q", str(folder)]) == 0
