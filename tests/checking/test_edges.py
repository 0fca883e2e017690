"""Edges an outside review found, each held by a test that failed before its fix.

- every file a verb reads whole goes through one bounded read (contract/core/userfiles.py): a
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

import contextlib
import errno
import io
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.core import textsafe, userfiles
from tests.support.paths import ROOT
from tests.support.wrapped import unwrapped

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
    assert err.count("\n") == 1, err
    assert "Traceback" not in err, err
    assert "more than 4 KiB" in err, err
    assert "docs/limits.md" in err, err


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
        # BrokenPipeError: the reader stopped at the bound and closed its end
        with contextlib.suppress(BrokenPipeError), open(fifo, "wb") as handle:
            handle.write(b"{" * 4096)

    writer = threading.Thread(target=write)
    writer.start()
    code, _, err = _run(["surface", str(fifo)], capsys)
    writer.join()
    assert code == 2, err
    assert "more than 1 KiB" in err, err


# -- unusable schemas, scenario names --------------------------------------------------------------


@pytest.mark.parametrize("schema", ['{"$ref": "#"}', '{"$ref": "#/nope"}', '{"$ref": "https://example.com/x.json"}',
                                    '{"not": ' * 600 + "{}" + "}" * 600])
def test_evolve_of_an_unusable_schema_is_one_line_and_exit_2(schema: str, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """It passes (or cannot be put through) the metaschema and is still no wire's schema: as diff says."""
    path = tmp_path / "r.json"
    path.write_text(schema, encoding="utf-8")
    code, out, err = _run(["evolve", "--wire", "stream-json", "--dry-run", str(path)], capsys)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1, err
    assert "Traceback" not in err, err
    assert err.startswith(f"milk-contract: error: {path}"), err


@pytest.fixture
def bare_root(tmp_path: Path) -> Path:
    """The least a checkout needs for ``scenario --root`` (it refuses before it writes or tests)."""
    root = tmp_path / "root"
    for folder in ("schemas", "goldens/stream-json", "contract/tests"):
        (root / folder).mkdir(parents=True)
    (root / "contract" / "tests" / "test_surface.py").write_text("", encoding="utf-8")
    return root


