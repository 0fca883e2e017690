"""Run the milk-contract CLI and record this process's peak memory: ``peak_rss.py OUT ARG…``.

``os.wait4``'s ``ru_maxrss`` is no use for a child of the test process: Linux keeps the
pre-exec high-water mark across ``exec``, so a child forked from a large pytest worker
reports the worker's size. ``VmHWM`` in ``/proc/self/status`` belongs to the memory map
created by ``exec``, so this shim reads it just before exiting and writes it (KiB) to OUT,
or the peak of a child it forked and reaped (``check`` may fork a worker for a large file),
whichever is larger.
"""

import resource
import sys

from contract.cli import main


def _peak_kib() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


if __name__ == "__main__":
    out_path = sys.argv.pop(1)
    try:
        main()  # exactly what the milk-contract script runs; it always exits
    except SystemExit as done:
        code = done.code
    sys.stdout.flush()
    with open(out_path, "w") as out:
        out.write(str(max(_peak_kib(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)))
    sys.exit(code)
