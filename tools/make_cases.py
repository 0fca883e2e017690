"""Write tests/cases/line/*.json and tests/wires/stream_json/cases/*.json from the small stream below
(a dev tool, run by hand).

Case files are the artifact the suite reads; this script only saves typing for the cases it
writes. Each case is a base conformant stream with one edit, so a reviewer sees exactly what
the near miss and the firing stream differ in. A new rule needs no edit here: its cases are
written in its own case file (docs/architecture.md, "Adding a rule"), which this script leaves
as it is (it rewrites the files it writes, byte for byte as they are, and merges into the rest
only the cases it names).
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"


def _folder(name: str) -> Path:
    """tests/cases/line for the shared rules, a wire's own tests/wires/<package>/cases otherwise."""
    return TESTS / "cases" / name if name == "line" else TESTS / "wires" / name.replace("-", "_") / "cases"
S = "sess_01HZX3"


def line(seq: int, kind: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "session_id": S, "seq": seq, "ts": f"2026-03-01T10:00:{seq:02d}Z", **fields}


def usage(i: int, o: int) -> dict[str, int]:
    return {"input_tokens": i, "output_tokens": o, "cache_read": 0, "cache_creation": 0}


def base() -> list[dict[str, Any]]:
    return [
        line(
            0,
            "system",
            subtype="init",
            agent={"name": "milk", "provider": "anthropic", "model": "m-1"},
            capabilities=["stream_v1", "partial_messages_v1", "tasks_v1"],
            cwd="/work",
            tools=["Read"],
        ),
        line(
            1,
            "assistant",
            agent="primary",
            message={
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "tu_1", "name": "Read", "input": {"path": "a.txt"}}],
            },
        ),
        line(
            2,
            "user",
            agent="primary",
            message={"role": "user", "content": [{"type": "tool_result", "tool_use_id": "tu_1", "content": "hello"}]},
        ),
        line(
            3,
            "assistant",
            agent="primary",
            message={"role": "assistant", "content": [{"type": "text", "text": "The file says hello."}]},
        ),
        line(
            4,
            "result",
            subtype="success",
            is_error=False,
            result="The file says hello.",
            num_turns=1,
            duration_ms=1200,
            usage=usage(10, 5),
            model_usage={"m-1": usage(10, 5)},
        ),
    ]


def edit(fn: Any) -> list[dict[str, Any]]:
    lines = base()
    fn(lines)
    return lines


def renumber(lines: list[dict[str, Any]]) -> None:
    for i, obj in enumerate(lines):
        obj["seq"] = i
        obj["ts"] = f"2026-03-01T10:00:{i:02d}Z"


def insert(at: int, obj: dict[str, Any]) -> Any:
    def fn(lines: list[dict[str, Any]]) -> None:
        lines.insert(at, obj)
        renumber(lines)

    return fn


def setf(index: int, pointer: str, value: Any) -> Any:
    def fn(lines: list[dict[str, Any]]) -> None:
        node: Any = lines[index]
        parts = pointer.strip("/").split("/")
        for part in parts[:-1]:
            node = node[int(part)] if isinstance(node, list) else node[part]
        if value is DELETE:
            del node[parts[-1]]
        elif isinstance(node, list):
            node[int(parts[-1])] = value
        else:
            node[parts[-1]] = value

    return fn


DELETE = object()


def seqs(text: str, *written: str) -> str:
    """The base stream's text with seq 0, 1, 2, ... written as given (7.0, 5e0: numeric forms)."""
    for number, form in enumerate(written):
        text = text.replace(f'"seq":{number},', f'"seq":{form},', 1)
    return text


def numbered(*values: int) -> Any:
    """Set the seq of each line of the base stream, in order."""

    def fn(lines: list[dict[str, Any]]) -> None:
        for obj, value in zip(lines, values, strict=True):
            obj["seq"] = value

    return fn


def stamps(*values: str) -> Any:
    """Set the ts of the last len(values) lines of the base stream."""

    def fn(lines: list[dict[str, Any]]) -> None:
        for obj, value in zip(lines[-len(values):], values, strict=True):
            obj["ts"] = value

    return fn


def _nested(depth: int) -> Any:
    value: Any = []
    for _ in range(depth - 1):
        value = [value]
    return value


NESTED_900 = _nested(900)


def raw(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(o, separators=(",", ":"), ensure_ascii=False) + "\n" for o in lines)


def case(
    description: str,
    fires: bool,
    *,
    lines: Any = None,
    raw_text: str | None = None,
    raw_hex: str | None = None,
    at: Any = None,
    strict: bool = False,
    exercised: bool = True,
) -> dict[str, Any]:
    out: dict[str, Any] = {"description": description, "fires": fires}
    if not exercised:  # a quiet case where the rule has nothing to judge: its verdict is not-exercised
        out["exercised"] = False
    if lines is not None:
        out["lines"] = lines
    if raw_text is not None:
        out["raw"] = raw_text
    if raw_hex is not None:
        out["raw_hex"] = raw_hex
    if at:
        out["at"] = [{"line": ln, "pointer": p} for ln, p in at]
    if strict:
        out["strict"] = True
    return out


def write(folder: str, rule: str, wire: str, cases: list[dict[str, Any]]) -> None:
    path = _folder(folder) / f"{rule}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    body = ",\n".join("    " + json.dumps(c, ensure_ascii=False) for c in cases)
    path.write_text(f'{{"rule": "{rule}", "wire": "{wire}", "cases": [\n{body}\n]}}\n', encoding="utf-8")


def _last_line(text: str, change: Any) -> str:
    """``text`` (whole lines) with its last line changed by ``change``."""
    lines = text.splitlines()
    return "\n".join([*lines[:-1], change(lines[-1])]) + "\n"


def tool_args(fragments: list[str], final_input: Any) -> list[dict[str, Any]]:
    lines = base()
    deltas = [
        line(0, "stream_event", event={"type": "tool_args_delta", "tool_use_id": "tu_1", "partial_json": f})
        for f in fragments
    ]
    lines[1:1] = deltas
    lines[1 + len(deltas)]["message"]["content"][0]["input"] = final_input
    renumber(lines)
    return lines


def delta(ref: str, fragment: str) -> dict[str, Any]:
    return line(0, "stream_event", event={"type": "tool_args_delta", "tool_use_id": ref, "partial_json": fragment})


def dangling(fragments: list[str], *, result: dict[str, Any] | None = None, ended: bool = True) -> list[dict[str, Any]]:
    """The base stream with fragments for tu_9 (which no tool_use completes) before the result.

    ``result``: fields to set on the result line; ``ended=False`` drops the result (a truncated run).
    """
    lines = base()
    lines[-1:-1] = [delta("tu_9", f) for f in fragments]
    if result is not None:
        lines[-1].update(result)
    if not ended:
        lines.pop()
    renumber(lines)
    return lines


def after_tool_use(before: list[str], after: list[str]) -> list[dict[str, Any]]:
    """tu_1's fragments: ``before`` its tool_use (input {"path": "a.txt"}), ``after`` it."""
    lines = tool_args(before, {"path": "a.txt"}) if before else base()
    at = next(i for i, o in enumerate(lines) if o["type"] == "assistant") + 1
    lines[at:at] = [delta("tu_1", f) for f in after]
    renumber(lines)
    return lines