@pytest.mark.parametrize(("name", "why"), [
    ("L" * 300, "300 bytes long, at most 100"),
    ("é" * 51, "102 bytes long, at most 100"),  # bytes, not characters: the file system counts bytes
    ("b\u202eidi\x07", "U+202E, which is not printable"),
    ("e\x1b[31m", "U+001B, which is not printable"),
    ("zero\u200bwidth", "U+200B, which is not printable"),
    ("line\u2028break", "U+2028, which is not printable"),
    ("a/b", "path separator"),
    ("a\\b", "path separator"),
    (".hidden", "starts with a dot"),
    ("../evil", "path separator"),  # refused for the slash that makes it a path, not its leading dot
    ("..", "starts with a dot"),
    ("ok_name.jsonl", "ends in a file suffix"),  # it wrote ok_name.jsonl.jsonl (a second review)
    ("ok_name.meta.json", "ends in a file suffix"),
])
def test_a_scenario_name_is_a_plain_printable_file_name(name: str, why: str, bare_root: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    before = sorted(bare_root.rglob("*"))
    code, out, err = _run(["scenario", "--wire", "stream-json", "--root", str(bare_root), "--name", name,
                           "--description", "x", "--transcript", str(HELLO)], capsys)
    assert (code, out) == (2, ""), (out, err)
    assert err.count("\n") == 1, err
    assert "Traceback" not in err, err
    assert "a plain file name is needed" in err, err
    assert why in err, err
    assert textsafe.UNSAFE.search(err[:-1]) is None, err  # the name is echoed escaped
    assert "\\u005c" not in err, err  # and escaped once (no repr under the escaping)
    assert sorted(bare_root.rglob("*")) == before  # nothing written


def test_a_long_refused_name_is_shown_clipped(bare_root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["scenario", "--wire", "stream-json", "--root", str(bare_root), "--name", "L" * 5000,
                         "--description", "x", "--transcript", str(HELLO)], capsys)
    assert code == 2, err
    assert len(err) < 400, err
    assert "(4900 more)" in err, err


@pytest.mark.parametrize("name", ["hello_again", "ünïcode-name", "with space", "L" * 100])
def test_a_plain_name_is_taken(name: str) -> None:
    """Near miss: printable names, non-ASCII ones and one of exactly the bound are plain."""
    from contract.evolution.evolve import name_problem

    assert name_problem(name) is None


# -- a stdout that cannot be written ---------------------------------------------------------------


class _Full(io.StringIO):
    """A stdout on a full disk: every write fails (ENOSPC), as ``> /dev/full`` does."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")


OUTPUT_VERBS = [
    ["rules"],
    ["surface", "--wire", "stream-json"],
    ["diff", str(SCHEMA), str(SCHEMA)],
    ["record", "--dry-run", "--scenario", "hello"],
    ["--version"],
    ["--help"],
    ["check", "--help"],
    ["check", str(HELLO)],
    ["check", "--format", "json", str(HELLO)],
]


@pytest.mark.parametrize("argv", OUTPUT_VERBS, ids=" ".join)
def test_a_stdout_that_cannot_be_written_is_one_line_and_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str],
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdout", _Full())
    code = cli.run(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    assert err == ("milk-contract: error: cannot write to stdout (No space left on device); the output is "
                   "incomplete, so no result or verdict was given\n"), err


def test_vectors_export_to_a_full_stdout(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.consumers import vectors

    monkeypatch.setattr(vectors, "vectors", lambda: iter(()))  # stdout is the point here, not the drawing
    monkeypatch.setattr(sys, "stdout", _Full())
    assert cli.run(["vectors", "export", str(tmp_path / "vectors")]) == 2
    assert capsys.readouterr().err.startswith("milk-contract: error: cannot write to stdout")


def test_an_oserror_of_the_verbs_own_is_not_taken_for_stdouts(monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: only stdout's own failure is reported as one; anything else stays what it is."""
    def broken(args: object) -> int:
        raise OSError(errno.EIO, "the verb's own")

    import contract.cli.rules

    monkeypatch.setattr(contract.cli.rules, "cmd_rules", broken)
    with pytest.raises(OSError, match="the verb's own"):
        cli.run(["rules"])


@pytest.mark.process
@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.parametrize("argv", [["rules"], ["--help"], ["--version"]], ids=" ".join)
def test_dev_full_in_a_real_process(argv: list[str]) -> None:
    """The real stdout: what is still buffered is not flushed again at exit (no 'Exception ignored')."""
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "contract", *argv], stdout=full, stderr=subprocess.PIPE,
                              text=True, timeout=60, check=False, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("milk-contract: error: cannot write to stdout"), done.stderr
    assert done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("verdict", ["not-conformant", "conformant"])
def test_a_reader_that_left_is_exit_2_never_0(verdict: str, tmp_path: Path) -> None:
    """`check x | true` under pipefail: exit 0 read as conformant whatever the verdict was (a review)."""
    capture = tmp_path / "c.jsonl"
    hello = (ROOT / "goldens" / "stream-json" / "hello.jsonl").read_bytes()
    capture.write_bytes(hello if verdict == "conformant" else hello.split(b"\n")[0] + b"\n")
    read, write = os.pipe()
    os.close(read)  # the reader left before anything was written
    try:
        done = subprocess.run([sys.executable, "-m", "contract", "check", str(capture)], stdout=write,
                              stderr=subprocess.PIPE, text=True, timeout=60, check=False, cwd=ROOT)
    finally:
        os.close(write)
    assert done.returncode == 2, done.stderr
    assert done.stderr == ("milk-contract: error: stdout's reader left before the output was written whole; "
                           "no result or verdict was given\n")


@pytest.mark.parametrize(("redirect", "argv", "said"), [
    (">&-", ["rules"], "stdout is closed, so no result or verdict could be given"),
    (">&-", ["check", "goldens/stream-json/hello.jsonl"], "stdout is closed, so no result or verdict could be given"),
    ("<&-", ["check", "-"], "- (stdin): stdin is closed, so there is nothing to read (not an empty stream)"),
], ids=["rules-stdout", "check-stdout", "check-stdin"])
def test_a_closed_standard_stream_is_one_line_and_exit_2(redirect: str, argv: list[str], said: str) -> None:
    """Started with fd 1 or 0 closed, every verb met None for sys.stdout/stdin: a traceback, exit 1."""
    done = subprocess.run(["sh", "-c", f'exec "$0" -m contract "$@" {redirect}', sys.executable, *argv],
                          stderr=subprocess.PIPE, stdout=subprocess.DEVNULL if redirect == "<&-" else None,
                          text=True, timeout=60, check=False, cwd=ROOT)
    assert done.returncode == 2, done.stderr
    assert done.stderr == f"milk-contract: error: {said}\n"


