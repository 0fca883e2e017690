"""A consumer that exits 3 on any member it does not know, at any object level (an SDK of closed structs).

``python tests/faulty_consumers/strict_members.py WIRE [LEVEL]`` reads a stream-json run (or a
subagent-stdio conversation) on stdin, each line whole, and exits 3 on the first member that no
schema names at an object the schema models, where the schema forbids it
(``additionalProperties: false``): the top level of any line, message, a content block, usage, the
agent object, a stream payload, its delta, a node, ... With LEVEL (a surface path: ``top`` for a
line's top level, ``message.content[]``, ``usage``...) it is strict at that level only. What it
knows is read from the schema in force (``contract.checking.schemawalk``, ``Walker.forbidden``), never
listed here. Lines of a type it does not know, values and free-form payloads it skips; it reads
to the end of its input and then exits 0. On a conversation wire it is a client: it polls three
times, as the reference client does, and judges what the host sends.

Before issue 46 it passed ``feed --future`` on every seed: no variant carried an unknown member
outside the free-form payloads (tests/consumers/test_may_change.py).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

Segment = str | int


def _levels(value: Any, path: list[Segment], level: str) -> Iterator[tuple[list[Segment], str, dict[str, Any]]]:
    """Every object inside ``value``: its path, its surface level, the object (a key of a map is ``{}``)."""
    if isinstance(value, dict):
        yield path, level, value
        for key, child in value.items():
            yield from _levels(child, [*path, key], f"{level}.{key}" if level else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _levels(item, [*path, index], f"{level}[]")


def unknown_member(walk: Any, line: Any, only: str | None) -> str | None:
    """The first member of ``line`` its schema forbids (at level ``only``, if given), as a pointer."""
    for path, level, target in _levels(line, [], ""):
        if only is not None and (level or "top") != only and not _mapped(level, only):
            continue
        for key in target:
            if walk.forbidden(line, path, key):
                return "/" + "/".join(str(p) for p in [*path, key])
    return None


def _mapped(level: str, only: str) -> bool:
    """``model_usage.claude`` is the level ``model_usage{}`` (a map's entries)."""
    return only.endswith("{}") and level.rsplit(".", 1)[0] == only[:-2]


def _poll(number: int) -> None:
    """A subagent-stdio client's command (as the reference client sends it)."""
    sys.stdout.write(json.dumps({"type": "subagent_status", "version": 1, "id": f"poll-{number}"}) + "\n")
    sys.stdout.flush()


def main(argv: list[str]) -> int:
    from contract.checking.schemawalk import walker
    from contract.wires import Live, get

    walk = walker(argv[1])
    only = argv[2] if len(argv) > 2 else None
    client = get(argv[1]).live is Live.CONVERSATION  # a client: poll, then read what the host sends
    if client:
        _poll(1)
    found = None
    polls = 1
    for raw in sys.stdin.buffer:  # to the end: a consumer that exits early is another fault
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if found is None and isinstance(line, dict):
            found = unknown_member(walk, line, only)
        if client and isinstance(line, dict) and line.get("type") == "response" and polls < 3:
            polls += 1
            _poll(polls)
    if found is not None:
        sys.stderr.write(f"strict_members: unknown member at {found}\n")
        return 3
    if not client:  # a stream consumer says what it read (a silent one is consumer.silent)
        sys.stdout.write("{}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
