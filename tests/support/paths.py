"""Where the suite's files are, for tests at any depth of tests/ (the checkout, tests/ itself)."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]  # tests/
ROOT = TESTS.parent  # the checkout
