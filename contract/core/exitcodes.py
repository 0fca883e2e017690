"""The exit codes of ``milk-contract``, named once for every verb.

0 conformant (or nothing breaking), 1 violations (or a breaking change refused), 2 usage or
harness error, or a reporter that failed while writing (the report is then incomplete: never
exit 0), 128 + the signal when interrupted (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP: a live run still
reports what it saw, as ``run.interrupted``).
"""

from __future__ import annotations

EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE = 0, 1, 2
EXIT_SIGNALLED = 128  # plus the signal: the shell's convention for a death by that signal
EXIT_INTERRUPTED = EXIT_SIGNALLED + 2  # SIGINT (Ctrl-C)


def exit_interrupted(signum: int) -> int:
    """The exit status of a run interrupted by ``signum``: 130 SIGINT, 143 SIGTERM, 129 SIGHUP."""
    return EXIT_SIGNALLED + signum
