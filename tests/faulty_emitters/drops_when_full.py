"""Writes stdout non-blocking and drops what a full pipe will not take within 0.1 s.

Read promptly, it loses nothing: its one long assistant line (512 KiB of text) drains as fast
as it is written. Read slowly (back-pressure), the pipe stays full and the rest of that line is
dropped: the stream is corrupted only for a slow reader.
"""

import errno
import os
import select

from _common import golden_lines

PATIENCE = 0.1  # seconds a full pipe is waited for before the rest is dropped


def write(data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(1, view):]
        except BlockingIOError:
            if not select.select([], [1], [], PATIENCE)[1]:
                return  # the fault: give up on the rest of the line
        except OSError as exc:
            if exc.errno != errno.EAGAIN:
                raise


os.set_blocking(1, False)
init, assistant, result = golden_lines()
padding = b"x" * (512 * 1024)
write(init)
write(assistant.replace(b'"text":"', b'"text":"' + padding, 1))
write(result)
