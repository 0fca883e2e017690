"""The README's ADR walk, run as written on a fresh copy of the project (issues 13 and 21).

The walk's commands are read from README.md, the fenced block after the ``<!-- adr-walk -->``
marker, and its inputs (the ADR's schema, a transcript showing the new field) from
docs/adr-walk.md, the block after ``<!-- adr-walk-inputs -->``; both run with bash in a fresh
copy of the checkout, with ``milk-contract`` and ``python`` the copy's own (docs/adr-walk.md, "How
the suite holds the walk to its word"). The field is a real additive one: a new optional member.
The default run runs every command but the suite, and for the suite the parts the walk moves;
the deep run runs the README's suite command itself, the whole default suite in the copy.

Then a breaking change: refused with nothing written, accepted once accepted-breaks.json names it
with its ADR, green again (the surface gate, which evolve runs). The repository's own schemas are
never touched: everything happens in the copy. The evolves, refusals and scenarios after the walk
call ``cli.run`` in this process on the copy through ``--root`` (the same code without a process
start each; the surface-gate run evolve starts is a process still).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.goldens.scenarios import ENV_GOLDEN
from contract.rules import revisions
from tests.support.depth import whole_copies
from tests.support.project_copy import ROOT, copy_project, git, run_in

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

SCHEMA = Path("schemas") / "stream-json.schema.json"
WALK = (Path("README.md"), "<!-- adr-walk -->")
INPUTS = (Path("docs") / "adr-walk.md", "<!-- adr-walk-inputs -->")
FIELD = "cost_center"  # the member the README's walk adds (renamed in a copy that already has it)
SUITE_COMMAND = "python -m pytest -n auto"  # the README's step 3, which the deep run runs as written
# in the default run, the parts of the suite the walk moves: pins, surface gate, goldens (coverage),
# and the plugin on the new scenario plus one old one (the whole plugin run adds ~15 s per step)
PART = ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/architecture/test_schemas_pinned.py",
        "contract/tests",
        "-k", "not test_scenario or {field} or hello")


def block(text: str, marker: str) -> str:
    """The fenced block after the one line that is ``marker`` (blank lines may stand between)."""
    lines = text.splitlines()
    at = [i for i, line in enumerate(lines) if line.strip() == marker]
    assert len(at) == 1, f"{marker} must mark exactly one block, found {len(at)}"
    rest = lines[at[0] + 1:]
    while rest and not rest[0].strip():
        rest.pop(0)
    assert rest, f"nothing after {marker}"
    assert re.fullmatch(r"```(sh|bash|shell)", rest[0].strip()), f"no ```sh fence after {marker}"
    body = rest[1:]
    ends = [i for i, line in enumerate(body) if line.strip() == "```"]
    assert ends, f"the block after {marker} is not closed"
    return "\n".join(body[:ends[0]]) + "\n"


def commands(text: str) -> list[str]:
    """The block's commands: comments dropped, a line continued with a backslash joined to the next."""
    assert "<<" not in text, "a command of the walk must be one line (or continued lines), not a here-document"
    out: list[str] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1]
            continue
        out.append((pending + line).strip())
        pending = ""
    assert not pending, "the block ends inside a continued command"
    return out


def fresh_field(copy: Path) -> str:
    """``cost_center``, or the first free ``cost_center_N`` in a checkout that took the walk in already."""
    schema = json.loads((copy / SCHEMA).read_text(encoding="utf-8"))
    taken = set(schema.get("properties", {})) | {p.name.split(".")[0] for p in (copy / "goldens").rglob("*")}
    name, n = FIELD, 1
    while name in taken:
        n += 1
        name = f"{FIELD}_{n}"
    return name


