"""Small CLI and API defects, each held by a test that failed before its fix.

- ``record --dry-run`` on an unchanged scenario says plainly that nothing would change;
- counts are worded right in the singular ("1 finding", "1 file", "1 rule", "1 line");
- a subagent-stdio capture checked as stream-json gets one note naming ``--wire`` (the other
  wire is found by the wire descriptors' ``detect``), and a stream-json capture gets none;
- ``fuzz`` offers no baseline options (it refuses every baseline);
- numeric options refuse what cannot work: ``--contract-fuzz -3`` and ``--contract-timeout 0``
  (one line, pytest's usage exit), ``scenario --timeout 0``, ``--expect-exit 999``;
- ``contract.check`` and the public strategies raise ``TypeError`` at the edge for arguments of
  the wrong type;
- ``run -- ./nonexistent`` in text is one line on stderr and exit 2 (the JSON report keeps
  ``run.start``);
- a non-JSON line's ``line.json`` finding quotes the line's start, bounded, and says how much more.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import contract
from contract import cli
from contract.goldens.store import goldens_dir
from contract.reporting.formats import REPORTERS
from tests.support.paths import ROOT
from tests.support.wrapped import unwrapped

GOLDENS = ROOT / "goldens"
SUBAGENT = GOLDENS / "subagent-stdio" / "first_poll.jsonl"
HELLO = GOLDENS / "stream-json" / "hello.jsonl"


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = cli.run(argv)
    out, err = capsys.readouterr()
    return code, out, err


# -- record --dry-run ----------------------------------------------------------------------------


def test_record_dry_run_of_an_unchanged_scenario_says_nothing_would_change(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "goldens"
    shutil.copytree(goldens_dir(), folder)
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(["record", "--goldens", str(folder), "--wire", "stream-json", "--scenario", "hello",
                           "--dry-run"], capsys)
    assert code == 0, out + err
    assert "stream-json/hello: nothing would change\n" in out
    assert "would change:" not in out  # before: "would change: no differences"
    assert "1 scenario, 0 with breaking changes" in out


# -- singular and plural ----------------------------------------------------------------------------

_PLURAL_OF_ONE = re.compile(r"\b1 (findings|files|rules|lines|scenarios|changes|kinds)\b|\(s\)")


def test_counts_of_one_are_singular_in_every_format(tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_bytes(b"not json\n")
    # subagent-stdio: one bad line is one finding there (on stream-json it also shows no whole run,
    # sj.init-first and sj.result-last, which no ignore list may silence)
    report = contract.check(path, wire="subagent-stdio")
    assert sum(report.counts.values()) == 1
    assert report.lines == 1
    for fmt, renderers in REPORTERS.items():
        for out in (renderers.one(report), renderers.many([report])):
            assert not _PLURAL_OF_ONE.search(out), (fmt, _PLURAL_OF_ONE.search(out))
    text = REPORTERS["text"].one(report)
    assert "(subagent-stdio, 1 line): 1 finding (MUST 1, SHOULD 0) of 1 rule: line.json" in text
    assert "1 file: 0 conformant, 1 NOT conformant" in REPORTERS["text"].many([report])
    assert "2 files: 0 conformant" in REPORTERS["text"].many([report, report])  # near miss: plural kept


def test_a_diff_of_one_change_is_singular() -> None:
    from contract.evolution.changes import Change
    from contract.reporting.reporters import render_diff

    change = Change(kind="breaking", path="/x", reason="removed", breaks="consumers", code="removed")
    text = render_diff("a.json", "b.json", [change], "text")
    assert "1 change, 1 breaking, 0 additive" in text


# -- a capture of another wire ---------------------------------------------------------------------


@pytest.mark.parametrize("jobs", [1, 2], ids=["one-process", "two-processes"])
def test_a_subagent_capture_checked_as_stream_json_gets_one_wire_note(jobs: int) -> None:
    report = contract.check(SUBAGENT, wire="stream-json", jobs=jobs)
    assert not report.conformant
    hints = [note for note in report.notes if "--wire" in note]
    assert len(hints) == 1, report.notes
    assert "--wire subagent-stdio" in hints[0]
    assert "--wire auto" in hints[0]


@pytest.mark.parametrize(("path", "wire"), [(HELLO, "stream-json"), (SUBAGENT, "subagent-stdio"),
                                            (SUBAGENT, "auto")])
def test_no_wire_note_when_the_wire_fits(path: Path, wire: str) -> None:
    report = contract.check(path, wire=wire)
    assert not [note for note in report.notes if "--wire" in note], report.notes


def test_the_wire_note_reaches_the_text_report(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["check", str(SUBAGENT)], capsys)
    assert code == 1
    assert out.startswith("# ")
    assert "--wire subagent-stdio" in unwrapped(out)[0]


# -- fuzz and the baseline ---------------------------------------------------------------------------


def test_fuzz_help_offers_no_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(["fuzz", "--help"], capsys)
    assert code == 0
    assert "--baseline" not in out
    assert "--examples" in out  # near miss: its own options are there
    _, check_help, _ = _run(["check", "--help"], capsys)
    assert "--baseline" in check_help  # check keeps them


def test_fuzz_with_a_baseline_is_a_one_line_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["fuzz", "--baseline", "b.json"], capsys)
    assert code == 2
    assert err.count("\n") == 1, err


# -- numeric options ------------------------------------------------------------------------------------


def _pytest(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--co", "-q", *args],
                          cwd=cwd, capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.process
@pytest.mark.parametrize("option", [["--contract-fuzz", "-3"], ["--contract-timeout", "0"],
                                    ["--contract-timeout", "nan"]])
def test_the_plugin_refuses_a_count_or_timeout_that_cannot_work(option: list[str], tmp_path: Path) -> None:
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    done = _pytest([*option, "test_nothing.py"], tmp_path)
    assert done.returncode == 4, done.stdout + done.stderr  # pytest's usage error
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert option[0] in lines[0]


@pytest.mark.process
def test_the_plugin_takes_a_zero_fuzz_count(tmp_path: Path) -> None:
    """Near miss: 0 is documented as "off"."""
    (tmp_path / "test_nothing.py").write_text("def test_nothing():\n    pass\n")
    done = _pytest(["--contract-fuzz", "0", "test_nothing.py"], tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("argv", [
    ["scenario", "--wire", "stream-json", "--name", "x", "--description", "d", "--timeout", "0"],
    ["scenario", "--wire", "stream-json", "--name", "x", "--description", "d", "--timeout", "-1"],
    ["run", "--expect-exit", "999"],
    ["scenario", "--wire", "stream-json", "--name", "x", "--description", "d", "--exit-status", "256"],
])
def test_cli_numeric_options_refuse_what_cannot_work(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(argv, capsys)
    assert code == 2, out + err
    assert err.count("\n") == 1, err
    assert argv[-2] in err  # refused for this option, not for another reason


# -- the API's argument types -----------------------------------------------------------------------


@pytest.mark.parametrize(("args", "kwargs"), [
    ((42,), {}),
    ((None,), {}),
    (({"a": 1},), {}),
    ((b"",), {"wire": 3}),
    ((b"",), {"strict": "yes"}),
    ((b"",), {"max_line_bytes": "64"}),
    ((b"",), {"max_line_bytes": True}),
    ((b"",), {"source": 7}),
    ((b"",), {"jobs": "2"}),
    ((b"",), {"coverage": 1}),
    ((b"",), {"ignore": [3]}),
    (([1, 2],), {}),
])
def test_check_raises_type_error_for_wrong_argument_types(args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError):
        contract.check(*args, **kwargs)


@pytest.mark.parametrize("kwargs", [{"max_line_bytes": 0}, {"jobs": 0}])
def test_check_raises_value_error_for_impossible_bounds(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        contract.check(b"", **kwargs)


def test_check_still_takes_every_documented_source(tmp_path: Path) -> None:
    """Near miss: bytes, bytearray, memoryview, a binary file, a Path, byte chunks."""
    data = HELLO.read_bytes()
    with HELLO.open("rb") as handle:
        sources: list[Any] = [data, bytearray(data), memoryview(data), handle, HELLO, [data[:10], data[10:]],
                              iter([data])]
        for source in sources:
            assert contract.check(source).conformant, type(source)


# -- an emitter that cannot start ------------------------------------------------------------------


def test_run_of_a_missing_emitter_is_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = str(tmp_path / "nonexistent")
    code, out, err = _run(["run", "--", missing], capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1, err
    assert "cannot start" in err
    assert "No such file" in err
    assert "not exercised" not in err


def test_run_of_a_missing_emitter_keeps_run_start_in_json(capsys: pytest.CaptureFixture[str],
                                                         tmp_path: Path) -> None:
    code, out, _ = _run(["run", "--format", "json", "--", str(tmp_path / "nonexistent")], capsys)
    assert code == 2
    assert json.loads(out)["counts"] == {"run.start": 1}


# -- a non-JSON line is quoted -------------------------------------------------------------------------


def _line_json_message(data: bytes) -> str:
    report = contract.check(data)
    return next(v.message for v in report.violations if v.rule == "line.json")


def test_a_banner_line_is_quoted_in_its_finding() -> None:
    message = _line_json_message(b"Starting milk v1.2 (debug)\n")
    assert '"Starting milk v1.2 (debug)"' in message
    assert "more bytes" not in message


def test_a_long_non_json_line_is_quoted_up_to_the_stated_bound() -> None:
    from contract.core.jsonline import QUOTED_LINE_BYTES

    line = "é" * 40 + "x" * 500  # a cut that would fall inside a two-byte character is moved before it
    message = _line_json_message(line.encode() + b"\n")
    shown = re.search(r'"([^"]*)"…\((\d+) more bytes\)', message)
    assert shown is not None, message
    assert line.startswith(shown.group(1))
    assert len(shown.group(1).encode()) <= QUOTED_LINE_BYTES
    assert len(shown.group(1).encode()) + int(shown.group(2)) == len(line.encode())


def test_the_quoted_line_is_escaped_by_the_reporter(capsys: pytest.CaptureFixture[str]) -> None:
    report = contract.check(b"\xe2\x80\xaeevil banner\n")  # U+202E at the start
    text = REPORTERS["text"].one(report)
    assert '"\\u202eevil banner"' in text
    assert "\u202e" not in text


@pytest.mark.parametrize(("name", "args", "kwargs"), [
    ("lines", (42,), {}), ("streams", (None,), {}), ("broken_streams", ("stream-json", 3), {}),
    ("lines", ("stream-json",), {"depth": "2"}), ("breakable", (b"stream-json",), {}),
])
def test_the_strategies_raise_type_error_for_wrong_argument_types(name: str, args: tuple[Any, ...],
                                                                  kwargs: dict[str, Any]) -> None:
    """The other public entry: a strategy is drawn from later, so its arguments are checked at the call."""
    from contract import strategies

    with pytest.raises(TypeError):
        getattr(strategies, name)(*args, **kwargs)


def test_the_strategies_still_take_their_arguments() -> None:
    """Near miss: the documented calls build strategies."""
    from contract import strategies

    assert strategies.lines("stream-json", depth=0) is not None
    assert strategies.streams("subagent-stdio") is not None
    assert "sj.seq" in strategies.breakable("stream-json")
    with pytest.raises(ValueError, match="depth"):
        strategies.lines("subagent-stdio", depth=-1)


def test_many_files_say_once_that_some_looked_like_another_wire(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """`check goldens/` judged the subagent goldens as stream-json with no word why (an outside
    review); the many-file text now says it once, and auto (the near miss) judges them right."""
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes(HELLO.read_bytes())
    (folder / "b.jsonl").write_bytes(SUBAGENT.read_bytes())
    code, out, _ = _run(["check", str(folder)], capsys)
    assert code == 1
    assert "# 1 file (first: " in out
    assert "pass --wire auto" in out
    code, out, _ = _run(["check", "--wire", "auto", str(folder)], capsys)
    assert code == 0
    assert "looked like another wire" not in out


@pytest.mark.parametrize("verb", ["run", "fuzz", "record", "feed"])
def test_a_double_dash_with_no_command_is_misuse(verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    """`run --` ran the bundled reference and said conformant (an outside review): a command was
    meant and is missing."""
    code, _, err = _run([verb, "--"], capsys)
    assert code == 2
    assert err.count("\n") == 1
    assert "-- must be followed by a command" in err


# -- issue 35: help texts, an emitter that is not executable, a scenario name with a slash ---------


def _every_option() -> list[tuple[str, str]]:
    """(verb, option) for every option of every verb's parser."""
    import argparse

    parser = cli.build_parser()
    verbs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return [(verb, action.option_strings[-1]) for verb, sub in verbs.choices.items() for action in sub._actions
            if action.option_strings and not isinstance(action, argparse._HelpAction)
            and (action.help is None or not action.help.strip())]


