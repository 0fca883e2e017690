"""The consumer tests' shared vectors: drawn and exported once per test process, not once per module.

Drawing and checking every vector takes seconds (about a hundred streams, each checked); three
modules read them (test_vectors, test_vector_kinds, test_node_vectors), and a module-scoped draw
paid that in each. The draw is deterministic (seeded), so one per process is the same vectors.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.consumers import vectors


@pytest.fixture(scope="session")
def drawn_vectors() -> list[tuple[vectors.Vector, dict[str, Any]]]:
    """Every vector with its document, as ``vectors.vectors()`` yields them."""
    return list(vectors.vectors())


@pytest.fixture(scope="session")
def exported_vectors(tmp_path_factory: pytest.TempPathFactory,
                     drawn_vectors: list[tuple[vectors.Vector, dict[str, Any]]]) -> Path:
    """A folder ``milk-contract vectors export`` wrote, from the vectors drawn once."""
    folder = tmp_path_factory.mktemp("vectors")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(vectors, "vectors", lambda: iter(drawn_vectors))
        assert cli.run(["vectors", "export", str(folder)]) == 0
    return folder
