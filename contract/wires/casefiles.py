"""Writing a wire's rule case files from its kit's case generator (``contract/wires/<wire>/kit/cases``).

A case file is what the suite reads (``tests/cases/line/<rule>.json`` for the framing rules every
wire shares, ``tests/wires/<package>/cases/<rule>.json`` for a wire's own); a generator only saves
typing. ``CaseFiles.write`` rewrites a file whole, byte for byte as the generator writes it;
``CaseFiles.merge`` adds cases to a file kept partly by hand, replacing those of the same
description and keeping the rest as they are. ``python tools/make_cases.py`` runs the generators.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

Case = dict[str, Any]
# (folder, rule, the function that gives the rule's cases): a generator's cases as data
Table = tuple[tuple[str, str, Callable[[], list[Case]]], ...]
SHARED = "line"  # the folder of the framing rules' cases (tests/cases/line)


def case(
    description: str,
    fires: bool,
    *,
    lines: Any = None,
    raw_text: str | None = None,
    raw_hex: str | None = None,
    at: Any = None,
    strict: bool = False,
    exercised: bool = True,
) -> Case:
    """One case: a stream (``lines`` as objects, ``raw_text`` or ``raw_hex`` as written), whether the
    rule ``fires`` on it, and where (``at``: (line, pointer) pairs)."""
    out: Case = {"description": description, "fires": fires}
    if not exercised:  # a quiet case where the rule has nothing to judge: its verdict is not-exercised
        out["exercised"] = False
    if lines is not None:
        out["lines"] = lines
    if raw_text is not None:
        out["raw"] = raw_text
    if raw_hex is not None:
        out["raw_hex"] = raw_hex
    if at:
        out["at"] = [{"line": ln, "pointer": p} for ln, p in at]
    if strict:
        out["strict"] = True
    return out


class CaseFiles:
    """The case files under one checkout's ``tests/`` folder."""

    def __init__(self, tests: Path) -> None:
        self.tests = tests

    def folder(self, name: str) -> Path:
        """tests/cases/line for the shared rules, a wire's own tests/wires/<package>/cases otherwise."""
        if name == SHARED:
            return self.tests / "cases" / name
        return self.tests / "wires" / name.replace("-", "_") / "cases"

    def write(self, folder: str, rule: str, wire: str, cases: list[Case]) -> None:
        path = self.folder(folder) / f"{rule}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        body = ",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in cases)
        path.write_text(f'{{"rule": "{rule}", "wire": "{wire}", "cases": [\n{body}\n]}}\n', encoding="utf-8")

    def merge(self, folder: str, rule: str, wire: str, cases: list[Case]) -> None:
        """Add cases to a file kept by hand: replace those of the same description, keep the rest as they are."""
        path = self.folder(folder) / f"{rule}.json"
        kept: list[Case] = []
        if path.exists():
            names = {c["description"] for c in cases}
            kept = [c for c in json.loads(path.read_text(encoding="utf-8"))["cases"] if c["description"] not in names]
        self.write(folder, rule, wire, kept + cases)

    def write_table(self, wire: str, table: Table) -> None:
        """Rewrite the file of every rule in ``table``, in its order."""
        for folder, rule, cases in table:
            self.write(folder, rule, wire, cases())
