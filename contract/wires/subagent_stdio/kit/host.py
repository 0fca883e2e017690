"""A reference subagent-stdio host that replays a scripted conversation.

Run as ``python -m contract.reference.subagent_host [--script FILE]``. It reads
``subagent_status`` commands on stdin and answers each with the next scripted ``response``,
echoing the client's actual id (and omitting id when the command had none); the scripted
``subagent_event`` lines are pushed where the script has them: events before the first
response go out just before it, events after response *k* go out right after it. Once the
script's responses are used up, further commands get the last response again (same revision:
nothing changed). At end of input it exits 0.

The script is a JSONL transcript holding commands, responses and events in order, such as a
golden recorded by ``contract.live.driver``. Without ``--script`` it uses ``$MILK_CONTRACT_GOLDEN``
when that names a ``.jsonl`` file, else the built-in conversation below, which is conformant
under ``--strict``. Lines that are not ``subagent_status`` objects are skipped with a note on
stderr: the wire has no error response (``success`` is ``const true``).

Faulty variants in ``tests/faulty_hosts`` subclass :class:`Host` and override one hook.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, BinaryIO

Line = dict[str, Any]

SESSION = "sess_reference"
EPOCH = "epoch-1"


# -- the built-in conversation ---------------------------------------------------------------


def _tokens(inp: int, out: int) -> Line:
    return {"input": inp, "output": out, "total": inp + out}


def _node(key: str, status: str, started: int, updated: int, **extra: Any) -> Line:
    node: Line = {"key": key, "runId": key, "agent": "worker", "status": status,
                  "startedAt": started, "updatedAt": updated,
                  "tokens": _tokens(updated - started, 10), "children": [], "omittedChildren": 0}
    node.update(extra)
    return node


def _finished(key: str, started: int, ended: int, *, ok: bool = True) -> Line:
    status = "completed" if ok else "failed"
    extra: Line = {"endedAt": ended,
                   "outcome": {"status": status, "success": ok, "exitCode": 0 if ok else 1},
                   "processTerminal": {"state": "observed", "observedAt": ended}}
    if not ok:
        extra["error"] = "tool failed"
    return _node(key, status, started, ended, **extra)


def _snapshot(revision: int, runs: list[Line], fleet: list[Line], *, events: bool = True) -> Line:
    return {
        "version": 1, "sessionId": SESSION, "epoch": EPOCH, "revision": revision, "available": True,
        "capabilities": {"snapshot": True, "events": events},
        "fleet": {"version": 1, "entries": fleet, "totalActive": len(fleet),
                  "topLevelAsyncCapacity": {"used": len(fleet), "limit": 4}, "omitted": 0},
        "runs": runs, "omitted": {"runs": 0, "children": 0},
    }


def _entry(key: str, started: int) -> Line:
    return {"key": key, "agent": "reviewer", "role": "review", "startedAt": started,
            "tokens": _tokens(120, 30), "goal": "review the change"}


def _states() -> list[Line]:
    """Four revisions of one run tree: a child starts, waits on its supervisor, finishes."""
    first = _node("child-a", "running", 1100, 1150, currentTool="read_file")
    waiting = _node("child-a", "running", 1100, 1300, activity="waiting_supervisor", progress="2/3")
    done = _finished("child-a", 1100, 1400)
    failed = _finished("child-b", 1350, 1450, ok=False)
    parent = {"agent": "planner"}
    return [
        _snapshot(3, [_node("run-1", "running", 1000, 1150, children=[first], **parent)], []),
        _snapshot(4, [_node("run-1", "running", 1000, 1300, children=[waiting], **parent)],
                  [_entry("bg-1", 1200)]),
        _snapshot(5, [_node("run-1", "running", 1000, 1450, children=[done, failed], **parent)],
                  [_entry("bg-1", 1200)]),
        _snapshot(6, [_finished("run-1", 1000, 1500)], []),
    ]


def _response(snapshot: Line, ident: str | None = None) -> Line:
    response: Line = {"type": "response", "command": "subagent_status", "success": True,
                      "data": snapshot}
    if ident is not None:
        response["id"] = ident
    return response


def _event(snapshot: Line) -> Line:
    return {"type": "subagent_event", "version": 1, "sessionId": snapshot["sessionId"],
            "epoch": snapshot["epoch"], "revision": snapshot["revision"], "snapshot": snapshot}


def default_script() -> list[Line]:
    """The built-in conversation: three questions, with events pushed between the answers."""
    s3, s4, s5, s6 = _states()
    command: Line = {"type": "subagent_status", "version": 1}
    return [
        {**command, "id": "1"}, _response(s3, "1"), _event(s4),
        {**command, "id": "2"}, _response(s4, "2"), _event(s5), _event(s6),
        command, _response(s6),
    ]


# -- replaying ---------------------------------------------------------------------------------


def load_script(path: str) -> list[Line]:
    """The objects of a JSONL transcript, in order (blank lines skipped)."""
    with open(path, "rb") as handle:
        lines = [json.loads(raw) for raw in handle if raw.strip()]
    return [line for line in lines if isinstance(line, dict)]


class Host:
    """Answers commands from a script; subclasses change one behaviour to make a faulty host."""

    def __init__(self, script: Sequence[Line], stdout: BinaryIO) -> None:
        self.leading: list[Line] = []
        self.turns: list[tuple[Line, list[Line]]] = []  # (response, events pushed after it)
        for line in script:
            kind = line.get("type")
            if kind == "response":
                self.turns.append((line, []))
            elif kind == "subagent_event":
                (self.turns[-1][1] if self.turns else self.leading).append(line)
        if not self.turns:
            raise ValueError("the script holds no response to answer with")
        self.stdout = stdout
        self.answered = 0

    def write(self, line: Line) -> None:
        text = json.dumps(line, ensure_ascii=False, separators=(",", ":"))
        self.stdout.write(text.encode() + b"\n")

    def flush(self) -> None:
        self.stdout.flush()

    def respond(self, command: Line) -> Line:
        """The scripted response for this command, with the command's id echoed (or none)."""
        scripted, _ = self.turns[min(self.answered, len(self.turns) - 1)]
        response = copy.deepcopy(scripted)
        response.pop("id", None)
        if "id" in command:
            response["id"] = command["id"]
        return response

    def events_after(self, index: int) -> list[Line]:
        return self.turns[index][1] if index < len(self.turns) else []

    def on_command(self, command: Line) -> None:
        if self.answered == 0:
            for event in self.leading:
                self.write(event)
        self.write(self.respond(command))
        for event in self.events_after(self.answered):
            self.write(event)
        self.answered += 1
        self.flush()

    def serve(self, stdin: Iterable[bytes]) -> int:
        for raw in stdin:
            command = _command(raw)
            if command is not None:
                self.on_command(command)
        return 0


