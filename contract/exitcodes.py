"""The exit codes of ``milk-contract``, named once for every verb.

0 conformant (or nothing breaking), 1 violations (or a breaking change refused), 2 usage or
harness error, or a reporter that failed while writing (the report is then incomplete: never
exit 0), 130 interrupted (Ctrl-C: a live run still reports what it saw, as ``run.interrupted``).
"""

from __future__ import annotations

EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE = 0, 1, 2
EXIT_INTERRUPTED = 128 + 2  # the shell's convention for death by SIGINT
