"""Long stream-json runs built from every golden, and the faults that the block facts must not hide.

``run(lines)`` repeats the goldens' bodies (tool calls streamed in fragments, subagent tasks with
parent references, thinking, housekeeping) between one init advertising every capability and one
result, with fresh tool ids per repetition and one seq, session and stamp per line, as the
benchmark transcript does (bench/run.py). ``broken(lines, seed)`` is such a run with faults of
the kinds ``StreamRules.feed_facts`` and ``facts.block_facts`` each judge or decline (a line's
own form, a reference, a fragment, a call's reassembly, the capabilities, seq, session and ts),
at random lines: the block path, the fold over facts and the two-process checker must report
each exactly as line by line does (tests/wires/stream_json/test_stream_json_facts.py, tests/checking/test_parallel.py).
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

from contract.core.resources import data_dir
from contract.goldens.normalize import volatile_at
from contract.wires.base import Segment, Treatment

Line = dict[str, Any]


def goldens() -> dict[str, list[Line]]:
    """Every stream-json golden of the checkout by name, parsed: whichever and however many there are."""
    folder = data_dir("goldens") / "stream-json"
    return {path.stem: [json.loads(text) for text in path.read_text(encoding="utf-8").splitlines() if text]
            for path in sorted(folder.glob("*.jsonl"))}


def _identity(path: tuple[Segment, ...], value: Any) -> bool:
    """Whether the value at ``path`` of a line is a generated id: a field the wire declares volatile
    with its own numbering (``Treatment.MAP``: tool_use ids and what refers to them, message, task
    and memory ids). The normaliser keeps exactly these as identities (contract/goldens/normalize.py)."""
    rule = volatile_at("stream-json", path, value)
    return rule is not None and rule.treatment is Treatment.MAP


def renamed(value: Any, suffix: str, path: tuple[Segment, ...] = ()) -> Any:
    """Every generated id given ``suffix`` (a copy), a reference with its referent, so lines from
    two goldens, or two repetitions of one, never share an id. Which members are ids is read from
    the wire's volatile declaration (:func:`_identity`), never from member names here."""
    if path and type(value) is str and _identity(path, value):
        return value + suffix
    if isinstance(value, dict):
        return {key: renamed(item, suffix, (*path, key)) for key, item in value.items()}
    if isinstance(value, list):
        if not path:  # a list of lines: each line's paths start at its root
            return [renamed(item, suffix) for item in value]
        return [renamed(item, suffix, (*path, index)) for index, item in enumerate(value)]
    return value


def failed(result: Line) -> bool:
    """Whether a result line says the run failed (``is_error`` true: what excuses an unfinished call)."""
    return result.get("is_error") is True


def body(run_: list[Line]) -> list[Line]:
    """A golden's lines between its init and its result, as copies. A run whose result says it failed
    may stop in the middle of a call (sj.tool-args-reassembly notes it, never a finding): that call's
    fragments are left out, since the body will end in another result."""
    lines = [copy.deepcopy(o) for o in run_ if o.get("type") != "result"
             and not (o.get("type") == "system" and o.get("subtype") == "init")]
    completed = {b.get("id") for o in lines for b in _content(o, "tool_use")}
    return [o for o in lines if o.get("type") != "stream_event" or (o.get("event") or {}).get("type")
            != "tool_args_delta" or (o.get("event") or {}).get("tool_use_id") in completed]


def edges(runs: dict[str, list[Line]]) -> tuple[Line, Line]:
    """An init advertising every capability any golden's does, and a result that does not say the run
    failed (one that did would excuse a call left unfinished, and hide a fault): whichever goldens there are."""
    ordered = list(runs.values())
    init = copy.deepcopy(ordered[0][0])
    init["capabilities"] = sorted({c for run_ in ordered for c in run_[0].get("capabilities", [])})
    results = [run_[-1] for run_ in ordered if run_[-1].get("type") == "result"]
    return init, copy.deepcopy(next((r for r in results if not failed(r)), results[0]))


