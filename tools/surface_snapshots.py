"""Record the checker's own changes in the surface snapshots (run by ``python tools/rules_doc.py``).

A wire's surface snapshot (contract/tests/__snapshots__/test_surface/) holds the words each rule
of the catalog quotes from the wire's schema. A rule added with double-quoted seed words, or one
removed, moves that section though the schema did not change: the gate classifies it
``rule-cited``/``rule-uncited`` (additive, ``contract.evolution.framing.CATALOG_CODES``), and the
surface test fails until the snapshot records it. This writes exactly those snapshots, through
the gate and syrupy's own serializer (the bytes ``pytest contract/tests/test_surface.py
--snapshot-update`` would write), and only when nothing else moved: a change of the wire itself
(a schema edit, a golden) is the ADR author's to review and record, so it is left, and said.
``--check`` writes nothing and exits 1 when a snapshot is due.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

SNAPSHOTS = Path(__file__).resolve().parent.parent / "contract" / "tests" / "__snapshots__" / "test_surface"


def snapshot_path(wire: str) -> Path:
    return SNAPSHOTS / f"test_surface[{wire}].json"


def due(wire: str) -> tuple[str | None, str]:
    """(the snapshot's new text, or None when none is to be written; what was found)."""
    from syrupy.extensions.json import JSONSnapshotExtension

    from contract.evolution.classify import classify
    from contract.evolution.framing import CATALOG_CODES
    from contract.evolution.gate import evaluate, load_accepted, sources
    from contract.evolution.surface import surface_for

    path = snapshot_path(wire)
    if not path.is_file():
        return None, f"{path.name}: no snapshot (the surface test records a new wire's first one)"
    text = path.read_text(encoding="utf-8")
    stored: dict[str, Any] = json.loads(text)
    where = sources()
    current = surface_for(wire, where.schemas, where.goldens)
    verdict = evaluate(wire, stored, current, load_accepted(where.accepted))
    if verdict.problems:
        return None, f"{path.name}: the gate refuses the surface: run pytest contract/tests/test_surface.py"
    new = str(JSONSnapshotExtension().serialize(verdict.value))
    if new == text:
        return None, ""
    wire_changes = [c for c in classify(stored, current) if c.code not in CATALOG_CODES]
    value = verdict.value  # the current surface with the accepted breaks it absorbed
    outside = sorted(k for k in stored.keys() | value.keys() if k != "rules" and stored.get(k) != value.get(k))
    if wire_changes or outside:
        moved = ", ".join(sorted({c.code for c in wire_changes} | set(outside)))
        return None, (f"{path.name}: left as it is: the wire's own surface moved ({moved}); review it, then "
                      "pytest contract/tests/test_surface.py --snapshot-update")
    return new, f"{path.name}: the catalog's quotes recorded (rule-cited/rule-uncited only)"


def unresolved(wire: str) -> list[str]:
    """One line for each seed quote of ``wire``'s own rules that its schema does not say where the
    rule places it: such a quote would be left out of the surface without a word (the rule then
    stands on nothing the gate tracks), so the snapshot is not written while one is left."""
    from contract.core.resources import schema_path
    from contract.core.textsafe import text
    from contract.evolution.framing import quotes, rules_surface
    from contract.wires import WIRES

    schema = json.loads(schema_path(wire).read_text(encoding="utf-8"))
    cited = rules_surface(schema, wire)["cited"]
    out = []
    for rule in WIRES[wire].rules:
        found = {(c["at"], c["words"]) for c in cited.get(rule.id, {}).get("cites", ()) if c["found"]}
        for at, words in dict.fromkeys(quotes(rule)):
            if (at, words) not in found:
                place = "anywhere in it" if at == "*" else f"at {text(at)}"
                out.append(f"{rule.id}: its source quotes '{text(words)}', which {wire}'s schema does not say "
                           f"{place} (a place is a path from the schema's root, such as "
                           "$defs.content_block.input.description or properties.seq.description)")
    return out


def main(argv: list[str]) -> int:
    from contract.wires import BUNDLED, BUNDLED_REGISTRY, using

    status = 0
    with using(BUNDLED_REGISTRY):  # the shipped wires' snapshots, whatever registry a caller made current
        for wire in BUNDLED:
            missing = unresolved(wire)
            if missing:
                sys.stderr.write("".join(f"{line}\n" for line in missing))
                sys.stderr.write(f"{snapshot_path(wire).name}: not written while a quote is not found\n")
                status = 1
                continue
            new, said = due(wire)
            if said:
                sys.stderr.write(said + "\n")
            if new is not None:
                if "--check" in argv:
                    status = 1
                else:
                    snapshot_path(wire).write_text(new, encoding="utf-8")
                    print(f"wrote {snapshot_path(wire).relative_to(SNAPSHOTS.parents[2])}")
    return status


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    sys.exit(main(sys.argv[1:]))