def main() -> None:
    ok = raw(base())
    first, rest = ok.split("\n", 1)
    write(
        "line",
        "line.utf8",
        "stream-json",
        [
            case("a BOM before the first line", True, raw_hex="efbbbf" + ok.encode().hex(), at=[(1, None)]),
            case(
                "a Latin-1 byte inside a string",
                True,
                raw_hex=ok.replace("hello", "h\x00llo").encode().hex().replace("00", "e9", 1),
                at=[(3, None)],
            ),
            case("non-ASCII text written as UTF-8 is fine", False, raw_text=ok.replace("hello", "héllo ✓")),
        ],
    )
    write(
        "line",
        "line.newline",
        "stream-json",
        [
            case("CR LF line endings", True, raw_text=ok.replace("\n", "\r\n"), at=[(1, None)]),
            case("the last line has no LF (cut mid-stream)", True, raw_text=ok[:-1], at=[(5, None)]),
            case("a bare CR between two objects", True, raw_text=first + "\r" + "\n" + rest),
            case("a CR escaped inside a string is data, not framing", False, raw_text=ok.replace("hello", "a\\r\\nb")),
            # CR is JSON whitespace (RFC 8259 §2), but on a line-framed wire it is a line terminator to
            # common readers (universal newlines, CR LF): "one trailing newline" is LF, so a raw CR is
            # this rule's wherever it stands outside a string, beside spaces and tabs or not (docs/rules.md)
            case("a CR after the object, among spaces and tabs, before its LF", True,
                 raw_text=first + " \t\r\n" + rest, at=[(1, None)]),
            case("a CR before the object", True, raw_text="\r" + first + "\n" + rest, at=[(1, None)]),
        ],
    )
    write(
        "line",
        "line.blank",
        "stream-json",
        [
            case("an empty line between records", True, raw_text=first + "\n\n" + rest, at=[(2, None)]),
            case("a whitespace-only line", True, raw_text=first + "\n \t \n" + rest),
            case("whitespace inside a string value", False, raw_text=ok.replace("hello", "   ")),
        ],
    )
    write(
        "line",
        "line.json",
        "stream-json",
        [
            case(
                "NaN as a number", True, raw_text=ok.replace('"duration_ms":1200', '"duration_ms":NaN'), at=[(5, None)]
            ),
            case("Infinity as a number", True, raw_text=ok.replace('"duration_ms":1200', '"duration_ms":-Infinity')),
            case("two objects on one line", True, raw_text=first + first + "\n" + rest),
            case("trailing garbage after the object", True, raw_text=first + " x\n" + rest),
            # the line is one JSON text (RFC 8259 §2: ws value ws) whose value is an object: spaces and
            # tabs around it are its JSON whitespace; a form feed is not JSON whitespace (docs/rules.md)
            case("spaces and tabs around the object are JSON whitespace: one JSON text", False,
                 raw_text=" \t" + first + "\t \n" + rest),
            case("a form feed after the object is not JSON whitespace", True, raw_text=first + "\f\n" + rest,
                 at=[(1, None)]),
            case(
                "a number beyond double range is valid RFC 8259 JSON (read exactly)",
                False,
                raw_text=ok.replace('"duration_ms":1200', '"duration_ms":1e999'),
            ),
            case(
                "numbers beyond double range and below it in free-form tool input",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"a":1e400,"b":-1e400,"c":1e-400}'),
            ),
            case(
                "a raw ESC control character inside a string",
                True,
                raw_text=ok.replace("The file says hello.", "\x1b[31mred", 1),
            ),
            case("a lone surrogate escape is JSON (RFC 8259 §8.2): line.surrogate's (policy), not this rule's", False,
                 raw_text=ok.replace("hello", "\\ud800")),
            case("a valid surrogate pair escape is fine", False, raw_text=ok.replace("hello", "\\ud83d\\ude00")),
            case("the word NaN inside a string is fine", False, raw_text=ok.replace("hello", "NaN Infinity")),
        ],
    )
    # RFC 8259 §8.2 admits a lone surrogate escape ("unpredictable"): rejecting it is policy (issue 31).
    write(
        "line",
        "line.surrogate",
        "stream-json",
        [
            case("a lone high surrogate escape in a tool_result", True, raw_text=ok.replace("hello", "\\ud800"),
                 at=[(3, "/message/content/0/content")]),
            case("a lone low surrogate escape in assistant text", True,
                 raw_text=ok.replace("The file says hello.", "\\udc00", 1)),
            case("a reversed pair is two lone surrogates", True, raw_text=ok.replace("hello", "\\ude00\\ud83d")),
            case("a lone surrogate in a member name of tool input", True,
                 raw_text=ok.replace('{"path":"a.txt"}', '{"\\udbffpath":"a.txt"}')),
            case("a valid surrogate pair escape is fine", False, raw_text=ok.replace("hello", "\\ud83d\\ude00")),
            case("the text \\\\ud800 (an escaped backslash) is no surrogate", False,
                 raw_text=ok.replace("hello", "\\\\ud800")),
        ],
    )
    # C1 controls are ECMA-48's one-character codings of ESC Fe (CSI U+009B is ESC [): "never any
    # ANSI escapes" reaches them through that equivalence, raw or escaped (issue 23; derived: issue 31).
    write(
        "line",
        "line.c1",
        "stream-json",
        [
            case(
                "C1 CSI (U+009B, ECMA-48's one-character ESC [) escaped in tool input",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"path":"\\u009b31ma.txt"}'),
                at=[(2, "/message/content/0/input/path")],
            ),
            case(
                "C1 CSI (U+009B) written raw (UTF-8 C2 9B) in assistant text",
                True,
                raw_text=ok.replace("The file says hello.", "\u009b31mred", 1),
                at=[(4, "/message/content/0/text")],
            ),
            case(
                "C1 OSC (U+009D) in a tool_result payload",
                True,
                raw_text=ok.replace('"content":"hello"', '"content":"\\u009d0;title\\u0007"'),
                at=[(3, "/message/content/0/content")],
            ),
            case(
                "BEL, tab and DEL are not escapes, and e-caron's UTF-8 bytes (C4 9B) hold no C1 control",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"path":"\u011b\\u0007\\t\\u007f.txt"}'),
            ),
            case(
                "U+00A0 (no-break space, just past C1) is text",
                False,
                raw_text=ok.replace("The file says hello.", "The file\u00a0says hello.", 1),
            ),
            case(
                "NEL (U+0085) raw in a tool_result's free text",
                True,
                raw_text=ok.replace('"content":"hello"', '"content":"a\u0085b"'),
                at=[(3, "/message/content/0/content")],
            ),
            case(
                "a C1 control in a member name",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"\\u0080path":"a.txt"}'),
                at=[(2, "/message/content/0/input/\x80path")],
            ),
            case(
                "ESC is line.ansi's, not this rule's",
                False,
                raw_text=ok.replace("The file says hello.", "\\u001b[31mred", 1),
            ),
        ],
    )
    write(
        "line",
        "line.object",
        "stream-json",
        [
            case("a JSON array line", True, raw_text=first + "\n[1,2]\n" + rest, at=[(2, "")]),
            case("the JSON text null", True, raw_text="null\n", at=[(1, "")]),
            case("a bare string line", True, raw_text=first + '\n"hello"\n' + rest),
            case("objects only", False, raw_text=ok),
        ],
    )
    write(
        "line",
        "line.duplicate-key",
        "stream-json",
        [
            case("seq twice at the top level", True, raw_text=ok.replace('"seq":1,', '"seq":1,"seq":1,'), at=[(2, "")]),
            case(
                "a duplicate deep inside a tool input payload",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"path":"a.txt","opts":{"x":1,"x":2}}'),
                at=[(2, "/message/content/0/input/opts")],
            ),
            case(
                "the same name in sibling objects is fine",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"a":{"x":1},"b":{"x":2}}'),
            ),
        ],
    )
    write(
        "line",
        "line.ansi",
        "stream-json",
        [
            case(
                "a raw ESC byte in assistant text",
                True,
                raw_text=ok.replace("The file says hello.", "\x1b[31mred\x1b[0m", 1),
            ),
            case(
                "an escaped \\u001b colour code in assistant text",
                True,
                raw_text=ok.replace("The file says hello.", "\\u001b[31mred\\u001b[0m", 1),
                at=[(4, "/message/content/0/text")],
            ),
            # "never any ANSI escapes" has no written exception: free-form payloads included.
            case(
                "colour codes inside a tool_result payload (free-form, still no ANSI)",
                True,
                raw_text=ok.replace('"content":"hello"', '"content":"\\u001b[32mok\\u001b[0m"'),
                at=[(3, "/message/content/0/content")],
            ),
            case(
                "colour codes inside extension",
                True,
                raw_text=ok.replace('"cwd":"/work"', '"cwd":"/work","extension":{"banner":"\\u001b[1mx"}'),
                at=[(1, "/extension/banner")],
            ),
            case(
                "ESC in a value of tool_use.input",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"path":"\\u001b[31ma.txt"}'),
                at=[(2, "/message/content/0/input/path")],
            ),
            case("BEL, tab and DEL are not escapes", False,
                 raw_text=ok.replace('{"path":"a.txt"}', '{"path":"\\u0007\\t\\u007f.txt"}')),
            case(
                "C1 CSI (U+009B) is line.c1's (derived), not this rule's",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"path":"\\u009b31ma.txt"}'),
            ),
            case(
                "ESC in a member name (a model_usage key)",
                True,
                raw_text=ok.replace('"model_usage":{"m-1"', '"model_usage":{"m-\\u001b[31m1"'),
                at=[(5, "/model_usage/m-\x1b[31m1")],
            ),
            case(
                "ESC in a member name inside free-form tool input",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"\\u001b[1mpath":"a.txt"}'),
                at=[(2, "/message/content/0/input/\x1b[1mpath")],
            ),
            case(
                "on a stream-json stream, a line of a subagent-stdio type is no exception",
                True,
                raw_text=first + '\n{"type":"response","id":"\\u001b[1m"}\n' + rest,
                at=[(2, "/id")],
            ),
            case(
                "the letters u001b in tool input are plain text",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"path":"u001b[31m.txt"}'),
            ),
        ],
    )
    deep = "[" * 1100 + "]" * 1100
    write(
        "line",
        "line.limit",
        "stream-json",
        [
            case(
                "a tool input nested deeper than 1024 levels",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', deep),
                at=[(2, None)],
            ),
            case(
                "an integer of 5000 digits",
                True,
                raw_text=ok.replace('"duration_ms":1200', '"duration_ms":' + "9" * 5000),
            ),
            case(
                "a tool input nested 100 levels is fine",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', "[" * 100 + "]" * 100),
            ),
            # The tool_use line nests 4 levels down to input (line {}, message {}, content [],
            # block {}); input {"a": ...} adds one more, so 1019 arrays make the line 1024 deep.
            case(
                "a line nested exactly 1024 levels deep is judged normally",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"a":' + "[" * 1019 + "]" * 1019 + "}"),
            ),
            case(
                "a line nested 1025 levels deep",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"a":' + "[" * 1020 + "]" * 1020 + "}"),
                at=[(2, None)],
            ),
            case(
                "a line nested 1025 levels deep behind a number beyond double range",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"x":1e400,"a":' + "[" * 1020 + "]" * 1020 + "}"),
                at=[(2, None)],
            ),
            case(
                "an exponent no decimal can hold",
                True,
                raw_text=ok.replace('{"path":"a.txt"}', '{"x":1e9999999999999999999}'),
                at=[(2, None)],
            ),
            case(
                "a 30-digit integer in a free-form payload is read exactly",
                False,
                raw_text=ok.replace('{"path":"a.txt"}', '{"n":123456789012345678901234567890}'),
            ),
        ],
    )

    sj = "stream-json"
    write(
        sj,
        "sj.schema",
        sj,
        [
            case("seq written as a string", True, lines=edit(setf(1, "/seq", "1")), at=[(2, "/seq")]),
            # "open set: ignore unknown values": an unknown type is judged without the top-level oneOf
            case("an unknown line type is open (every other keyword still holds)", False,
                 lines=edit(setf(3, "/type", "thought"))),
            case("an unknown line type with a member the schema does not model", True,
                 lines=edit(lambda ls: ls[3].update(type="thought", mood="x")), at=[(4, "/mood")]),
            case("an unknown line type without seq", True,
                 lines=edit(lambda ls: (ls[3].update(type="thought"), ls[3].pop("seq"))), at=[(4, "/seq")]),
            case("is_error written as the string false", True, lines=edit(setf(4, "/is_error", "false")),
                 at=[(5, "/is_error")]),
            case("a member the schema does not model", True, lines=edit(setf(4, "/cost", 1)), at=[(5, "/cost")]),
            case(
                "a dual-form Message object is explained at its own bad member",
                True,
                lines=edit(setf(3, "/message/model", "m-1")),
                at=[(4, "/message/model")],
            ),
            case(
                "usage without cache_read",
                True,
                lines=edit(setf(4, "/usage/cache_read", DELETE)),
                at=[(5, "/usage/cache_read")],
            ),
            case("provider detail inside extension is fine", False, lines=edit(setf(4, "/extension", {"cost": 1}))),
            case(
                "seq written as 1.0 is an integer per JSON Schema", False, raw_text=ok.replace('"seq":1,', '"seq":1.0,')
            ),
        ],
    )
    write(
        sj,
        "sj.ts-format",
        sj,
        [
            case("a Unix epoch number as text", True, lines=edit(setf(2, "/ts", "1767225600")), at=[(3, "/ts")]),
            case("no time zone", True, lines=edit(setf(2, "/ts", "2026-03-01T10:00:02"))),
            case("February 30th", True, lines=edit(setf(2, "/ts", "2026-02-30T10:00:02Z"))),
            case("hour 24", True, lines=edit(setf(2, "/ts", "2026-03-01T24:00:02Z"))),
            case(
                "fractional seconds and an offset",
                False,
                lines=edit(setf(2, "/ts", "2026-03-01T11:00:02.123456+01:00")),
            ),
            case("fullwidth digits in the year", True, lines=edit(setf(2, "/ts", "２０２６-03-01T10:00:02Z")),
                 at=[(3, "/ts")]),
            case("Arabic-Indic digits in the second", True, lines=edit(setf(2, "/ts", "2026-03-01T10:00:٠٢Z"))),
            case("mathematical-bold digits in the second", True, lines=edit(setf(2, "/ts", "2026-03-01T10:00:𝟎𝟐Z"))),
            case("second 60 on an ordinary minute (a leap second only at 23:59:60 UTC)", True,
                 lines=edit(setf(4, "/ts", "2026-03-01T10:00:60Z")), at=[(5, "/ts")]),
            case("second 60 at 09:14 UTC", True, lines=edit(setf(4, "/ts", "2026-03-01T09:14:60Z"))),
            case("23:59:60 local time at +01:00 is 22:59:60 UTC", True,
                 lines=edit(setf(4, "/ts", "2026-03-01T23:59:60+01:00"))),
            # RFC 3339 §5.7: "at the end of months" (issue 31): 23:59:60 UTC mid-month is no leap second.
            case("23:59:60Z in the middle of a month (RFC 3339 §5.7: leap seconds end a month)", True,
                 lines=edit(setf(4, "/ts", "2026-03-15T23:59:60Z")), at=[(5, "/ts")]),
            case("23:59:60Z on the first of a month", True, lines=edit(setf(4, "/ts", "2026-03-01T23:59:60Z"))),
            case("15:59:60-08:00 mid-month (23:59:60 UTC, not a month's end)", True,
                 lines=edit(setf(4, "/ts", "2026-03-15T15:59:60-08:00"))),
            case("a leap second at 23:59:60Z at a month's end", False,
                 lines=edit(setf(4, "/ts", "2016-12-31T23:59:60Z"))),
            case("a leap second at 15:59:60-08:00 (23:59:60 UTC on 2016-12-31)", False,
                 lines=edit(setf(4, "/ts", "2016-12-31T15:59:60-08:00"))),
            case("a leap second at 00:29:60+00:30 (23:59:60 UTC the day before, a month's end)", False,
                 lines=edit(setf(4, "/ts", "2017-01-01T00:29:60+00:30"))),
            case("23:59:60Z at the end of a month the table says had none is sj.ts-leap-second's, not this rule's",
                 False, lines=edit(setf(4, "/ts", "2021-12-31T23:59:60Z"))),
            case("lower-case t and z (RFC 3339 §5.6 note)", False, lines=edit(setf(2, "/ts", "2026-03-01t10:00:02z"))),
            case("a ts that is an array is the schema's finding", False, lines=edit(setf(2, "/ts", ["x"]))),
        ],
    )
    # RFC 3339 §5.7 "months in which a leap second occurs": which months, from the IERS table
    # (contract/wires/stream_json/leap_seconds.json), known through 2025-12-31.
    write(
        sj,
        "sj.ts-leap-second",
        sj,
        [
            case("23:59:60Z at the end of December 2021: no leap second that month", True,
                 lines=edit(setf(4, "/ts", "2021-12-31T23:59:60Z")), at=[(5, "/ts")]),
            case("15:59:60-08:00 on 2017-06-30 (23:59:60 UTC at a month's end without one)", True,
                 lines=edit(setf(4, "/ts", "2017-06-30T15:59:60-08:00"))),
            case("00:29:60+00:30 on 2019-01-01 (23:59:60 UTC on 2018-12-31, which had none)", True,
                 lines=edit(setf(4, "/ts", "2019-01-01T00:29:60+00:30"))),
            case("the leap second of 2016-12-31", False, lines=edit(setf(4, "/ts", "2016-12-31T23:59:60Z"))),
            case("the leap second of 2015-06-30 written at -08:00", False,
                 lines=edit(setf(4, "/ts", "2015-06-30T15:59:60-08:00"))),
            case("a month's end after the table (2026-06-30): not judged, the report notes it", False,
                 lines=edit(setf(4, "/ts", "2026-06-30T23:59:60Z"))),
            case("a second 60 mid-month is sj.ts-format's, not this rule's", False,
                 lines=edit(setf(4, "/ts", "2026-03-15T23:59:60Z")), exercised=False),
        ],
    )
    write(
        sj,
        "sj.init-first",
        sj,
        [
            case(
                "an assistant line before init",
                True,
                lines=edit(lambda ls: (ls.insert(0, ls.pop(1)), renumber(ls))),
                at=[(1, "/type")],
            ),
            case("a first line that is not JSON (opaque, but it keeps its place)", True,
                 raw_text="{oops\n" + ok, at=[(1, None)]),
            # A repeated member makes the line opaque (line.duplicate-key, policy), not something
            # other than an object: its type is read from the parse wherever the readings agree.
            case("a first line whose type is repeated with different values: no reading is the line's", True,
                 raw_text=ok.replace('{"type":"system",', '{"type":"system","type":"result",', 1), at=[(1, "/type")]),
            case("a first line whose subtype is repeated with different values", True,
                 raw_text=ok.replace('"subtype":"init",', '"subtype":"init","subtype":"state",', 1),
                 at=[(1, "/type")]),
            case("an init that repeats a member inside extension is still the init (line.duplicate-key alone)", False,
                 raw_text=ok.replace('"subtype":"init",', '"subtype":"init","extension":{"a":1,"a":1},', 1)),
            case("an init with a lone surrogate escape (line.surrogate, policy) is still the init", False,
                 raw_text=ok.replace('"cwd":"/work"', '"cwd":"/w\\udc00rk"', 1)),
            case("an init whose type is repeated with one value is still the init", False,
                 raw_text=ok.replace('{"type":"system",', '{"type":"system","type":"system",', 1)),
            case("system/init is first", False, lines=base()),
        ],
    )
    write(
        sj,
        "sj.init-once",
        sj,
        [
            case("a second init mid-run", True, lines=edit(insert(3, copy.deepcopy(base()[0]))), at=[(4, "/subtype")]),
            case(
                "a system/state line is not an init",
                False,
                lines=edit(insert(3, line(0, "system", subtype="state", session_state="busy"))),
            ),
        ],
    )
    write(
        sj,
        "sj.result-once",
        sj,
        [
            case(
                "two result lines",
                True,
                lines=edit(lambda ls: (ls.append(copy.deepcopy(ls[-1])), renumber(ls))),
                at=[(6, "/type")],
            ),
            case("a second result that repeats a member name is still a second result", True,
                 raw_text=ok + ok.splitlines()[-1].replace('"seq":4', '"seq":5')[:-1] + ',"extension":{"a":1,"a":2}}\n',
                 at=[(6, "/type")]),
            case("one result line", False, lines=base()),
            case("no result line is sj.result-last's (a truncated run), not this rule", False,
                 lines=edit(lambda ls: ls.pop()), exercised=False),
        ],
    )
    write(
        sj,
        "sj.result-last",
        sj,
        [
            case("no result line: a truncated run", True, lines=edit(lambda ls: ls.pop())),
            case(
                "an assistant line after the result",
                True,
                lines=edit(lambda ls: (ls.append(copy.deepcopy(ls[3])), renumber(ls))),
                at=[(6, None)],
            ),
            case("an opaque (not JSON) line after the result", True, raw_text=ok + "{oops\n", at=[(6, None)]),
            case("a last line whose type is repeated with different values may or may not be the result", True,
                 raw_text=_last_line(ok, lambda last: last.replace('{"type":"result",',
                                                                   '{"type":"result","type":"user",', 1)),
                 at=[(5, None)]),
            case("the result is the last line", False, lines=base()),
            case("a result that repeats a member inside extension is still the result (line.duplicate-key alone)",
                 False, raw_text=_last_line(ok, lambda last: last[:-1] + ',"extension":{"a":1,"a":2}}')),
        ],
    )
    # 'a "type" discriminator per line plus "subtype" for the system/result families'
    write(
        sj,
        "sj.subtype",
        sj,
        [
            case("a system line without subtype", True,
                 lines=edit(insert(3, line(0, "system", body="note"))), at=[(4, "/subtype")]),
            case("a result line without subtype", True, lines=edit(setf(4, "/subtype", DELETE)), at=[(5, "/subtype")]),
            case("an unknown system subtype is an open-set value", False,
                 lines=edit(insert(3, line(0, "system", subtype="weather", body="note")))),
            case("a subtype that is a number is the schema's finding alone", False,
                 lines=edit(setf(4, "/subtype", 7))),
            case("an assistant line needs no subtype", False, lines=base()),
        ],
    )
    # A seq whose magnitude is beyond exact reading stops the seq check for that line (fail closed).
    write(
        sj,
        "checker.limit",
        sj,
        [
            case("seq 1e5000: beyond the checker's exact integers", True,
                 raw_text=ok.replace('"seq":2,', '"seq":1e5000,'), at=[(3, "/seq")]),
            case("seq 2e0 is the integer 2, read normally", False, raw_text=ok.replace('"seq":2,', '"seq":2e0,')),
        ],
    )
    # Two rules, two bases (issue 23): "monotonic seq per run" is written (sj.seq: a step back;
    # monotonic allows a repeat); contiguity is derived from the purpose "gap-tolerant consumers
    # can detect dropped lines" (sj.seq-contiguous: a gap or a repeat). Each near miss of one is
    # the other's firing case.
    write(
        sj,
        "sj.seq",
        sj,
        [
            case("a step back: 0, 1, 2, 1", True, lines=edit(setf(3, "/seq", 1)), at=[(4, "/seq")]),
            case("1, 3, 2: a step back (its gap before is sj.seq-contiguous's)", True,
                 lines=edit(numbered(0, 1, 3, 2, 4)), at=[(4, "/seq")]),
            case("a step back written as 1e0 after 2", True, raw_text=ok.replace('"seq":3,', '"seq":1e0,'),
                 at=[(4, "/seq")]),
            case("a repeated seq is monotonic (a repeat is sj.seq-contiguous's, derived)", False,
                 lines=edit(numbered(0, 1, 1, 2, 3))),
            case("1.0, 1.0, 99.0: a repeat, then a gap: monotonic", False,
                 raw_text=seqs(ok, "1.0", "1.0", "99.0", "100", "101")),
            case("seq 1, 5, 6: a gap is still monotonic (sj.seq-contiguous's, derived)", False,
                 lines=edit(numbered(1, 5, 6, 7, 8))),
            case(
                "contiguous from 7 (any start)", False, lines=edit(lambda ls: [o.update(seq=o["seq"] + 7) for o in ls])
            ),
            case(
                "0.0, 1.0, 2.0, 3.0, 4.0: monotonic by value",
                False,
                raw_text=seqs(ok, "0.0", "1.0", "2.0", "3.0", "4.0"),
            ),
            case("70e-1 after 6 is 7", False, raw_text=seqs(ok, "5", "6", "70e-1", "8", "9")),
            case("a non-integral seq 2.5 is the schema's finding, not a step back", False,
                 raw_text=ok.replace('"seq":2,', '"seq":2.5,')),
            case("a seq that is an array is the schema's finding", False, lines=edit(setf(2, "/seq", [2]))),
            case("after a line that is not JSON, a seq above the last one read is monotonic", False,
                 raw_text=ok.replace(rest.split("\n")[1] + "\n", "{oops\n", 1).replace('"seq":3,', '"seq":2,')),
            case("a seq repeated as 1 then 2 after 1: monotonic in both readings", False,
                 raw_text=ok.replace('"seq":2,', '"seq":1,"seq":2,')),
            case("2.0000000000000001 after 1 is no integer (read exactly): the schema's, not a step", False,
                 raw_text=ok.replace('"seq":2,', '"seq":2.0000000000000001,')),
        ],
    )
    write(
        sj,
        "sj.seq-contiguous",
        sj,
        [
            case("seq 1, 5, 6: a gap (the red-team case: derived, not written)", True,
                 lines=edit(numbered(1, 5, 6, 7, 8)), at=[(2, "/seq")]),
            case("a gap: line 3 dropped", True, lines=edit(setf(2, "/seq", 3)), at=[(3, "/seq")]),
            case("a gap written as a double: 3.0 after 1", True, raw_text=ok.replace('"seq":2,', '"seq":3.0,'),
                 at=[(3, "/seq")]),
            case("1.0, 1.0, 99.0: a repeat, then a gap", True,
                 raw_text=seqs(ok, "1.0", "1.0", "99.0", "100", "101"), at=[(2, "/seq"), (3, "/seq")]),
            # A line rejected by framing is opaque but stands for one step of seq.
            case("after a line that is not JSON, a seq that does not step over it", True,
                 raw_text=ok.replace(rest.split("\n")[1] + "\n", "{oops\n", 1).replace('"seq":3,', '"seq":2,'),
                 at=[(4, "/seq")]),
            case("0, 1, 1, 2, 3: a repeat", True, lines=edit(numbered(0, 1, 1, 2, 3)), at=[(3, "/seq")]),
            case("a repeat written as 1e0 after 1", True, raw_text=ok.replace('"seq":2,', '"seq":1e0,'),
                 at=[(3, "/seq")]),
            case("0, 1, 2, 1, 2: the step back is sj.seq's (written), then one step on", False,
                 lines=edit(numbered(0, 1, 2, 1, 2))),
            case(
                "contiguous from 7 (any start)", False, lines=edit(lambda ls: [o.update(seq=o["seq"] + 7) for o in ls])
            ),
            case("0.0, 1.0, 2.0, 3.0, 4.0: contiguous by value", False,
                 raw_text=seqs(ok, "0.0", "1.0", "2.0", "3.0", "4.0")),
            case("a line that is not JSON stands for one seq step", False,
                 raw_text=ok.replace(rest.split("\n")[1] + "\n", "{oops\n", 1)),
            case("a non-integral seq 2.5 stands for one step", False,
                 raw_text=ok.replace('"seq":2,', '"seq":2.5,')),
        ],
    )
    write(
        sj,
        "sj.session",
        sj,
        [
            case(
                "a session id without the sess_ prefix",
                True,
                lines=edit(lambda ls: [o.update(session_id="1d1e46f9-35c7") for o in ls]),
                at=[(1, "/session_id")],
            ),
            case("the session id changes mid-run to another sess_ id: sj.session-constant's (derived)", False,
                 lines=edit(setf(3, "/session_id", "sess_other"))),
            case("sess_ with nothing after it has the prefix: sj.session-suffix's (derived)", False,
                 lines=edit(lambda ls: [o.update(session_id="sess_") for o in ls])),
            case("one sess_ id throughout", False, lines=base()),
            # the description is on every line's member: each line's session_id is judged (issue 46)
            case("a later line's session_id without the sess_ prefix, the first line's with it", True,
                 lines=edit(setf(3, "/session_id", "1d1e46f9-35c7")), at=[(4, "/session_id")]),
            case("the run's id without the prefix is a finding on every line that carries it", True,
                 lines=edit(lambda ls: [o.update(session_id="1d1e46f9-35c7") for o in ls]),
                 at=[(1, "/session_id"), (3, "/session_id"), (5, "/session_id")]),
            case("a later line's other sess_ id has the form: sj.session-constant's alone", False,
                 lines=edit(setf(4, "/session_id", "sess_later"))),
        ],
    )
    # "milk session id (sess_...)": the ellipsis read as an id, one token (issue 31: derived)
    write(
        sj,
        "sj.session-suffix",
        sj,
        [
            case("sess_ with nothing after it", True, lines=edit(lambda ls: [o.update(session_id="sess_") for o in ls]),
                 at=[(1, "/session_id")]),
            case("white space in the id after sess_", True,
                 lines=edit(lambda ls: [o.update(session_id="sess_01 HZX3") for o in ls])),
            case("a one-character id after sess_", False,
                 lines=edit(lambda ls: [o.update(session_id="sess_1") for o in ls])),
            case("no sess_ prefix at all is sj.session's (written)", False,
                 lines=edit(lambda ls: [o.update(session_id="1d1e46f9") for o in ls]), exercised=False),
            case("one sess_ id throughout", False, lines=base()),
            case("a later line's sess_ with nothing after it, the first line's with an id", True,
                 lines=edit(setf(3, "/session_id", "sess_")), at=[(4, "/session_id")]),
            case("a later line's other sess_ id with an id after it: sj.session-constant's alone", False,
                 lines=edit(setf(3, "/session_id", "sess_other"))),
        ],
    )
    # "true when the run failed": that a success reports false is "only then" read (issue 31: derived)
    write(
        sj,
        "sj.result-success",
        sj,
        [
            case("success with is_error true", True,
                 lines=edit(lambda ls: ls[4].update(subtype="success", is_error=True)),
                 at=[(5, "/is_error")]),
            case("success with is_error false", False, lines=base()),
            case("a refusal with is_error true is sj.result-is-error's (written)", False,
                 lines=edit(lambda ls: ls[4].update(subtype="refused", is_error=True)), exercised=False),
        ],
    )
    write(
        sj,
        "sj.session-constant",
        sj,
        [
            case(
                "the session id changes mid-run",
                True,
                lines=edit(setf(3, "/session_id", "sess_other")),
                at=[(4, "/session_id")],
            ),
            case("one id throughout, even without the sess_ form (that is sj.session's)", False,
                 lines=edit(lambda ls: [o.update(session_id="1d1e46f9-35c7") for o in ls])),
            case("a later line's id without the prefix is another id too (and sj.session's)", True,
                 lines=edit(setf(3, "/session_id", "1d1e46f9-35c7")), at=[(4, "/session_id")]),
            case("one sess_ id throughout", False, lines=base()),
        ],
    )
    write(
        sj,
        "sj.result-is-error",
        sj,
        [
            case(
                "is_error missing from the result",
                True,
                lines=edit(setf(4, "/is_error", DELETE)),
                at=[(5, "/is_error")],
            ),
            case(
                "a refusal reported as an error",
                True,
                lines=edit(lambda ls: ls[4].update(subtype="refused", is_error=True)),
            ),
            case(
                "max turns reported as success",
                True,
                lines=edit(lambda ls: ls[4].update(subtype="error_max_turns", is_error=False)),
            ),
            case(
                "an interrupted run with is_error true",
                False,
                lines=edit(lambda ls: ls[4].update(subtype="interrupted", is_error=True)),
            ),
            case(
                "success with is_error true is sj.result-success's (derived), not this rule's",
                False,
                lines=edit(lambda ls: ls[4].update(subtype="success", is_error=True)),
            ),
            case(
                "is_error written as the string false is the schema's finding alone",
                False,
                lines=edit(setf(4, "/is_error", "false")),
            ),
            case(
                "an unknown subtype only needs a boolean",
                False,
                lines=edit(lambda ls: ls[4].update(subtype="budget_exhausted", is_error=True)),
            ),
        ],
    )
    write(
        sj,
        "sj.agent-form",
        sj,
        [
            case("a label string on system/init", True, lines=edit(setf(0, "/agent", "primary")), at=[(1, "/agent")]),
            case(
                "an AgentInfo object on an assistant line",
                True,
                lines=edit(setf(1, "/agent", {"name": "milk", "provider": "anthropic"})),
                at=[(2, "/agent")],
            ),
            case("a number as the agent of an assistant line", True, lines=edit(setf(3, "/agent", 7)),
                 at=[(4, "/agent")]),
            case("null as the agent of a user line", True, lines=edit(setf(2, "/agent", None)), at=[(3, "/agent")]),
            case("an AgentInfo object on a user line", True,
                 lines=edit(setf(2, "/agent", {"name": "milk", "provider": "anthropic"})), at=[(3, "/agent")]),
            case("the escalation label on an assistant line", False, lines=edit(setf(3, "/agent", "escalation"))),
            # The one reading of the dual-form sentences: the form where present, never presence.
            case("system/init without an agent", False, lines=edit(setf(0, "/agent", DELETE))),
            case("an assistant line without an agent", False, lines=edit(setf(1, "/agent", DELETE))),
            case("a user line without an agent", False, lines=edit(setf(2, "/agent", DELETE))),
            case("an unknown role label: primary | escalation are known values of an open set", False,
                 lines=edit(setf(3, "/agent", "secondary"))),
        ],
    )
    write(
        sj,
        "sj.message-form",
        sj,
        [
            case(
                "a Message object on system/error",
                True,
                lines=edit(insert(3, line(0, "system", subtype="error", message={"role": "assistant", "content": []}))),
                at=[(4, "/message")],
            ),
            case("a string message on an assistant line", True, lines=edit(setf(3, "/message", "hello")),
                 at=[(4, "/message")]),
            case("a string message on a user line", True, lines=edit(setf(2, "/message", "hello")),
                 at=[(3, "/message")]),
            case(
                "a string on system/error",
                False,
                lines=edit(insert(3, line(0, "system", subtype="error", message="provider timeout", recoverable=True))),
            ),
            # One reading of every dual-form sentence, on every line type it names: the form where
            # the member is present; the sentence does not make it present (issue 23).
            case("a system/error line without a message: the form sentence does not make it present", False,
                 lines=edit(insert(3, line(0, "system", subtype="error", recoverable=True)))),
            case("an assistant line without a message is sj.message-present's (derived), not the form's", False,
                 lines=edit(setf(3, "/message", DELETE))),
            case("a Message object on a line type the sentence does not name (system/warning)", False,
                 lines=edit(insert(3, line(0, "system", subtype="warning",
                                           message={"role": "assistant", "content": []})))),
        ],
    )
    write(
        sj,
        "sj.message-present",
        sj,
        [
            case("an assistant line without a message", True, lines=edit(setf(3, "/message", DELETE)),
                 at=[(4, "/message")]),
            case("a user line without a message", True, lines=edit(setf(2, "/message", DELETE)),
                 at=[(3, "/message")]),
            case("a string message on an assistant line is there (its form is sj.message-form's)", False,
                 lines=edit(setf(3, "/message", "hello"))),
            case("a system/error line without a message: no words ask for one", False,
                 lines=edit(insert(3, line(0, "system", subtype="error", recoverable=True)))),
        ],
    )
    write(
        sj,
        "sj.tool-result-ref",
        sj,
        [
            case(
                "a tool_result naming an unknown tool_use",
                True,
                lines=edit(setf(2, "/message/content/0/tool_use_id", "tu_9")),
                at=[(3, "/message/content/0/tool_use_id")],
            ),
            case(
                "a tool_result before its tool_use",
                True,
                lines=edit(lambda ls: (ls.insert(1, ls.pop(2)), renumber(ls))),
            ),
            case(
                "a tool_result on an assistant line naming an unknown tool_use",
                True,
                lines=edit(setf(3, "/message/content", [{"type": "tool_result", "tool_use_id": "tu_9"}])),
                at=[(4, "/message/content/0/tool_use_id")],
            ),
            case("a tool_result after its tool_use", False, lines=base()),
            case(
                "a tool_result on an assistant line naming an earlier tool_use",
                False,
                lines=edit(setf(3, "/message/content", [{"type": "tool_result", "tool_use_id": "tu_1"}])),
            ),
            # Blocks count where the wire puts them, both kinds alike (issue 46): on assistant and user
            # lines (their message carries content blocks, oneOf[2] and oneOf[3]), either of them, and
            # on no other line; a line of a type not known is ignored whole (open set) (docs/rules.md)
            case("a tool_use on a user line counts as one on an assistant line", False,
                 lines=edit(lambda ls: (ls[1].update(type="user"), ls[1]["message"].update(role="user")))),
            case("a tool_use only on a line of a type not known is ignored with it: the tool_result names none",
                 True, lines=edit(setf(1, "/type", "assistant_note")), at=[(3, "/message/content/0/tool_use_id")]),
            case("a tool_result on a line of a type not known is ignored with it, as a tool_use there is", False,
                 lines=edit(lambda ls: (ls[2].update(type="user_note"),
                                        ls[2]["message"]["content"][0].update(tool_use_id="tu_9"))),
                 exercised=False),
            case(
                "a tool_use_id that is an array is the schema's finding",
                False,
                lines=edit(setf(2, "/message/content/0/tool_use_id", ["tu_9"])),
                exercised=False,  # the only tool_result names no id the rule can follow
            ),
        ],
    )
    write(
        sj,
        "sj.parent-ref",
        sj,
        [
            case(
                "a nested line naming an unknown parent",
                True,
                lines=edit(setf(3, "/parent_tool_use_id", "tu_404")),
                at=[(4, "/parent_tool_use_id")],
            ),
            case("a nested line naming an earlier tool_use", False, lines=edit(setf(3, "/parent_tool_use_id", "tu_1"))),
        ],
    )
    write(
        sj,
        "sj.tool-args-reassembly",
        sj,
        [
            case(
                "fragments that do not reassemble to the input",
                True,
                lines=tool_args(['{"path":', '"b.txt"}'], {"path": "a.txt"}),
            ),
            case(
                "fragments that are not JSON when joined",
                True,
                lines=tool_args(['{"path":', '"a.txt"'], {"path": "a.txt"}),
            ),
            case("a duplicate member in the reassembly is sj.tool-args-duplicate-key's (policy)", False,
                 lines=tool_args(['{"path":"a.txt",', '"path":"b.txt"}'], {"path": "b.txt"})),
            case("a number streamed as 1.5 for the input 1", True, lines=tool_args(['{"n":1.5}'], {"n": 1})),
            case("true streamed for the input 1", True, lines=tool_args(['{"n":true}'], {"n": 1})),
            case("an integer argument streamed as 1.0 is the number 1", False,
                 lines=tool_args(['{"n":1.0}'], {"n": 1})),
            case("the same member name in sibling objects", False,
                 lines=tool_args(['{"a":{"x":1},', '"b":{"x":1}}'], {"a": {"x": 1}, "b": {"x": 1}})),
            case("arguments nested 900 levels deep", False,
                 lines=tool_args(["[" * 450, "[" * 450 + "]" * 900], NESTED_900)),
            case(
                "fragments that reassemble exactly",
                False,
                lines=tool_args(['{"pa', 'th":"a', '.txt"}'], {"path": "a.txt"}),
            ),
            # Issue 20. A call whose fragments never meet their tool_use, in a run whose result
            # does not say it failed; a fragment after the tool_use that completed the call.
            case('fragments {"a": that never meet a tool_use, in a run whose result says success', True,
                 lines=dangling(['{"a":']), at=[(5, "/event/partial_json")]),
            case("fragments that join to JSON but never meet a tool_use, in a successful run", True,
                 lines=dangling(['{"a":', "1}"]), at=[(5, "/event/partial_json")]),
            case("a fragment after the tool_use, contradicting its input", True,
                 lines=after_tool_use(['{"path":"a.txt"}'], ['{"path":"b.txt"}']), at=[(4, "/event/partial_json")]),
            case("every fragment after the tool_use it spells out", True,
                 lines=after_tool_use([], ['{"path":"a.txt"}']), at=[(3, "/event/partial_json")]),
            case("an empty fragment after the tool_use (it changes no concatenation)", False,
                 lines=after_tool_use(['{"path":"a.txt"}'], [""])),
            case('fragments {"a": that never meet a tool_use, in a run whose result says it failed', False,
                 lines=dangling(['{"a":'], result={"subtype": "interrupted", "is_error": True}), exercised=False),
            case("only empty fragments that never meet a tool_use (no argument text streamed)", False,
                 lines=dangling(["", ""]), exercised=False),
            case("fragments that never meet a tool_use in a truncated run (sj.result-last says so)", False,
                 lines=dangling(['{"a":'], ended=False), exercised=False),
        ],
    )
    write(
        sj,
        "sj.tool-args-duplicate-key",
        sj,
        [
            case("a duplicate member in the reassembly (no last-wins)", True,
                 lines=tool_args(['{"path":"a.txt",', '"path":"b.txt"}'], {"path": "b.txt"}),
                 at=[(4, "/message/content/0/input")]),
            case("a duplicate member deep in the reassembly", True,
                 lines=tool_args(['{"o":{"x":1,', '"x":1}}'], {"o": {"x": 1}})),
            case("the same member name in sibling objects", False,
                 lines=tool_args(['{"a":{"x":1},', '"b":{"x":1}}'], {"a": {"x": 1}, "b": {"x": 1}})),
            case("fragments that do not reassemble to the input are sj.tool-args-reassembly's", False,
                 lines=tool_args(['{"path":', '"b.txt"}'], {"path": "a.txt"})),
        ],
    )
    write(
        sj,
        "sj.capabilities",
        sj,
        [
            case(
                "stream_event without partial_messages_v1",
                True,
                lines=edit(
                    lambda ls: (
                        ls[0].update(capabilities=["stream_v1"]),
                        ls.insert(
                            1,
                            line(
                                0,
                                "stream_event",
                                event={
                                    "type": "content_block_delta",
                                    "index": 0,
                                    "delta": {"type": "text_delta", "text": "Th"},
                                },
                            ),
                        ),
                        renumber(ls),
                    )
                ),
                at=[(2, "/type")],
                strict=True,
            ),
            case(
                "task lines without tasks_v1",
                True,
                lines=edit(
                    lambda ls: (
                        ls[0].update(capabilities=["stream_v1"]),
                        ls.insert(1, line(0, "system", subtype="task_started", task_id="t1")),
                        renumber(ls),
                    )
                ),
                strict=True,
            ),
            case(
                "stream_event with partial_messages_v1 advertised",
                False,
                lines=edit(
                    insert(
                        1,
                        line(
                            0,
                            "stream_event",
                            event={
                                "type": "content_block_delta",
                                "index": 0,
                                "delta": {"type": "text_delta", "text": "Th"},
                            },
                        ),
                    )
                ),
                strict=True,
            ),
        ],
    )
    write(
        sj,
        "sj.usage-rollup",
        sj,
        [
            case(
                "model_usage does not add up to usage",
                True,
                lines=edit(setf(4, "/usage/output_tokens", 6)),
                at=[(5, "/usage/output_tokens")],
                strict=True,
            ),
            case(
                "two models that add up",
                False,
                lines=edit(
                    lambda ls: ls[4].update(usage=usage(30, 9), model_usage={"m-1": usage(10, 5), "m-2": usage(20, 4)})
                ),
                strict=True,
            ),
        ],
    )
    write(
        sj,
        "sj.ts-order",
        sj,
        [
            case(
                "ts goes back a second",
                True,
                lines=edit(setf(3, "/ts", "2026-03-01T10:00:01Z")),
                at=[(4, "/ts")],
                strict=True,
            ),
            case(
                "ts goes back across offsets",
                True,
                lines=edit(setf(3, "/ts", "2026-03-01T10:59:00+01:00")),
                strict=True,
            ),
            case(
                "23:59:59.9 after the leap second 23:59:60 of the same minute",
                True,
                lines=edit(stamps("2016-12-31T23:59:00Z", "2016-12-31T23:59:30Z", "2016-12-31T23:59:60Z",
                                  "2016-12-31T23:59:59.9Z", "2017-01-01T00:00:00Z")),
                at=[(4, "/ts")],
                strict=True,
            ),
            case(
                "23:59:59.5, the leap second 23:59:60, then the next day",
                False,
                lines=edit(stamps("2016-12-31T23:59:00Z", "2016-12-31T23:59:30Z", "2016-12-31T23:59:59.5Z",
                                  "2016-12-31T15:59:60-08:00", "2017-01-01T00:00:00Z")),
                strict=True,
            ),
            case(
                "equal timestamps and a later one with an offset",
                False,
                lines=edit(lambda ls: (ls[2].update(ts=ls[1]["ts"]), ls[3].update(ts="2026-03-01T11:00:03+01:00"))),
                strict=True,
            ),
        ],
    )
    write(
        sj,
        "sj.role-form",
        sj,
        [
            case(
                "role user on an assistant line",
                True,
                lines=edit(setf(3, "/message/role", "user")),
                at=[(4, "/message/role")],
                strict=True,
            ),
            case("matching roles", False, lines=base(), strict=True),
        ],
    )


