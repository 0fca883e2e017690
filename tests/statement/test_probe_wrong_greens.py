"""An outside probe's findings on statements, now fixed (they were strict xfails): a statement of
part of the suite reaches no level (``level.note`` says how many scenarios were not run), and a
merge refuses shards whose runs are not the scenarios ``collect.in_shard`` puts in each.

A statement of scenario runs (``source: scenario``, not a shard) that lacks some of the shipped
scenarios still reaches a level, and every reader takes it: `pytest --pyargs contract -k "not
refused" --contract-statement s.json` against a build that fails ``refused`` writes a MUST+SHOULD
statement (no shard, no note) that `matrix` shows as MUST+SHOULD, exit 0. A `statement merge`
checks that every shard index is there, not that each shard holds its part of the suite: a
sealed shard 2/2 with no runs, merged with a real shard 1/2, gives MUST+SHOULD on half the
suite, exit 0. Docs (statements.md): "with one [command], every shipped golden scenario goes
through it", and merge names missing shards because the statement "would not cover the suite".

The runs here are the goldens checked in-process, labelled as the scenario runs of the reference
build (what it writes: it replays the goldens), so no emitter is started.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, assume, given, settings
from hypothesis import strategies as st

from contract import __version__
from contract.cli import run
from contract.goldens.store import all_scenarios
from contract.statement import collect, combine, model
from contract.statement.model import SCENARIO, Run
from tests.support.depth import deep


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    """One scenario run per shipped golden, each judged on the golden's own bytes."""
    from contract.checking import manyfiles
    from contract.core.reader import DEFAULT_MAX_LINE_BYTES

    goldens = list(all_scenarios())
    options = manyfiles.Options("auto", False, (), DEFAULT_MAX_LINE_BYTES, False)
    reports = manyfiles.check_many([str(g.path) for g in goldens], options, jobs=1)
    return [Run(collect.label(g), g.wire, SCENARIO, report) for g, report in zip(goldens, reports, strict=True)]


def _write(path: Path, runs: list[Run], shard: tuple[int, int] | None = None) -> str:
    document = model.statement(runs, collect.build_info(None, __version__), suite=__version__,
                               generated="2026-12-06T00:00:00Z", provoked=False, shard=shard)
    path.write_text(model.dumps(document), encoding="utf-8")
    return str(path)


def _level(path: str) -> str:
    document: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    return str(document["level"]["achieved"])


