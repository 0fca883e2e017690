"""Fast-path coverage of a check: which lines the block facts judged, and why the rest were judged
another way (issue 34).

The block checker (``pipeline.check_blocks``) judges a clean block by its facts when the wire's
lone machine takes them (``wires.base.FactMachine``), and otherwise line by line; both give the
same report, only the cost differs (BENCHMARKS.md). ``measure`` runs the one-process block checker
over a stream with the machine's metered twin (the ``Metered`` class of the ``meter`` module beside
the machine's, in the wire's package: it knows the wire's reasons) and returns its ``coverage``:
lines by the way each was judged. It is a
measuring tool (bench/run.py, bench/regress.py and the shape catalogue's test use it), not on the
checker's path.
"""

from __future__ import annotations

import dataclasses
import importlib
import io
from typing import Any

from contract.checking.pipeline import check_blocks
from contract.core.reader import DEFAULT_MAX_LINE_BYTES, blocks
from contract.rules.report import Collector, Report
from contract.wires import DEFAULT, Wire, resolve
from contract.wires.base import FactMachine


def measure(data: bytes, wire: Wire | str = DEFAULT, *,
            max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> tuple[Any, Report]:
    """Check ``data`` in one process, block by block, counting how each line was judged: the
    metered machine's coverage, and the report. A wire whose machines take no facts is misuse."""
    descriptor = resolve(wire)
    machines = descriptor.machines()
    meter = _meter(machines[0]) if len(machines) == 1 and isinstance(machines[0], FactMachine) else None
    if meter is None:
        raise ValueError(f"the {descriptor.name} wire's machines take no block facts: there is no fast path to measure")
    head = next(blocks(io.BytesIO(data), max_line_bytes), None)
    machine = meter(len(head.bodies) if head is not None else 0)
    metered = dataclasses.replace(descriptor, machines=lambda: [machine])
    report = Report(wire=descriptor.name, strict=True, source="-")
    check_blocks(io.BytesIO(data), metered, Collector(report, ()), max_line_bytes)
    machine.coverage.lines = report.lines
    return machine.coverage, report


def _meter(machine: FactMachine) -> Any:
    """The wire's metered machine class (``<wire package>.meter.Metered``), or None."""
    package = type(machine).__module__.rpartition(".")[0]
    try:
        module = importlib.import_module(f"{package}.meter")
    except ModuleNotFoundError:
        return None
    return getattr(module, "Metered", None)
