"""A milk build that replays the goldens (examples/replay_build.py) with one scenario's output changed.

The independent statement cases need a build that is the reference but for one scenario, as the
reproducer of issue 46 describes ("the same emitter, except that its hello output no longer matches
the golden"). Its first argument, before the scenario's own, names the fault, applied to the
scenario ``hello`` only (every other scenario is replayed as recorded):

- ``--fault=result-text``: the result line's text differs from the golden's (every rule still
  holds, the run no longer matches its golden);
- ``--fault=seq-gap``: the result line's ``seq`` skips a number (``sj.seq-contiguous``, "gap-tolerant
  consumers can detect dropped lines"), and the run no longer matches its golden.

The changed golden is written to a temporary folder with the meta beside it, and the replay build
is run on it, exactly as the replay contract (docs/milk-ci.md) has the harness run a build.
"""

from __future__ import annotations

import json
import os
import runpy
import shutil
import sys
import tempfile
from pathlib import Path

REPLAY = Path(__file__).resolve().parents[3] / "examples" / "replay_build.py"
FAULTED_SCENARIO = "hello"


def _faulted(lines: list[str], fault: str) -> list[str]:
    objects = [json.loads(line) for line in lines]
    result = objects[-1]
    if fault == "result-text":
        result["result"] = str(result.get("result", "")) + " (a different build said this)"
    elif fault == "seq-gap":
        result["seq"] = int(result["seq"]) + 1
    else:
        raise SystemExit(f"drifting_build: unknown fault {fault!r}")
    return [json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n" for obj in objects]


def main(argv: list[str]) -> None:
    fault = ""
    if argv and argv[0].startswith("--fault="):
        fault, argv = argv[0].removeprefix("--fault="), argv[1:]
    golden = os.environ.get("MILK_CONTRACT_GOLDEN", "")
    sys.argv = [str(REPLAY), *argv]
    if not fault or os.environ.get("MILK_CONTRACT_SCENARIO") != FAULTED_SCENARIO or not golden:
        runpy.run_path(str(REPLAY), run_name="__main__")
        return
    with tempfile.TemporaryDirectory(prefix="drifting-build-") as folder:
        source = Path(golden)
        target = Path(folder) / source.name
        lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
        target.write_text("".join(_faulted(lines, fault)), encoding="utf-8")
        meta = source.with_name(source.name.removesuffix(".jsonl") + ".meta.json")
        shutil.copy(meta, target.with_name(meta.name))
        os.environ["MILK_CONTRACT_GOLDEN"] = str(target)
        runpy.run_path(str(REPLAY), run_name="__main__")


if __name__ == "__main__":
    main(sys.argv[1:])
