"""A reference subagent-stdio client: polls a host a few times and reports what it saw.

Run as ``python -m contract.reference.subagent_client [POLLS]`` with the host on the other end of
its stdin and stdout (``milk-contract feed --wire subagent-stdio`` plays one from the goldens). It
sends ``POLLS`` (default 3) ``subagent_status`` commands, one at a time, each with an id, and waits
for the response carrying that id; an event pushed meanwhile, a line type it does not know and any
member it does not read are skipped. A host whose output ends first ends the polling (not an
error: the host went away). It then prints one JSON line (polls answered, the last revision seen,
the run statuses) on stderr and exits 0.

Only the standard library, so SDK authors can read it as a port guide.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def main(argv: list[str]) -> int:
    polls = int(argv[1]) if len(argv) > 1 else 3
    answered, revision, statuses = 0, None, []
    for number in range(1, polls + 1):
        ident = f"poll-{number}"
        sys.stdout.write(json.dumps({"type": "subagent_status", "version": 1, "id": ident}) + "\n")
        sys.stdout.flush()
        response = _await(ident)
        if response is None:
            break  # the host ended
        answered += 1
        data = response.get("data")
        data = data if isinstance(data, dict) else {}
        revision = data.get("revision")
        runs = data.get("runs")
        runs = runs if isinstance(runs, list) else []
        statuses = [run.get("status") for run in runs if isinstance(run, dict)]
    sys.stderr.write(json.dumps({"answered": answered, "revision": revision, "statuses": statuses}) + "\n")
    return 0


def _await(ident: str) -> dict[str, Any] | None:
    for raw in sys.stdin:
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("type") == "response" and line.get("id") == ident:
            return line
        # events, responses to someone else, line types we do not know: not ours to fail on
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv))
