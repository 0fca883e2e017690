"""Write docs/rules.md's table of rules from the catalog (a dev tool: ``python tools/rules_doc.py``).

The table is the block between the two ``rules-table`` markers; each row comes from a rule's
declaration (id, level, basis, title: ``contract.reporting.reporters.rules_table``), in catalog order, so
adding a rule to its wire's ``rules.py`` adds its row here by running this, never by hand
(docs/architecture.md, "Adding a rule"). It also writes each wire's latest frozen requirement
set (``tools/requirement_sets.py``, which reads the same declarations) and records in the surface
snapshots the seed words a new rule quotes (``tools/surface_snapshots.py``: the checker's changes
only, never the wire's), so adding a rule is one command whatever is generated from the catalog.
A shipped wire with no pin yet (a new wire) gets its first one in schemas/pins.json (its schema's
sha256, ``evolved`` null); a pin there is never rewritten here (``milk-contract evolve`` does).
``--check`` writes nothing and exits 1 when the page's block, a set or a snapshot is not the
generated one (tests/docs/test_docs.py, tests/rules/test_revisions.py and the surface test ask
the same).
"""

from __future__ import annotations

import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "rules.md"
BEGIN = "<!-- rules-table: generated from the catalog by python tools/rules_doc.py; do not edit -->\n"
END = "<!-- rules-table: end -->\n"


def generated() -> str:
    from contract.reporting.reporters import rules_table
    from contract.rules.catalog import CATALOG
    from contract.wires import BUNDLED_REGISTRY, using

    with using(BUNDLED_REGISTRY):  # the shipped catalog, whatever registry a caller (a test) made current
        return "\n" + rules_table(list(CATALOG.values())) + "\n"  # blank lines: the markers stay out of it


def rewritten(page: str) -> str:
    """``page`` with its table block replaced by the generated one (ValueError without one block)."""
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise ValueError(f"{PAGE.name}: expected one block between {BEGIN.strip()!r} and {END.strip()!r}")
    start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:start] + generated() + page[end:]


def first_pins(argv: list[str], schemas: Path = PAGE.parent.parent / "schemas") -> int:
    """Pin each shipped wire that has no pin yet in ``schemas``/pins.json (1 under ``--check``,
    naming it, writing nothing); a pin there is kept, whatever the schema's bytes are now."""
    import hashlib

    from contract.evolution.takein import read_pins, write_pins
    from contract.wires import BUNDLED_REGISTRY

    pins = read_pins(schemas)
    new = [wire for wire in BUNDLED_REGISTRY if wire.name not in pins.get("sha256", {})]
    if not new:
        return 0
    if "--check" in argv:
        names = ", ".join(wire.name for wire in new)
        sys.stderr.write(f"schemas/pins.json: no pin for {names}: run python tools/rules_doc.py\n")
        return 1
    for wire in new:
        pins.setdefault("sha256", {})[wire.name] = hashlib.sha256(wire.schema_path.read_bytes()).hexdigest()
        pins.setdefault("evolved", {})[wire.name] = None
    write_pins(schemas, pins)
    print("wrote schemas/pins.json")
    return 0


def main(argv: list[str]) -> int:
    import requirement_sets  # beside this file (sys.path[0] when run as a script)
    import surface_snapshots

    page = PAGE.read_text(encoding="utf-8")
    new = rewritten(page)
    # the pins, sets and snapshots first: with --check, everything stale is reported
    derived = max(first_pins(argv), requirement_sets.main(argv), surface_snapshots.main(argv))
    if "--check" in argv:
        if new != page:
            sys.stderr.write(f"{PAGE}: the rules table is stale: run python tools/rules_doc.py\n")
            return 1
        return derived
    if new != page:
        PAGE.write_text(new, encoding="utf-8")
        print(f"wrote {PAGE.relative_to(PAGE.parent.parent)}")
    return derived


if __name__ == "__main__":
    sys.path.insert(0, str(PAGE.parent.parent))  # run from anywhere: the checkout's contract
    sys.exit(main(sys.argv[1:]))
