"""Write each wire's latest frozen requirement set from the catalog (a dev tool:
``python tools/requirement_sets.py``; ``--check`` writes nothing and exits 1 when a set is stale).

The sets are ``requirements/<wire>/r<N>.json`` (contract.rules.revisions); this rewrites only the
latest revision of each wire (``r1`` when there is none). ``milk-contract evolve`` writes the next one.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv: list[str]) -> int:
    from contract.rules import revisions
    from contract.wires import WIRES

    stale = []
    for wire in WIRES:
        found = revisions.numbers(wire, ROOT)
        revision = f"r{found[-1] if found else 1}"
        want = revisions.render(revisions.generated(wire, revision))
        path = revisions.folder(wire, ROOT) / f"{revision}.json"
        if path.is_file() and path.read_text(encoding="utf-8") == want:
            continue
        stale.append(str(path.relative_to(ROOT)))
        if "--check" not in argv:
            revisions.write_latest(wire, ROOT)
    if stale and "--check" in argv:
        sys.stderr.write(f"stale requirement sets: {', '.join(stale)}: run python tools/requirement_sets.py\n")
        return 1
    for name in stale:
        print(f"wrote {name}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main(sys.argv[1:]))