def run(lines: int) -> list[Line]:
    """A conformant run of at least ``lines`` lines (init, the goldens' bodies repeated whole, each with
    ids of its own, result)."""
    runs = goldens()
    init, result = edges(runs)
    bodies = [body(run_) for run_ in runs.values()]
    out = [init]
    repetition = 0
    while len(out) < lines - 1:
        out.extend(renamed(bodies[repetition % len(bodies)], f"_{repetition}"))
        repetition += 1
    out.append(result)
    session = init["session_id"]
    for seq, obj in enumerate(out):
        minute, second = divmod(seq // 40, 60)  # 40 lines a second: blocks cross seconds and minutes
        obj.update(seq=seq, session_id=session, ts=f"2026-01-01T{minute // 60:02d}:{minute % 60:02d}:{second:02d}."
                                                   f"{seq % 40 * 25:03d}Z")
    return out


def text(objs: Sequence[Line | str]) -> bytes:
    """The run as a file: each object compact JSON, each string as it is (a broken line)."""
    return b"".join((o if isinstance(o, str) else json.dumps(o, separators=(",", ":"), ensure_ascii=False))
                    .encode() + b"\n" for o in objs)


# -- faults: each changes the run at or after line ``at`` (an index), returning False if it found
# no line of the kind it needs there


def _first(objs: list[Line], at: int, accept: Callable[[Line], bool]) -> int | None:
    return next((index for index in range(max(1, at), len(objs) - 1) if accept(objs[index])), None)


def _content(obj: Line, kind: str) -> list[Line]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict) and b.get("type") == kind] if isinstance(content, list) else []


def _actor(objs: list[Line], at: int, change: Callable[[Line], None], kind: str = "assistant") -> bool:
    index = _first(objs, at, lambda o: o.get("type") == kind)
    if index is None:
        return False
    change(objs[index])
    return True


def _block(objs: list[Line], at: int, kind: str, change: Callable[[Line], None]) -> bool:
    index = _first(objs, at, lambda o: bool(_content(o, kind)))
    if index is None:
        return False
    change(_content(objs[index], kind)[0])
    return True


def _streamed_input_changed(objs: list[Line], at: int) -> bool:
    """A tool_use whose arguments were streamed gets other input than its fragments reassemble to
    (a call that was not streamed has nothing to disagree with, so the goldens' order cannot matter)."""
    streamed = {(o.get("event") or {}).get("tool_use_id") for o in objs if o.get("type") == "stream_event"}
    index = _first(objs, at, lambda o: any(b.get("id") in streamed for b in _content(o, "tool_use")))
    if index is None:
        return False
    block = next(b for b in _content(objs[index], "tool_use") if b.get("id") in streamed)
    _set(block, "input", {"changed": True})
    return True


def _event(objs: list[Line], at: int, change: Callable[[Line], None]) -> bool:
    index = _first(objs, at, lambda o: o.get("type") == "stream_event"
                   and (o.get("event") or {}).get("type") == "tool_args_delta")
    if index is None:
        return False
    change(objs[index]["event"])
    return True


def _system(objs: list[Line], at: int, change: Callable[[Line], None]) -> bool:
    index = _first(objs, at, lambda o: o.get("type") == "system")
    if index is None:
        return False
    change(objs[index])
    return True


def _later_use(objs: list[Line], at: int) -> str | None:
    index = _first(objs, at + 30, lambda o: bool(_content(o, "tool_use")))
    return None if index is None else _content(objs[index], "tool_use")[0]["id"]


def _parent_early(objs: list[Line], at: int) -> bool:
    ref = _later_use(objs, at)
    if ref is None:
        return False
    objs[at]["parent_tool_use_id"] = ref  # a reference before the tool_use it names
    return True


def _fragment_late(objs: list[Line], at: int) -> bool:
    """A stream_event after a tool_use, streaming one more fragment of that completed call."""
    index = _first(objs, at, lambda o: bool(_content(o, "tool_use")))
    later = None if index is None else _first(objs, index + 1, lambda o: o.get("type") == "stream_event")
    if index is None or later is None:
        return False
    ref = _content(objs[index], "tool_use")[0]["id"]
    objs[later]["event"] = {"type": "tool_args_delta", "index": 1, "tool_use_id": ref, "partial_json": "}"}
    return True


