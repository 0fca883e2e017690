"""What the faulty emitters share: the hello golden's lines, and saying who they are on stderr."""

from __future__ import annotations

import os
import sys

from contract.resources import data_dir

NAME = os.path.splitext(os.path.basename(sys.argv[0]))[0]
MARKER = sys.argv[1] if len(sys.argv) > 1 else "no-marker"


def golden_lines(name: str = "hello") -> list[bytes]:
    """A conformant stream-json run, line by line (each with its LF)."""
    data = (data_dir("goldens") / "stream-json" / f"{name}.jsonl").read_bytes()
    return data.splitlines(keepends=True)


def say(what: str) -> None:
    """One recognisable line on stderr."""
    sys.stderr.write(f"faulty-emitter {NAME}: {what}\n")
    sys.stderr.flush()


def write(*lines: bytes) -> None:
    out = sys.stdout.buffer
    for line in lines:
        out.write(line)
    out.flush()


def sleeping_child(seconds: int = 120) -> None:
    """Start a child that sleeps, with MARKER in its argv; it inherits stdout and stderr."""
    import subprocess

    subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(int(sys.argv[1]))",
                      str(seconds), MARKER])
