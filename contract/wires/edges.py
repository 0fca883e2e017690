"""Small builders for coverage edges and known-set readers, shared by the wire packages.

An edge is a test over one whole transcript (its parsed lines, ``contract.wires.base.Edge``);
these helpers keep each wire's edge table a list of one-liners.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from contract.wires.base import Edge, Line


def any_line(test: Callable[[Line], bool]) -> Edge:
    """The edge "some line passes ``test``"."""
    return lambda lines: any(test(line) for line in lines)


def is_kind(line: Line, kind: str, subtype: str | None = None) -> bool:
    """Whether a line has ``type`` ``kind`` (and ``subtype`` ``subtype`` when given)."""
    return line.get("type") == kind and (subtype is None or line.get("subtype") == subtype)


def obj(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else an empty one (edges tolerate any shape)."""
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str:
    """``value`` when it is a string, else the empty string."""
    return value if isinstance(value, str) else ""