SA = "subagent-stdio"


def sa_conversation(revisions: list[Any], tokens: str = '"input":10,"output":5,"total":15') -> str:
    """A conversation of one command and response per revision (written as given, e.g. 3.0)."""
    out = []
    for index, revision in enumerate(revisions, 1):
        out.append(f'{{"type":"subagent_status","version":1,"id":"q{index}"}}\n')
        out.append(
            '{"type":"response","command":"subagent_status","success":true,"data":{"version":1,'
            f'"sessionId":"sess_a","epoch":"e1","revision":{revision},"available":true,'
            '"capabilities":{"snapshot":true,"events":true},"fleet":{"version":1,"entries":[],'
            '"totalActive":0,"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},'
            '"runs":[{"key":"r","status":"running","children":[],"omittedChildren":0,'
            f'"tokens":{{{tokens}}}}}],"omitted":{{"runs":0,"children":0}}}},"id":"q{index}"}}\n'
        )
    return "".join(out)


def sa_events(revisions: list[Any]) -> str:
    """Pushed events at the given revisions (envelope and snapshot written alike)."""
    return "".join(
        f'{{"type":"subagent_event","version":1,"sessionId":"sess_a","epoch":"e1","revision":{r},'
        f'"snapshot":{{"version":1,"sessionId":"sess_a","epoch":"e1","revision":{r},"available":true,'
        '"capabilities":{"snapshot":true,"events":true},"fleet":{"version":1,"entries":[],'
        '"totalActive":0,"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},"runs":[],'
        '"omitted":{"runs":0,"children":0}}}\n'
        for r in revisions
    )