def _shims(folder: Path) -> Path:
    """``milk-contract``, ``python`` and ``python3`` as a venv with the copy's package would have them."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, target in (("milk-contract", f'"{sys.executable}" -m contract'), ("python", f'"{sys.executable}"'),
                         ("python3", f'"{sys.executable}"')):
        shim = folder / name
        shim.write_text(f'#!/bin/sh\nexec {target} "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
    return folder


def _bash(copy: Path, bin_dir: Path, script: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``script`` run by bash in the copy, as a person with the copy's venv active would run it."""
    env = {key: value for key, value in os.environ.items()
           # the suite under test is a fresh default run: nothing of this run's depth, workers or emitter
           if not key.startswith(("PYTEST_", "HYPOTHESIS_", "MILK_CONTRACT_"))
           and key not in ("PYTHONDONTWRITEBYTECODE", "COV_CORE_SOURCE")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(copy)
    return subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=copy, env=env, capture_output=True,
                          text=True, timeout=timeout, check=False)


def _ok(done: Any) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return str(done.stdout)


def walk(copy: Path, *, whole_suite: bool) -> tuple[str, list[str]]:
    """Follow docs/adr-walk.md's inputs and README.md's walk in ``copy``; the field and each step's output."""
    field = fresh_field(copy)

    def words(where: tuple[Path, str]) -> str:  # read from the copy: the checkout being walked
        return block((copy / where[0]).read_text(encoding="utf-8"), where[1]).replace(FIELD, field)

    bin_dir = _shims(copy.parent / "walk-bin")
    _ok(_bash(copy, bin_dir, words(INPUTS)))
    steps = commands(words(WALK))
    assert steps[-1] == SUITE_COMMAND, "the walk ends with the whole suite"
    assert [s.split()[:2] for s in steps[:-1]] == [["milk-contract", "evolve"], ["milk-contract", "scenario"]]
    outputs = []
    for step in steps:
        if step == SUITE_COMMAND and not whole_suite:
            step = shlex.join(PART).replace("{field}", field)
        outputs.append(_ok(_bash(copy, bin_dir, step, timeout=3600)))
    return field, outputs


class _Done:
    """``cli.run``'s exit status and output, shaped like a finished process."""

    def __init__(self, returncode: int, out: Any) -> None:
        self.returncode, self.stdout, self.stderr = returncode, out.out, out.err


def _cli(capsys: pytest.CaptureFixture[str], copy: Path, verb: str, *argv: str) -> _Done:
    """``milk-contract VERB --root COPY ARGV…`` in this process."""
    capsys.readouterr()  # only this call's output
    code = cli.run([verb, "--root", str(copy), *argv])
    return _Done(code, capsys.readouterr())