def test_every_option_of_every_verb_has_help_text() -> None:
    """feed --format, rules --format and record --timeout had none (their --help line was bare)."""
    assert _every_option() == []


@pytest.mark.parametrize(("verb", "option", "words"), [("feed", "--format", "json (tools"),
                                                       ("rules", "--format", "a list of objects"),
                                                       ("record", "--timeout", "golden is kept")])
def test_the_three_bare_options_say_what_they_do(verb: str, option: str, words: str,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run([verb, "--help"], capsys)
    assert code == 0
    flat = " ".join(out.split())
    assert words in flat[flat.index(option):]


def test_a_plugin_emitter_that_exists_but_is_not_executable_is_said_so(tmp_path: Path) -> None:
    from contract.plugin.session import startup_problem

    script = tmp_path / "milk"
    script.write_text("#!/bin/sh\necho hi\n", encoding="utf-8")
    script.chmod(0o644)
    found = startup_problem(str(script), record=False)
    assert found is not None
    assert "exists but is not executable" in found
    assert "not found" not in found
    assert "is a directory" in (startup_problem(str(tmp_path), record=False) or "")
    assert (startup_problem(str(tmp_path / "absent"), record=False) or "").endswith(": no such file")
    assert (startup_problem("no-such-milk-anywhere", record=False) or "").endswith(": not found on PATH")
    script.chmod(0o755)
    assert startup_problem(str(script), record=False) is None  # near miss: the same file, executable