def merge(folder: str, rule: str, wire: str, cases: list[dict[str, Any]]) -> None:
    """Add cases to a file kept by hand (the subagent-stdio ones): replace those of the same
    description, keep the rest as they are."""
    path = _folder(folder) / f"{rule}.json"
    kept: list[dict[str, Any]] = []
    if path.exists():
        names = {c["description"] for c in cases}
        kept = [c for c in json.loads(path.read_text(encoding="utf-8"))["cases"] if c["description"] not in names]
    write(folder, rule, wire, kept + cases)


def repeated_names() -> None:
    """A repeated member name (line.duplicate-key, policy) never hides what the line breaks besides:
    the line is judged by its last-wins reading, and the schema by its first-wins reading too; a
    line the machines cannot place (a type read two ways, a lone surrogate) by the schema alone."""
    ok = raw(base())
    merge(sj, "sj.schema", sj, [
        case("a schema break beside a repeated member name (extension holds a twice)", True,
             raw_text=ok.replace('"is_error":false', '"is_error":"no","extension":{"a":1,"a":1}'),
             at=[(5, "/is_error")]),
        case("a schema break in the reading that keeps a repeated member's first value", True,
             raw_text=ok.replace('"is_error":false', '"is_error":"no","is_error":false'), at=[(5, "/is_error")]),
        case("a repeated member whose every reading passes the schema", False,
             raw_text=ok.replace('"is_error":false', '"is_error":false,"extension":{"a":1,"a":2}')),
        # A line whose type is read two ways, or that holds a lone surrogate, is opaque to the
        # machines, but the schema judges every reading of it (an independent reading's case).
        case("a type read two ways whose result reading breaks the schema", True,
             raw_text=ok.replace('{"type":"assistant","session_id":"sess_01HZX3","seq":3',
                                 '{"type":"assistant","type":"result","is_error":"no","session_id":"sess_01HZX3","seq":3'),
             at=[(4, "/is_error")]),
        case("a type read two ways whose every reading passes the schema", False,
             raw_text=ok.replace('{"type":"assistant","session_id":"sess_01HZX3","seq":3',
                                 '{"type":"user","type":"assistant","session_id":"sess_01HZX3","seq":3')),
        case("a schema break beside a lone surrogate", True,
             raw_text=ok.replace('"is_error":false,"result":"The file says hello."',
                                 '"is_error":"no","result":"\\ud800"'),
             at=[(5, "/is_error")]),
        case("a lone surrogate alone: the schema passes the line read with U+FFFD", False,
             raw_text=ok.replace('"result":"The file says hello."', '"result":"\\ud800"')),
    ])
    merge(SA, "sa.schema", SA, [
        case("a type read two ways whose first reading breaks the schema", True,
             raw_text=sa_conversation(["3"]).replace('{"type":"response"',
                                                     '{"type":"subagent_event","type":"response"'),
             at=[(2, p) for p in ("/command", "/version", "/sessionId", "/epoch", "/revision", "/snapshot")]),
        case("a type repeated with one value: the line is read", False,
             raw_text=sa_conversation(["3"]).replace('{"type":"response"', '{"type":"response","type":"response"')),
    ])
    # The machines judge every reading too, each in a copy of their state before the line.
    merge(sj, "sj.seq", sj, [
        case("a step back in the reading that keeps a repeated seq's first value", True,
             raw_text=ok.replace('"seq":2,', '"seq":0,"seq":2,'), at=[(3, "/seq")]),
    ])
    merge(sj, "sj.subtype", sj, [
        case("a type read two ways whose system reading has no subtype", True,
             raw_text=ok.replace('{"type":"assistant","session_id":"sess_01HZX3","seq":3',
                                 '{"type":"assistant","type":"system","session_id":"sess_01HZX3","seq":3'),
             at=[(4, "/subtype")]),
    ])
    merge(sj, "sj.seq-contiguous", sj, [
        case("a seq gap on a line with a repeated member name", True,
             raw_text=ok.replace('"seq":2,', '"seq":7,"extension":{"a":1,"a":1},'), at=[(3, "/seq")]),
    ])


