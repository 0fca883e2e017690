"""``evolve`` takes in any break it told the author to accept, writes all of its files or none, and
the tests that read the schema hold after it (issue 47, items 1 and 3; issue 46, the dialect).

Before: ``evolve --accept`` of a schema with a keyword the surface does not read wrote the schema,
the pin, the requirement set and an ``unread-keyword-added`` entry, and then the surface gate
failed with a traceback (the accepted-breaks schema did not list that code), leaving the checkout
half written; and test_the_seeds_are_read_whole was red for good in that checkout. Everything
here happens in copies of the project (tests/support/project_copy.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.evolution import takein
from contract.rules import revisions
from tests.support.project_copy import copy_project, git, run_in

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

SCHEMA = Path("schemas") / "stream-json.schema.json"
SUBAGENT = Path("schemas") / "subagent-stdio.schema.json"
# the tests that read the schema in force or state facts about the seeds
SCHEMA_TESTS = ("tests/evolution/test_surface_extract.py", "tests/evolution/test_surface_blind_spots.py",
                "tests/evolution/test_surface_classify.py", "tests/evolution/test_change_codes.py",
                "tests/evolution/test_independent_reading.py", "tests/architecture/test_schemas_pinned.py",
                "contract/tests/test_surface.py")


@pytest.fixture(autouse=True)
def _no_emitter_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MILK_CONTRACT_EMITTER", raising=False)
    monkeypatch.delenv("MILK_CONTRACT_SURFACE_ROOT", raising=False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)


def _written(copy: Path, relative: Path, edit: Callable[[dict[str, Any]], None], name: str) -> Path:
    schema = json.loads((copy / relative).read_text(encoding="utf-8"))
    edit(schema)
    path = copy.parent / name
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _unique_capabilities(schema: dict[str, Any]) -> None:
    """``uniqueItems`` (a keyword the surface does not read) on capabilities, in both mirrored places."""
    schema["properties"]["capabilities"]["uniqueItems"] = True
    schema["$defs"]["event"]["properties"]["capabilities"]["uniqueItems"] = True


def _new_subagent_kind(schema: dict[str, Any]) -> None:
    """A fourth subagent-stdio line kind (its types are no open set: breaking for consumers, accepted)."""
    schema["$defs"]["ping"] = {"type": "object", "additionalProperties": False, "required": ["type", "nonce"],
                               "properties": {"type": {"const": "ping"}, "nonce": {"type": "integer", "minimum": 0}}}
    schema["oneOf"].insert(1, {"$ref": "#/$defs/ping"})


def _evolve(capsys: pytest.CaptureFixture[str], copy: Path, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli.run(["evolve", "--root", str(copy), *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.deep  # a copy and seven test files in it (the default run walks ADRs: tests/evolution/test_adr_walks.py)
def test_evolve_accepts_what_it_names_and_the_schema_tests_hold_after(
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    copy = copy_project(tmp_path / "milk-contract")
    unique = _written(copy, SCHEMA, _unique_capabilities, "unique.schema.json")
    code, out, err = _evolve(capsys, copy, "--wire", "stream-json", "--accept", "--adr", "ADR-0042", str(unique))
    assert (code, err) == (0, ""), out + err
    assert "the surface gate will need 2 accepted-breaks entries" in out
    assert "[unread-keyword-added]" in out
    kind = _written(copy, SUBAGENT, _new_subagent_kind, "ping.schema.json")
    code, out, err = _evolve(capsys, copy, "--wire", "subagent-stdio", "--accept", "--adr", "ADR-0043", str(kind))
    assert (code, err) == (0, ""), out + err
    assert "kind:ping: line kind 'ping' added" in out
    accepted = json.loads((copy / "accepted-breaks.json").read_text(encoding="utf-8"))["accepted"]
    assert {e["code"] for e in accepted} >= {"unread-keyword-added", "line-kind-added"}
    done = run_in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-o", "addopts=", *SCHEMA_TESTS)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def _then_fail(real: Callable[..., Any], after: int = 1) -> Callable[..., Any]:
    """``real``, failing (once it has done its work) on its ``after``-th call."""
    calls = [0]

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        result = real(*args, **kwargs)
        if calls[0] == after:
            raise OSError(28, "No space left on device")
        return result
    return wrapped


def _refused_snapshot(real: Callable[..., Any]) -> Callable[..., Any]:
    def wrapped(root: Path, wire: str) -> tuple[bool, str]:
        real(root, wire)  # the snapshot really written
        return False, "FAILED contract/tests/test_surface.py::test_surface[stream-json] (injected)"
    return wrapped


STEPS: dict[str, Callable[[pytest.MonkeyPatch], None]] = {
    "schema": lambda mp: mp.setattr(takein, "write_atomically", _then_fail(takein.write_atomically, 1)),
    "pins": lambda mp: mp.setattr(takein, "write_pins", _then_fail(takein.write_pins)),
    "accepted-breaks": lambda mp: mp.setattr(takein, "_accept", _then_fail(takein._accept)),
    "requirement set": lambda mp: mp.setattr(revisions, "write_next", _then_fail(revisions.write_next)),
    "snapshot": lambda mp: mp.setattr(takein, "refresh_snapshot", _refused_snapshot(takein.refresh_snapshot)),
    "internal error": lambda mp: mp.setattr(takein, "refresh_snapshot", _then_fail(lambda root, wire: (True, ""))),
}


@pytest.mark.parametrize("step", STEPS)
def test_a_failure_at_any_step_leaves_the_checkout_as_it_was(
    clean: Path, step: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:
    unique = _written(clean, SCHEMA, _unique_capabilities, "unique.schema.json")
    STEPS[step](monkeypatch)
    code, out, err = _evolve(capsys, clean, "--wire", "stream-json", "--accept", "--adr", "ADR-0042", str(unique))
    assert code == 2, out + err
    assert err.count("\n") == 1, err
    assert "nothing was written (the checkout is as it was)" in err
    assert "Traceback" not in out + err
    assert git(clean, "status", "--porcelain", "--untracked-files=all") == ""


@pytest.mark.parametrize("dialect", ["http://json-schema.org/draft-04/schema#", "http://json-schema.org/draft-07/schema#",
                                     None])
def test_evolve_refuses_a_schema_in_another_dialect(
    clean: Path, dialect: str | None, capsys: pytest.CaptureFixture[str],
) -> None:
    """Under draft-04 ``const`` is no keyword: {"type":"subagent_status","version":99} would pass."""
    def edit(schema: dict[str, Any]) -> None:
        if dialect is None:
            del schema["$schema"]
        else:
            schema["$schema"] = dialect

    other = _written(clean, SUBAGENT, edit, "dialect.schema.json")
    code, out, err = _evolve(capsys, clean, "--wire", "subagent-stdio", "--accept", "--adr", "ADR-0042", str(other))
    assert code == 2, out + err
    assert err.count("\n") == 1, err
    assert "draft/2020-12" in err
    assert "dialect-changed" in err
    assert out == ""
    assert git(clean, "status", "--porcelain", "--untracked-files=all") == ""
