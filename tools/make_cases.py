"""Write the case files the wires' generators write (a dev tool, run by hand from the checkout).

``python tools/make_cases.py`` rewrites tests/cases/line/*.json and the files under
tests/wires/<package>/cases/ that the generators in each wire's kit name
(``contract/wires/<wire>/kit/cases``), byte for byte as they were, and leaves every other case as it is.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contract.wires.casefiles import CaseFiles  # noqa: E402
from contract.wires.stream_json.kit import cases as stream_json  # noqa: E402
from contract.wires.subagent_stdio.kit import cases as subagent_stdio  # noqa: E402


def main() -> None:
    files = CaseFiles(ROOT / "tests")
    stream_json.write_cases(files)
    subagent_stdio.write_cases(files)


if __name__ == "__main__":
    main()
