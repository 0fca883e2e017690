"""Write docs/rules.md's table of rules from the catalog (a dev tool: ``python tools/rules_doc.py``).

The table is the block between the two ``rules-table`` markers; each row comes from a rule's
declaration (id, level, basis, title: ``contract.reporting.reporters.rules_table``), in catalog order, so
adding a rule to its wire's ``rules.py`` adds its row here by running this, never by hand
(docs/architecture.md, "Adding a rule"). It also writes each wire's latest frozen requirement
set (``tools/requirement_sets.py``, which reads the same declarations), so adding a rule is one
command whatever is generated from the catalog. ``--check`` writes nothing and exits 1 when the
page's block or a set is not the generated one (tests/docs/test_docs.py and
tests/rules/test_revisions.py ask the same).
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
    from contract.wires import bundled_only

    with bundled_only():  # the shipped catalog, whatever wire a caller (a test) registered
        return "\n" + rules_table(list(CATALOG.values())) + "\n"  # blank lines: the markers stay out of it


def rewritten(page: str) -> str:
    """``page`` with its table block replaced by the generated one (ValueError without one block)."""
    if page.count(BEGIN) != 1 or page.count(END) != 1 or page.index(BEGIN) > page.index(END):
        raise ValueError(f"{PAGE.name}: expected one block between {BEGIN.strip()!r} and {END.strip()!r}")
    start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:start] + generated() + page[end:]


def main(argv: list[str]) -> int:
    import requirement_sets  # beside this file (sys.path[0] when run as a script)

    page = PAGE.read_text(encoding="utf-8")
    new = rewritten(page)
    sets = requirement_sets.main(argv)  # the sets first: with --check, both are reported
    if "--check" in argv:
        if new != page:
            sys.stderr.write(f"{PAGE}: the rules table is stale: run python tools/rules_doc.py\n")
            return 1
        return sets
    if new != page:
        PAGE.write_text(new, encoding="utf-8")
    return sets


if __name__ == "__main__":
    sys.path.insert(0, str(PAGE.parent.parent))  # run from anywhere: the checkout's contract
    sys.exit(main(sys.argv[1:]))