def numbers() -> None:
    """Numbers are judged by exact value (integer-valued forms are integers; nothing rounds)."""
    ok = raw(base())
    merge(sj, "sj.schema", sj, [
        case("seq 2.0000000000000001 is not an integer when read exactly", True,
             raw_text=ok.replace('"seq":2,', '"seq":2.0000000000000001,'), at=[(3, "/seq")]),
        case("seq written as 1e0 is the integer 1", False,
             raw_text=ok.replace('"seq":1,', '"seq":1e0,')),
    ])
    merge(SA, "sa.schema", SA, [
        case("revision 9007199254740991.0000001 exceeds the maximum when read exactly", True,
             raw_text=sa_conversation(["9007199254740991.0000001"]), at=[(2, "/data/revision")]),
        case("revision 2.0000000000000001 is not an integer when read exactly", True,
             raw_text=sa_conversation(["2.0000000000000001"]), at=[(2, "/data/revision")]),
        case("revision 9007199254740991.0 is the maximum itself", False,
             raw_text=sa_conversation(["9007199254740991.0"])),
        case("integer-valued forms 7.0, 70e-1 and 5E0 are integers", False,
             raw_text=sa_conversation(["7.0", "70e-1"], '"input":1e1,"output":5E0,"total":15.0')),
    ])
    merge(SA, "sa.revision-order", SA, [
        case("revision 3.0 after 5 goes back", True,
             raw_text=sa_conversation(["5", "3.0"]), at=[(4, "/data/revision")]),
        case("an event repeats revision 5 as 5e0", True,
             raw_text=sa_events(["5", "5e0"]), at=[(2, "/revision")]),
        case("revisions 5.0 then 6e0 then 60e-1 (a response may repeat)", False,
             raw_text=sa_conversation(["5.0", "6e0", "60e-1"])),
    ])
    merge(SA, "sa.tokens-total", SA, [
        case("total 16.0 is not 10 + 5e0", True,
             raw_text=sa_conversation(["1"], '"input":10,"output":5e0,"total":16.0'),
             at=[(2, "/data/runs/0/tokens/total")]),
        case("total 15.0 is 1e1 + 5", False,
             raw_text=sa_conversation(["1"], '"input":1e1,"output":5,"total":15.0')),
    ])
    # The framing reading of white space around a line, the same on both wires (docs/rules.md, "line.json")
    conversation = sa_conversation(["1"])
    command_line, answer = conversation.split("\n", 1)
    write(SA, "line.json", SA, [
        case("spaces and tabs around a subagent-stdio object are JSON whitespace: one JSON text", False,
             raw_text=" \t" + command_line + "\t \n" + answer),
        case("a form feed after a subagent-stdio object is not JSON whitespace", True,
             raw_text=command_line + "\f\n" + answer, at=[(1, None)]),
    ])
    write(SA, "line.newline", SA, [
        case("a CR after a subagent-stdio object, among spaces, before its LF", True,
             raw_text=command_line + " \r\n" + answer, at=[(1, None)]),
        case("a CR escaped inside a subagent-stdio string is data, not framing", False,
             raw_text=conversation.replace('"key":"r"', '"key":"a\\r\\nb"')),
    ])
    # line.ansi is a stream-json rule: the subagent-stdio seed has no such words.
    write(SA, "line.c1", SA, [
        case("a C1 control inside a subagent-stdio string is not a line.c1 finding", False,
             raw_text=sa_conversation(["1"]).replace('"key":"r"', '"key":"\\u009b31mr"')),
    ])
    write(SA, "line.ansi", SA, [
        case("ESC inside a subagent-stdio string is not a line.ansi finding", False,
             raw_text=sa_conversation(["1"]).replace('"key":"r"', '"key":"\\u001b[31mr"')),
        case("ESC inside a subagent-stdio member name is not a line.ansi finding", False,
             raw_text=sa_events(["1"]).replace('"runs":[]', '"runs":[],"\\u001b[1m":1')),
        case("a raw ESC line between subagent-stdio lines is line.json's, not line.ansi", False,
             raw_text=sa_conversation(["1"]).replace("\n", "\n\x1b[2J\n", 1)),
    ])


