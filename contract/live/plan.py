"""The client's side of a live conversation: a plan of steps, and how each step's bytes are written.

A plan (``Step``s) is what ``contract.live.driver.record`` sends a host: each step's commands
written together (pipelined), after its pause, then each answer awaited. A step's bytes may be cut
into several writes (``Split``: ``cuts`` says where and in words, ``writes`` gives the pieces), so
a host is seen putting a command together from however many reads it arrives in. The commands
come from the conversation wire's dialogue (``Wire.dialogue``), the wire being a parameter: by
default the registry's conversation wire, looked up when called (``held_wire``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson

from contract.core.textsafe import counted
from contract.wires import Dialogue, Wire, conversation

SPACING = 0.05  # pause before a spaced command: the host must answer one it did not see coming


def held_wire(wire: Wire | None = None) -> Wire:
    """The conversation wire held: ``wire``, or the registry's first with a dialogue when None
    (looked up when called, not when a module is imported: a wire registered since is seen)."""
    return conversation() if wire is None else wire


def command(ident: str | None, wire: Wire | None = None) -> dict[str, Any]:
    """A command of ``wire``'s dialogue, with ``id`` when ``ident`` is not None."""
    return dialogue(held_wire(wire)).build(ident)


def dialogue(wire: Wire) -> Dialogue:
    """``wire``'s dialogue (ValueError for a wire that holds no conversation)."""
    if wire.dialogue is None:
        raise ValueError(f"{wire.name} is not a conversation wire")
    return wire.dialogue


# How a step's bytes may be cut into writes (Split.cut). A pipe is a byte stream: a host must put a
# command together from however many reads it arrives in. No cut adds a byte: a conformant client
# never sends CR (line.newline, framing of both wires), so "CR LF" is no position to cut at.
CUTS = ("in-string", "in-utf8", "before-lf", "per-line", "dribble")
MID_LINE_PAUSE = 0.05  # seconds held at the first cut, once the host has read the first part


@dataclass(frozen=True)
class Split:
    """How one step's bytes are cut into several writes (a :class:`Step` without one: one write).

    ``cut`` is the position class: ``in-string`` (one command cut between the quotes of one of
    its strings), ``in-utf8`` (inside a multi-byte UTF-8 character; a command with none is cut in
    a string instead, and :func:`cuts` says so), ``before-lf`` (just before the LF that ends a
    command), ``per-line`` (each command its own write: cut only between lines) and ``dribble``
    (every byte its own write). ``command`` picks the command cut and ``at`` the position among
    those of its class, each taken modulo how many there are, so the choice stays valid while a
    conversation shrinks. At the first cut the driver waits until the host has read what was
    written, then ``pause`` seconds more (a pause mid-line), so the cut is one the host sees.
    """

    cut: str
    command: int = 0
    at: int = 0
    pause: float = 0.0


@dataclass(frozen=True)
class Step:
    """Commands written together (pipelined), after a pause; the driver then awaits each answer.

    ``split``: how their bytes are cut into writes (None: in one write).
    """

    commands: tuple[dict[str, Any], ...]
    pause: float = 0.0
    split: Split | None = None


def encode(line: dict[str, Any]) -> bytes:
    """A command as the driver writes it: compact JSON, UTF-8, one LF."""
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def _in_strings(line: bytes) -> list[int]:
    """Cut positions between the quotes of a JSON string (``line[:p]`` ends inside one)."""
    positions = []
    inside = escaped = False
    for index, byte in enumerate(line):
        if not inside:
            inside = byte == 0x22
            continue
        positions.append(index)
        if escaped:
            escaped = False
        elif byte == 0x5C:
            escaped = True
        elif byte == 0x22:
            inside = False
    return positions


def cuts(step: Step) -> tuple[tuple[int, ...], str]:
    """The offsets in the step's bytes where a write ends, and what they are, in words."""
    lines = [encode(line) for line in step.commands]
    total = sum(len(line) for line in lines)
    split = step.split
    if split is None or not lines:
        return (), "in one write"
    pause = f", with a {split.pause:g}s pause at the first cut" if split.pause else ""
    if split.cut == "dribble":
        return tuple(range(1, total)), f"byte by byte ({counted(total, 'write')}{pause})"
    if split.cut == "per-line":
        ends = tuple(sum(len(line) for line in lines[: i + 1]) for i in range(len(lines) - 1))
        if not ends:
            return (), "in one write (a single line: per-line cuts nothing)"
        return ends, f"one write per command ({counted(len(lines), 'write')}{pause})"
    which = split.command % len(lines)
    line = lines[which]
    where = {"in-string": "inside a string", "in-utf8": "inside a UTF-8 character", "before-lf": "before its LF"}
    kind = split.cut
    if kind == "in-utf8":
        positions = [i for i in range(1, len(line)) if 0x80 <= line[i] <= 0xBF]  # continuation bytes
        if not positions:
            kind, positions = "in-string", _in_strings(line)
    elif kind == "before-lf":
        positions = [len(line) - 1]
    else:
        positions = _in_strings(line)
    at = positions[split.at % len(positions)]
    start = sum(len(earlier) for earlier in lines[:which])
    return ((start + at,), f"in 2 writes, command {which + 1} cut after byte {at} of {len(line)} "
                          f"({where[kind]}){pause}")


def writes(step: Step) -> list[bytes]:
    """The step's bytes, cut as its split says (one piece when it has none)."""
    data = b"".join(encode(line) for line in step.commands)
    ends = [*cuts(step)[0], len(data)]
    return [data[a:b] for a, b in zip([0, *ends[:-1]], ends, strict=True)]


def default_plan(wire: Wire | None = None) -> tuple[Step, ...]:
    """The client's side when none is given: ``wire``'s commands (its dialogue's builder) alone,
    pipelined, and spaced, with and without ids, one with the empty id."""
    def c(ident: str | None) -> dict[str, Any]:
        return command(ident, wire)

    return (
        Step((c("c1"),)),
        Step((c("c2"), c(None), c(""), c("c3 ü"))),  # pipelined
        Step((c(None),), pause=SPACING),  # spaced, no id
        Step((c("c4"),), pause=SPACING),
    )


def plan_from(transcript: bytes, wire: Wire | None = None) -> tuple[Step, ...]:
    """The client side of a recorded conversation (a golden) as a plan to replay live.

    Commands written back to back, with no response between them, were pipelined: they form
    one step. Lines that are not commands are the host's and are left out.
    """
    steps: list[list[dict[str, Any]]] = []
    grouping = False
    types = dialogue(held_wire(wire))
    for raw in transcript.split(b"\n"):
        try:
            line = orjson.loads(raw) if raw.strip() else None
        except orjson.JSONDecodeError:
            continue
        if not isinstance(line, dict):
            continue
        if line.get("type") == types.command:
            if not grouping:
                steps.append([])
            steps[-1].append(line)
            grouping = True
        elif line.get("type") == types.response:
            grouping = False
    return tuple(Step(tuple(commands)) for commands in steps)


__all__ = ["CUTS", "MID_LINE_PAUSE", "SPACING", "Split", "Step", "command", "cuts", "default_plan", "dialogue",
           "encode", "held_wire", "plan_from", "writes"]
