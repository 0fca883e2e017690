"""The tests hold for any set of conformant goldens, not only the checkout's (issue 47).

An ADR author adds goldens with ``milk-contract scenario``; a test that counted them, read them in
an order, picked a line by its position among them, or built a "conformant" stream by
concatenating them with ids that collide, turned red for a golden that is fine (issue 47: a copy
of ``tool_calls`` under another name made 28 tests fail). Here a copy of the project gets goldens
of its own through ``scenario``: a copy of the tool-calling golden, its ids unchanged, once under a
name that sorts first and once under one that sorts last (the order of the goldens moves), and a
copy of a subagent-stdio golden. The tests that read every golden then run in the copy, green.
The deep run only (a project copy and a pytest run in it: about 7 s of CPU), over every module
that reads the goldens as a set.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.project_copy import copy_project, run_in

pytestmark = pytest.mark.process  # starts processes (pyproject.toml: markers)

# (wire, new name, the golden it copies): ids and all, only the name is new
ADDED = [("stream-json", "aa_tool_calls_again", "tool_calls"), ("stream-json", "tool_calls_again", "tool_calls"),
         ("subagent-stdio", "aa_workflow_events_again", "workflow_events")]

# the deep run: every module that reads the goldens as a set (by folder, listing or the shapes)
EVERY = ("tests/checking", "tests/wires", "tests/goldens/test_goldens_compare.py", "tests/goldens/test_normalize.py",
         "tests/consumers/test_future.py", "tests/consumers/test_vector_kinds.py", "tests/consumers/test_feed.py",
         "tests/api", "tests/faulty_consumers", "contract/tests")


# a claim about the suite itself, not a behaviour of the tool (`scenario` runs in the default run in
# tests/evolution/test_adr_walk.py): a project copy and a pytest run in it, the deep run only
@pytest.mark.deep
def test_goldens_added_by_scenario_leave_the_tests_green(tmp_path: Path) -> None:
    copy = copy_project(tmp_path / "copy")
    for wire, name, like in ADDED:
        added = run_in(copy, "-m", "contract", "scenario", "--wire", wire, "--name", name, "--like", like,
                       "--description", f"a copy of {like}, its ids unchanged", "--transcript",
                       f"goldens/{wire}/{like}.jsonl")
        assert added.returncode == 0, added.stdout + added.stderr
    assert (copy / "goldens" / "stream-json" / "aa_tool_calls_again.jsonl").read_bytes() == \
        (copy / "goldens" / "stream-json" / "tool_calls.jsonl").read_bytes()
    done = run_in(copy, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", *EVERY, timeout=3000)
    tail = "\n".join((done.stdout + done.stderr).splitlines()[-30:])
    assert done.returncode == 0, tail
    assert " passed" in tail, tail
    assert "no tests ran" not in tail, tail
