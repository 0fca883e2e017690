"""Walks over a space of ADRs, not a list (issue 47): each drawn ADR ends green or in the refusal the docs promise.

``tests/support/adr_space.py`` draws an ADR from a seed: an optional member at any object, a new
line kind anywhere in the ``oneOf``, a new open-set value, a rename, a removal, a member made
required, a widened type, a bound, a keyword the surface does not read; each with a transcript
made from a golden (its ids kept). Each walk runs in a fresh copy of the project, as
docs/adr-walk.md tells an author to:

1. ``evolve`` the ADR's schema: taken in when the change is additive; refused with the
   accepted-breaks entries named when it is breaking (nothing written);
2. for a refused change: ``migrate`` the goldens where the change needs it, follow a volatile
   declaration the refusal names, then ``evolve --accept``;
3. ``scenario`` with the ADR's transcript;
4. the tests that read the schema and the goldens, green.

No step may print a traceback. The deep run walks ``MILK_CONTRACT_ADR_WALKS`` ADRs (33, three of
each kind) from ``MILK_CONTRACT_ADR_SEED``; a failing walk names its seed and kind, and
``MILK_CONTRACT_ADR_SEED=<seed> MILK_CONTRACT_ADR_WALKS=1`` with its kind's index finds it again.
"""

from __future__ import annotations

import functools
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.adr_space import KINDS, Adr, draw, dumps, load_goldens
from tests.support.project_copy import ROOT, copy_project, run_in

pytestmark = [pytest.mark.process, pytest.mark.deep]

SEED = int(os.environ.get("MILK_CONTRACT_ADR_SEED", "4701"))
WALKS = int(os.environ.get("MILK_CONTRACT_ADR_WALKS", str(3 * len(KINDS))))
ORDER = sorted(KINDS)
SCHEMA = Path("schemas") / "stream-json.schema.json"
VOLATILE = Path("contract") / "wires" / "stream_json" / "volatile.py"


@functools.cache
def _draws() -> list[Adr]:
    """Every walk's ADR, drawn the first time a test asks (not at collection: seconds in each worker of
    every run, the default run included, where these tests are skipped)."""
    schema = json.loads((ROOT / SCHEMA).read_text(encoding="utf-8"))
    goldens = load_goldens(ROOT)
    return [draw(SEED + i, ROOT, schema, goldens, KIND_OF[i]) for i in range(WALKS)]


KIND_OF = [ORDER[i % len(ORDER)] for i in range(WALKS)]  # draw() of a kind keeps it: the ids need no draw


def _part(scenario: str) -> tuple[str, ...]:
    """The tests that read the schema and the goldens: pins, surface, goldens, facts, the plugin's scenarios."""
    return ("-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-x",
            "tests/architecture/test_schemas_pinned.py", "tests/evolution/test_surface_extract.py",
            "tests/checking/test_fastpath_coverage.py", "tests/wires/stream_json/test_stream_json_facts.py",
            "tests/goldens", "--ignore=tests/goldens/test_any_goldens.py",  # its own copy: once per run is enough
            "contract/tests", "-k", f"not test_scenario or {scenario} or hello")


def _step(copy: Path, adr: Adr, *argv: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    done = run_in(copy, *argv, timeout=timeout)
    told = done.stdout + done.stderr
    assert "Traceback" not in told, f"{adr.describe()}\n$ {' '.join(argv)}\n{told}"
    return done


def _fail(adr: Adr, what: str, done: subprocess.CompletedProcess[str]) -> str:
    return f"{adr.describe()}\n{what} (exit {done.returncode})\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"


def _follow_volatile(copy: Path, adr: Adr, told: str) -> None:
    """Do what a refusal says of the volatile declaration: rename the member there, or drop its line."""
    if adr.renamed_volatile is None or VOLATILE.as_posix() not in told:
        return
    old, new = adr.renamed_volatile
    path = copy / VOLATILE
    text = path.read_text(encoding="utf-8")
    if new:
        text = text.replace(f'"/{old}"', f'"/{new}"')
    else:
        text = "".join(line for line in text.splitlines(keepends=True) if f'"/{old}"' not in line)
    path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("walk", range(WALKS), ids=[f"seed{SEED + i}-{KIND_OF[i]}" for i in range(WALKS)])
def test_a_drawn_adr_walks_to_green_or_to_its_promised_refusal(tmp_path: Path, walk: int) -> None:
    adr = _draws()[walk]
    copy = copy_project(tmp_path / "milk-contract")
    folder = copy / f"adr-{adr.number:04d}"
    folder.mkdir()
    schema = folder / "stream-json.schema.json"
    schema.write_text(json.dumps(adr.schema, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    transcript = copy / f"{adr.scenario}.jsonl"
    transcript.write_text(dumps(adr.transcript), encoding="utf-8")
    evolve = ("-m", "contract", "evolve", "--wire", "stream-json", str(schema), "--adr", adr.adr)

    first = _step(copy, adr, *evolve)
    told = first.stdout + first.stderr
    if adr.expect == "additive":
        assert first.returncode == 0, _fail(adr, "an additive ADR was not taken in", first)
        called = re.search(r"^\s*breaking\b", told, re.MULTILINE)
        assert not called, _fail(adr, "an additive ADR called breaking", first)
    elif adr.expect == "breaking":
        assert first.returncode == 1, _fail(adr, "a breaking ADR was not refused", first)
    else:
        assert first.returncode in (0, 1), _fail(adr, "evolve neither took the ADR in nor refused it", first)
    if first.returncode == 1:
        assert "accepted-breaks" in told, _fail(adr, "a refusal that does not name the entries to accept", first)
        if adr.migrate:
            migrated = _step(copy, adr, "-m", "contract", "migrate", "--wire", "stream-json", "--schema", str(schema),
                             *adr.migrate)
            assert migrated.returncode == 0, _fail(adr, "migrate failed", migrated)
        _follow_volatile(copy, adr, told)
        accepted = _step(copy, adr, *evolve, "--accept")
        assert accepted.returncode == 0, _fail(adr, "evolve --accept did not take the accepted ADR in", accepted)

    added = _step(copy, adr, "-m", "contract", "scenario", "--wire", "stream-json", "--name", adr.scenario,
                  "--like", adr.like, "--description", f"{adr.summary} ({adr.adr})", "--transcript", str(transcript))
    assert added.returncode == 0, _fail(adr, "scenario refused the ADR's transcript", added)

    suite = _step(copy, adr, *_part(adr.scenario), timeout=1800)
    assert suite.returncode == 0, _fail(adr, "the tests that read the schema and the goldens", suite)
    assert re.search(r"\b[1-9][0-9]* passed", suite.stdout), _fail(adr, "no test ran", suite)


def test_the_space_draws_every_kind_and_valid_transcripts() -> None:
    """The draws themselves: every kind drawn, each transcript valid under its ADR's schema, seeds distinct."""
    import jsonschema

    draws = _draws()
    assert [a.kind for a in draws] == KIND_OF  # the ids name the kind drawn
    assert {a.kind for a in draws} == set(KINDS) or len(KINDS) > WALKS
    assert len({a.seed for a in draws}) == len(draws)
    for adr in draws:
        validator = jsonschema.Draft202012Validator(adr.schema)
        bad = [i + 1 for i, line in enumerate(adr.transcript) if not validator.is_valid(line)]
        assert not bad, f"{adr.describe()}: transcript lines {bad} are not valid under the ADR's schema"
        seqs = [line["seq"] for line in adr.transcript]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), adr.describe()