def _edited(copy: Path, edit: Any) -> Path:
    schema = json.loads((copy / SCHEMA).read_text(encoding="utf-8"))
    edit(schema)
    path = copy.parent / "new.schema.json"
    path.write_text(json.dumps(schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _no_emitter_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """As run_in does for the processes: the in-process steps see no emitter or surface override,
    and the pytest run evolve and scenario start in the copy caches bytecode (tests/support/project_copy.py)."""
    monkeypatch.delenv("MILK_CONTRACT_EMITTER", raising=False)
    monkeypatch.delenv("MILK_CONTRACT_SURFACE_ROOT", raising=False)
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "milk-contract")


# -- the walk, word for word ---------------------------------------------------------------------


def test_the_walk_blocks_are_found_wherever_they_stand() -> None:
    """The extraction reads the block after its marker, not a position in the file, and refuses a
    marker that marks nothing (or twice)."""
    text = "intro\n\n<!-- adr-walk -->\n\n```sh\n# one\nmilk-contract evolve \\\n    --x y\n\npython -m t\n```\n"
    assert commands(block("# moved\n" + text + "more\n", "<!-- adr-walk -->")) == [
        "milk-contract evolve     --x y", "python -m t"]
    for bad in ("<!-- adr-walk -->\ntext\n```sh\nx\n```\n", text + text, "no marker\n"):
        with pytest.raises(AssertionError):
            block(bad, "<!-- adr-walk -->")
    readme = (ROOT / WALK[0]).read_text(encoding="utf-8")
    assert commands(block(readme, WALK[1]))[-1] == SUITE_COMMAND


def test_the_adr_walk_through(copy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 0. editing a schema by hand is caught by the pin (near miss for what evolve does)
    by_hand = _edited(copy, lambda s: s["properties"].__setitem__("by_hand", {"type": "string"}))
    (copy / SCHEMA).write_bytes(by_hand.read_bytes())
    done: subprocess.CompletedProcess[str] | _Done  # a process here, the CLI's run further on
    done = run_in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/architecture/test_schemas_pinned.py")
    assert done.returncode == 1
    assert "milk-contract evolve" in done.stdout
    git(copy, "checkout", "--", ".")

    # 1-3. the README's walk, as written (the suite: the parts it moves; the deep run below: all of it)
    fresh = FIELD not in json.loads((copy / SCHEMA).read_text(encoding="utf-8"))["properties"]
    # the next requirement set: r2 as shipped, one more in a checkout that evolved already
    next_set = f"requirements/stream-json/r{revisions.numbers('stream-json', copy)[-1] + 1}.json"
    field, (evolved, added, _) = walk(copy, whole_suite=False)
    # the README's own words ran, unless this checkout took the walk in already (the deep run's inner suite)
    assert field == FIELD if fresh else field.startswith(f"{FIELD}_")
    assert f"additive  {field}: new optional field" in evolved
    assert "mirror" not in evolved  # the ADR's schema changed both places that list the members
    new = (copy / "adr-0101" / "stream-json.schema.json").read_bytes()
    assert (copy / SCHEMA).read_bytes() == new
    pins = json.loads((copy / "schemas" / "pins.json").read_text(encoding="utf-8"))
    assert pins["sha256"]["stream-json"] == hashlib.sha256(new).hexdigest()
    assert pins["evolved"]["stream-json"]["adr"] == "ADR-0101"
    meta = json.loads((copy / "goldens" / "stream-json" / f"{field}.meta.json").read_text(encoding="utf-8"))
    assert meta["reproduce"]["argv"] == ["say hi", "--output-format", "stream-json"]
    assert f"stream-json/{field}: golden and meta written" in added
    changed = {line[3:] for line in git(copy, "status", "--porcelain", "--untracked-files=all").splitlines()}
    assert changed == {str(SCHEMA), "schemas/pins.json", next_set,
                       "contract/tests/__snapshots__/test_surface/test_surface[stream-json].json",
                       f"goldens/stream-json/{field}.jsonl", f"goldens/stream-json/{field}.meta.json",
                       "adr-0101/stream-json.schema.json", f"{field}.jsonl"}

    # 4. a breaking change is refused, nothing written ...
    narrower = _edited(copy, lambda s: s["properties"][field].__setitem__("maxLength", 64))
    before = git(copy, "status", "--porcelain")
    done = _cli(capsys, copy, "evolve", "--wire", "stream-json", str(narrower), "--adr", "ADR-0102")
    assert done.returncode == 1
    assert "BREAKING change to the stream-json wire, not accepted by any ADR" in done.stdout
    entry = {"wire": "stream-json", "path": field, "code": "bound-added", "adr": "ADR-0102"}
    assert json.dumps(entry) in done.stdout
    assert "mirror    /$defs/event mirrors the top-level object (/)" in done.stdout  # only one place narrowed
    assert git(copy, "status", "--porcelain") == before

    # ... then accepted by an ADR entry, and the suite is green again
    accepted = json.loads((copy / "accepted-breaks.json").read_text(encoding="utf-8"))
    accepted["accepted"].append({**entry, "note": "cost centers are at most 64 characters"})
    (copy / "accepted-breaks.json").write_text(json.dumps(accepted, indent=2) + "\n", encoding="utf-8")
    out = _ok(_cli(capsys, copy, "evolve", "--wire", "stream-json", str(narrower), "--adr", "ADR-0102"))
    assert f"accepted  {field}: maxLength 64 added" in out
    # evolve's exit 0 already says the surface gate took the accepted break (it ran the gate, which
    # fails a refused change even under --snapshot-update), and step 3 showed evolve's pins pass


@pytest.mark.deep
@pytest.mark.skipif(not whole_copies(), reason="the whole suite in a copy of the project: set "
                    "MILK_CONTRACT_WHOLE_COPIES=1 with the deep run (tests/support/depth.py)")
def test_the_adr_walk_ends_with_the_whole_suite_green(copy: Path) -> None:
    """The README's step 3 as written: the whole default suite, in the copy the walk evolved (which
    runs this module's default-run test once more, on a checkout that has the field already)."""
    fresh = FIELD not in json.loads((copy / SCHEMA).read_text(encoding="utf-8"))["properties"]
    field, (_, _, suite) = walk(copy, whole_suite=True)
    assert field == FIELD if fresh else field.startswith(f"{FIELD}_")
    assert re.search(r"\b[1-9][0-9]* passed", suite), suite  # the suite ran (its exit 0 is checked by walk)


# -- evolve: the places a change must mirror -----------------------------------------------------


def test_evolve_names_the_place_a_change_must_mirror(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    top_only = _edited(clean, lambda s: s["properties"].__setitem__("billing", {"type": "string"}))
    done = _cli(capsys, clean, "evolve", "--dry-run", "--wire", "stream-json", str(top_only))
    assert done.returncode == 0, done.stdout + done.stderr
    assert ("mirror    /$defs/event mirrors the top-level object (/) (the same properties and required) in the "
            "current schema; the new schema changes the top-level object (/) (billing) but not /$defs/event: "
            "make the same change there too\n") in done.stdout
    # the other way round: the unreferenced copy changed, the top level not
    def_only = _edited(clean, lambda s: s["$defs"]["event"]["required"].remove("ts"))
    done = _cli(capsys, clean, "evolve", "--dry-run", "--wire", "stream-json", str(def_only))
    assert "the new schema changes /$defs/event ((required)) but not the top-level object (/)" in done.stdout
    # both, but differently
    both = _edited(clean, lambda s: (s["properties"].__setitem__("billing", {"type": "string"}),
                                     s["$defs"]["event"]["properties"].__setitem__("billing", {"type": "integer"})))
    done = _cli(capsys, clean, "evolve", "--dry-run", "--wire", "stream-json", str(both))
    assert "changes both, differently: make them the same" in done.stdout
    assert git(clean, "status", "--porcelain") == ""


def test_evolve_says_nothing_when_the_mirror_is_kept(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Near misses: the same change in both places, and a change to an object nothing mirrors."""
    field = {"type": "string"}
    both = _edited(clean, lambda s: (s["properties"].__setitem__("billing", field),
                                     s["$defs"]["event"]["properties"].__setitem__("billing", field)))
    elsewhere = _edited(clean, lambda s: s["$defs"]["usage"]["properties"].__setitem__("cached", {"type": "integer"}))
    for schema in (both, elsewhere):
        done = _cli(capsys, clean, "evolve", "--dry-run", "--wire", "stream-json", str(schema))
        assert done.returncode == 0, done.stdout + done.stderr
        assert "additive" in done.stdout
        assert "mirror" not in done.stdout


def test_mirrored_places_are_read_from_the_schema_not_from_names() -> None:
    """Any unreferenced definition that repeats another object, wherever both stand."""
    from contract.evolution.evolve import mirror_notes

    shape = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    current = {"$defs": {"used": shape, "spare_copy": json.loads(json.dumps(shape))},
               "properties": {"x": {"$ref": "#/$defs/used"}}}
    new = json.loads(json.dumps(current))
    new["$defs"]["used"]["properties"]["b"] = {"type": "integer"}
    [note] = mirror_notes(current, new)
    assert note.startswith("/$defs/spare_copy mirrors /$defs/used ")
    assert "(b)" in note
    assert mirror_notes(current, current) == []
    referenced = json.loads(json.dumps(current))
    referenced["properties"]["y"] = {"$ref": "#/$defs/spare_copy"}  # both validated: the classifier sees both
    changed = json.loads(json.dumps(referenced))
    changed["$defs"]["used"]["properties"]["b"] = {"type": "integer"}
    assert mirror_notes(referenced, changed) == []


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


def test_scenario_from_an_emitter_runs_without_a_golden_path(
    clean: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The new scenario's golden does not exist yet: MILK_CONTRACT_GOLDEN is not set (an inherited one
    is removed too), MILK_CONTRACT_SCENARIO names the scenario."""
    monkeypatch.setenv(ENV_GOLDEN, str(clean / "goldens" / "stream-json" / "hello.jsonl"))  # left in the shell
    hello = clean / "goldens" / "stream-json" / "hello.jsonl"
    emitter = ("import os, sys\n"
               f"golden = os.environ.get({ENV_GOLDEN!r})\n"
               "if golden is not None: sys.exit(f'{golden} given')\n"
               "if os.environ.get('MILK_CONTRACT_SCENARIO') != 'again': sys.exit('no scenario name')\n"
               f"sys.stdout.write(open({str(hello)!r}).read())\n")
    done = _cli(capsys, clean, "scenario", "--wire", "stream-json", "--name", "again", "--like", "hello",
                "--description", "hello, recorded", "--", sys.executable, "-c", emitter)
    assert done.returncode == 0, done.stdout + done.stderr
    assert (clean / "goldens" / "stream-json" / "again.jsonl").read_bytes() == hello.read_bytes()


def test_scenario_from_an_emitter_that_fails_shows_its_stderr(clean: Path, capsys: pytest.CaptureFixture[str]) -> None:
    crash = "import sys; sys.stderr.write('loading the script\\nno script for again\\n'); sys.exit(3)"
    done = _cli(capsys, clean, "scenario", "--wire", "stream-json", "--name", "again", "--like", "hello",
                "--description", "x", "--", sys.executable, "-c", crash)
    assert done.returncode == 2
    *tail, last = done.stderr.splitlines()
    assert tail == ["emitter stderr:", "  | loading the script", "  | no script for again"]
    assert "run.exit-status" in last
    assert "nothing written" in last
    assert git(clean, "status", "--porcelain") == ""


def test_evolve_inside_another_checkout_warns(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """This package (imported from this checkout, as an editable install) run inside another clone
    evolves its own checkout: it says so. A dry run of the current schema: nothing is written anywhere."""
    other = tmp_path / "other-clone"
    (other / "goldens").mkdir(parents=True)
    (other / "pyproject.toml").write_bytes((ROOT / "pyproject.toml").read_bytes())
    monkeypatch.chdir(other)
    capsys.readouterr()
    code = cli.run(["evolve", "--dry-run", "--wire", "stream-json", str(ROOT / SCHEMA)])
    out, err = capsys.readouterr()
    assert code == 0, out + err
    assert err == (f"warning: writing to {ROOT}, the checkout this milk-contract runs from, not to {other.resolve()}, "
                   f"the checkout the working directory is in (for that one: --root {other.resolve()})\n")
    monkeypatch.chdir(ROOT)  # near miss: from its own checkout, no warning
    assert cli.run(["evolve", "--dry-run", "--wire", "stream-json", str(ROOT / SCHEMA)]) == 0
    assert capsys.readouterr().err == ""


def test_evolve_from_an_installed_copy_warns_that_it_will_not_see_the_change(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """A non-editable install judges with its bundled schemas: the README's own first command
    installs one, and its scenario then failed on the field evolve had just added, with no word of
    why (an outside review found it). evolve says so first."""
    from contract.evolution import evolve

    monkeypatch.setattr(evolve, "installed_copy", lambda: True)
    capsys.readouterr()
    assert cli.run(["evolve", "--dry-run", "--root", str(ROOT), "--wire", "stream-json", str(ROOT / SCHEMA)]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: this milk-contract is an installed (non-editable) copy")
    assert "pip install -e ." in err
    monkeypatch.setattr(evolve, "installed_copy", lambda: False)  # near miss: the checkout's own package
    assert cli.run(["evolve", "--dry-run", "--root", str(ROOT), "--wire", "stream-json", str(ROOT / SCHEMA)]) == 0
    assert capsys.readouterr().err == ""
