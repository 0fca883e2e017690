"""JSON pointers (RFC 6901) in contract.core.jsonvalue: one walker for the layers that name a place in a
document (the consumer judge's members, the ADR tooling's $refs and accepted paths)."""

from __future__ import annotations

from typing import Any

import pytest

from contract.core.jsonvalue import pointer, resolve, tokens

DOC: dict[str, Any] = {"a/b": {"m~n": [10, {"": "empty"}]}, "list": [1, 2]}


@pytest.mark.parametrize(("where", "found"), [
    ("", (True, DOC)),
    ("/a~1b/m~0n/0", (True, 10)),
    ("/a~1b/m~0n/1/", (True, "empty")),
    ("#/list/1", (True, 2)),
    ("/list/2", (False, None)),
    ("/list/x", (False, None)),
    ("/list/1/deeper", (False, None)),
    ("/nothing", (False, None)),
], ids=["root", "escapes", "empty-name", "fragment", "past-the-end", "not-an-index", "below-a-scalar", "absent"])
def test_resolve_finds_what_the_pointer_names_and_never_raises(where: str, found: tuple[bool, Any]) -> None:
    assert resolve(DOC, where) == found


@pytest.mark.parametrize("path", [[], ["a/b", "m~n", "0"], ["", "~", "/"]])
def test_tokens_undo_pointer(path: list[str]) -> None:
    assert tokens(pointer(path)) == path
