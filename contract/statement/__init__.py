"""Conformance statements: one emitter build judged over the whole scenario suite (``model``),
collected from live runs or captures (``collect``), rendered (``render``: JSON, markdown, HTML, a
shields.io endpoint) and compared across builds (``combine``: diff, merge, matrix)."""
