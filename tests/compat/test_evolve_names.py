"""``evolve`` names the registered consumers the ADR would break, before it writes anything (issue 49).

In a copy of the project: a new line kind breaks the SDK version that crashes on unknown types (named,
with its first finding) and not the one that skips them (not named); nothing is written. Near misses:
no consumers file, no consumers line; a consumers file that is broken, or goldens the schema does not
accept, are said as "could not judge", never as "none breaks".
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest

from contract import cli
from tests.compat.schemas import WIRE, with_kind, written
from tests.support.paths import TESTS
from tests.support.project_copy import copy_project, git
from tests.support.seeds import seed

pytestmark = pytest.mark.process

SDK = [sys.executable, str(TESTS / "faulty_consumers" / "versioned_sdk.py")]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("evolve-names") / "milk-contract")


def _evolve(project: Path, schema: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.run(["evolve", "--wire", WIRE, "--root", str(project), "--dry-run", str(schema)])
    return code, capsys.readouterr().out


def _register(project: Path, text: str) -> None:
    (project / "milk-consumers.json").write_text(text, encoding="utf-8")


def test_evolve_names_the_version_a_new_kind_breaks(project: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    adr = written(tmp_path / "adr.json", with_kind())
    _, without = _evolve(project, adr, capsys)
    assert not any(line.startswith("consumers ") for line in without.splitlines())  # nothing registered: nothing said
    _register(project, json.dumps({"consumers": [
        {"name": "sdk", "version": v, "command": [*SDK, v]} for v in ("0.1.0", "0.2.0")]}))
    try:
        code, out = _evolve(project, adr, capsys)
        assert code == 0
        assert "consumers the new schema breaks 1 of 2 registered consumers" in out
        named = [line for line in out.splitlines() if line.startswith("            sdk ")]
        assert len(named) == 1
        assert named[0].strip().startswith("sdk 0.1.0: consumer.crash")
        assert "Unknown message type: rate_limit" in named[0]
        assert out.index("consumers the new") < out.index("nothing written (--dry-run)")
        # the near miss: a schema with no new kind breaks neither
        code, out = _evolve(project, written(tmp_path / "same.json", seed(WIRE)), capsys)
        assert "consumers none of the 2 registered consumers" in out
    finally:
        (project / "milk-consumers.json").unlink()
    assert git(project, "status", "--porcelain") == ""  # nothing written


def test_what_could_not_be_judged_is_said(project: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    adr = written(tmp_path / "adr.json", with_kind())
    _register(project, '{"consumers": [{"name": "sdk", "version": "1"}]}')
    try:
        _, out = _evolve(project, adr, capsys)
        assert "could not judge the registered consumers" in out
        assert "'command' is a required property" in out
        _register(project, json.dumps({"consumers": [{"name": "sdk", "version": "0.2.0", "command": [*SDK, "0.2"]}]}))
        strict = copy.deepcopy(seed(WIRE))
        strict["required"] = [*strict["required"], "region"]
        strict["properties"]["region"] = {"type": "string"}
        _, out = _evolve(project, written(tmp_path / "strict.json", strict), capsys)
        assert "could not judge the registered consumers" in out
        assert "sdk 0.2.0: not fed" in out
    finally:
        (project / "milk-consumers.json").unlink()
