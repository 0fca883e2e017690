"""Author the golden corpus (goldens/<wire>/<scenario>.jsonl + .meta.json) from readable scripts.

Run ``python tools/make_goldens.py`` from the checkout to rewrite every authored golden. The
goldens are committed as plain files; nothing reads this at test time. Each wire's scenarios are
its kit's (``contract/wires/<wire>/kit/goldens.py``), each checked clean with ``check --strict``
before it is written (``contract.goldens.authoring``); one that is not is listed, and nothing
after it is written (exit 1).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contract.goldens.authoring import AuthoringError  # noqa: E402
from contract.wires.stream_json.kit import goldens as stream_json  # noqa: E402
from contract.wires.subagent_stdio.kit import goldens as subagent_stdio  # noqa: E402


def main() -> int:
    try:
        stream_json.write_goldens(ROOT / "goldens")
        subagent_stdio.write_goldens(ROOT / "goldens")
    except AuthoringError as exc:
        print(exc, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