def test_the_whole_suite_reaches_its_level_and_is_read(runs: list[Run], tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """The near miss: every shipped scenario, MUST+SHOULD, read by matrix (exit 0)."""
    path = _write(tmp_path / "whole.json", runs)
    assert _level(path) == model.MUST_SHOULD
    assert run(["matrix", path]) == 0


# no shrinking: a failure is its first example already
@settings(derandomize=True, max_examples=40 if deep() else 4, deadline=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_statement_of_part_of_the_suite_reaches_no_level(runs: list[Run], tmp_path: Path,
                                                           data: st.DataObject) -> None:
    dropped = data.draw(st.sets(st.integers(0, len(runs) - 1), min_size=1, max_size=len(runs) - 1), label="dropped")
    kept = [r for i, r in enumerate(runs) if i not in dropped]
    judged = {r.wire for r in kept}  # a wire none of whose scenarios ran is not judged: its scenarios are not due
    due = [r.label for r in runs if r.wire in judged]
    unrun = [name for name in due if name not in {r.label for r in kept}]
    path = _write(tmp_path / "part.json", kept)
    document: dict[str, Any] = json.loads(Path(path).read_text(encoding="utf-8"))
    if not unrun:  # every scenario of the wires it judges ran: it keeps its level
        assert document["level"]["achieved"] == model.MUST_SHOULD
        return
    assert document["level"]["achieved"] == model.NONE
    assert not document["level"]["must_complete"]  # statement/merge exit 1
    assert document["level"]["note"] == (f"{len(unrun)} of {len(due)} shipped scenarios not run (first: {unrun[0]}): "
                                         "a statement of part of the suite has no level")
    assert combine.schema_problem(document) is None
    assert run(["matrix", path]) == 0  # read, and shown with its note
    whole = _write(tmp_path / "whole.json", runs)
    assert run(["statement", "diff", whole, path]) == 1  # the level lowered
    forged = {**document, "level": {**document["level"], "achieved": model.MUST_SHOULD, "note": None,
                                    "must_complete": True, "should_complete": True}}
    Path(path).write_text(model.dumps(model.seal(forged)), encoding="utf-8")
    assert run(["matrix", path]) == 2  # a resealed summary its runs do not give is refused


def test_merge_refuses_a_shard_without_its_scenarios(runs: list[Run], tmp_path: Path) -> None:
    first = [r for r in runs if collect.in_shard(r.label, (1, 2))]
    assert first  # the premise: shard 1/2 has scenarios
    assert len(first) < len(runs)  # and so has shard 2/2
    one = _write(tmp_path / "shard-1.json", first, (1, 2))
    two = _write(tmp_path / "shard-2.json", [], (2, 2))
    out = tmp_path / "merged.json"
    status = run(["statement", "merge", "--output", str(out), one, two])
    assert status == 2 or _level(str(out)) == model.NONE


def test_merge_of_whole_shards_is_the_whole_statement(runs: list[Run], tmp_path: Path) -> None:
    """The near miss: both real shards merge to MUST+SHOULD, exit 0."""
    one = _write(tmp_path / "shard-1.json", [r for r in runs if collect.in_shard(r.label, (1, 2))], (1, 2))
    two = _write(tmp_path / "shard-2.json", [r for r in runs if collect.in_shard(r.label, (2, 2))], (2, 2))
    out = tmp_path / "merged.json"
    assert run(["statement", "merge", "--output", str(out), one, two]) == 0
    assert _level(str(out)) == model.MUST_SHOULD


@settings(derandomize=True, max_examples=40 if deep() else 4, deadline=None, phases=[Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_merge_refuses_shards_that_are_not_their_part(runs: list[Run], tmp_path: Path, data: st.DataObject,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Shards 1..N of the suite, with some scenarios left out of their shard (or moved to another):
    exit 2, one line naming the shard; the same shards whole merge (exit 0)."""
    total = data.draw(st.integers(2, 4), label="total")
    parts = [[r for r in runs if collect.in_shard(r.label, (i, total))] for i in range(1, total + 1)]
    dropped = data.draw(st.sets(st.integers(0, len(runs) - 1), min_size=1), label="dropped")
    move = data.draw(st.booleans(), label="moved to the next shard")
    # a wire whose every run is dropped is no longer judged (a statement of the other wires whole keeps
    # its level: test_a_statement_of_whole_wires_keeps_its_level), so each wire keeps a run here
    assume(move or {r.wire for i, r in enumerate(runs) if i not in dropped} == {r.wire for r in runs})
    cut = [list(part) for part in parts]
    for index in sorted(dropped):
        shard = next(i for i, part in enumerate(parts) if runs[index] in part)
        cut[shard].remove(runs[index])
        if move:
            cut[(shard + 1) % total].append(runs[index])
    paths = [_write(tmp_path / f"cut-{i}.json", part, (i, total)) for i, part in enumerate(cut, start=1)]
    capsys.readouterr()
    assert run(["statement", "merge", "--output", str(tmp_path / "cut.json"), *paths]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1
    assert "shard " in error
    assert "Traceback" not in error
    whole = [_write(tmp_path / f"whole-{i}.json", part, (i, total)) for i, part in enumerate(parts, start=1)]
    assert run(["statement", "merge", "--output", str(tmp_path / "whole.json"), *whole]) == 0
    assert _level(str(tmp_path / "whole.json")) == model.MUST_SHOULD


def test_a_statement_of_whole_wires_keeps_its_level(runs: list[Run], tmp_path: Path) -> None:
    """The near miss: every scenario of one wire (the other wire not judged at all) is a level, no note."""
    for wire in {r.wire for r in runs}:
        path = _write(tmp_path / "one-wire.json", [r for r in runs if r.wire == wire])
        document = json.loads(Path(path).read_text(encoding="utf-8"))
        assert document["level"]["achieved"] == model.MUST_SHOULD
        assert document["level"]["note"] is None
        assert run(["matrix", path]) == 0


def test_merge_names_the_shard_and_what_is_wrong(runs: list[Run], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Shard 1/2 holding shard 2/2's scenarios too (shard 2/2 sealed empty): shard 1/2 holds one not
    its own; shard 1/2 empty: it lacks all of its own. Each one line, exit 2."""
    first = [r for r in runs if collect.in_shard(r.label, (1, 2))]
    second = [r for r in runs if collect.in_shard(r.label, (2, 2))]
    out = str(tmp_path / "merged.json")
    paths = [_write(tmp_path / "1.json", first + second, (1, 2)), _write(tmp_path / "2.json", [], (2, 2))]
    capsys.readouterr()
    assert run(["statement", "merge", "--output", out, *paths]) == 2
    extra = sorted(r.label for r in second)[0]
    assert capsys.readouterr().err == (f"milk-contract: error: shard 1/2 holds {extra}, which is not one of the "
                                       "shipped scenarios the shard puts in it\n")
    paths = [_write(tmp_path / "1.json", [], (1, 2)), _write(tmp_path / "2.json", second, (2, 2))]
    assert run(["statement", "merge", "--output", out, *paths]) == 2
    assert capsys.readouterr().err == (f"milk-contract: error: shard 1/2 lacks {len(first)} of its {len(first)} "
                                       f"scenarios (first: {first[0].label}): the statement would not cover the "
                                       "suite\n")
