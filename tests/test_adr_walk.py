"""The README's ADR walk-through, run end to end on a temporary copy of the project (issue 13).

New optional field -> new schema -> `milk-contract evolve` (classified additive; schema, pin and
surface snapshot in one step) -> `milk-contract scenario` (golden + meta for the new field) ->
green suite (pins, surface gate, goldens, the plugin over every scenario). Then a breaking change:
refused with nothing written, accepted once accepted-breaks.json names it with its ADR, green
again (the surface gate, which evolve runs; the deep run also runs the suite once more). The
repository's own schemas are never touched: everything happens in the copy.

The walk runs the suite and the scenario as processes in the copy, as a person would: the
scenario must check its transcript against the copy's evolved schema, which only the copy's own
package reads, and it finds the checkout by itself (no --root), end to end. The evolves and the
refusals below read the copy only through ``--root``: they call ``cli.run`` in this process, the
same code without a process start each (the surface-gate run evolve starts is a process still).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from tests.depth import deep
from tests.project_copy import copy_project, git, run_in

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

SCHEMA = Path("schemas") / "stream-json.schema.json"
# the parts of the suite the walk moves: pins, surface gate, goldens (coverage), and the plugin on the
# new scenario plus one old one (the whole plugin run adds ~15 s per step and proves nothing more here)
SUITE = ("-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_schemas_pinned.py", "contract/tests",
         "-k", "not test_scenario or cost_center or hello")


def _edited(copy: Path, edit: Any) -> Path:
    schema = json.loads((copy / SCHEMA).read_text(encoding="utf-8"))
    edit(schema)
    path = copy.parent / "new.schema.json"
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _ok(done: Any) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return str(done.stdout)


class _Done:
    """``cli.run``'s exit status and output, shaped like a finished process."""

    def __init__(self, returncode: int, out: Any) -> None:
        self.returncode, self.stdout, self.stderr = returncode, out.out, out.err


def _cli(capsys: pytest.CaptureFixture[str], copy: Path, verb: str, *argv: str) -> _Done:
    """``milk-contract VERB --root COPY ARGV…`` in this process."""
    capsys.readouterr()  # only this call's output
    code = cli.run([verb, "--root", str(copy), *argv])
    return _Done(code, capsys.readouterr())


@pytest.fixture(autouse=True)
def _no_emitter_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """As run_in does for the processes: the in-process steps see no emitter or surface override,
    and the pytest run evolve and scenario start in the copy caches bytecode (tests/project_copy.py)."""
    monkeypatch.delenv("MILK_CONTRACT_EMITTER", raising=False)
    monkeypatch.delenv("MILK_CONTRACT_SURFACE_ROOT", raising=False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "milk-contract")


@pytest.fixture(scope="module")
def _shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("shared") / "milk-contract")


@pytest.fixture
def clean(_shared: Path) -> Iterator[Path]:
    """One copy for the tests that must leave it as it was: restored after each."""
    yield _shared
    git(_shared, "checkout", "--", ".")
    git(_shared, "clean", "-fdq")


