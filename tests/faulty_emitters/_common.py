"""What the faulty emitters share: the hello golden's lines, and saying who they are on stderr."""

from __future__ import annotations

import os
import sys

from contract.core.resources import data_dir

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


def setsid_grandchild(pidfile: str, *, clear_env: bool = False, let_go: bool = False, wait: bool = False) -> None:
    """Leave a grandchild that calls setsid (out of our group and session) and sleeps, with MARKER in
    its argv; its pid goes into ``pidfile`` (written whole, by a rename) just before its exec.

    ``clear_env``: it execs with an empty environment (no run token); ``let_go``: its stdin, stdout
    and stderr are /dev/null; ``wait``: return only once the pid file is there (bounded: 20 s).
    """
    import time

    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            if let_go:
                devnull = os.open(os.devnull, os.O_RDWR)
                for fd in (0, 1, 2):
                    os.dup2(devnull, fd)
            with open(pidfile + ".tmp", "w") as out:
                out.write(str(os.getpid()))
            os.rename(pidfile + ".tmp", pidfile)
            argv = [sys.executable, "-c", "import time; time.sleep(120)", MARKER]
            os.execve(sys.executable, argv, {} if clear_env else dict(os.environ))
        os._exit(0)  # the grandchild is orphaned at once
    os.waitpid(child, 0)
    for _ in range(400 if wait else 0):
        if os.path.exists(pidfile):
            break
        time.sleep(0.05)


def sleeping_child(seconds: int = 120) -> None:
    """Start a child that sleeps, with MARKER in its argv; it inherits stdout and stderr."""
    import subprocess

    subprocess.Popen([sys.executable, "-c", "import sys, time; time.sleep(int(sys.argv[1]))",
                      str(seconds), MARKER])
