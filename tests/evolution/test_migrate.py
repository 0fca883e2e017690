"""``milk-contract migrate``: the goldens rewritten for a mechanical ADR change (issue 36).

The steps (rename, remove, set) on line objects and whole transcripts, then the verb on a copy of
the checkout: the diff shown, the check under the ADR's schema, nothing written when any migrated
golden would not be valid, when a rename would overwrite a member, or under ``--dry-run``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.evolution.migration import MigrateError, Step, apply, first_finding, migrate_bytes, rename, set_value
from tests.support.project_copy import copy_project, git

pytestmark = pytest.mark.process  # the verb's copies are checkouts (pyproject.toml: markers)

SCHEMA = Path("schemas") / "stream-json.schema.json"


def test_a_rename_keeps_the_member_where_it_stood() -> None:
    line = {"type": "result", "a": 1, "old": 2, "z": 3}
    assert list(apply(line, [rename("old=new")])) == ["type", "a", "new", "z"]
    assert apply(line, [rename("old=new")])["new"] == 2
    assert apply({"type": "result"}, [rename("old=new")]) == {"type": "result"}  # nothing to rename


def test_set_adds_only_where_the_member_is_missing_and_remove_drops_it() -> None:
    step = set_value('region="eu"')
    assert apply({"type": "x"}, [step]) == {"type": "x", "region": "eu"}
    assert apply({"type": "x", "region": "us"}, [step]) == {"type": "x", "region": "us"}
    assert apply({"type": "x", "gone": 1}, [Step("remove", "gone")]) == {"type": "x"}


def test_a_rename_onto_a_member_the_line_has_is_refused() -> None:
    with pytest.raises(MigrateError, match="overwrite"):
        apply({"old": 1, "new": 2}, [rename("old=new")])


@pytest.mark.parametrize("text", ["old", "=new", "old=", "same=same"])
def test_a_malformed_rename_is_misuse(text: str) -> None:
    with pytest.raises(MigrateError):
        rename(text)


def test_a_set_value_must_be_json() -> None:
    with pytest.raises(MigrateError, match="not JSON"):
        set_value("region=eu")


def test_unchanged_lines_keep_their_bytes_and_on_limits_the_kind() -> None:
    data = b'{"type": "system",  "old": 1}\n{"type":"result","subtype":"success","old":2}\nnot json\n'
    out = migrate_bytes(data, [rename("old=new")], on="result")
    assert out.splitlines()[0] == b'{"type": "system",  "old": 1}'  # another kind: untouched, spacing and all
    assert json.loads(out.splitlines()[1]) == {"type": "result", "subtype": "success", "new": 2}
    assert out.splitlines()[2] == b"not json"
    assert migrate_bytes(data, [rename("old=new")], on="result/refused") == data  # near miss: another subtype
    assert migrate_bytes(data, [rename("absent=new")]) == data


def test_first_finding_names_the_line_and_the_pointer() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}}
    assert first_finding(b'{"n": 1}\n{"n": "x"}\n', schema) == "line 2 /n: 'x' is not of type 'integer'"
    assert first_finding(b'{"n": 1}\n', schema) is None


# -- the verb, on a copy -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def _shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("migrate") / "milk-contract")


@pytest.fixture
def clean(_shared: Path) -> Iterator[Path]:
    yield _shared
    git(_shared, "checkout", "--", ".")
    git(_shared, "clean", "-fdq")


def _schema(copy: Path, edit: Any) -> Path:
    schema = json.loads((copy / SCHEMA).read_text(encoding="utf-8"))
    for where in (schema["properties"], schema["$defs"]["event"]["properties"]):
        edit(where)
    path = copy.parent / "adr.schema.json"
    path.write_text(json.dumps(schema, indent=2) + "\n", encoding="utf-8")
    return path


def _run(capsys: pytest.CaptureFixture[str], copy: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.run(["migrate", "--root", str(copy), "--wire", "stream-json", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _carrying(copy: Path, member: str) -> list[Path]:
    return [p for p in sorted((copy / "goldens" / "stream-json").glob("*.jsonl"))
            if any(member in json.loads(line) for line in p.read_text(encoding="utf-8").splitlines())]


def test_a_rename_is_migrated_checked_and_shown(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    member = "num_turns"  # a result member no test writes by hand here: read from the goldens below
    carrying = _carrying(clean, member)
    assert carrying
    adr = _schema(clean, lambda where: where.__setitem__("turns", where.pop(member)))
    code, out, _ = _run(capsys, clean, "--schema", str(adr), "--on", "result", "--rename", f"{member}=turns")
    assert code == 0, out
    assert f"migrated {len(carrying)} golden" in out
    assert '-{"type":"result"' in out
    assert '"turns":' in out
    assert _carrying(clean, member) == []
    changed = {line[3:] for line in git(clean, "status", "--porcelain").splitlines()}
    metas = [p.with_name(p.name.removesuffix(".jsonl") + ".meta.json") for p in carrying]
    assert changed == {p.relative_to(clean).as_posix() for p in [*carrying, *metas]}
    sha256 = hashlib.sha256(adr.read_bytes()).hexdigest()
    for meta in metas:  # kept, but for the schema each golden now stands under (record reads it)
        old = json.loads(git(clean, "show", f"HEAD:{meta.relative_to(clean).as_posix()}"))
        assert json.loads(meta.read_text(encoding="utf-8")) == {**old, "schema_sha256": sha256}


def _adr_transcript(copy: Path, member: str) -> Path:
    """An ADR's own transcript: a golden that shows ``member`` on its result, one line more."""
    source = next(iter(_carrying(copy, member)))
    lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    lines.insert(-1, {**lines[-2], "seq": lines[-2]["seq"] + 1})
    lines[-1]["seq"] = lines[-2]["seq"] + 1
    path = copy.parent / "adr-transcript.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def test_the_adrs_own_transcript_is_migrated_with_the_goldens(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 47: after migrate rewrote the goldens, scenario refused the ADR's transcript (the old name)."""
    transcript = _adr_transcript(clean, "num_turns")
    adr = _schema(clean, lambda where: where.__setitem__("turns", where.pop("num_turns")))
    code, out, _ = _run(capsys, clean, "--schema", str(adr), "--rename", "num_turns=turns", "--transcript",
                        str(transcript))
    assert code == 0, out
    assert f"+++ b/{transcript}" in out
    assert "and 1 transcript" in out
    text = transcript.read_text(encoding="utf-8")
    assert '"turns":' in text
    assert '"num_turns"' not in text
    assert first_finding(transcript.read_bytes(), json.loads(adr.read_text(encoding="utf-8"))) is None