def test_the_adr_walk_through(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 0. editing a schema by hand is caught by the pin (near miss for what evolve does)
    new = _edited(copy, lambda s: s["properties"].__setitem__(
        "cost_center", {"type": "string", "description": "billing label of the run (result lines)"}))
    (copy / SCHEMA).write_bytes(new.read_bytes())
    done = run_in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_schemas_pinned.py")
    assert done.returncode == 1
    assert "milk-contract evolve" in done.stdout
    git(copy, "checkout", "--", ".")

    # 1. the ADR's new schema, taken in: additive, one step
    out = _ok(_cli(capsys, copy, "evolve", "--wire", "stream-json", str(new), "--adr", "ADR-0101"))
    assert "additive  cost_center: new optional field" in out
    assert (copy / SCHEMA).read_bytes() == new.read_bytes()
    pins = json.loads((copy / "schemas" / "pins.json").read_text(encoding="utf-8"))
    assert pins["sha256"]["stream-json"] == hashlib.sha256(new.read_bytes()).hexdigest()
    assert pins["evolved"]["stream-json"]["adr"] == "ADR-0101"
    changed = set(git(copy, "status", "--porcelain").split()) - {"M"}
    assert changed == {str(SCHEMA), "schemas/pins.json",
                       "contract/tests/__snapshots__/test_surface/test_surface[stream-json].json"}

    # 2. a scenario for the new field: one command (authored transcript, reproduced like hello)
    hello = (copy / "goldens" / "stream-json" / "hello.jsonl").read_text(encoding="utf-8")
    transcript = copy.parent / "cost_center.jsonl"
    transcript.write_text(hello.replace('"result":"Hi!', '"cost_center":"acme-api","result":"Hi!'), encoding="utf-8")
    _ok(run_in(copy, "-m", "contract", "scenario", "--wire", "stream-json", "--name", "cost_center", "--like", "hello",
               "--description", "A run billed to a cost center (ADR-0101).", "--transcript", str(transcript)))
    meta = json.loads((copy / "goldens" / "stream-json" / "cost_center.meta.json").read_text(encoding="utf-8"))
    assert meta["reproduce"]["argv"] == ["say hi", "--output-format", "stream-json"]

    # 3. green suite
    _ok(run_in(copy, *SUITE))

    # 4. a breaking change is refused, nothing written ...
    narrower = _edited(copy, lambda s: s["properties"]["cost_center"].__setitem__("maxLength", 64))
    before = git(copy, "status", "--porcelain")
    done = _cli(capsys, copy, "evolve", "--wire", "stream-json", str(narrower), "--adr", "ADR-0102")
    assert done.returncode == 1
    assert "BREAKING change to the stream-json wire, not accepted by any ADR" in done.stdout
    entry = {"wire": "stream-json", "path": "cost_center", "code": "bound-added", "adr": "ADR-0102"}
    assert json.dumps(entry) in done.stdout
    assert git(copy, "status", "--porcelain") == before

    # ... then accepted by an ADR entry, and the suite is green again
    accepted = json.loads((copy / "accepted-breaks.json").read_text(encoding="utf-8"))
    accepted["accepted"].append({**entry, "note": "cost centers are at most 64 characters"})
    (copy / "accepted-breaks.json").write_text(json.dumps(accepted, indent=2) + "\n", encoding="utf-8")
    out = _ok(_cli(capsys, copy, "evolve", "--wire", "stream-json", str(narrower), "--adr", "ADR-0102"))
    assert "accepted  cost_center: maxLength 64 added" in out
    # evolve's exit 0 already says the surface gate took the accepted break (it ran the gate, which
    # fails a refused change even under --snapshot-update), and step 3 showed evolve's pins pass;
    # the deep run (tests/depth.py) runs that part of the suite once more to see it green
    if deep():
        _ok(run_in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/test_schemas_pinned.py",
                   "contract/tests/test_surface.py", "contract/tests/test_goldens.py"))


def test_evolve_refuses_what_is_not_a_schema(clean: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    cases = (("{", "not valid JSON"), ("[]", "not a JSON Schema"), ('{"type": 7}', "not a valid JSON Schema"))
    for text, said in cases:
        bad.write_text(text, encoding="utf-8")
        done = _cli(capsys, clean, "evolve", "--wire", "stream-json", str(bad))
        assert done.returncode == 2
        assert said in done.stderr
        assert done.stderr.count("\n") == 1
    assert git(clean, "status", "--porcelain") == ""


def test_scenario_refuses_a_transcript_that_is_not_conformant(
    clean: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type":"result"}\n', encoding="utf-8")
    done = _cli(capsys, clean, "scenario", "--wire", "stream-json", "--name", "bad", "--like", "hello",
                "--description", "x", "--transcript", str(bad))
    assert done.returncode == 1
    assert "not conformant" in done.stdout
    assert git(clean, "status", "--porcelain") == ""


def test_scenario_recorded_from_an_emitter(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hello = clean / "goldens" / "stream-json" / "hello.jsonl"
    replay = ["--", "python3", "-c", f"import sys; sys.stdout.write(open({str(hello)!r}).read())"]
    _ok(_cli(capsys, clean, "scenario", "--wire", "stream-json", "--name", "again", "--like", "hello",
             "--description", "hello, recorded", *replay))
    meta = json.loads((clean / "goldens" / "stream-json" / "again.meta.json").read_text(encoding="utf-8"))
    assert meta["provenance"]["recorded"]["emitter"].startswith("python3 -c ")
    assert (clean / "goldens" / "stream-json" / "again.jsonl").read_bytes() == hello.read_bytes()


def test_scenario_from_an_emitter_that_cannot_start(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    done = _cli(capsys, clean, "scenario", "--wire", "stream-json", "--name", "x", "--like", "hello",
                "--description", "x", "--", "./no-such-milk")
    assert done.returncode == 2
    assert "run.start" in done.stderr
    assert git(clean, "status", "--porcelain") == ""
