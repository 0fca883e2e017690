"""The registered-consumers file (contract/consumers/registered.py): each way it can be incomplete,
inconsistent or untrusted is one line and exit 2 (cases: tests/data/compat/consumers_files.json),
every good one loads, and no JSON value whatever gets past the loader as anything but consumers or
that one line (a space of documents, drawn)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract import cli
from contract.consumers import registered
from contract.consumers.registered import ConsumersError, load
from contract.core.textsafe import UNSAFE
from tests.support.paths import TESTS

CASES = json.loads((TESTS / "data" / "compat" / "consumers_files.json").read_text(encoding="utf-8"))


def _written(folder: Path, document: Any) -> Path:
    path = folder / "milk-consumers.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.mark.parametrize("case", CASES["bad"], ids=[c["id"] for c in CASES["bad"]])
def test_a_bad_file_is_one_line_naming_the_place(case: dict[str, Any], tmp_path: Path) -> None:
    with pytest.raises(ConsumersError) as caught:
        load(_written(tmp_path, case["file"]))
    said = str(caught.value)
    assert case["says"] in said
    assert "\n" not in said
    assert not UNSAFE.search(said)


@pytest.mark.parametrize("case", CASES["bad"][:4] + CASES["bad"][-6:-3], ids=lambda c: c["id"])
def test_compat_refuses_a_bad_file_with_exit_2(case: dict[str, Any], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _written(tmp_path, case["file"])
    assert cli.run(["compat", "--consumers", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert case["says"] in err
    assert "Traceback" not in err


@pytest.mark.parametrize("case", CASES["good"], ids=[c["id"] for c in CASES["good"]])
def test_a_good_file_loads(case: dict[str, Any], tmp_path: Path) -> None:
    consumers = load(_written(tmp_path, case["file"]))
    assert len(consumers) == case["count"]
    assert all(c.command for c in consumers)
    assert all(c.wire for c in consumers)


def test_a_file_over_the_bound_is_refused_unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(registered, "MAX_BYTES", 64)
    path = _written(tmp_path, CASES["good"][1]["file"])
    with pytest.raises(ConsumersError, match="holds more than 64 bytes"):
        load(path)


@pytest.mark.parametrize("content", [b"{", b"\xff\xfe", b"[" * 100_000], ids=["cut", "not-utf8", "deep"])
def test_a_file_that_is_not_json_is_refused(content: bytes, tmp_path: Path) -> None:
    path = tmp_path / "milk-consumers.json"
    path.write_bytes(content)
    with pytest.raises(ConsumersError, match="is not JSON"):
        load(path)


def test_a_missing_file_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConsumersError, match="cannot read"):
        load(tmp_path / "none.json")


_TEXT = st.text(max_size=8)
_ENTRY = st.fixed_dictionaries({}, optional={
    "name": st.one_of(_TEXT, st.integers()), "version": st.one_of(_TEXT, st.none()),
    "command": st.one_of(st.lists(_TEXT, max_size=3), _TEXT), "wire": st.sampled_from(["stream-json", "x", ""]),
    "reading": st.one_of(st.booleans(), st.integers()), "timeout": st.one_of(st.floats(allow_nan=True), st.integers()),
    "extra": st.integers()})


@settings(derandomize=True, max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=st.one_of(st.fixed_dictionaries({"consumers": st.lists(_ENTRY, max_size=3)}),
                          st.recursive(st.none() | st.booleans() | _TEXT, lambda c: st.lists(c, max_size=3)
                                       | st.dictionaries(_TEXT, c, max_size=3), max_leaves=6)))
def test_any_document_loads_as_consumers_or_is_one_line(document: Any, tmp_path: Path) -> None:
    path = tmp_path / "drawn.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    said = ""
    try:
        consumers = load(path)
    except ConsumersError as exc:
        said = str(exc)
    if said:
        assert "\n" not in said
        assert not UNSAFE.search(said)
        return
    assert consumers
    assert len({(c.name, c.version) for c in consumers}) == len(consumers)
    assert all(c.command for c in consumers)
    assert all(part and "\0" not in part for c in consumers for part in c.command)


def test_compat_without_registered_consumers_is_misuse(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "root"
    (root / "schemas").mkdir(parents=True)
    (root / "goldens").mkdir()
    assert cli.run(["compat", "--root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "no registered consumers" in err
    assert err.count("\n") == 1
    assert cli.run(["compat", "--root", str(tmp_path / "absent")]) == 2
    assert "no schemas/ and goldens/ there" in capsys.readouterr().err
