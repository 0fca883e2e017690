#!/usr/bin/env python3
"""A stand-in for a milk build written to the replay contract and to nothing else.

The replay contract (docs/milk-ci.md, "The replay contract a milk build must meet") is all this script
knows: ``MILK_CONTRACT_GOLDEN`` names the golden transcript of the scenario being run, and its
metadata (``reproduce.exit_status``) is the ``.meta.json`` file beside it. With ``--subagent-stdio``
among its arguments it is the subagent-stdio host: each ``subagent_status`` command read on stdin
is answered with the golden's lines that follow the same command, the golden's command ids
replaced by the ones actually sent; it exits 0 at end of input. Otherwise it writes the golden's
stream-json lines and exits with the scenario's status; with ``--pace recorded`` each line after
the gap its meta recorded (``timing.gaps_ms``, optional: without it, at once).

Without ``MILK_CONTRACT_GOLDEN`` it has no script and says so on stderr, exit 2: a replaying build
cannot do anything else, and the shipped suite must never start it that way unless asked to (the
fuzzing mode, ``--contract-fuzz N``, is opt-in and documented in docs/milk-ci.md). Standard
library only, as a milk maintainer's scripted provider would be. ``tests/plugin/test_installed.py`` runs
the installed suite against it; ``MILK_REPLAY_DROP_RESULT=1`` makes it drop the stream-json result
line, the fault that test expects the suite to catch.
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any


def _golden() -> str:
    path = os.environ.get("MILK_CONTRACT_GOLDEN", "")
    if not path:
        sys.stderr.write("milk: no scripted provider: MILK_CONTRACT_GOLDEN is not set\n")
        sys.exit(2)
    return path


def _exit_status(golden: str) -> int:
    meta = golden[: -len(".jsonl")] + ".meta.json"
    with open(meta, encoding="utf-8") as file:
        status = json.load(file)["reproduce"]["exit_status"]
    return int(status)


def _recorded_gaps(golden: str) -> list[int]:
    """The golden's recorded gaps in ms (the meta's optional ``timing.gaps_ms``), or none."""
    meta = golden[: -len(".jsonl")] + ".meta.json"
    with open(meta, encoding="utf-8") as file:
        timing = json.load(file).get("timing") or {}
    gaps = timing.get("gaps_ms") if isinstance(timing, dict) else None
    return [int(gap) for gap in gaps] if isinstance(gaps, list) else []


def stream(golden: str, paced: bool = False) -> int:
    with open(golden, "rb") as file:
        lines = file.readlines()
    gaps = _recorded_gaps(golden) if paced else []
    if len(gaps) != len(lines):
        gaps = [0] * len(lines)  # no recorded pace (or not for these lines): at once
    if os.environ.get("MILK_REPLAY_DROP_RESULT") == "1":
        kept = [i for i, line in enumerate(lines) if json.loads(line).get("type") != "result"]
        lines, gaps = [lines[i] for i in kept], [gaps[i] for i in kept]
    if not paced:
        sys.stdout.buffer.write(b"".join(lines))
        sys.stdout.flush()
        return _exit_status(golden)
    for gap, line in zip(gaps, lines, strict=True):  # --pace recorded: each line after its recorded gap, flushed
        if gap:
            time.sleep(gap / 1000)
        sys.stdout.buffer.write(line)
        sys.stdout.flush()
    return _exit_status(golden)


def host(golden: str) -> int:
    with open(golden, encoding="utf-8") as file:
        script: list[dict[str, Any]] = [json.loads(line) for line in file if line.strip()]
    # what follows each scripted command, up to the next command: its responses and events
    replies: list[list[dict[str, Any]]] = []
    scripted_ids: list[Any] = []
    for line in script:
        if line.get("type") == "subagent_status":
            replies.append([])
            scripted_ids.append(line.get("id"))
        elif replies:
            replies[-1].append(line)
    actual: dict[Any, Any] = {}  # a scripted command id -> the id the client sent in its place
    for index, raw in enumerate(sys.stdin.buffer):
        if index >= len(replies):
            break
        sent = json.loads(raw)
        actual[scripted_ids[index]] = sent.get("id")
        for line in replies[index]:
            out: dict[str, Any] = {}
            for key, value in line.items():
                if key == "id" and line.get("type") == "response":
                    if actual.get(value) is None:  # the client sent that command without an id
                        continue
                    value = actual[value]
                out[key] = value
            sys.stdout.buffer.write(json.dumps(out, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        sys.stdout.flush()
    return 0


def main(argv: list[str]) -> int:
    golden = _golden()
    paced = any(a == "--pace=recorded" or (a == "--pace" and argv[i + 1:i + 2] == ["recorded"])
                for i, a in enumerate(argv))  # --pace recorded: the golden's recorded gaps (its meta's timing)
    return host(golden) if "--subagent-stdio" in argv else stream(golden, paced)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
