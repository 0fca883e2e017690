"""stream-json's cases of the framing rules every wire shares (``line.*``, in tests/cases/line/):
bytes that are not UTF-8, line endings, blank lines, what is not one JSON object, repeated member
names, escapes, surrogates and limits, each the base stream (``lines.OK``) with one change."""

from __future__ import annotations

from contract.wires.casefiles import Case, Table, case
from contract.wires.stream_json.kit.cases.lines import DEEP, FIRST, OK, REST


def line_utf8() -> list[Case]:
    return [
        case("a BOM before the first line", True, raw_hex="efbbbf" + OK.encode().hex(), at=[(1, None)]),
        case(
            "a Latin-1 byte inside a string",
            True,
            raw_hex=OK.replace("hello", "h\x00llo").encode().hex().replace("00", "e9", 1),
            at=[(3, None)],
        ),
        case("non-ASCII text written as UTF-8 is fine", False, raw_text=OK.replace("hello", "héllo ✓")),
    ]


def line_newline() -> list[Case]:
    return [
        case("CR LF line endings", True, raw_text=OK.replace("\n", "\r\n"), at=[(1, None)]),
        case("the last line has no LF (cut mid-stream)", True, raw_text=OK[:-1], at=[(5, None)]),
        case("a bare CR between two objects", True, raw_text=FIRST + "\r" + "\n" + REST),
        case("a CR escaped inside a string is data, not framing", False, raw_text=OK.replace("hello", "a\\r\\nb")),
        # CR is JSON whitespace (RFC 8259 §2), but on a line-framed wire it is a line terminator to
        # common readers (universal newlines, CR LF): "one trailing newline" is LF, so a raw CR is
        # this rule's wherever it stands outside a string, beside spaces and tabs or not (docs/rules.md)
        case("a CR after the object, among spaces and tabs, before its LF", True,
             raw_text=FIRST + " \t\r\n" + REST, at=[(1, None)]),
        case("a CR before the object", True, raw_text="\r" + FIRST + "\n" + REST, at=[(1, None)]),
    ]


def line_blank() -> list[Case]:
    return [
        case("an empty line between records", True, raw_text=FIRST + "\n\n" + REST, at=[(2, None)]),
        case("a whitespace-only line", True, raw_text=FIRST + "\n \t \n" + REST),
        case("whitespace inside a string value", False, raw_text=OK.replace("hello", "   ")),
    ]


def line_json() -> list[Case]:
    return [
        case(
            "NaN as a number", True, raw_text=OK.replace('"duration_ms":1200', '"duration_ms":NaN'), at=[(5, None)]
        ),
        case("Infinity as a number", True, raw_text=OK.replace('"duration_ms":1200', '"duration_ms":-Infinity')),
        case("two objects on one line", True, raw_text=FIRST + FIRST + "\n" + REST),
        case("trailing garbage after the object", True, raw_text=FIRST + " x\n" + REST),
        # the line is one JSON text (RFC 8259 §2: ws value ws) whose value is an object: spaces and
        # tabs around it are its JSON whitespace; a form feed is not JSON whitespace (docs/rules.md)
        case("spaces and tabs around the object are JSON whitespace: one JSON text", False,
             raw_text=" \t" + FIRST + "\t \n" + REST),
        case("a form feed after the object is not JSON whitespace", True, raw_text=FIRST + "\f\n" + REST,
             at=[(1, None)]),
        case(
            "a number beyond double range is valid RFC 8259 JSON (read exactly)",
            False,
            raw_text=OK.replace('"duration_ms":1200', '"duration_ms":1e999'),
        ),
        case(
            "numbers beyond double range and below it in free-form tool input",
            False,
            raw_text=OK.replace('{"path":"a.txt"}', '{"a":1e400,"b":-1e400,"c":1e-400}'),
        ),
        case(
            "a raw ESC control character inside a string",
            True,
            raw_text=OK.replace("The file says hello.", "\x1b[31mred", 1),
        ),
        case("a lone surrogate escape is JSON (RFC 8259 §8.2): line.surrogate's (policy), not this rule's", False,
             raw_text=OK.replace("hello", "\\ud800")),
        case("a valid surrogate pair escape is fine", False, raw_text=OK.replace("hello", "\\ud83d\\ude00")),
        case("the word NaN inside a string is fine", False, raw_text=OK.replace("hello", "NaN Infinity")),
    ]


