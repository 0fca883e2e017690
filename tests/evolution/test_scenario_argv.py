"""``scenario``'s reproduction arguments come from the transcript's golden or ``--argv`` (issue 47).

``--like hello`` copied hello's arguments ("say hi") into the new meta whatever the transcript
showed: a copy of ``tool_calls`` was filed as reproduced by "say hi". Now an authored transcript
takes the arguments of the golden it was made from (found by its lines), ``--arg``/``--argv`` say
them outright, and a transcript made from no golden is refused under ``--like`` until ``--argv``
gives them. Each case runs the verb in this process on a folder of its own (``--root``), the
surface snapshot's refresh (a pytest run, tested with the ADR walks) replaced by a stand-in.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.evolution import evolve
from contract.goldens.store import goldens_dir, scenarios
from tests.support.depth import sample
from tests.support.paths import ROOT


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A checkout's goldens and schemas, the snapshot refresh a stand-in that succeeds."""
    root = tmp_path / "root"
    shutil.copytree(goldens_dir(), root / "goldens")
    shutil.copytree(ROOT / "schemas", root / "schemas")
    (root / "contract" / "tests").mkdir(parents=True)  # what marks a checkout (evolve.project_root)
    (root / "contract" / "tests" / "test_surface.py").write_text("", encoding="utf-8")
    monkeypatch.setattr(evolve, "refresh_snapshot", lambda *_: (True, ""))
    return root


def _scenario(root: Path, capsys: pytest.CaptureFixture[str], transcript: Path, *options: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli.run(["scenario", "--root", str(root), "--wire", "stream-json", "--name", "new", "--description", "x",
                    "--transcript", str(transcript), *options])
    out, err = capsys.readouterr()
    return code, out + err


def _argv(root: Path) -> Any:
    meta = json.loads((root / "goldens" / "stream-json" / "new.meta.json").read_text(encoding="utf-8"))
    return meta["reproduce"]["argv"]


def _written(root: Path, lines: list[dict[str, Any]]) -> Path:
    path = root.parent / "transcript.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


# every third golden in the default run, every one deep
@pytest.mark.parametrize("made_from", sample([golden.name for golden in scenarios("stream-json")], 3))
def test_a_copy_of_a_golden_takes_that_goldens_arguments(made_from: str, root: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Whatever ``--like`` names: the transcript shows the run of the golden it was made from."""
    like = "hello" if made_from != "hello" else "tool_calls"
    code, said = _scenario(root, capsys, goldens_dir() / "stream-json" / f"{made_from}.jsonl", "--like", like)
    assert code == 0, said
    expected = next(g for g in scenarios("stream-json") if g.name == made_from).reproduce.argv
    assert _argv(root) == list(expected)
    assert f"the golden the transcript was made from (not --like {like}'s)" in said


def test_a_transcript_changed_from_its_golden_still_takes_its_arguments(root: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Near miss: an ADR's transcript is a golden with a change (here the assistant's words)."""
    lines = [json.loads(x) for x in (goldens_dir() / "stream-json" / "tool_calls.jsonl").read_text().splitlines()]
    spelled = False  # the text deltas spell the new words too (sj.delta-reassembly): the first of a message's
    for line in lines:
        delta = (line.get("event") or {}).get("delta") or {}
        if delta.get("type") == "text_delta":
            delta["text"], spelled = ("" if spelled else "other words"), True
        if line.get("type") == "assistant":
            spelled = False
        for block in (line.get("message") or {}).get("content") or []:
            if isinstance(block, dict) and block.get("type") == "text":
                block["text"] = "other words"
    code, said = _scenario(root, capsys, _written(root, lines), "--like", "tool_calls")
    assert code == 0, said
    assert _argv(root) == list(next(g for g in scenarios("stream-json") if g.name == "tool_calls").reproduce.argv)
    assert "made from" not in said  # --like named the golden it was made from: nothing to say


def _from_scratch(root: Path) -> Path:
    envelope = {"session_id": "sess_scratch", "ts": "2026-01-01T00:00:00Z"}
    return _written(root, [
        {"type": "system", "subtype": "init", "seq": 0, **envelope, "capabilities": ["stream_v1"]},
        {"type": "system", "subtype": "notification", "seq": 1, **envelope},
        {"type": "system", "subtype": "notification", "seq": 2, **envelope},
        {"type": "system", "subtype": "notification", "seq": 3, **envelope},
        {"type": "result", "subtype": "success", "is_error": False, "seq": 4, **envelope}])


def test_a_transcript_made_from_no_golden_needs_argv_under_like(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    transcript = _from_scratch(root)
    before = sorted(p.name for p in (root / "goldens" / "stream-json").iterdir())
    code, said = _scenario(root, capsys, transcript, "--like", "hello")
    assert code == 2, said
    assert "made from no golden" in said
    assert "--argv" in said
    assert sorted(p.name for p in (root / "goldens" / "stream-json").iterdir()) == before
    code, said = _scenario(root, capsys, transcript, "--like", "hello", "--argv", "'do the thing' --output-format "
                                                                                  "stream-json")
    assert code == 0, said
    assert _argv(root) == ["do the thing", "--output-format", "stream-json"]


def test_arg_and_argv_are_one_or_the_other(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, said = _scenario(root, capsys, _from_scratch(root), "--arg", "a", "--argv", "b")
    assert code == 2
    assert "not both" in said
    code, said = _scenario(root, capsys, _from_scratch(root), "--argv", "'unclosed")
    assert code == 2
    assert "--argv" in said
    assert "Traceback" not in said


def test_a_transcript_with_a_member_the_schema_lacks_is_told_to_migrate(root: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """After a rename, the ADR's transcript still shows the old member: scenario names the way out."""
    lines = [json.loads(x) for x in (goldens_dir() / "stream-json" / "hello.jsonl").read_text().splitlines()]
    lines[-1]["ttft_ms_old"] = 5
    code, said = _scenario(root, capsys, _written(root, lines), "--like", "hello")
    assert code == 1, said
    assert "--transcript FILE" in said
    assert "milk-contract migrate --wire stream-json" in said
    code, said = _scenario(root, capsys, _written(root, lines[:-1]), "--like", "hello")  # near miss: no result
    assert code == 1, said
    assert "migrate" not in said
