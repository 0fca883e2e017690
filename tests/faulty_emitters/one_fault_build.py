"""A build of milk with one fault, for conformance statements: the bundled reference programs, but
on stream-json scenarios the run's output is changed one way (argv[1]):

* ``ts``: the result line's ts goes back before the first line's (sj.ts-order, SHOULD; ts is
  volatile, so the golden still matches);
* ``seq``: the result line's seq skips one (sj.seq-contiguous, MUST);
* ``hello``: on the ``hello`` scenario only, the result line counts one more turn (every rule
  holds, but the output no longer matches its golden: issue 46's lost level).

Subagent-stdio scenarios go to the reference host unchanged. ``--version`` says which build it is.
"""

import json
import os
import subprocess
import sys

FAULT = sys.argv[1] if len(sys.argv) > 1 else "ts"
if sys.argv[2:3] == ["--version"]:
    print(f"one-fault-build 1.0 ({FAULT})")
    sys.exit(0)
golden = os.environ.get("MILK_CONTRACT_GOLDEN", "")
wire = os.path.basename(os.path.dirname(golden))
if wire != "stream-json":  # another wire's scenario: its own reference program, unchanged
    from contract.wires import get

    os.execv(sys.executable, [sys.executable, "-m", get(wire).reference, *sys.argv[2:]])
done = subprocess.run([sys.executable, "-m", "contract.reference.stream_json_emitter", *sys.argv[2:]],
                      stdout=subprocess.PIPE, check=False)
lines = done.stdout.splitlines(keepends=True)
if lines:
    first, last = json.loads(lines[0]), json.loads(lines[-1])
    if FAULT == "seq":
        last["seq"] += 1
    elif FAULT == "hello":
        last["num_turns"] += os.path.basename(golden) == "hello.jsonl"
    else:
        last["ts"] = "2000-01-01T00:00:00Z" if first.get("ts") != "2000-01-01T00:00:00Z" else "1999-01-01T00:00:00Z"
    lines[-1] = json.dumps(last, separators=(",", ":")).encode() + b"\n"
sys.stdout.buffer.write(b"".join(lines))
sys.stdout.flush()
sys.exit(done.returncode)
