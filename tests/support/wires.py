"""The registries the suite's tests pass: the session's, and a variant of it for one test.

The session's registry is the bundled one plus the synthetic wire (tests/wires/audit_log):
``SESSION``. tests/conftest.py makes it current for the whole run (``contract.wires.using``, before
any test module is collected), so every module-level table (parametrizations over ``NAMES``, the
catalog, the schema step's rules) sees three wires, and a test or module that assumes the two
bundled ones fails at once (issue 29). Nothing global is mutated: a test that needs another set of
wires builds the registry it needs from the current one and makes it current for its duration.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from contract import wires
from contract.wires import BUNDLED_REGISTRY, Wire, WireRegistry
from tests.wires.audit_log import AUDIT_LOG

SESSION: WireRegistry = BUNDLED_REGISTRY.plus(AUDIT_LOG)


@contextlib.contextmanager
def registered(wire: Wire) -> Iterator[Wire]:
    """The current registry with ``wire`` in it (in the place of a wire of its name, else last),
    current for the duration."""
    with wires.using(wires.current().replacing(wire)):
        yield wire


@contextlib.contextmanager
def unregistered(name: str) -> Iterator[Wire]:
    """The current registry without the wire ``name``, current for the duration."""
    registry = wires.current()
    with wires.using(registry.without(name)):
        yield registry.get(name)


@contextlib.contextmanager
def bundled_only() -> Iterator[WireRegistry]:
    """Only the wires the package ships, current for the duration: what describes the product
    (docs/rules.md's table, the shipped catalog) is made under it."""
    with wires.using(wires.current().shipped()) as registry:
        yield registry
