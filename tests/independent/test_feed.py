"""The independent reading of `feed`, `feed --broken` and `feed --future`, driven as a black box.

The consumers are this folder's own (consumers/: a tolerant, honest one and the same with one
fault each) and a few commands that never read a stream well (`/bin/false`, a missing module or
program, `sh -c 'exit 3'`). Each case of cases/feed.json is one `milk-contract feed` run from the
checkout, judged by its exit status and the rules of its JSON report. The words each verdict rests
on: READINGS.md, "The consumer kit".
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.independent.blackbox import ROOT, cli, load_cases, params, write_json

pytestmark = pytest.mark.process

DATA = load_cases("feed")


def _fill(arg: str, words: dict[str, str]) -> str:
    for word, value in words.items():
        arg = arg.replace(word, value)
    return arg


@pytest.mark.parametrize("case", params(DATA["cases"], every=3, by="exit"))
def test_case(case: dict[str, Any], tmp_path: Path) -> None:
    expect = write_json(tmp_path / "expect.json", DATA["expect_json"])
    words = {"{python}": sys.executable, "{root}": str(ROOT), "{expect}": str(expect)}
    args = [_fill(arg, words) for arg in case["args"]]
    consumer = [_fill(arg, words) for arg in DATA["consumers"][case["consumer"]]]
    done = cli("feed", "--format", "json", *args, "--", *consumer)
    shown = f"exit {done.returncode}\nstdout:\n{done.stdout[-2500:]}\nstderr:\n{done.stderr[-2500:]}"
    assert "Traceback" not in done.stderr, shown
    assert done.returncode == case["exit"], shown
    if done.returncode == 2:
        return  # misuse or a consumer that cannot start: one line, no report
    report = json.loads(done.stdout)
    assert report["conformant"] is (case["exit"] == 0), shown
    rules = {violation["rule"] for violation in report.get("violations", [])}
    missing = set(case.get("rules", [])) - rules
    assert not missing, f"expected {sorted(missing)} among {sorted(rules)}\n{shown}"
