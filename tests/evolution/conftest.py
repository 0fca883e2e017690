"""Fixtures the ADR tests share: one copy of the project per module, restored after each test that uses it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.project_copy import copy_project, git


@pytest.fixture(scope="module")
def _shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_project(tmp_path_factory.mktemp("shared") / "milk-contract")


@pytest.fixture
def clean(_shared: Path) -> Iterator[Path]:
    """One copy for the tests that must leave it as it was: restored after each."""
    yield _shared
    git(_shared, "checkout", "--", ".")
    git(_shared, "clean", "-fdq")
