"""The deltas' contract (issue 49) read independently: cases where it must fire and must not.

Each case of cases/deltas.json is a golden edited as in cases/stream_readings.json, checked with
`milk-contract check --format json` as a black box. The rule's id is data (`rule`, matched as a
prefix) because this reading was written before the rule existed: while `milk-contract rules`
does not list it, a case raises :class:`RuleUnknown` and is a strict xfail ("no such rule yet")
that expects exactly that exception. Once the rule lands, a case that agrees passes (strict: the
mark must go) and a case that disagrees fails, so a disagreement is never hidden by the mark.
Before the rule is looked for, every case asserts the findings the transcript must raise today
(`others`), so the transcripts are what they say. READINGS.md, "The deltas' contract", gives the
words each case rests on.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import pytest

from tests.independent.blackbox import cli, load_cases, params, transcript

pytestmark = pytest.mark.process

DATA = load_cases("deltas")
NO_RULE = "no such rule yet"


class RuleUnknown(Exception):
    """The CLI's rule catalog has no rule with the case's id (prefix)."""


@functools.cache
def known_rules() -> frozenset[str]:
    """The stream-json rule ids `milk-contract rules --format json` lists."""
    done = cli("rules", "--format", "json", "--wire", "stream-json")
    assert done.returncode == 0, done.stderr
    return frozenset(str(rule["id"]) for rule in json.loads(done.stdout))


def _is(rule: str, prefix: str) -> bool:
    return rule.startswith(prefix)


@pytest.mark.parametrize("case", params(DATA["cases"], raises={NO_RULE: RuleUnknown}))
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    path = tmp_path / "stream.jsonl"
    path.write_bytes(transcript(case))
    done = cli("check", "--format", "json", str(path))
    stream = path.read_bytes()
    shown = f"exit {done.returncode}\nstream:\n{stream!r}\nstdout:\n{done.stdout[-2500:]}\nstderr:\n{done.stderr}"
    assert done.returncode in (0, 1), shown
    report = json.loads(done.stdout)
    found = [(str(v["rule"]), v["line"]) for v in report["violations"]]
    prefix = str(case["rule"])
    others = sorted({rule for rule, _ in found if not _is(rule, prefix)})
    assert others == sorted(set(case.get("others", []))), f"other findings differ\n{shown}"
    if not any(_is(rule, prefix) for rule in known_rules()):
        raise RuleUnknown(prefix)
    lines = [line for rule, line in found if _is(rule, prefix)]
    if not case["fires"]:
        assert not lines, f"{prefix} fired on lines {lines}\n{shown}"
        return
    assert lines, f"{prefix} did not fire\n{shown}"
    assert report["conformant"] is False or done.returncode == 0, shown
    missing = [line for line in case.get("lines", []) if line not in lines]
    assert not missing, f"{prefix} not on lines {missing} (found on {lines})\n{shown}"