# -- an interrupted record -------------------------------------------------------------------------


def _interrupted_scenario(signum: int) -> Any:
    """A ``run_scenario`` stopped by ``signum`` after the golden's first line, as the harness raises it."""
    from contract.live import harness
    from contract.rules.report import Report

    def run_scenario(golden: Any, *args: Any, **kwargs: Any) -> Any:
        report = Report(golden.wire, lines=1)
        harness.interrupted(report, "the emitter", signum)
        raise harness.Interrupted(report, golden.data().split(b"\n")[0] + b"\n", signum)

    return run_scenario


@pytest.mark.parametrize("dry", [True, False], ids=["dry-run", "record"])
@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_an_interrupted_record_is_one_line_and_no_diff(dry: bool, signum: int, status: int, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.goldens import scenarios
    from contract.goldens.store import goldens_dir

    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    monkeypatch.setattr(scenarios, "run_scenario", _interrupted_scenario(signum))
    code, out, err = _run(["record", "--goldens", str(folder), "--scenario", "hello",
                           *(["--dry-run"] if dry else [])], capsys)
    assert code == status, err
    assert out == "", out  # no "would change … missing line", no "review with git diff"
    assert err.count("\n") == 1, err
    name = signal.Signals(signum).name
    assert err.startswith("milk-contract: error: stream-json/hello: run.interrupted: "), err
    assert f"interrupted ({name}) after 1 line;" in err, err
    assert "golden kept" in err, err
    assert {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize("dry", [True, False], ids=["dry-run", "record"])
def test_record_reports_the_scenarios_before_the_interrupted_one(dry: bool, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Near miss: what finished before the interruption is still reported, as before a harness failure;
    its total says the record stopped and wrote nothing (issue 51: it said "review with git diff", as
    a finished record does, before the run.interrupted error)."""
    from contract.goldens import scenarios
    from contract.goldens.store import goldens_dir

    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    real, stop = scenarios.run_scenario, _interrupted_scenario(signal.SIGINT)
    calls: list[str] = []

    def second_interrupted(golden: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(golden.name)
        return (real if len(calls) == 1 else stop)(golden, *args, **kwargs)

    monkeypatch.setattr(scenarios, "run_scenario", second_interrupted)
    before = {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()}
    code, out, err = _run(["record", "--goldens", str(folder), "--wire", "stream-json",
                           *(["--dry-run"] if dry else [])], capsys)
    assert code == 130, err
    assert out == (f"stream-json/{calls[0]}: nothing would change\nstopped at stream-json/{calls[1]}: 1 scenario, "
                   "0 with breaking changes or findings before it; the record is incomplete and nothing was "
                   "rewritten (every golden kept)\n"), out
    for advice in ("review with", "git diff", "evolve", "run the suite"):
        assert advice not in out
    assert f"stream-json/{calls[1]}: run.interrupted" in err
    assert {path: path.read_bytes() for path in folder.rglob("*") if path.is_file()} == before


# -- the plugin's seconds, as the CLI's ------------------------------------------------------------


@pytest.mark.process
@pytest.mark.parametrize("value", ["-1", "nan", "inf"])
def test_the_plugin_refuses_a_late_grace_the_cli_refuses(value: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q",
                           "--contract-late-grace", value, "test_nothing.py"],
                          cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error, as for --contract-timeout nan
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert "--contract-late-grace: expected zero or more seconds" in lines[0], lines
    # the CLI's --late-grace refuses the same value, in the same words
    assert cli.run(["run", "--late-grace", value]) == 2
    assert "expected zero or more seconds" in capsys.readouterr().err


@pytest.mark.parametrize(("timeout", "grace", "said"), [
    (60.0, 0.0, None), (60.0, 2.0, None),
    (60.0, -1.0, "--contract-late-grace"), (60.0, float("nan"), "--contract-late-grace"),
    (float("nan"), 2.0, "--contract-timeout"), (0.0, 2.0, "--contract-timeout"),
])
def test_option_problem_checks_both_seconds(timeout: float, grace: float, said: str | None) -> None:
    from contract.plugin.session import option_problem

    problem = option_problem(0, timeout, grace)
    if said is None:
        assert problem is None, problem
    else:
        assert problem is not None
        assert problem.startswith(said), problem


# -- quoting with the one escaping, not repr -------------------------------------------------------

HOSTILE = "\x1b[31mRED\u202eevil\u2066\x00"
ESCAPED = "'\\u001b[31mRED\\u202eevil\\u2066\\u0000'"  # textsafe's form, once


def test_the_schema_note_quotes_a_hostile_type_as_every_report_does(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    lines = HELLO.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    capture = tmp_path / "hostile.jsonl"
    capture.write_text("\n".join([lines[0], json.dumps({**first, "type": HOSTILE, "seq": 1}), *lines[1:]]) + "\n",
                       encoding="utf-8")
    _, out, _ = _run(["check", str(capture)], capsys)
    note = unwrapped(out)[0]
    assert note.startswith(f"# sj.schema: line 2 has type {ESCAPED}, which the schema does not list"), note
    assert "\\x1b" not in out
    assert "\\u005c" not in out


def test_a_diff_reason_quotes_a_hostile_value_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A schema's own strings (here a pattern) are input too: quoted raw, escaped once by the reporter."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps({"type": "object", "properties": {"x": {"type": "string"}}}), encoding="utf-8")
    new.write_text(json.dumps({"type": "object", "properties": {"x": {"type": "string", "pattern": HOSTILE}}}),
                   encoding="utf-8")
    code, out, _ = _run(["diff", str(old), str(new)], capsys)
    assert code == 1
    assert f"pattern {ESCAPED} added" in out, out
    assert "\\x1b" not in out


@pytest.mark.parametrize("argv", [["run", "--timeout", HOSTILE], ["fuzz", "--seed", HOSTILE],
                                  ["check", "--basis", HOSTILE, str(HELLO)],
                                  ["feed", "--scenario", HOSTILE, "--", "true"]])
def test_a_refused_option_value_is_quoted_with_the_one_escaping(argv: list[str],
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(argv, capsys)
    assert code == 2
    assert ESCAPED in err, err
    assert "\\x1b" not in err
    assert "\\u005c" not in err


def test_shown_is_quoted_for_strings_and_json_for_the_rest() -> None:
    from contract.core.jsonvalue import shown

    assert [shown("a"), shown("it's"), shown(1), shown(True), shown(None), shown([1, "x"])] == \
        ["'a'", '"it\'s"', "1", "true", "null", '[1, "x"]']


# -- papercuts -------------------------------------------------------------------------------------


def test_fuzz_help_shows_its_own_default_wire(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.run(["fuzz", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--wire {subagent-stdio} the wire to judge by (default subagent-stdio)" in out, out


def test_a_command_label_is_shell_quoted() -> None:
    """`run -- python3 -c … "say hi"` is labelled as it could be typed again, not as `… say hi`."""
    import shlex

    from contract.live.harness import run_stream

    argv = [sys.executable, "-c", f"import sys; sys.stdout.write(open({str(HELLO)!r}).read())", "say hi"]
    report = run_stream(argv, wire="stream-json", timeout=30)
    assert report.source == shlex.join(argv)
    assert report.source.endswith(" 'say hi'")


def test_an_interrupted_conversation_says_how_far_it_got(monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.live import driver, session
    from contract.live.harness import Interrupted, default_command

    calls = []
    real = session.Session.await_answers

    def stopped_at_the_second(self: Any) -> bool:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(session.Session, "await_answers", stopped_at_the_second)
    plan = tuple(driver.Step((driver.command(ident),)) for ident in ("a", "b", None))
    with pytest.raises(Interrupted) as caught:
        driver.record(default_command("subagent-stdio"), timeout=10, plan=plan)
    note = caught.value.report.notes[-1]
    assert "in 1 of 3 steps" in note, note
    assert note.endswith("; interrupted in step 2"), note
    message = next(v.message for v in caught.value.report.violations if v.rule == "run.interrupted")
    assert " 1 lines" not in message, message


def test_an_interrupted_fuzz_names_the_conversation_and_the_seed(monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.live import driver, fuzz
    from contract.live.harness import Interrupted, interrupted
    from contract.rules.report import Report

    real, calls = driver.record, []

    def second_interrupted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            report = Report("subagent-stdio")
            interrupted(report, "the host", signal.SIGTERM)
            raise Interrupted(report, b"", signal.SIGTERM)
        return real(*args, **kwargs)

    monkeypatch.setattr(driver, "record", second_interrupted)
    with pytest.raises(Interrupted) as caught:
        fuzz.fuzz_host(seed=7, examples=5)
    assert "fuzz: interrupted while holding conversation 2 of 5 (seed 7" in caught.value.report.notes[-1]


@pytest.mark.parametrize("future", [False, True])
def test_an_interrupted_feed_names_the_scenario_and_the_seed(future: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    from contract.consumers import feed
    from contract.goldens.store import scenarios
    from contract.live.harness import Interrupted

    goldens = scenarios("stream-json")[:2]
    real, calls = feed.hold, []

    def interrupted_second(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(feed, "hold", interrupted_second)
    with pytest.raises(Interrupted) as caught:
        feed.feed_stream(["cat"], goldens, seed=11, future=future, examples=2)
    doing = f"the future variants of {goldens[0].name}" if future else f"the golden {goldens[1].name}"
    assert f"feed: interrupted while feeding {doing} (seed 11" in caught.value.report.notes[-1], \
        caught.value.report.notes


def test_an_empty_transcript_is_refused_without_line_none(bare_root: Path, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    code, out, _ = _run(["scenario", "--wire", "stream-json", "--root", str(bare_root), "--name", "nothing",
                         "--description", "x", "--transcript", str(empty)], capsys)
    assert code == 1
    assert "not conformant" in out
    assert "line None" not in out
    assert "  sj.result-last: " in out, out


def test_an_expect_json_pointer_no_golden_has_is_misuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expect = tmp_path / "expect.json"
    expect.write_text('{"members": {"x": "/nonexistent"}}', encoding="utf-8")
    code, out, err = _run(["feed", "--scenario", "hello", "--expect-json", str(expect), "--", "cat"], capsys)
    assert (code, out) == (2, "")
    assert "'/nonexistent' finds nothing in the result line of golden hello" in err, err
    assert err.count("\n") == 1


def test_a_pointer_some_goldens_have_is_taken() -> None:
    """Near miss: an error run's result has no /result, another's has: null is a real expectation there."""
    from contract.consumers.feed import members_problem
    from contract.goldens.store import scenarios

    goldens = scenarios("stream-json")
    assert members_problem({"text": "/result", "is_error": "/is_error"}, goldens) is None
    assert members_problem({"x": "/reslt"}, goldens) is not None


@pytest.mark.skipif(not os.path.exists(ENDLESS), reason="needs /dev/zero")
@pytest.mark.parametrize("which", ["hello.meta.json", "hello.jsonl"])
def test_a_goldens_folder_file_that_never_ends_is_misuse(which: str, tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str],
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """``record --goldens DIR`` reads the user's folder: its metas and transcripts are bounded too."""
    from contract.goldens.store import goldens_dir

    monkeypatch.setattr(userfiles, "MAX_FILE_BYTES", 64 * 1024)  # above any bundled golden, far below /dev/zero
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    (folder / "stream-json" / which).unlink()
    (folder / "stream-json" / which).symlink_to(ENDLESS)
    code, out, err = _run(["record", "--dry-run", "--goldens", str(folder), "--scenario", "hello"], capsys)
    assert (code, out) == (2, "")
    assert err.startswith(f"milk-contract: error: --goldens {folder}: {folder / 'stream-json' / which}: more than"), err


def test_a_goldens_folder_meta_that_is_not_json_is_misuse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from contract.goldens.store import goldens_dir

    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    (folder / "stream-json" / "hello.meta.json").write_text("{", encoding="utf-8")
    code, _, err = _run(["record", "--dry-run", "--goldens", str(folder), "--scenario", "hello"], capsys)
    assert code == 2
    assert "hello.meta.json: not JSON" in err, err
    assert err.count("\n") == 1
