"""Edges an outside review found, each held by a test that failed before its fix.

- every file a verb reads whole goes through one bounded read (contract/userfiles.py): a
  device that never ends (``/dev/zero``) or a file over the bound is one line, exit 2, with
  the bound lowered here so no test reads more than a few KiB;
- an unusable schema (``{"$ref": "#"}``), an over-long scenario name and a stdout that cannot
  be written are one line and exit 2 for every verb, never a traceback;
- a scenario name is a plain, printable file name within a length bound, and is shown escaped;
- an interrupted ``record`` is one line naming ``run.interrupted``, no diff, exit 128 + signal;
- the plugin's ``--contract-late-grace`` refuses what the CLI's ``--late-grace`` refuses;
- the schema note quotes a hostile ``type`` with the one escaping, not with ``repr``;
- papercuts: help defaults, shell-quoted command labels, counts, an absent pointer in
  ``--expect-json``, what an interrupted fuzz or feed was doing.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from contract import cli, userfiles

ROOT = Path(__file__).resolve().parent.parent
HELLO = ROOT / "goldens" / "stream-json" / "hello.jsonl"
SCHEMA = ROOT / "schemas" / "stream-json.schema.json"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.run(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- files read whole ------------------------------------------------------------------------------

ENDLESS = "/dev/zero"
WHOLE_FILE_VERBS = [
    ["diff", ENDLESS, ENDLESS],
    ["diff", str(SCHEMA), ENDLESS],
    ["surface", ENDLESS],
    ["check", "--baseline", ENDLESS, str(HELLO)],
    ["run", "--baseline", ENDLESS],
    ["evolve", "--wire", "stream-json", "--dry-run", ENDLESS],
    ["scenario", "--wire", "stream-json", "--name", "endless", "--description", "x", "--transcript", ENDLESS],
    ["feed", "--scenario", "hello", "--expect-stdout", ENDLESS, "--", "true"],
    ["feed", "--scenario", "hello", "--expect-json", ENDLESS, "--", "true"],
]


@pytest.mark.skipif(not os.path.exists(ENDLESS), reason="needs /dev/zero")
@pytest.mark.parametrize("argv", WHOLE_FILE_VERBS, ids=lambda argv: " ".join(argv[:2]))
def test_a_file_that_never_ends_is_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(userfiles, "MAX_FILE_BYTES", 4096)  # the bound, lowered: read 4 KiB, not 64 MiB
    code, out, err = _run(argv, capsys)
    assert code == 2, (out, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert "more than 4 KiB" in err and "docs/limits.md" in err, err


def test_a_file_of_exactly_the_bound_is_read_and_one_byte_more_is_not(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(userfiles, "MAX_FILE_BYTES", 100)
    (tmp_path / "at").write_bytes(b"x" * 100)
    (tmp_path / "over").write_bytes(b"x" * 101)
    assert userfiles.read_whole(tmp_path / "at") == b"x" * 100
    with pytest.raises(userfiles.FileTooLarge, match="more than 100 bytes"):
        userfiles.read_whole(tmp_path / "over")


def test_a_fifo_that_writes_too_much_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO says nothing of its size: what is read is counted."""
    import threading

    monkeypatch.setattr(userfiles, "MAX_FILE_BYTES", 1024)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with open(fifo, "wb") as handle:
            try:
                handle.write(b"{" * 4096)
            except BrokenPipeError:  # the reader stopped at the bound and closed its end
                pass

    writer = threading.Thread(target=write)
    writer.start()
    code, _, err = _run(["surface", str(fifo)], capsys)
    writer.join()
    assert code == 2 and "more than 1 KiB" in err, err