def line_surrogate() -> list[Case]:
    # RFC 8259 §8.2 admits a lone surrogate escape ("unpredictable"): rejecting it is policy (issue 31).
    return [
        case("a lone high surrogate escape in a tool_result", True, raw_text=OK.replace("hello", "\\ud800"),
             at=[(3, "/message/content/0/content")]),
        case("a lone low surrogate escape in assistant text", True,
             raw_text=OK.replace("The file says hello.", "\\udc00", 1)),
        case("a reversed pair is two lone surrogates", True, raw_text=OK.replace("hello", "\\ude00\\ud83d")),
        case("a lone surrogate in a member name of tool input", True,
             raw_text=OK.replace('{"path":"a.txt"}', '{"\\udbffpath":"a.txt"}')),
        case("a valid surrogate pair escape is fine", False, raw_text=OK.replace("hello", "\\ud83d\\ude00")),
        case("the text \\\\ud800 (an escaped backslash) is no surrogate", False,
             raw_text=OK.replace("hello", "\\\\ud800")),
    ]


def line_c1() -> list[Case]:
    # C1 controls are ECMA-48's one-character codings of ESC Fe (CSI U+009B is ESC [): "never any
    # ANSI escapes" reaches them through that equivalence, raw or escaped (issue 23; derived: issue 31).
    return [
        case(
            "C1 CSI (U+009B, ECMA-48's one-character ESC [) escaped in tool input",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"path":"\\u009b31ma.txt"}'),
            at=[(2, "/message/content/0/input/path")],
        ),
        case(
            "C1 CSI (U+009B) written raw (UTF-8 C2 9B) in assistant text",
            True,
            raw_text=OK.replace("The file says hello.", "\u009b31mred", 1),
            at=[(4, "/message/content/0/text")],
        ),
        case(
            "C1 OSC (U+009D) in a tool_result payload",
            True,
            raw_text=OK.replace('"content":"hello"', '"content":"\\u009d0;title\\u0007"'),
            at=[(3, "/message/content/0/content")],
        ),
        case(
            "BEL, tab and DEL are not escapes, and e-caron's UTF-8 bytes (C4 9B) hold no C1 control",
            False,
            raw_text=OK.replace('{"path":"a.txt"}', '{"path":"\u011b\\u0007\\t\\u007f.txt"}'),
        ),
        case(
            "U+00A0 (no-break space, just past C1) is text",
            False,
            raw_text=OK.replace("The file says hello.", "The file\u00a0says hello.", 1),
        ),
        case(
            "NEL (U+0085) raw in a tool_result's free text",
            True,
            raw_text=OK.replace('"content":"hello"', '"content":"a\u0085b"'),
            at=[(3, "/message/content/0/content")],
        ),
        case(
            "a C1 control in a member name",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"\\u0080path":"a.txt"}'),
            at=[(2, "/message/content/0/input/\x80path")],
        ),
        case(
            "ESC is line.ansi's, not this rule's",
            False,
            raw_text=OK.replace("The file says hello.", "\\u001b[31mred", 1),
        ),
    ]


def line_object() -> list[Case]:
    return [
        case("a JSON array line", True, raw_text=FIRST + "\n[1,2]\n" + REST, at=[(2, "")]),
        case("the JSON text null", True, raw_text="null\n", at=[(1, "")]),
        case("a bare string line", True, raw_text=FIRST + '\n"hello"\n' + REST),
        case("objects only", False, raw_text=OK),
    ]


def line_duplicate_key() -> list[Case]:
    return [
        case("seq twice at the top level", True, raw_text=OK.replace('"seq":1,', '"seq":1,"seq":1,'), at=[(2, "")]),
        case(
            "a duplicate deep inside a tool input payload",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"path":"a.txt","opts":{"x":1,"x":2}}'),
            at=[(2, "/message/content/0/input/opts")],
        ),
        case(
            "the same name in sibling objects is fine",
            False,
            raw_text=OK.replace('{"path":"a.txt"}', '{"a":{"x":1},"b":{"x":2}}'),
        ),
    ]


