"""Conformance statements (contract.statement): the reference build is MUST+SHOULD complete, a build
with one fault is not and names the rule, two builds diff to exactly their regressions, shards
merge to the one-runner statement byte for byte (after the timestamp), and every format holds
the build's hostile words inert.

The statements are made once (a module fixture: about three seconds each). Issue 46: every reader
judges a statement from its runs (a resealed summary is refused), diff exits 1 on each kind of
regression, a shard has no level of its own. Issue 51: captures reach a level and say what it
rests on; the matrix page colours its verdicts, names builds and shows each wire once.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contract.cli import run
from contract.core.resources import data_dir
from contract.goldens import store
from contract.reporting.ci_reports import markdown_cell
from contract.rules import revisions
from contract.statement import collect, combine, model, render
from contract.wires import BUNDLED
from tests.support.depth import deep
from tests.support.paths import TESTS

pytestmark = pytest.mark.process
SCHEMA = json.loads((data_dir("schemas") / "statement.schema.json").read_text(encoding="utf-8"))
FAULTY = TESTS / "faulty_emitters" / "one_fault_build.py"
# The tests on the five statements the `statements` fixture builds (every scenario run five times in
# fresh processes, about 8 s of CPU) run in the deep run; the default run keeps the statement's rules
# through the tests below that build none or one (hostile words, a declared capability never shown,
# misuse, captures) and tests/independent/test_statements.py's sampled cases.
BUILT = pytest.mark.deep


def _statement(tmp: Path, name: str, *command: str, options: tuple[str, ...] = ()) -> dict[str, Any]:
    """A statement made by ``milk-contract statement`` in its own process: the bundled registry alone
    (a test in this worker may have registered the synthetic wire, whose scenarios would join)."""
    path = tmp / f"{name}.json"
    done = subprocess.run([sys.executable, "-m", "contract", "statement", "--output", str(path), *options,
                           *(["--", *command] if command else [])], capture_output=True, text=True, timeout=600,
                          check=False, cwd=tmp)
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    assert done.returncode == (0 if document["level"]["must_complete"] else 1), done.stderr[-2000:]
    return document


@pytest.fixture(scope="module")
def statements(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("statements")
    return {"dir": tmp, "reference": _statement(tmp, "reference"),
            "ts": _statement(tmp, "ts", sys.executable, str(FAULTY), "ts"),
            "seq": _statement(tmp, "seq", sys.executable, str(FAULTY), "seq"),
            "hello": _statement(tmp, "hello", sys.executable, str(FAULTY), "hello"),
            "shard": _statement(tmp, "shard", options=("--shard", "1/2"))}


@BUILT
def test_the_reference_build_is_must_and_should_complete(statements: dict[str, Any]) -> None:
    document = statements["reference"]
    jsonschema.validate(document, SCHEMA)
    assert model.sealed(document)
    assert document["level"]["achieved"] == model.MUST_SHOULD
    assert document["build"]["command"] is None
    # r1 each as shipped, later after an ADR's evolve; the shipped wires, not a test-registered one
    assert {w["wire"]: w["revision"] for w in document["wires"]} == {w: revisions.current(w) for w in BUNDLED}
    assert len(document["scenarios"]) == sum(len(store.scenarios(wire)) for wire in BUNDLED)
    for wire in document["wires"]:
        verdicts = {r["rule"]: r["verdict"] for r in wire["requirements"]}
        gaps = set(document["level"]["suite_gaps"])  # what no golden exercises: the suite's gap, said
        assert all(v in ("passed", "not-applicable") or r in gaps for r, v in verdicts.items()), verdicts
        assert all(verdicts[r] == "not-exercised" for r in gaps if r in verdicts)
        assert all(verdicts[r] == "not-applicable" for r in verdicts if r.startswith(("consumer.", "baseline.")))
        assert verdicts["run.timeout"] == "passed"  # live runs: the run rules apply
    shown = {c["capability"]: c["shown"] for c in document["wires"][0]["capabilities"]}
    assert shown["partial_messages_v1"] is True  # declared by tool_calls and others, and shown
    assert not document["findings"]


@BUILT
def test_a_faulty_build_is_not_complete_and_names_the_rule(statements: dict[str, Any]) -> None:
    seq, ts = statements["seq"], statements["ts"]
    jsonschema.validate(seq, SCHEMA)
    assert seq["level"]["achieved"] == model.NONE
    assert seq["level"]["short_of_must"] == ["sj.seq-contiguous"]
    assert seq["build"]["version"] == "one-fault-build 1.0 (seq)"  # its --version output
    failed = next(r for r in seq["wires"][0]["requirements"] if r["rule"] == "sj.seq-contiguous")
    assert failed["verdict"] == "failed"
    assert len(failed["failed_in"]) == sum(s.startswith("stream-json/") for s in seq["scenarios"])
    assert ts["level"]["achieved"] == model.MUST  # a SHOULD fault only
    assert ts["level"]["short_of_should"] == ["sj.ts-order"]


@BUILT
def test_two_builds_diff_to_exactly_their_regressions(statements: dict[str, Any],
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    folder: Path = statements["dir"]
    found = combine.diff(statements["reference"], statements["seq"])
    assert [(w, r, lv) for w, r, lv, _, _ in found.regressed] == [("stream-json", "sj.seq-contiguous", "MUST")]
    assert not found.passing
    assert not found.applicable
    assert not found.revisions
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "seq.json")]) == 1
    capsys.readouterr()
    # a SHOULD rule no longer passed is a regression too (exit 1; before issue 46 only a MUST one was)
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "ts.json"), "--format", "text"]) == 1
    text = capsys.readouterr().out
    assert "regressed: stream-json sj.ts-order [SHOULD] passed -> failed" in text
    assert "level lowered: MUST+SHOULD -> MUST" in text
    assert text.count("regressed: stream-json") == 1
    assert text.endswith("regressed: 2 reasons (exit 1)\n")
    back = combine.diff(statements["ts"], statements["reference"])
    assert [r for _, r, _, _, _ in back.passing] == ["sj.ts-order"]
    assert not back.regressed
    assert not back.reasons  # better, not worse: exit 0
    assert run(["statement", "diff", str(folder / "ts.json"), str(folder / "reference.json")]) == 0
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "reference.json"),
                "--format", "text"]) == 0
    assert capsys.readouterr().out.endswith("no requirement changed\nno regression\n")


def _shards(document: dict[str, Any], total: int, pick: Callable[[str, int], bool]) -> list[dict[str, Any]]:
    """The shard statements one runner per shard would have written, from the same runs."""
    out = []
    for index in range(1, total + 1):
        runs = [r for r in document["runs"] if pick(r["scenario"], index)]
        out.append(model.assemble(runs, document["build"], suite=document["suite"]["version"],
                                  generated=f"2026-01-0{index}T00:00:00Z", provoked=document["provoked"],
                                  shard=(index, total)))
    return out


@BUILT
def test_three_shards_merge_to_the_one_runner_statement_byte_for_byte(statements: dict[str, Any]) -> None:
    whole = statements["reference"]
    shards = _shards(whole, 3, lambda name, index: collect.in_shard(name, (index, 3)))
    assert all(s["runs"] for s in shards)  # the partition by name puts something in every shard here
    assert sum(len(s["runs"]) for s in shards) == len(whole["runs"])
    merged = combine.merge(shards)
    same = {**merged, "generated": whole["generated"]}
    assert model.dumps(same) == model.dumps(whole)
    assert merged["sha256"] == whole["sha256"]


@BUILT
def test_merge_refuses_overlaps_missing_shards_and_strangers(statements: dict[str, Any]) -> None:
    whole = statements["reference"]
    shards = _shards(whole, 3, lambda name, index: collect.in_shard(name, (index, 3)))
    with pytest.raises(combine.StatementError, match="missing shard"):
        combine.merge(shards[:2])
    with pytest.raises(combine.StatementError, match="more than once"):
        combine.merge([shards[0], *shards])
    overlapping = _shards(whole, 3, lambda name, index: index == 1 or collect.in_shard(name, (index, 3)))
    with pytest.raises(combine.StatementError, match="overlap"):
        combine.merge(overlapping)
    other = _shards(statements["seq"], 3, lambda name, index: collect.in_shard(name, (index, 3)))
    with pytest.raises(combine.StatementError, match="build"):
        combine.merge([shards[0], shards[1], other[2]])
    with pytest.raises(combine.StatementError, match="not a shard"):
        combine.merge([whole])


@BUILT
def test_a_statement_edited_after_it_was_written_is_refused(statements: dict[str, Any], tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    edited = json.loads(json.dumps(statements["seq"]))
    edited["level"]["achieved"] = "MUST+SHOULD"
    path = tmp_path / "edited.json"
    path.write_text(model.dumps(edited), encoding="utf-8")
    assert run(["statement", "diff", str(path), str(path)]) == 2
    assert "sha256 is not its content's" in capsys.readouterr().err
    path.write_text(f'{{"statement_version": {model.VERSION}}}', encoding="utf-8")
    assert run(["matrix", str(path)]) == 2
    assert "not a milk-contract statement" in capsys.readouterr().err
    # a statement of another shape's version (an older suite's) is named as such, not as a broken file
    older = {**statements["seq"], "statement_version": model.VERSION - 1}
    path.write_text(model.dumps(model.seal(older)), encoding="utf-8")
    assert run(["statement", "diff", str(path), str(path)]) == 2
    assert f"statement_version {model.VERSION - 1}: written by another milk-contract" in capsys.readouterr().err


@BUILT
def test_the_formats(statements: dict[str, Any], tmp_path: Path) -> None:
    reference, seq = statements["reference"], statements["seq"]
    markdown = render.markdown(seq)
    assert markdown.startswith("### milk-contract statement: **none**")
    assert "| sj.seq-contiguous | MUST | **failed** |" in markdown
    page = render.html_page(reference)
    assert 'data-level="MUST+SHOULD"' in page
    assert "<script" not in page
    assert "http" not in page.split("</style>")[1]
    badge = json.loads(render.shields(reference))
    assert badge == {"schemaVersion": 1, "label": "milk-contract", "color": "green",
                     "message": "MUST+SHOULD ({})".format(", ".join(f"{w} {revisions.current(w)}" for w in BUNDLED))}
    assert json.loads(render.shields(seq))["color"] == "red"
    matrix = combine.matrix_markdown([reference, statements["ts"], seq])
    assert "|  | MUST | sj.seq-contiguous | pass | pass | **FAIL** |" in matrix  # the wire once, on its first row
    assert "|  | SHOULD | sj.ts-order | pass | **FAIL** | pass |" in matrix
    assert matrix.count("| stream-json |") == 1


def test_hostile_build_words_stay_inert() -> None:
    document = json.loads(json.dumps({"build": {"command": ["x"], "name": "<script>alert(1)</script> | *x*",
                                                "version": "\u001b[31mred\u202e"}}))
    hostile = model.assemble([], document["build"], suite="1", generated="t", provoked=False)
    page, markdown = render.html_page(hostile), render.markdown(hostile)
    assert "<script>" not in page
    assert "\u001b" not in page
    assert "\u202e" not in page
    assert "&lt;script&gt;" in page
    assert "\\<script\\>" in markdown
    assert "\\| \\*x\\*" in markdown
    assert "\u001b" not in markdown
    assert hostile["level"]["achieved"] == model.NONE  # no run: complete at no level (fail closed)


def test_a_declared_capability_never_shown_is_a_finding(tmp_path: Path) -> None:
    hello = (data_dir("goldens") / "stream-json" / "hello.jsonl").read_bytes().splitlines(keepends=True)
    init = json.loads(hello[0])
    init["capabilities"] = ["stream_v1", "partial_messages_v1"]
    (tmp_path / "declared.jsonl").write_bytes(json.dumps(init).encode() + b"\n" + b"".join(hello[1:]))
    out = tmp_path / "captures.json"
    assert run(["statement", "--captures", str(tmp_path), "--output", str(out)]) == 1
    document = json.loads(out.read_text(encoding="utf-8"))
    jsonschema.validate(document, SCHEMA)
    assert [f["kind"] for f in document["findings"]] == ["capability-never-shown"]
    assert "partial_messages_v1" in document["findings"][0]["message"]
    reassembly = next(r for r in document["wires"][0]["requirements"] if r["rule"] == "sj.tool-args-reassembly")
    assert reassembly["verdict"] == "not-exercised"  # declared: applicable, and a gap
    (tmp_path / "declared.jsonl").write_bytes(b"".join(hello))  # not declared: no finding, not applicable
    assert run(["statement", "--captures", str(tmp_path), "--output", str(out)]) == 0  # gaps named, not held against
    plain = json.loads(out.read_text(encoding="utf-8"))
    assert not plain["findings"]
    assert next(r for r in plain["wires"][0]["requirements"]
                if r["rule"] == "sj.tool-args-reassembly")["verdict"] == "not-applicable"


def test_statement_misuse_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(["statement", "frobnicate"]) == 2
    assert run(["statement", "--shard", "4/3"]) == 2
    assert run(["statement", "merge"]) == 2
    assert run(["statement", "--captures", "/nonexistent-folder-xyz"]) == 2
    err = capsys.readouterr().err
    assert err.count("milk-contract: error:") == 4
    assert "Traceback" not in err


# -- issue 46: judged from the runs; diff's regressions; shards --------------------------------------


def _resealed(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` sealed again by the recipe docs/statements.md gives (not the package's code)."""
    kept = {k: v for k, v in document.items() if k not in ("generated", "sha256")}
    canonical = json.dumps(kept, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")
    return {**document, "sha256": hashlib.sha256(canonical).hexdigest()}


def _copy(document: dict[str, Any]) -> dict[str, Any]:
    copied: dict[str, Any] = json.loads(json.dumps(document))
    return copied


@BUILT
def test_a_resealed_summary_its_runs_do_not_bear_out_is_refused(statements: dict[str, Any], tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 46's reproducer: level full without --provoke, a run failed under sj.schema, resealed:
    diff and matrix believed it."""
    edited = _copy(statements["reference"])
    edited["level"]["achieved"] = "full"
    run_ = next(r for r in edited["runs"] if r["wire"] == "stream-json")
    run_["statuses"]["sj.schema"] = "failed"
    path = tmp_path / "edited.json"
    path.write_text(model.dumps(_resealed(edited)), encoding="utf-8")
    good = str(statements["dir"] / "reference.json")
    for argv in (["statement", "diff", good, str(path)], ["matrix", str(path)],
                 ["statement", "merge", str(path)]):
        assert run(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1
        assert ("summary disagrees with its runs at wires[stream-json].requirements[sj.schema].verdict: it says "
                '"passed", its runs give "failed"') in err
    level_only = _copy(statements["reference"])
    level_only["level"]["achieved"] = "full"  # the level alone: provoked environments never ran
    path.write_text(model.dumps(_resealed(level_only)), encoding="utf-8")
    assert run(["matrix", str(path)]) == 2
    assert 'at level.achieved: it says "full", its runs give "MUST+SHOULD"' in capsys.readouterr().err
    flagged = _copy(statements["reference"])
    flagged["provoked"] = True  # the flag without a provoked run behind it reaches no full
    assert model.derive(flagged)["level"]["achieved"] == model.MUST_SHOULD
    assert combine.checked(statements["reference"], "reference") is statements["reference"]  # the untouched one
    unknown = _copy(statements["reference"])
    unknown["wires"][0]["revision"] = "r7"  # a revision this suite has no requirement set for: not judged
    with pytest.raises(combine.StatementError, match="judged by stream-json r7, which this milk-contract has no"):
        combine.checked(_resealed(unknown), "r7")


def _leaves(value: object, where: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Every place in ``value`` holding a scalar or an empty list, as a path of keys and indexes."""
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _leaves(v, (*where, k))]
    if isinstance(value, list) and value:
        return [p for i, v in enumerate(value) for p in _leaves(v, (*where, i))]
    return [where]


def _edited(value: object, data: st.DataObject) -> object:
    """Another value of ``value``'s kind (a status among the statuses, a level among the levels)."""
    from contract.rules.requirements import STATUSES

    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + data.draw(st.sampled_from([-1, 1, 2]))
    if isinstance(value, str) and (value in STATUSES or value in model.LEVELS):
        return data.draw(st.sampled_from([v for v in (*STATUSES, *model.LEVELS) if v != value]))
    if isinstance(value, str):
        return value + data.draw(st.sampled_from(["x", " ", "/1"]))
    if value is None:
        return data.draw(st.sampled_from(["note", 0, []]))
    return ["stream-json/hello"]  # an empty list gains an entry


@BUILT
@settings(derandomize=True, max_examples=150 if deep() else 40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_single_edit_resealed_is_refused_or_derives_consistently(statements: dict[str, Any],
                                                                      data: st.DataObject) -> None:
    """Any one change to a sealed statement's runs or summary, resealed: refused, or what is read is
    what its runs derive; a change to the summary alone is always refused."""
    original = statements["hello"]  # a finding, a gap, passes and fails of the suite
    part = data.draw(st.sampled_from(["runs", "runs", "level", "wires", "findings", "scenarios"]))
    places = _leaves(original[part], (part,))
    place = data.draw(st.sampled_from(places))
    edited = _copy(original)
    holder: Any = edited
    for key in place[:-1]:
        holder = holder[key]
    before = holder[place[-1]]
    holder[place[-1]] = after = _edited(before, data)
    assert after != before
    sealed = _resealed(edited)
    try:
        read = combine.checked(sealed, "edited")
    except combine.StatementError:
        return
    assert part == "runs", f"a summary edit at {place} was believed"
    derived = model.derive({k: v for k, v in read.items() if k not in model.DERIVED})
    assert {k: derived[k] for k in model.DERIVED} == {k: read[k] for k in model.DERIVED}


@BUILT
def test_diff_exits_1_on_a_lost_level(statements: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 46's reproducer: B's hello no longer matches its golden, so B's level is none; the diff
    said "no requirement changed" and exited 0."""
    folder: Path = statements["dir"]
    assert statements["hello"]["level"]["achieved"] == model.NONE
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "hello.json"),
                "--format", "text"]) == 1
    text = capsys.readouterr().out
    assert "level lowered: MUST+SHOULD -> none" in text
    assert "new finding: stream-json/hello did not match its golden (a breaking difference)" in text
    assert "no requirement changed" not in text
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "hello.json"),
                "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert found["level"] == {"was": "MUST+SHOULD", "now": "none", "lowered": True}
    assert found["reasons"][0] == "level lowered: MUST+SHOULD -> none"
    assert run(["statement", "diff", str(folder / "hello.json"), str(folder / "reference.json")]) == 0


@BUILT
def test_diff_exits_1_on_a_requirement_no_longer_passed_or_dropped(statements: dict[str, Any]) -> None:
    """A rule passed -> not applicable, a wire's scenarios and requirements dropped, another revision."""
    reference = statements["reference"]
    runs = _copy(reference)["runs"]
    for r in runs:
        if r["wire"] == "stream-json":
            r["statuses"]["sj.session"] = "not-applicable"
            r["not_applicable"]["sj.session"] = "edited for the test"
    quieter = model.assemble(runs, reference["build"], suite=reference["suite"]["version"], generated="t",
                             provoked=False)
    found = combine.diff(reference, quieter)
    assert found.regressed == [("stream-json", "sj.session", "MUST", "passed", "not-applicable")]
    assert found.reasons[-1] == "regressed: stream-json sj.session [MUST] passed -> not-applicable"
    one_wire = model.assemble([r for r in reference["runs"] if r["wire"] == "stream-json"], reference["build"],
                              suite=reference["suite"]["version"], generated="t", provoked=False)
    found = combine.diff(reference, one_wire)
    dropped = [s for s in reference["scenarios"] if not s.startswith("stream-json/")]  # every other wire's
    assert found.missing_scenarios == dropped
    assert {w for w, _, _ in found.missing_requirements} == {r["wire"] for r in runs} - {"stream-json"}
    assert f"missing scenario: {dropped[0]}" in found.reasons
    assert not combine.diff(one_wire, reference).reasons  # more scenarios is no regression
    later = _copy(reference)
    was = later["wires"][0]["revision"]
    later["wires"][0]["revision"] = other = f"r{int(was.removeprefix('r')) + 1}"  # whatever revision is in force
    assert f"revision: stream-json {was} -> {other}" in combine.diff(reference, later).reasons


@BUILT
def test_a_shard_has_no_level_of_its_own(statements: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 46's reproducers: a lone shard wrote MUST+SHOULD; diff of a full statement against a
    shard said "no requirement changed", exit 0; matrix showed a shard with no mark."""
    shard, folder = statements["shard"], statements["dir"]
    jsonschema.validate(shard, SCHEMA)
    assert shard["shard"] == {"index": 1, "total": 2}
    assert shard["level"]["achieved"] == model.NONE
    assert shard["level"]["note"] == "shard 1/2: merge the shards for a level"
    assert shard["level"]["must_complete"]  # its own runs hold: statement --shard exits 0
    assert 0 < len(shard["scenarios"]) < len(statements["reference"]["scenarios"])
    assert run(["statement", "diff", str(folder / "reference.json"), str(folder / "shard.json"),
                "--format", "text"]) == 1
    text = capsys.readouterr().out
    assert "level lowered: MUST+SHOULD -> none" in text
    missing = sorted(set(statements["reference"]["scenarios"]) - set(shard["scenarios"]))
    assert all(f"missing scenario: {name}\n" in text for name in missing)
    assert "note: B is shard 1/2: a shard has no level of its own" in text
    assert run(["matrix", str(folder / "reference.json"), str(folder / "shard.json")]) == 0
    matrix = capsys.readouterr().out
    assert "\\[shard 1/2\\]" in matrix  # markdown escapes its brackets
    assert "**shard 1/2: merge the shards for a level**" in matrix
    page = combine.matrix_html([statements["reference"], shard])
    assert page.count('class="build shard"') == 1
    assert "shard 1/2: no level" in page
    assert "shard 1/2: merge the shards for a level" in render.markdown(shard)
    assert json.loads(render.shields(shard))["color"] == "lightgrey"
    unmarked = _copy(shard)
    unmarked["level"]["achieved"], unmarked["level"]["note"] = "MUST+SHOULD", None  # a shard claiming a level
    with pytest.raises(combine.StatementError, match="not a milk-contract statement"):
        combine.checked(_resealed(unmarked), "shard")


# -- issue 51: captures reach a level; the matrix page ------------------------------------------


def test_the_goldens_as_captures_reach_a_level_and_say_what_it_rests_on(tmp_path: Path) -> None:
    """Issue 51's reproducer: statement --captures goldens/stream-json was none, exit 1, held below MUST
    by sj.ts-leap-second (no capture holds a leap second), and printed nothing about why."""
    out = tmp_path / "captures.json"
    done = subprocess.run([sys.executable, "-m", "contract", "statement", "--captures",
                           str(data_dir("goldens") / "stream-json"), "--output", str(out)],
                          capture_output=True, text=True, timeout=120, check=False, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    document = json.loads(out.read_text(encoding="utf-8"))
    level = document["level"]
    assert level["achieved"] == model.MUST_SHOULD
    assert "sj.ts-leap-second" in level["not_exercised"]
    assert level["exercised"] > 20
    assert done.stderr == (f"milk-contract: statement: MUST+SHOULD, resting on {level['exercised']} exercised "
                           f"requirements; not exercised: {', '.join(level['not_exercised'])}\n")
    assert f"not exercised: {', '.join(level['not_exercised'])}" in render.markdown(document)
    assert "not exercised: sj.ts-leap-second" in render.html_page(document)


def test_captures_stay_fail_closed(tmp_path: Path) -> None:
    """No run, or a failed MUST rule, is still none; so is a run that exercised no MUST rule."""
    hello = (data_dir("goldens") / "stream-json" / "hello.jsonl").read_bytes().splitlines(keepends=True)
    broken = json.loads(hello[-1])
    broken["seq"] += 5  # sj.seq-contiguous, MUST
    (tmp_path / "broken.jsonl").write_bytes(b"".join(hello[:-1]) + json.dumps(broken).encode() + b"\n")
    runs = collect.capture_runs(tmp_path)
    build = {"command": None, "name": "captures", "version": None}
    failed = model.statement(runs, build, suite="1", generated="t", provoked=False, source=model.CAPTURE)
    assert failed["level"]["achieved"] == model.NONE
    assert "sj.seq-contiguous" in failed["level"]["short_of_must"]
    empty = model.statement([], build, suite="1", generated="t", provoked=False, source=model.CAPTURE)
    assert empty["level"]["achieved"] == model.NONE
    assert empty["level"]["exercised"] == 0
    nothing = [{**r, "statuses": {k: "not-exercised" for k in r["statuses"]}}
               for r in (run_.to_json() for run_ in runs)]
    unshown = model.assemble(nothing, build, suite="1", generated="t", provoked=False, source=model.CAPTURE)
    assert unshown["level"]["achieved"] == model.NONE  # resting on nothing
    (tmp_path / "broken.jsonl").write_bytes(b"".join(hello))
    passing = model.statement(collect.capture_runs(tmp_path), build, suite="1", generated="t", provoked=False,
                              source=model.CAPTURE)
    assert passing["level"]["achieved"] == model.MUST_SHOULD  # the same file, unbroken: the case that must pass


@BUILT
def test_the_matrix_page_colours_names_and_groups(statements: dict[str, Any]) -> None:
    """Issue 51: FAIL cells were plain text, stream-json repeated on every row, builds labelled by an
    absolute path and "(unknown)"."""
    captures = model.statement([], {"command": None, "name": f"captures in {FAULTY.parent}", "version": None},
                               suite="1", generated="t", provoked=False, source=model.CAPTURE)
    documents = [statements["reference"], statements["seq"], captures]
    page = combine.matrix_html(documents)
    assert f'data-verdict="failed" style="background:{render.VERDICT_HEX["failed"]}">FAIL</td>' in page
    assert f'data-verdict="passed" style="background:{render.VERDICT_HEX["passed"]}">pass</td>' in page
    assert page.count('<th class="wire"') == len(BUNDLED)  # the wire once per group
    heads = page.split("<thead>")[1].split("</thead>")[0]
    shown = re.sub(r"<[^>]*>", "|", heads)  # the text a reader sees, not the hover titles
    assert "(unknown)" not in shown
    assert str(FAULTY) not in shown
    assert "one_fault_build.py seq, one-fault-build 1.0 (seq)" in shown
    assert "captures in faulty_emitters, version unknown" in shown
    assert f'title="{sys.executable} {FAULTY} seq (one-fault-build 1.0 (seq))"' in heads  # the path on hover
    markdown = combine.matrix_markdown(documents)
    assert "(unknown)" not in markdown.split("\n\n1. ")[0]
    whole = markdown_cell(f"{sys.executable} {FAULTY} seq (one-fault-build 1.0 (seq))")
    assert f"\n2. {markdown_cell(combine.label(statements['seq']))}: {whole}\n" in markdown  # the path in a footnote


@settings(derandomize=True, max_examples=60 if deep() else 15, deadline=None)
@given(data=st.data())
def test_any_rule_no_longer_passed_is_a_named_regression(data: st.DataObject) -> None:
    """Whatever rule passed, and whatever it became in the later statement, diff names it and has a
    reason to exit 1; the other way round is no regression."""
    folder = data_dir("goldens")
    runs = [r.to_json() for r in collect.capture_runs(folder)]
    build = {"command": None, "name": "captures", "version": None}
    before = model.assemble(runs, build, suite="1", generated="t", provoked=False, source=model.CAPTURE)
    passed = sorted((w["wire"], r["rule"]) for w in before["wires"] for r in w["requirements"]
                    if r["verdict"] == "passed")
    wire, rule = data.draw(st.sampled_from(passed))
    became = data.draw(st.sampled_from(["failed", "not-exercised", "not-applicable"]))
    later = [{**r, "statuses": {**r["statuses"], rule: became}} if r["wire"] == wire and rule in r["statuses"] else r
             for r in runs]
    after = model.assemble(later, build, suite="1", generated="t", provoked=False, source=model.CAPTURE)
    found = combine.diff(before, after)
    level = next(r["level"] for w in before["wires"] for r in w["requirements"] if r["rule"] == rule)
    assert f"regressed: {wire} {rule} [{level}] passed -> {became}" in found.reasons
    assert not combine.diff(after, before).reasons
