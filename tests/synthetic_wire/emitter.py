"""The audit-log reference emitter (tests only): writes the synthetic wire's golden to stdout."""

from __future__ import annotations

import sys

from tests.synthetic_wire import GOLDEN

if __name__ == "__main__":
    sys.stdout.buffer.write(GOLDEN.read_bytes())