def test_a_transcript_the_steps_leave_invalid_writes_nothing(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Near miss: the transcript is checked with the goldens, and all is written or nothing."""
    transcript = _adr_transcript(clean, "num_turns")
    lines = [json.loads(line) for line in transcript.read_text(encoding="utf-8").splitlines()]
    lines[-1]["num_turns"] = "three"  # renamed, still not an integer
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    before = transcript.read_bytes()
    adr = _schema(clean, lambda where: where.__setitem__("turns", where.pop("num_turns")))
    code, out, _ = _run(capsys, clean, "--schema", str(adr), "--rename", "num_turns=turns", "--transcript",
                        str(transcript))
    assert code == 1, out
    assert "nothing written" in out
    assert transcript.read_bytes() == before
    assert git(clean, "status", "--porcelain") == ""
    code, _, err = _run(capsys, clean, "--rename", "num_turns=turns", "--transcript", str(clean / "no-such.jsonl"))
    assert code == 2
    assert "--transcript" in err


def test_nothing_is_written_when_a_migrated_golden_would_not_be_valid(
        clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The near miss: the ADR's schema does not have the new name (a typo in the step)."""
    adr = _schema(clean, lambda where: where.__setitem__("turns", where.pop("num_turns")))
    code, out, _ = _run(capsys, clean, "--schema", str(adr), "--rename", "num_turns=turnz")
    assert code == 1
    assert "would not be valid under" in out
    assert "nothing written" in out
    assert "'turnz' was unexpected" in out  # each failing golden with its first finding
    assert git(clean, "status", "--porcelain") == ""


def test_dry_run_and_a_conflicting_rename_write_nothing(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a member some golden shows, read from the goldens (an ADR may have removed any named one)
    last = json.loads((clean / "goldens" / "stream-json" / "hello.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    shown = next(name for name in reversed(list(last)) if name not in ("type", "subtype", "session_id", "seq", "ts"))
    code, out, _ = _run(capsys, clean, "--remove", shown, "--dry-run")
    assert code == 0
    assert "nothing written (--dry-run)" in out
    code, _, err = _run(capsys, clean, "--rename", "num_turns=duration_ms", "--on", "result")
    assert code == 2
    assert "overwrite" in err
    assert err.count("\n") == 1
    code, _, err = _run(capsys, clean)
    assert code == 2
    assert "--rename" in err
    code, out, _ = _run(capsys, clean, "--remove", "no_such_member")
    assert code == 0
    assert "nothing to migrate" in out
    assert git(clean, "status", "--porcelain") == ""


def test_a_new_required_member_with_a_stated_value(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = json.loads((clean / SCHEMA).read_text(encoding="utf-8"))
    schema["properties"]["region"] = {"type": "string"}
    schema["$defs"]["event"]["properties"]["region"] = {"type": "string"}
    schema["required"] = [*schema["required"], "region"]
    adr = clean.parent / "required.schema.json"
    adr.write_text(json.dumps(schema), encoding="utf-8")
    code, out, _ = _run(capsys, clean, "--schema", str(adr), "--set", 'region="eu"')
    assert code == 0, out
    every = [json.loads(line) for p in (clean / "goldens" / "stream-json").glob("*.jsonl")
             for line in p.read_text(encoding="utf-8").splitlines()]
    assert every
    assert all(line["region"] == "eu" for line in every)