def _referred_after(objs: list[Line], index: int, ref: Any) -> bool:
    """Whether a line after ``index`` names the tool_use id ``ref``: a tool_result's or a parent's
    reference (sj.tool-result-ref, sj.parent-ref), which another id on that tool_use leaves dangling."""
    return any(o.get("parent_tool_use_id") == ref
               or any(b.get("tool_use_id") == ref for b in _content(o, "tool_result")) for o in objs[index + 1:])


def _reuse(objs: list[Line], at: int) -> bool:
    """A tool_use with the id of an earlier one: one that a later line refers to, so the reuse leaves
    that reference dangling wherever the goldens put such a call (a call nothing refers to after it,
    say an interrupted run's last, would show no fault)."""
    earlier = _first(objs, 1, lambda o: bool(_content(o, "tool_use")))
    if earlier is None:
        return False
    for index in range(max(at, earlier + 1), len(objs) - 1):
        block = next((b for b in _content(objs[index], "tool_use") if _referred_after(objs, index, b.get("id"))), None)
        if block is not None:
            block["id"] = _content(objs[earlier], "tool_use")[0]["id"]
            return True
    return False


def _calls(objs: list[Line], at: int) -> tuple[str, int, int] | None:
    """The first tool call from ``at`` streamed in fragments: its id, its first fragment's line
    and its tool_use's line."""
    for index in range(max(1, at), len(objs) - 1):
        event = objs[index].get("event") or {}
        if event.get("type") == "tool_args_delta":
            ref = event["tool_use_id"]
            use = _first(objs, index, lambda o, ref=ref: any(b.get("id") == ref for b in _content(o, "tool_use")))  # type: ignore[misc]  # a default-bound parameter: mypy cannot infer the lambda
            if use is not None:
                return ref, index, use
    return None


def _call_again(objs: list[Line], at: int) -> bool:
    """A whole call (its fragments and its tool_use) streamed again under an earlier call's id."""
    earlier, later = _calls(objs, 1), _calls(objs, at)
    if earlier is None or later is None or earlier[0] == later[0]:
        return False
    old, new = later[0], earlier[0]
    for index in range(later[1], later[2] + 1):
        event = objs[index].get("event") or {}
        if event.get("tool_use_id") == old:
            event["tool_use_id"] = new
    for block in _content(objs[later[2]], "tool_use"):
        if block["id"] == old:
            block["id"] = new
    return True


def _call_begun_early(objs: list[Line], at: int) -> bool:
    """A call's first fragment (whitespace: the same reassembly) streamed a block or two early."""
    call = _calls(objs, at)
    if call is None:
        return False
    early = _first(objs, call[1] - 300, lambda o: o.get("type") == "stream_event"
                   and (o.get("event") or {}).get("type") != "tool_args_delta")
    if early is None or early >= call[1]:
        return False
    objs[early]["event"] = {"type": "tool_args_delta", "index": 1, "tool_use_id": call[0], "partial_json": " "}
    return True


def _second_75(objs: list[Line], at: int) -> bool:
    """The last stamp of a minute with second 75: still in text order, but no time."""
    index = _first(objs, at, lambda o: o["ts"][17:19] == "59")
    while index is not None and index + 1 < len(objs) and objs[index + 1]["ts"][17:19] == "59":
        index += 1
    if index is None:
        return False
    objs[index]["ts"] = objs[index]["ts"][:17] + "75" + objs[index]["ts"][19:]
    return True


def _second_init(objs: list[Line], at: int, capabilities: list[str]) -> bool:
    init = copy.deepcopy(objs[0])
    init.update(capabilities=capabilities, seq=objs[at]["seq"], ts=objs[at]["ts"])
    objs[at] = init
    return True


