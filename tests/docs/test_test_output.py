"""The test run names only what is in the checkout, or says how to get what it skips (issue 51).

A newcomer's run said "no foreign corpus at <a path outside the checkout>" and "audit-log:
registered outside the package" (the tests' synthetic wire, while the README says there are two).
Files beside the checkout are reached through tests/support/outside.py alone, whose skip reasons
name the variable that points at them; the shipped suite's skip for a wire it does not ship names
the wire's folder.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from contract.tests.test_surface import not_shipped
from contract.wires import BUNDLED
from tests.support import outside
from tests.support.paths import ROOT, TESTS

OUTSIDE = TESTS / "support" / "outside.py"
_BESIDE = re.compile(r"/\s*[\"']shared[\"']")  # a path into the folder beside the checkout (ROOT.parent, "shared")


def _sources() -> list[Path]:
    found = {*TESTS.rglob("*.py"), *(ROOT / "contract" / "tests").rglob("*.py"), ROOT / "conftest.py"}
    return sorted(found - {Path(__file__).resolve()})


def test_only_outside_reaches_beside_the_checkout() -> None:
    reaching = [p.relative_to(ROOT).as_posix() for p in _sources() if _BESIDE.search(p.read_text(encoding="utf-8"))]
    assert reaching == [OUTSIDE.relative_to(ROOT).as_posix()]


@pytest.mark.parametrize(("reason", "variable"), [(outside.NO_FOREIGN_CORPUS, outside.FOREIGN_ENV),
                                                  (outside.NO_SEEDS, outside.SEEDS_ENV)])
def test_a_skip_for_what_is_beside_says_how_to_get_it(reason: str, variable: str) -> None:
    assert f"set {variable} to " in reason
    assert "not in the checkout" in reason
    assert not re.search(r"(^|\s)/\w", reason)  # no absolute path of this machine's
    for named in re.findall(r"\b(?:tests|schemas)/[\w/.-]+", reason):  # what it names of the checkout is there
        assert (ROOT / named.rstrip("/.")).exists(), named


def test_the_variables_point_at_the_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "some-cli").mkdir()
    (tmp_path / "some-cli" / "run.jsonl").write_bytes(b"{}\n")
    monkeypatch.setenv(outside.FOREIGN_ENV, str(tmp_path))
    monkeypatch.setenv(outside.SEEDS_ENV, str(tmp_path))
    assert outside.foreign_corpus() == tmp_path
    assert outside.foreign_transcripts() == [tmp_path / "some-cli" / "run.jsonl"]
    assert outside.seeds() == tmp_path
    monkeypatch.setenv(outside.FOREIGN_ENV, str(tmp_path / "missing"))  # near miss: no such folder
    monkeypatch.setenv(outside.SEEDS_ENV, str(tmp_path / "missing"))
    assert outside.foreign_corpus() is None
    assert outside.foreign_transcripts() == []
    assert outside.seeds() is None


def test_the_foreign_sample_is_in_the_checkout() -> None:
    assert sorted(outside.FOREIGN_SAMPLE.glob("*/*.jsonl"))
    assert (outside.FOREIGN_SAMPLE / "README.md").is_file()  # what it is, and how to add the real corpus


def test_the_shipped_suites_skip_of_a_test_wire_names_its_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    reason = not_shipped("audit-log")  # registered for the session by tests/conftest.py
    assert "its files: tests/wires/audit_log" in reason
    assert (ROOT / "tests" / "wires" / "audit_log").is_dir()
    assert f"not one it ships ({', '.join(BUNDLED)})" in reason
    assert "outside the package" not in reason


def test_the_header_says_what_the_default_run_does_with_deep_tests(pytestconfig: pytest.Config,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """They are skipped with the reason (tests/conftest.py), which -ra lists; the header said deselected."""
    from tests import conftest

    monkeypatch.setattr(conftest, "deep", lambda: False)
    header = conftest.pytest_report_header(pytestconfig)
    assert "tests marked deep skipped" in header
    assert "deselected" not in header
    assert "tox -e deep" in header