def _command(raw: bytes) -> Line | None:
    try:
        value = json.loads(raw)
    except ValueError:
        value = None
    if isinstance(value, dict) and value.get("type") == "subagent_status":
        return value
    sys.stderr.write(f"subagent_host: skipped a line that is not a subagent_status command: "
                     f"{raw[:80]!r}\n")
    return None


def script_from(path: str | None) -> list[Line]:
    """The script: ``path``, else a ``.jsonl`` golden named by the environment, else built in."""
    golden = os.environ.get("MILK_CONTRACT_GOLDEN", "")
    if path is None and golden.endswith(".jsonl") and os.path.isfile(golden):
        path = golden
    return load_script(path) if path is not None else default_script()


def main(argv: Sequence[str] | None = None, host: type[Host] = Host) -> int:
    parser = argparse.ArgumentParser(prog="subagent_host", description=__doc__.split("\n\n")[0])
    parser.add_argument("--script", metavar="FILE", help="a JSONL transcript to replay")
    args, _milk_arguments = parser.parse_known_args(argv)  # a scenario's own arguments: not needed
    try:
        server = host(script_from(args.script), sys.stdout.buffer)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"subagent_host: cannot use the script: {exc}\n")
        return 2
    try:
        return server.serve(sys.stdin.buffer)
    except BrokenPipeError:  # the client went away: nothing left to answer
        return 0
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
