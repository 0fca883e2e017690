"""The default run's slow list (tests/support/slow.json) names real process tests, and it is applied.

The list is what keeps the default run under its budget (issue 48), so a stale entry must not pass
unseen: every listed or kept id names a test function that exists, an id whose file this session
collected is collected whole (parameters too) and starts processes, and in a default run a listed
test is skipped as deep while a test not listed is not.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

from tests.support.depth import kept, slow_list, slow_tests
from tests.support.paths import ROOT

LISTED = slow_list()


def _ids() -> list[str]:
    return [*LISTED["tests"], *LISTED["keep"]]


@cache
def _functions(path: Path) -> frozenset[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return frozenset(node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef))


def test_the_list_is_well_formed() -> None:
    assert 0 < LISTED["threshold"] < 5
    assert all(isinstance(cpu, float) and cpu >= 0 for cpu in LISTED["tests"].values())
    assert not [node for node in LISTED["tests"] if kept(node, LISTED["keep"])], "a kept test is listed as slow too"
    assert list(LISTED["tests"]) == sorted(LISTED["tests"]), "bench/suite.py writes the list sorted"


def test_every_listed_id_names_a_test_function() -> None:
    wrong = []
    for node in _ids():
        file, _, name = node.partition("::")
        path = ROOT / file
        if not path.is_file():
            wrong.append(f"{node}: no such file")
        elif name and name.split("[", 1)[0] not in _functions(path):
            wrong.append(f"{node}: no such test function in {file}")
    assert not wrong, "tests/support/slow.json:\n" + "\n".join(wrong)


def test_every_listed_id_this_session_collected_is_a_process_test(request: pytest.FixtureRequest) -> None:
    items = {item.nodeid: item for item in request.session.items}
    files = {node.split("::", 1)[0] for node in items}
    checked = 0
    for node in _ids():
        if node.split("::", 1)[0] not in files or node.endswith("::"):
            continue  # a run of part of the suite (the function is checked above), or a kept module
        assert node in items, f"{node}: listed in tests/support/slow.json but not collected (renamed?)"
        assert items[node].get_closest_marker("process") is not None, f"{node}: not a process test"
        checked += 1
    if len(files) > 100:  # the whole suite was collected
        assert checked == len([node for node in _ids() if not node.endswith("::")])


def test_a_listed_test_is_skipped_as_deep_and_another_is_not(request: pytest.FixtureRequest) -> None:
    if not slow_tests():
        pytest.skip("this run runs the listed tests (the deep run, or MILK_CONTRACT_SLOW=run)")
    items = {item.nodeid: item for item in request.session.items}
    listed = [items[node] for node in LISTED["tests"] if node in items]
    if not listed:
        pytest.skip("this run collected none of the listed tests")
    for item in listed:
        reasons = [mark.kwargs.get("reason", "") for mark in item.iter_markers("skip")]
        assert any("slow process test" in reason for reason in reasons), item.nodeid
    mine = items[request.node.nodeid]
    assert not [mark for mark in mine.iter_markers("skip")]
    skipped_kept = [node for node, item in items.items() if kept(node, LISTED["keep"])
                    and any("slow process" in str(mark.kwargs) for mark in item.iter_markers("skip"))]
    assert not skipped_kept
