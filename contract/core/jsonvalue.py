"""Small helpers about JSON values, each in one place: clipping, pointers, kinds, equality.

Parsed lines hold ``dict``, ``list``, ``str``, ``bool``, ``None`` and numbers as ``int``,
``float`` or ``Decimal`` (``contract.core.jsonline`` keeps numbers a double cannot hold exactly).
Three equalities are in use, named for what they mean:

- :func:`same_value`: JSON Schema equality (numbers by exact value, so ``1``, ``1.0`` and
  ``Decimal("1.0")`` are one number; a boolean is never a number; deep, iterative);
- :func:`same_text`: the same canonical JSON text (sorted member names): what a schema
  document says, where ``1`` and ``1.0`` are different words;
- :func:`same_type_and_value`: Python equality of values of one Python type (a ``const``
  whose type must match too).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Any

ELLIPSIS = "…"
_NUMBERS = (int, float, Decimal)


def clip(text: str, limit: int = 60) -> str:
    """At most ``limit`` characters, an ellipsis marking a cut (bounded messages for any input)."""
    return text if len(text) <= limit else text[: limit - 1] + ELLIPSIS


def quoted(text: str) -> str:
    """``text`` in quotes for a message, its characters as they are (``'x'``, or ``"it's"``).

    Not ``repr``: repr escapes in its own way (``\\x1b``, ``\\u202e``), a second escaping on top
    of the one every reporter applies (``contract.core.textsafe``). A message holds the raw value; the
    reporter that prints it shows each unsafe character once, in the one visible form.
    """
    quote = '"' if "'" in text and '"' not in text else "'"
    return quote + text + quote


def shown(value: Any) -> str:
    """Any JSON value for a message: a string :func:`quoted` (raw, escaped once by the reporter),
    anything else as its JSON text (``1``, ``true``, ``null``), never ``repr``."""
    if isinstance(value, str):
        return quoted(value)
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):  # a value JSON cannot write: its own text
        return str(value)


def escape(token: str) -> str:
    """Escape one JSON pointer reference token (RFC 6901)."""
    return token.replace("~", "~0").replace("/", "~1")


def tokens(pointer: str) -> list[str]:
    """The reference tokens of a JSON pointer (RFC 6901), unescaped; a leading ``#`` is a URI fragment's."""
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.lstrip("#").split("/")[1:]]


def resolve(document: Any, pointer: str) -> tuple[bool, Any]:
    """What ``pointer`` names in ``document``: (found, the value found or None). Never raises."""
    for token in tokens(pointer):
        if isinstance(document, Mapping) and token in document:
            document = document[token]
        elif isinstance(document, list) and token.isdigit() and int(token) < len(document):
            document = document[int(token)]
        else:
            return False, None
    return True, document


def pointer(path: Iterable[Any]) -> str:
    """The JSON pointer of a path of member names and array indexes ("" for the root)."""
    return "".join(f"/{escape(str(part))}" for part in path)


def kind(value: Any) -> str:
    """A value's JSON kind with its article, for messages: "a string", "an array", "null"..."""
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", Decimal: "a number", str: "a string",
            list: "an array", dict: "an object"}.get(type(value), type(value).__name__)


def type_name(value: Any) -> str:
    """A value's JSON Schema type name: "boolean", "integer", "number", "string", "array"..."""
    if value is None:
        return "null"
    return {bool: "boolean", int: "integer", float: "number", Decimal: "number", str: "string", list: "array",
            dict: "object"}.get(type(value), type(value).__name__)


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: numbers by exact value, every other kind by type and value.

    Python says 1 == True, so booleans are kept apart from numbers; numbers compare by their
    exact value whatever type the parser gave them (1, 1.0 and Decimal("1.0") are one JSON
    number, as JSON Schema's equality has it; Decimal comparison is exact, no context rounding).
    Iterative: a value may nest as deep as the parser allows, deeper than Python recurses.
    """
    stack: list[tuple[Any, Any]] = [(a, b)]
    while stack:
        x, y = stack.pop()
        tx, ty = type(x), type(y)
        if tx in _NUMBERS and ty in _NUMBERS:
            if (x if tx is Decimal else Decimal(x)) != (y if ty is Decimal else Decimal(y)):
                return False
            continue
        if tx is not ty:
            return False
        if tx is dict:
            if x.keys() != y.keys():
                return False
            stack.extend((x[k], y[k]) for k in x)
        elif tx is list:
            if len(x) != len(y):
                return False
            stack.extend(zip(x, y, strict=True))
        elif x != y:
            return False
    return True


def canonical_text(value: Any) -> str:
    """Canonical JSON text: sorted member names, no ASCII escaping."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def same_text(a: Any, b: Any) -> bool:
    """The same canonical JSON text (``1`` and ``1.0`` differ; member order does not matter)."""
    return canonical_text(a) == canonical_text(b)


def same_type_and_value(a: Any, b: Any) -> bool:
    """Equal values of one Python type (``True`` is not ``1``, ``1.0`` is not ``1``)."""
    return type(a) is type(b) and bool(a == b)
