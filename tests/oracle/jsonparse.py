"""A plain, non-recursive RFC 8259 parser for the oracle.

It exists so that the oracle never inherits a library's reading: numbers come back as exact
``Decimal`` values, repeated member names are reported (with their JSON pointer) at any depth,
``NaN``/``Infinity`` and every other non-RFC-8259 form are syntax errors, and nesting depth is
tracked with an explicit stack, so a deep line cannot raise ``RecursionError``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TypeAlias

JSONValue: TypeAlias = "bool | Decimal | str | list[JSONValue] | dict[str, JSONValue] | None"

# RFC 8259 section 7: a string is '"' *char '"', where char excludes the C0 controls, '"' and '\'
# unless escaped; escapes are \" \\ \/ \b \f \n \r \t and \uXXXX (hex digits, ASCII only).
_STRING = re.compile(r'"(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9A-Fa-f]{4})*"')
# RFC 8259 section 6, ASCII digits only (a Unicode digit is not a JSON digit).
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_WS = " \t\n\r"


class JSONSyntaxError(ValueError):
    """The text is not one RFC 8259 JSON text."""


class JSONLimitError(ValueError):
    """Valid JSON that the oracle cannot read exactly (an exponent no Decimal can hold)."""


@dataclass
class Parsed:
    """What one line parses to, plus the facts the oracle needs about it."""

    value: JSONValue
    duplicate_pointers: list[str] = field(default_factory=list)
    max_depth: int = 0
    longest_integer_digits: int = 0
    # The repeats of the outermost object's members (name, the value after the first): which
    # reading wins is unpredictable, so the oracle reads a repeated type only where all agree.
    top_repeats: list[tuple[str, JSONValue]] = field(default_factory=list)
    # An unpaired surrogate escape in a string or member name: RFC 8259 §8.2 admits it (JSON, but
    # "unpredictable"), so the text parses and the oracle's caller decides (line.surrogate, policy).
    lone_surrogate: bool = False


def _escape_pointer_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def parse(text: str, last_wins: bool = False) -> Parsed:
    """Parse ``text`` as exactly one JSON text (surrounding JSON whitespace allowed).

    A repeated member name keeps its first value, or with ``last_wins`` its last (the reading of
    Python's json, orjson and JavaScript's JSON.parse); either way it is reported."""
    # Frames of the explicit stack: (container, pointer, pending member name or None).
    stack: list[tuple[list[JSONValue] | dict[str, JSONValue], str, list[str | None]]] = []
    dups: list[str] = []
    repeats: list[tuple[str, JSONValue]] = []
    lone = False
    max_depth = 0
    longest_int = 0
    pos = 0
    n = len(text)
    result: JSONValue = None
    have_result = False

    def skip_ws(p: int) -> int:
        while p < n and text[p] in _WS:
            p += 1
        return p

    # State machine: "value" expects a value; "after" expects ',' or a closer (or end at top level);
    # "key" expects a member name (or '}' right after '{').
    state = "value"
    first_in_container = False
    while True:
        pos = skip_ws(pos)
        if state == "value":
            if pos >= n:
                raise JSONSyntaxError("unexpected end of text, expected a value")
            ch = text[pos]
            value: JSONValue
            if ch == "{" or ch == "[":
                container: list[JSONValue] | dict[str, JSONValue] = {} if ch == "{" else []
                pointer = stack[-1][1] + "/" + _escape_pointer_token(_current_token(stack)) if stack else ""
                _attach(stack, container, repeats, last_wins)
                stack.append((container, pointer, [None]))
                max_depth = max(max_depth, len(stack))
                pos += 1
                first_in_container = True
                state = "key" if ch == "{" else "value"
                if ch == "[":
                    pos = skip_ws(pos)
                    if pos < n and text[pos] == "]":
                        pos += 1
                        stack.pop()
                        state = "after"
                        if not stack:
                            result, have_result = container, True
                    continue
                continue
            if ch == '"':
                m = _STRING.match(text, pos)
                if m is None:
                    raise JSONSyntaxError(f"bad string at offset {pos}")
                value = _text(m.group(0))
                lone = lone or _LONE_SURROGATE.search(value) is not None
                pos = m.end()
            elif ch == "-" or "0" <= ch <= "9":
                m = _NUMBER.match(text, pos)
                if m is None:
                    raise JSONSyntaxError(f"bad number at offset {pos}")
                tok = m.group(0)
                try:
                    value = Decimal(tok)
                except ArithmeticError:  # 1e9999999999999999999: grammatical, but no Decimal holds it
                    raise JSONLimitError(f"a number whose exponent cannot be held: {tok[:40]}") from None
                if "." not in tok and "e" not in tok and "E" not in tok:
                    # Only digits as written count against the limit: 1e5000 is read exactly as a
                    # Decimal; a rule that would have to expand it says so itself (checker.limit).
                    longest_int = max(longest_int, len(tok.lstrip("-")))
                pos = m.end()
            elif text.startswith("true", pos):
                value, pos = True, pos + 4
            elif text.startswith("false", pos):
                value, pos = False, pos + 5
            elif text.startswith("null", pos):
                value, pos = None, pos + 4
            else:
                raise JSONSyntaxError(f"unexpected character at offset {pos}")
            if stack:
                _attach(stack, value, repeats, last_wins)
            else:
                result, have_result = value, True
            state = "after"
            continue
        if state == "key":
            if pos < n and text[pos] == "}" and first_in_container:
                pos += 1
                done = stack.pop()[0]
                state = "after"
                if not stack:
                    result, have_result = done, True
                continue
            m = _STRING.match(text, pos) if pos < n else None
            if m is None:
                raise JSONSyntaxError(f"expected a member name at offset {pos}")
            name = _text(m.group(0))
            lone = lone or _LONE_SURROGATE.search(name) is not None
            pos = skip_ws(m.end())
            if pos >= n or text[pos] != ":":
                raise JSONSyntaxError(f"expected ':' at offset {pos}")
            pos += 1
            obj, ptr, pending = stack[-1]
            assert isinstance(obj, dict)
            if name in obj:
                dups.append(ptr + "/" + _escape_pointer_token(name))
            pending[0] = name
            first_in_container = False
            state = "value"
            continue
        # state == "after"
        first_in_container = False
        if not stack:
            if pos != n:
                raise JSONSyntaxError(f"trailing characters at offset {pos}")
            break
        if pos >= n:
            raise JSONSyntaxError("unexpected end of text inside a container")
        ch = text[pos]
        container = stack[-1][0]
        if ch == ",":
            pos += 1
            state = "key" if isinstance(container, dict) else "value"
            continue
        if (ch == "}" and isinstance(container, dict)) or (ch == "]" and isinstance(container, list)):
            pos += 1
            stack.pop()
            if not stack:
                result, have_result = container, True
            continue
        raise JSONSyntaxError(f"expected ',' or a closer at offset {pos}")
    assert have_result
    return Parsed(result, dups, max_depth, longest_int, repeats, lone)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def _text(literal: str) -> str:
    """A string literal's text. An unpaired surrogate escape ("\\ud800") decodes to a lone
    surrogate, which ``parse`` flags (``Parsed.lone_surrogate``); a valid pair decodes to one code
    point, never matched."""
    text: str = json.loads(literal)
    return text


def _current_token(stack: list[tuple[list[JSONValue] | dict[str, JSONValue], str, list[str | None]]]) -> str:
    container, _, pending = stack[-1]
    if isinstance(container, dict):
        return pending[0] or ""
    return str(len(container))


def _attach(
    stack: list[tuple[list[JSONValue] | dict[str, JSONValue], str, list[str | None]]], value: JSONValue,
    repeats: list[tuple[str, JSONValue]], last_wins: bool = False,
) -> None:
    if not stack:
        return
    container, _, pending = stack[-1]
    if isinstance(container, dict):
        name = pending[0]
        assert name is not None
        # Keep the first occurrence (or the last): the duplicate is reported, never silently merged.
        if name not in container:
            container[name] = value
        else:
            if len(stack) == 1:
                repeats.append((name, value))
            if last_wins:
                container[name] = value
    else:
        container.append(value)


def max_depth_of_bytes(raw: bytes) -> int:
    """Nesting depth of a JSON-ish line, counted on the raw bytes outside strings, without parsing."""
    depth = 0
    deepest = 0
    in_string = False
    escaped = False
    for b in raw:
        if in_string:
            if escaped:
                escaped = False
            elif b == 0x5C:
                escaped = True
            elif b == 0x22:
                in_string = False
        elif b == 0x22:
            in_string = True
        elif b in (0x7B, 0x5B):
            depth += 1
            deepest = max(deepest, depth)
        elif b in (0x7D, 0x5D):
            depth = max(0, depth - 1)
    return deepest