def _capabilities(objs: list[Line], drop: str) -> bool:
    objs[0]["capabilities"] = [c for c in objs[0]["capabilities"] if c != drop]
    return True


def _set(obj: Line, key: str, value: Any) -> None:
    obj[key] = value


def _drop(obj: Line, key: str) -> None:
    obj.pop(key, None)


FAULTS: dict[str, Callable[[list[Line], int], bool]] = {
    "agent not a string": lambda o, at: _actor(o, at, lambda x: _set(x, "agent", 7)),
    "no message": lambda o, at: _actor(o, at, lambda x: _drop(x, "message"), "user"),
    "role of the other side": lambda o, at: _actor(o, at, lambda x: _set(x["message"], "role", "user")),
    "tool_result without its id": lambda o, at: _block(o, at, "tool_result", lambda b: _drop(b, "tool_use_id")),
    "tool_result naming no tool_use": lambda o, at: _block(o, at, "tool_result",
                                                           lambda b: _set(b, "tool_use_id", "toolu_nowhere")),
    "tool_use id used again": lambda o, at: _reuse(o, at),
    "tool_use input changed": _streamed_input_changed,
    "parent naming no tool_use": lambda o, at: _set(o[at], "parent_tool_use_id", "toolu_nowhere") is None,
    "parent naming a later tool_use": _parent_early,
    "fragment changed": lambda o, at: _event(o, at, lambda e: _set(e, "partial_json", e["partial_json"] + "x")),
    "fragment of a call never completed": lambda o, at: _event(o, at, lambda e: _set(e, "tool_use_id", "toolu_lost")),
    "fragment after its tool_use": _fragment_late,
    "a call streamed again under an earlier id": _call_again,
    "a call begun a block early": _call_begun_early,
    "system without subtype": lambda o, at: _system(o, at, lambda x: _drop(x, "subtype")),
    "system error with a non-string message": lambda o, at: _system(
        o, at, lambda x: x.update(subtype="error", message=5)),
    "a second init": lambda o, at: _second_init(o, at, list(o[0]["capabilities"])),
    "a second init without partial messages": lambda o, at: _second_init(o, at, ["stream_v1"]),
    "init without tasks_v1": lambda o, at: _capabilities(o, "tasks_v1"),
    "init without partial_messages_v1": lambda o, at: _capabilities(o, "partial_messages_v1"),
    "a result in the middle": lambda o, at: _set(o[at], "type", "result") is None,
    "seq gap": lambda o, at: _set(o[at], "seq", o[at]["seq"] + 3) is None,
    "another session": lambda o, at: _set(o[at], "session_id", "sess_other") is None,
    "ts back in time": lambda o, at: _set(o[at], "ts", "2025-12-31T23:59:59.000Z") is None,
    "ts not a date": lambda o, at: _set(o[at], "ts", o[at]["ts"][:17] + "7:" + o[at]["ts"][19:]) is None,
    "ts with a fullwidth digit": lambda o, at: _set(o[at], "ts", o[at]["ts"][:-2] + "\uff11Z") is None,
    "ts second 60": lambda o, at: _set(o[at], "ts", o[at]["ts"][:17] + "60" + o[at]["ts"][19:]) is None,
    "ts second 75 at a minute's end": _second_75,
    "ts of another shape": lambda o, at: _set(o[at], "ts", o[at]["ts"][:-1] + "0Z") is None,
    "an unlisted line type": lambda o, at: _set(o[at], "type", "thought") is None,
    "seq a float": lambda o, at: _set(o[at], "seq", float(o[at]["seq"])) is None,
}


def broken(lines: int, seed: int, faults: int = 6) -> tuple[list[Line], list[str]]:
    """A run with ``faults`` random faults at random lines past the first 150, and their names."""
    pick = random.Random(seed)
    objs = run(lines)
    names = []
    for _ in range(faults):
        name = pick.choice(sorted(FAULTS))
        if FAULTS[name](objs, pick.randrange(150, len(objs) - 2)):
            names.append(name)
    return objs, names