def minimal() -> list[dict[str, Any]]:
    """init and result only: no assistant or user line, no tool_use, no model_usage."""
    init, result = base()[0], base()[4]
    del result["model_usage"]
    result["seq"], result["ts"] = 1, "2026-03-01T10:00:01Z"
    return [init, result]


def without(name: str, lines: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for obj in lines:
        obj.pop(name, None)
    return lines


def idle() -> None:
    """One not-exercised case per rule: a stream that holds nothing the rule applies to.

    The rule must stay quiet and its requirement verdict must be not-exercised (never passed).
    sj.init-first and sj.result-last have none: they judge the end of every stream, an empty
    one included (contract.rules.requirements.always_judged_rules()).
    """
    empty = case("an empty stream: no line to judge", False, raw_text="", exercised=False)
    for rule in ("line.utf8", "line.newline", "line.blank", "line.json", "line.object",
                 "line.duplicate-key", "line.limit", "line.ansi", "line.c1", "line.surrogate"):
        merge("line", rule, sj, [empty])
    only_init = [base()[0]]
    stream_json = {
        "sj.schema": case("no JSON object line for the schema to judge", False, raw_text="[1]\n", exercised=False),
        "sj.init-once": case("no system/init line", False, lines=base()[1:], exercised=False),
        "sj.result-once": case("no result line (a truncated run)", False, lines=only_init, exercised=False),
        "sj.seq": case("a single line: no seq to compare with", False, lines=only_init, exercised=False),
        "sj.seq-contiguous": case("a single line: no seq to compare with", False, lines=only_init,
                                  exercised=False),
        "sj.session": case("no session_id on any line", False, lines=without("session_id", base()),
                           exercised=False),
        "sj.session-constant": case("no session_id on any line", False, lines=without("session_id", base()),
                                    exercised=False),
        "sj.ts-format": case("no ts on any line", False, lines=without("ts", base()), exercised=False),
        "sj.ts-order": case("a single line: no ts to compare with", False, lines=only_init, exercised=False),
        "sj.agent-form": case("no agent on any line", False, lines=without("agent", base()), exercised=False),
        "sj.message-form": case("init and result only: no message", False, lines=minimal(), exercised=False),
        "sj.message-present": case("init and result only: no assistant or user line", False, lines=minimal(),
                                   exercised=False),
        "sj.role-form": case("init and result only: no role", False, lines=minimal(), exercised=False),
        "sj.result-is-error": case("no result line", False, lines=only_init, exercised=False),
        "sj.result-success": case("no result line", False, lines=only_init, exercised=False),
        "sj.session-suffix": case("no session_id on any line", False, lines=without("session_id", base()),
                                  exercised=False),
        "sj.ts-leap-second": case("no second 60 on any line", False, lines=base(), exercised=False),
        "sj.usage-rollup": case("a result without model_usage", False, lines=minimal(), exercised=False),
        "sj.capabilities": case("no stream_event or task line", False, lines=minimal(), exercised=False),
        "sj.tool-result-ref": case("no tool_result block", False, lines=minimal(), exercised=False),
        "sj.parent-ref": case("no parent_tool_use_id", False, lines=base(), exercised=False),
        "sj.tool-args-reassembly": case("a tool_use without tool_args_delta fragments", False, lines=base(),
                                        exercised=False),
        "sj.tool-args-duplicate-key": case("a tool_use without tool_args_delta fragments", False, lines=base(),
                                           exercised=False),
        "sj.subtype": case("no system or result line", False, lines=base()[1:4], exercised=False),
    }
    for rule, each in stream_json.items():
        merge(sj, rule, sj, [each])
    one = sa_conversation(["1"])
    subagent = {
        "sa.schema": case("no JSON object line for the schema to judge", False, raw_text="[1]\n",
                          exercised=False),
        "sa.response-correlation": case("events only: no command to answer", False, raw_text=sa_events(["1"]),
                                        exercised=False),
        "sa.event-envelope": case("no event", False, raw_text=one, exercised=False),
        "sa.revision-order": case("a single snapshot: no revision to compare with", False, raw_text=one,
                                  exercised=False),
        "sa.events-capability": case("no event", False, raw_text=one, exercised=False),
        "sa.unique-keys": case("one run and no fleet entry: no siblings", False, raw_text=one, exercised=False),
        "sa.fleet-counts": case("a fleet without totalActive", False,
                                raw_text=one.replace('"totalActive":0,', ""), exercised=False),
        "sa.capacity": case("a fleet without topLevelAsyncCapacity", False,
                            raw_text=one.replace('"topLevelAsyncCapacity":{"used":0,"limit":4},', ""),
                            exercised=False),
        "sa.tokens-total": case("no tokens: no runs and no fleet entries", False, raw_text=sa_events(["1"]),
                                exercised=False),
        "sa.node-times": case("a node without times", False, raw_text=one, exercised=False),
        "sa.outcome": case("a node without outcome", False, raw_text=one, exercised=False),
        "sa.unavailable": case("available true", False, raw_text=one, exercised=False),
    }
    for rule, each in subagent.items():
        merge(SA, rule, SA, [each])


sj = "stream-json"

if __name__ == "__main__":
    main()
    numbers()
    repeated_names()
    idle()
