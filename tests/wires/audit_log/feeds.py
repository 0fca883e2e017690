"""Broken and transport streams of the synthetic wire, for the tests that hold that ``feed --broken``
and ``--transport`` take a wire's streams from its descriptor (``Wire.feeds``), not from stream-json.

The synthetic wire itself declares none (``AUDIT_LOG.feeds`` is None: the CLI refuses both modes on
it); a test gives a copy of its descriptor this module.
"""

from __future__ import annotations

from contract.wires.base import Feeds

FEEDS = Feeds(
    golden="hello",
    min_lines=2,
    kinds={"no-last-line": ("every line but the last", "a test of the descriptor", 0)},
    streams=lambda lines: {"no-last-line": b"".join(line + b"\n" for line in lines[:-1])},
    failed="/failed",
    honest="say the run failed",
    padding="_pad",
    padded_line=0,
)
