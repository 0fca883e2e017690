"""milk-contract: the golden-file contract test suite for milk's two JSONL wires.

The library API for third parties::

    import contract
    report = contract.check(open("run.jsonl", "rb"), wire="stream-json")
    report.conformant, report.violations  # each with rule, level, line, pointer, message

``contract.strategies`` offers hypothesis strategies for both wires.
"""

from __future__ import annotations

from contract.catalog import CATALOG, Level, Rule
from contract.checker import check
from contract.report import Report, Violation

__version__ = "0.1.0"

__all__ = ["CATALOG", "Level", "Report", "Rule", "Violation", "__version__", "check"]
