"""milk-contract: the golden-file contract test suite for milk's two JSONL wires.

The library API for third parties, one function a verb (docs/checking.md, "Python API")::

    import contract
    report = contract.check(open("run.jsonl", "rb"), wire="stream-json")
    report.conformant, report.violations  # each with rule, level, line, pointer, message
    contract.run(["./bin/milk"]).conformant  # a live run; contract.feed, contract.fuzz, contract.record

``contract.strategies`` offers hypothesis strategies for both wires.

The names below load on first use (PEP 562): the pytest plugin lives in this package, so a bare
``import contract`` runs at every pytest start wherever milk-contract is installed, and must
cost nothing until the checker is actually used.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from contract.api import Recorded, feed, fuzz, record, run
    from contract.checking.checker import check
    from contract.rules.catalog import CATALOG, Level, Rule
    from contract.rules.report import Report, Violation
    from contract.wires import BUNDLED_REGISTRY, WireRegistry

__version__ = "0.1.0"

# public name -> the module that defines it
_LAZY = {
    "CATALOG": "contract.rules.catalog", "Level": "contract.rules.catalog", "Rule": "contract.rules.catalog",
    "check": "contract.checking.checker", "Report": "contract.rules.report", "Violation": "contract.rules.report",
    # every other verb (contract.api), the conformance statement among them
    "run": "contract.api", "feed": "contract.api", "fuzz": "contract.api", "record": "contract.api",
    "Recorded": "contract.api", "conformance_statement": "contract.api",
    "WireRegistry": "contract.wires", "BUNDLED_REGISTRY": "contract.wires",  # the wires a call knows
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'contract' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups are plain attribute reads
    return value


__all__ = ["BUNDLED_REGISTRY", "CATALOG", "Level", "Recorded", "Report", "Rule", "Violation", "WireRegistry",
           "__version__", "check", "conformance_statement", "feed", "fuzz", "record", "run"]
