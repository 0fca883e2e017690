"""docs/architecture.md's worked example of "Adding a rule", executed on a copy of the project.

The section's Python block is put where it says (the wire's rules module, above the closing
``RULES = REGISTRY.rules``), its JSON block becomes the case file it names, the one command the
section names regenerates docs/rules.md's table, and the copy then runs the rule tests: the new
rule is in the catalog and its machine's declaration, fires on the doc's case and holds on its
near miss. Only those two files were written and the table gained the rule's row alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.support.project_copy import ROOT, copy_project, git, run_in

DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
RULES_MODULE = Path("contract/wires/stream_json/rules.py")
RULES_PAGE = Path("docs/rules.md")
REGENERATE = "python tools/rules_doc.py"  # the command the section names
ANCHOR = "RULES: tuple[Rule, ...] = REGISTRY.rules"

_PROBE = """
import sys
import contract
from contract.rules.catalog import CATALOG
from contract.wires.stream_json.machines import StreamRules
rule = sys.argv[1]
assert rule in CATALOG and CATALOG[rule].level.value == "SHOULD", sorted(CATALOG)
assert rule in StreamRules.rules
ids = list(CATALOG)
assert ids.index(rule) == ids.index("sj.role-form") + 1, ids  # after the wire's other rules
print("ok")
"""


def _section(title: str) -> str:
    start = DOC.index(f"## {title}\n")
    end = DOC.index("\n## ", start + 1)
    return DOC[start:end]


def _blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def _apply_the_rule_example(copy: Path) -> tuple[str, str]:
    """The section's two blocks put where it says, and its one command run: (rule id, case file)."""
    section = _section("Adding a rule")
    [code] = _blocks(section, "python")
    [case_text] = _blocks(section, "json")
    cases = json.loads(case_text)
    rule, wire = cases["rule"], cases["wire"]
    case_file = f"tests/wires/{wire.replace('-', '_')}/cases/{rule}.json"
    assert case_file in section  # the doc names the file it fills
    module = copy / RULES_MODULE
    source = module.read_text(encoding="utf-8")
    assert source.count(ANCHOR) == 1
    module.write_text(source.replace(ANCHOR, f"{code}\n\n{ANCHOR}"), encoding="utf-8")
    (copy / case_file).write_text(case_text, encoding="utf-8")
    assert f"`{REGENERATE}`" in section
    regenerated = run_in(copy, REGENERATE.split()[1])
    assert regenerated.returncode == 0, regenerated.stderr
    changed = sorted(line[3:] for line in git(copy, "status", "--porcelain", "-uall").splitlines())
    assert changed == sorted([str(RULES_MODULE), str(RULES_PAGE), case_file])  # two by hand, one generated
    return rule, case_file


@pytest.mark.process
def test_the_adding_a_rule_example_works_on_a_copy(tmp_path: Path) -> None:
    copy = copy_project(tmp_path / "copy")
    rule, _ = _apply_the_rule_example(copy)
    table = [line for line in git(copy, "diff", "-U0", "--", str(RULES_PAGE)).splitlines()
             if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    assert table == [f"+| `{rule}` | SHOULD | derived | a tool_use id is used once per run |"], table

    probe = run_in(copy, "-c", _PROBE, rule)
    assert probe.returncode == 0, probe.stderr
    done = run_in(copy, "-m", "pytest", "-v", "-p", "no:cacheprovider", "tests/rules/test_rule_emitters.py",
                  "tests/rules/test_rule_cases.py", "tests/rules/test_rule_registry.py", "tests/docs/test_docs.py")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    # the example's own cases ran and passed: the firing one, the near miss and the idle one
    own = [line for line in done.stdout.splitlines() if f"[{rule}[" in line]
    assert len(own) == 3, own
    assert all("PASSED" in line for line in own), own


@pytest.mark.deep
@pytest.mark.process
def test_the_adding_a_rule_example_leaves_the_whole_suite_green(tmp_path: Path) -> None:
    """The claim whole (issue 29): after the two files and the one command, every test of the copy
    that starts no process passes on its first run, the fast-path and strategy tests included."""
    copy = copy_project(tmp_path / "copy")
    _apply_the_rule_example(copy)
    done = run_in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "-m", "not process",
                  timeout=1800)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def test_the_adding_a_wire_example_declares_a_working_wire() -> None:
    """The "Adding a wire" block, executed: the machine and the descriptor it declares, with the
    synthetic wire's rules and schema (tests/wires/audit_log) standing in for the files steps 1 and 2
    create, registered for the test: the golden passes with al.seq exercised, a gap fires al.seq."""
    import dataclasses
    import textwrap
    from types import SimpleNamespace
    from typing import ClassVar

    import contract
    from contract.core.reader import Record
    from contract.core.sink import Sink
    from contract.rules.requirements import verdicts
    from contract.wires.base import Coverage, Evidence, Live, Wire
    from tests.support.wires import registered
    from tests.wires.audit_log import GOLDEN, HERE, RULES

    # the block stands inside a list item, indented: as written, then dedented
    [code] = re.findall(r"^ *```python\n(.*?)^ *```$", _section("Adding a wire"), re.MULTILINE | re.DOTALL)
    namespace = {"ClassVar": ClassVar, "Record": Record, "Sink": Sink, "Wire": Wire, "Coverage": Coverage,
                 "Evidence": Evidence, "Live": Live, "RULES": RULES, "VOLATILE": (),
                 "coverage": SimpleNamespace(EDGES=())}
    exec(compile(textwrap.dedent(code), "docs/architecture.md", "exec"), namespace)
    wire = dataclasses.replace(namespace["AUDIT_LOG"], schema_file=str(HERE / "audit-log.schema.json"),
                               reference="tests.wires.audit_log.emitter")
    with registered(wire):
        report = contract.check(GOLDEN, wire="audit-log")
        assert report.conformant, report.violations
        assert {r.rule.id: r.status for r in verdicts(report)}["al.seq"] == "passed"
        gap = GOLDEN.read_bytes().replace(b'"seq":2', b'"seq":5')
        found = contract.check(gap, wire="audit-log").violations
        assert [(v.rule, v.line, v.message) for v in found] == [("al.seq", 2, "expected seq 2, found 5")]
