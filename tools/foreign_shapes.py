"""Write tests/data/shapes/: the *shapes* of the real transcripts of ../shared/corpus/foreign, as
milk stream-json bodies, for the fast-path shape catalogue (tests/support/shapes.py, issue 34).

Run ``python tools/foreign_shapes.py [CORPUS]`` from the checkout (CORPUS defaults to
../shared/corpus/foreign); nothing reads the corpus at test time. Each foreign transcript is
another agent CLI's output, not milk's wire; what is kept is its shape: the sequence of line
types and subtypes, their content blocks, texts, tool inputs, stream events, parent references,
with members the milk schema does not allow removed one by one (the schema's own pointers say
which) until the line is valid. Lines of types milk does not list stay, judged by the common
envelope (the seed's open set). Init and result lines are left out: the catalogue gives every
run its own. A line that cannot be made valid by removing members is left out too, and said.
The envelope (seq, session_id, ts) is the catalogue's to give.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from contract.checking.schema import engine  # noqa: E402

ENVELOPE = {"seq": 0, "session_id": "sess_shape", "ts": "2026-01-01T00:00:00.000Z"}


def _remove(obj: Any, pointer: str) -> bool:
    """Remove the member or item at ``pointer`` (RFC 6901); False if there is none."""
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    if not parts:
        return False
    parent = obj
    for part in parts[:-1]:
        parent = parent[int(part)] if isinstance(parent, list) else parent.get(part)
        if parent is None:
            return False
    last = parts[-1]
    if isinstance(parent, list):
        del parent[int(last)]
        return True
    return parent.pop(last, None) is not None or True


def milk_line(obj: dict[str, Any]) -> dict[str, Any] | None:
    """``obj`` with the members the milk schema rejects removed, or None when that is not enough."""
    eng = engine("stream-json")
    line = {**obj, **ENVELOPE}
    for _ in range(500):
        if eng.is_valid_fast(line):
            return {k: v for k, v in line.items() if k not in ENVELOPE}
        errors = eng.explain(line)
        if not errors:
            return None
        pointer = errors[0].pointer
        if pointer in ("", "/type") or pointer.split("/")[1] in ENVELOPE or not _remove(line, pointer):
            return None
    return None


def shape(path: Path) -> tuple[list[dict[str, Any]], int]:
    """A foreign transcript's body as milk lines, and how many lines were left out."""
    body, left = [], 0
    for text in path.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(text)
        except ValueError:
            left += 1
            continue
        if not isinstance(obj, dict) or obj.get("type") == "result" or (
                obj.get("type") == "system" and obj.get("subtype") == "init"):
            continue
        line = milk_line(obj)
        if line is None:
            left += 1
        else:
            body.append(line)
    return body, left


def main(argv: list[str]) -> int:
    corpus = Path(argv[0]) if argv else ROOT.parent / "shared" / "corpus" / "foreign"
    out = ROOT / "tests" / "data" / "shapes"
    out.mkdir(parents=True, exist_ok=True)
    for path in sorted(corpus.glob("*/*.jsonl")):
        body, left = shape(path)
        name = f"{path.parent.name}--{path.stem}.jsonl"
        (out / name).write_text("".join(json.dumps(o, ensure_ascii=False, separators=(",", ":")) + "\n"
                                        for o in body), encoding="utf-8")
        print(f"{name}: {len(body)} lines, {left} left out")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
