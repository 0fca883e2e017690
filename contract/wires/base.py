"""What a wire is to the checker: a schema, a set of rule machines, and how to recognise it.

A rule machine is a small incremental state machine: ``feed`` sees every record in order
(objects that failed the schema too, with ``record.valid`` False, so a machine must tolerate
any shape), ``finish`` runs once at the end of the stream. Machines write findings to the
collector and never raise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from contract.reader import Record
from contract.report import Collector


class Machine(Protocol):
    def feed(self, record: Record, out: Collector) -> None: ...

    def finish(self, out: Collector) -> None: ...


@dataclass(frozen=True)
class Wire:
    name: str
    schema_rule: str
    machines: Callable[[], list[Machine]]
    detect: Callable[[dict[str, Any]], bool]
