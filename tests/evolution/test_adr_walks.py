"""Every kind of ADR walked to a green suite from docs/adr-walk.md, as written (issue 36).

docs/adr-walk.md, "Every kind of ADR, end to end", gives four more walks besides the README's
added optional member: a new line type inserted in the middle of the ``oneOf``, a new value in an
open set, a breaking rename of a result member with its accepted break, and (deep run) a removal
of an optional member. Each is a pair of blocks, the inputs (which make the ADR's schema and any
transcript) and the steps, read from the doc after their markers and run with bash in a fresh
copy of the checkout, ``milk-contract`` and ``python`` being the copy's own (tests/evolution/test_adr_walk.py
has the machinery).

The default run walks the rename with an ADR of this test's own making (the deep run the line
type and the open-set value too): the doc's words with other names in place of the doc's
(another line type inserted elsewhere, another value, another member renamed), so the walk does
not pass only for the example it was written with; the last step, the whole suite, is replaced by
the parts of the suite the walk moves. With ``MILK_CONTRACT_WHOLE_COPIES=1`` the deep run walks
each as written, the whole default suite in the copy at the end.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.evolution.test_adr_walk import SUITE_COMMAND, _bash, _ok, _shims, block, commands
from tests.support.depth import whole_copies
from tests.support.project_copy import copy_project, git

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

DOC = Path("docs") / "adr-walk.md"
# the parts of the suite every walk moves: the pins, the surface gate, the goldens and their
# coverage, the reference emitter and consumers on every golden (the volatile members included),
# the plugin on the walk's scenario and one old one, and the surface's reading of the schema
PART = ("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/architecture/test_schemas_pinned.py",
        "contract/tests", "tests/evolution/test_surface_extract.py", "-k", "not test_scenario or {scenario} or hello")


def _substituted(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each of the doc's names replaced by this test's (longest first, whole words)."""
    for old in sorted(names, key=len, reverse=True):
        text = re.sub(rf"(?<![\w]){re.escape(old)}(?![\w])", names[old], text)
    return text


def walk(copy: Path, marker: str, names: Mapping[str, str], scenario: str, *, whole_suite: bool) -> list[str]:
    """Run the doc's inputs and steps blocks after ``marker`` in ``copy``; each step's output."""
    doc = (copy / DOC).read_text(encoding="utf-8")
    bin_dir = _shims(copy.parent / "walk-bin")
    _ok(_bash(copy, bin_dir, _substituted(block(doc, f"<!-- {marker}-inputs -->"), names)))
    steps = commands(_substituted(block(doc, f"<!-- {marker} -->"), names))
    assert steps[-1] == SUITE_COMMAND, "each walk ends with the whole suite"
    outputs = []
    for step in steps:
        if step == SUITE_COMMAND and not whole_suite:
            step = shlex.join(PART).replace("{scenario}", scenario)
        outputs.append(_ok(_bash(copy, bin_dir, step, timeout=3600)))
    return outputs


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    return copy_project(tmp_path / "milk-contract")


def _changed(copy: Path) -> set[str]:
    return {line[3:] for line in git(copy, "status", "--porcelain", "--untracked-files=all").splitlines()}


# -- the walks, with this test's own ADRs (the default run) -------------------------------------

LINE_TYPE = {"rate_limit": "quota_notice", "retry_after_ms": "quota_reset_ms", "rate_limited": "quota_noticed",
             "ADR-0104": "ADR-0204", "adr-0104": "adr-0204",
             # inserted before another branch than the doc's: after the system lines
             '"result")': '"stream_event")'}
OPEN_VALUE = {"budget_exceeded": "quota_exhausted", "ADR-0105": "ADR-0205", "adr-0105": "adr-0205"}
# another volatile member, renamed: the measured rate instead of the measured time
RENAME = {"ttft_ms": "output_tokens_per_second", "time_to_first_token_ms": "tokens_per_second_out",
          "ADR-0106": "ADR-0206", "adr-0106": "adr-0206"}


# an additive walk, as test_adr_walk.py's walk through (the README's added member) in the default run
@pytest.mark.deep
def test_a_new_line_type_inserted_mid_oneof_walks_to_green(copy: Path) -> None:
    evolved, added, suite = walk(copy, "adr-walk-line-type", LINE_TYPE, "quota_noticed", whole_suite=False)
    assert "additive  kind:quota_notice: line kind 'quota_notice' added" in evolved
    assert "breaking" not in evolved
    assert "rule-words" not in evolved
    assert "stream-json/quota_noticed: golden and meta written" in added
    assert re.search(r"\b[1-9][0-9]* passed", suite), suite


@pytest.mark.deep  # the walk nearest the README's added member (its own ADR, no break): the deep run
def test_a_new_value_in_an_open_set_walks_to_green(copy: Path) -> None:
    evolved, added, suite = walk(copy, "adr-walk-open-value", OPEN_VALUE, "quota_exhausted", whole_suite=False)
    assert "known value 'quota_exhausted' documented" in evolved
    assert "breaking" not in evolved
    assert "rule-sentence-edited" not in evolved
    assert "stream-json/quota_exhausted: golden and meta written" in added
    assert re.search(r"\b[1-9][0-9]* passed", suite), suite


def test_a_breaking_rename_walks_to_green_with_its_accepted_break(copy: Path) -> None:
    goldens = len(list((copy / "goldens" / "stream-json").glob("*.jsonl")))
    told, migrated, _, taken, suite = walk(copy, "adr-walk-rename", RENAME, "hello", whole_suite=False)
    # 1. everything before anything is written: the goldens, the volatile declaration, the entry, the next command
    assert f"goldens   {goldens} of {goldens} stream-json goldens are not valid under the new schema" in told
    assert ("volatile  output_tokens_per_second is volatile: the declaration in "
            "contract/wires/stream_json/volatile.py:") in told
    assert ('{"wire": "stream-json", "path": "output_tokens_per_second", "code": "field-renamed", '
            '"adr": "ADR-0206"}') in told
    assert ("next      milk-contract migrate --wire stream-json --schema adr-0206/stream-json.schema.json "
            "--rename output_tokens_per_second=tokens_per_second_out") in told
    assert "refused, as expected" in told
    assert f"migrated {goldens} goldens" in migrated
    assert "1 accepted break in accepted-breaks.json" in taken
    assert re.search(r"\b[1-9][0-9]* passed", suite), suite
    changed = _changed(copy)
    assert {"accepted-breaks.json", "contract/wires/stream_json/volatile.py", "schemas/pins.json",
            "schemas/stream-json.schema.json"} <= changed
    assert not any(path.startswith("goldens/subagent-stdio") for path in changed)


# -- the walks as written, and the removal (the deep run) ----------------------------------------


@pytest.mark.deep
@pytest.mark.parametrize(("marker", "scenario"), [
    ("adr-walk-line-type", "rate_limited"), ("adr-walk-open-value", "budget_exceeded"),
    ("adr-walk-rename", "hello"), ("adr-walk-removal", "hello")])
@pytest.mark.skipif(not whole_copies(), reason="the whole suite in a copy of the project: set "
                    "MILK_CONTRACT_WHOLE_COPIES=1 with the deep run (tests/support/depth.py)")
def test_each_walk_as_written_ends_with_the_whole_suite_green(copy: Path, marker: str, scenario: str) -> None:
    *_, suite = walk(copy, marker, {}, scenario, whole_suite=True)
    assert re.search(r"\b[1-9][0-9]* passed", suite), suite
