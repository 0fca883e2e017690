"""The exported vectors in another language: a small Node.js runner (tests/node/vector_runner.js)
reads ``vectors export``'s index and files and feeds each conformant and future-compatible stream
to a consumer. Correct, it accepts them all; written without any single kind of future change
(one fault at a time), it passes every golden and fails at least one exported vector, of that
kind. Skipped, saying why, where node is not installed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from contract.wires.stream_json.kit.future import VECTOR_KINDS, known
from tests.support.paths import TESTS

# The deep run's: Node starts once per fault over every exported vector (about 6 s of CPU, issue 48).
# The default run keeps the exported vectors (tests/consumers/test_vectors.py) and a fault consumer
# run as a program (tests/consumers/test_vector_kinds.py).
pytestmark = [pytest.mark.process, pytest.mark.deep]

RUNNER = TESTS / "node" / "vector_runner.js"
FAULTS = [*VECTOR_KINDS, "client-optional-member", "unasked-event"]
GROUPS = {"line type", "system subtype", "result subtype", "content block type", "delta type",
          "stream payload type", "role label", "capability", "stop_reason"}


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.skip("node is not on PATH (Debian: apt-get install nodejs): the vector runner is JavaScript")
    return found


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory, exported_vectors: Path) -> tuple[Path, Path, dict[str, str]]:
    folder = exported_vectors  # tests/consumers/conftest.py: one export per test process
    known_file = tmp_path_factory.mktemp("known") / "known.json"
    known_file.write_text(json.dumps({group: sorted(known(group)) for group in GROUPS}))
    index = json.loads((folder / "index.json").read_text("utf-8"))
    return folder, known_file, {entry["id"]: entry.get("kind", "") for entry in index["vectors"]}


def _run(node: str, exported: tuple[Path, Path, dict[str, str]], *fault: str) -> dict[str, Any]:
    folder, known_file, _ = exported
    done = subprocess.run([node, str(RUNNER), str(folder), str(known_file), *fault], capture_output=True,
                          timeout=120, check=True)
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


def test_a_correct_consumer_accepts_every_vector(node: str, exported: tuple[Path, Path, dict[str, str]]) -> None:
    answer = _run(node, exported)
    assert answer["failed"] == []
    assert answer["fed"] == sum(1 for i in exported[2] if "/conformant/" in i or "/future-compatible/" in i)


@pytest.mark.parametrize("fault", FAULTS)
def test_a_consumer_failing_on_one_kind_fails_the_vectors(node: str, exported: tuple[Path, Path, dict[str, str]],
                                                          fault: str) -> None:
    failed = _run(node, exported, fault)["failed"]
    assert failed, f"a consumer written without {fault} accepts every exported vector"
    assert all("/future-compatible/" in vector for vector in failed), "a golden fails: the fault is not single"
    kind = {"client-optional-member": "optional-member", "system-subtype-replaced": "system-subtype"}.get(fault, fault)
    assert any(exported[2][vector] in (fault, kind) for vector in failed)
