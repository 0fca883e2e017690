"""A wire in the registry for a test, whatever the session registered already.

The session registers the synthetic wire (tests/wires/audit_log) for the whole run
(tests/conftest.py), so every test and every module of the suite sees three wires, and one that
assumes two fails at once. A test that wants a wire in place says so with :func:`registered`: for
the session's own wire nothing changes; a different wire of a registered name (a variant of the
synthetic one) takes its place for the duration, and the session's comes back after.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from contract import wires
from contract.wires import Wire


@contextlib.contextmanager
def registered(wire: Wire) -> Iterator[Wire]:
    present = wires.WIRES.get(wire.name)
    if present is wire:
        yield wire
        return
    with contextlib.ExitStack() as stack:
        if present is not None:
            stack.enter_context(wires.unregistered(wire.name))
        yield stack.enter_context(wires.registered(wire))