def line_ansi() -> list[Case]:
    return [
        case("a raw ESC byte in assistant text", True,
             raw_text=OK.replace("The file says hello.", "\x1b[31mred\x1b[0m", 1)),
        case(
            "an escaped \\u001b colour code in assistant text",
            True,
            raw_text=OK.replace("The file says hello.", "\\u001b[31mred\\u001b[0m", 1),
            at=[(4, "/message/content/0/text")],
        ),
        # "never any ANSI escapes" has no written exception: free-form payloads included.
        case(
            "colour codes inside a tool_result payload (free-form, still no ANSI)",
            True,
            raw_text=OK.replace('"content":"hello"', '"content":"\\u001b[32mok\\u001b[0m"'),
            at=[(3, "/message/content/0/content")],
        ),
        case(
            "colour codes inside extension",
            True,
            raw_text=OK.replace('"cwd":"/work"', '"cwd":"/work","extension":{"banner":"\\u001b[1mx"}'),
            at=[(1, "/extension/banner")],
        ),
        case(
            "ESC in a value of tool_use.input",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"path":"\\u001b[31ma.txt"}'),
            at=[(2, "/message/content/0/input/path")],
        ),
        case("BEL, tab and DEL are not escapes", False,
             raw_text=OK.replace('{"path":"a.txt"}', '{"path":"\\u0007\\t\\u007f.txt"}')),
        case("C1 CSI (U+009B) is line.c1's (derived), not this rule's", False,
             raw_text=OK.replace('{"path":"a.txt"}', '{"path":"\\u009b31ma.txt"}')),
        case(
            "ESC in a member name (a model_usage key)",
            True,
            raw_text=OK.replace('"model_usage":{"m-1"', '"model_usage":{"m-\\u001b[31m1"'),
            at=[(5, "/model_usage/m-\x1b[31m1")],
        ),
        case(
            "ESC in a member name inside free-form tool input",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"\\u001b[1mpath":"a.txt"}'),
            at=[(2, "/message/content/0/input/\x1b[1mpath")],
        ),
        case(
            "on a stream-json stream, a line of a subagent-stdio type is no exception",
            True,
            raw_text=FIRST + '\n{"type":"response","id":"\\u001b[1m"}\n' + REST,
            at=[(2, "/id")],
        ),
        case("the letters u001b in tool input are plain text", False,
             raw_text=OK.replace('{"path":"a.txt"}', '{"path":"u001b[31m.txt"}')),
    ]


def line_limit() -> list[Case]:
    return [
        case(
            "a tool input nested deeper than 1024 levels",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', DEEP),
            at=[(2, None)],
        ),
        case(
            "an integer of 5000 digits",
            True,
            raw_text=OK.replace('"duration_ms":1200', '"duration_ms":' + "9" * 5000),
        ),
        case(
            "a tool input nested 100 levels is fine",
            False,
            raw_text=OK.replace('{"path":"a.txt"}', "[" * 100 + "]" * 100),
        ),
        # The tool_use line nests 4 levels down to input (line {}, message {}, content [],
        # block {}); input {"a": ...} adds one more, so 1019 arrays make the line 1024 deep.
        case(
            "a line nested exactly 1024 levels deep is judged normally",
            False,
            raw_text=OK.replace('{"path":"a.txt"}', '{"a":' + "[" * 1019 + "]" * 1019 + "}"),
        ),
        case(
            "a line nested 1025 levels deep",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"a":' + "[" * 1020 + "]" * 1020 + "}"),
            at=[(2, None)],
        ),
        case(
            "a line nested 1025 levels deep behind a number beyond double range",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"x":1e400,"a":' + "[" * 1020 + "]" * 1020 + "}"),
            at=[(2, None)],
        ),
        case(
            "an exponent no decimal can hold",
            True,
            raw_text=OK.replace('{"path":"a.txt"}', '{"x":1e9999999999999999999}'),
            at=[(2, None)],
        ),
        case(
            "a 30-digit integer in a free-form payload is read exactly",
            False,
            raw_text=OK.replace('{"path":"a.txt"}', '{"n":123456789012345678901234567890}'),
        ),
    ]


CASES: Table = (
    ("line", "line.utf8", line_utf8),
    ("line", "line.newline", line_newline),
    ("line", "line.blank", line_blank),
    ("line", "line.json", line_json),
    ("line", "line.surrogate", line_surrogate),
    ("line", "line.c1", line_c1),
    ("line", "line.object", line_object),
    ("line", "line.duplicate-key", line_duplicate_key),
    ("line", "line.ansi", line_ansi),
    ("line", "line.limit", line_limit),
)
