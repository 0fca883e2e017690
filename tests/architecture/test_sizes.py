"""Sizes a reader can hold: no module over 600 lines, no function over 60, unless a reason is given.

A static scan of every module under ``contract/`` (issue 29, docs/architecture.md, "Layers"). A
module's size is its line count; a function's is from its ``def`` to its last line (decorators
not counted), nested functions counted on their own as well as inside their parent. The few that
are allowed to be longer are named in ``ALLOWED`` with the reason a split would not help a
reader; an entry that no longer needs its allowance fails too, so the list cannot go stale.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

import pytest

from tests.support.paths import ROOT

PACKAGE = ROOT / "contract"
MODULE_LINES = 600
FUNCTION_LINES = 60

# "path" for a module, "path:function" for a function (a method as "path:Class.method"): why it is
# longer than the limit. Keep this short: a split that helps a reader is always the better answer.
ALLOWED: dict[str, str] = {
    "contract/checking/proof.py:clean_block": "the block proof's C-level passes over one block, in the order "
                                             "that lets each decline early; a call per pass costs per block",
}


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, int]]:
    """(qualified name, lines) of every function in ``tree``, methods and nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            end = node.end_lineno if node.end_lineno is not None else node.lineno
            yield prefix + node.name, end - node.lineno + 1
            yield from _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node, f"{prefix}{node.name}.")
        else:
            yield from _functions(node, prefix)


def oversized(source: str, path: str) -> dict[str, int]:
    """Everything in one module's ``source`` over the limits, by its ``ALLOWED`` key."""
    found: dict[str, int] = {}
    lines = len(source.splitlines())
    if lines > MODULE_LINES:
        found[path] = lines
    for name, length in _functions(ast.parse(source)):
        if length > FUNCTION_LINES:
            found[f"{path}:{name}"] = length
    return found


def _scan() -> dict[str, int]:
    found: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        found.update(oversized(path.read_text(encoding="utf-8"), path.relative_to(ROOT).as_posix()))
    return found


def test_no_module_or_function_is_over_its_limit_without_a_reason() -> None:
    over = {key: lines for key, lines in _scan().items() if key not in ALLOWED}
    assert not over, "over the limits (split them, or give the reason in ALLOWED): " + ", ".join(
        f"{key} ({lines} lines)" for key, lines in sorted(over.items()))


def test_every_allowance_is_still_needed() -> None:
    stale = sorted(set(ALLOWED) - set(_scan()))
    assert not stale, f"within the limits now, so take them out of ALLOWED: {stale}"


def test_every_allowance_gives_its_reason() -> None:
    assert all(len(reason.split()) >= 5 for reason in ALLOWED.values())


@pytest.mark.parametrize(("body", "expected"), [
    pytest.param("    pass\n" * 59, {}, id="a-60-line-function-passes"),
    pytest.param("    pass\n" * 60, {"m.py:f": 61}, id="a-61-line-function-is-found"),
])
def test_the_function_limit_is_counted_from_def_to_the_last_line(body: str, expected: dict[str, int]) -> None:
    assert oversized("@decorator\ndef f():\n" + body, "m.py") == expected


def test_methods_and_nested_functions_are_found_by_their_qualified_names() -> None:
    long_body = "        pass\n" * 61
    source = f"class C:\n    def m(self):\n{long_body}\ndef outer():\n    def inner():\n{long_body}"
    assert set(oversized(source, "m.py")) == {"m.py:C.m", "m.py:outer", "m.py:outer.inner"}


def test_a_module_over_600_lines_is_found() -> None:
    assert oversized("x = 1\n" * 601, "m.py") == {"m.py": 601}
    assert oversized("x = 1\n" * 600, "m.py") == {}
