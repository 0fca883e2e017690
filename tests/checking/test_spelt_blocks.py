"""Blocks in another canonical spelling are proven whole, and judged as line by line (issue 34).

The block path proves a block whose lines are Python's default ``json.dumps`` (", " and ": ") or
Go's (escaped "<", ">", "&") by writing the block back in that spelling (``jsonline.Spellings``),
and reads the lines' "e+" numbers as written. The report must be the line-by-line report (a
readline-only source, read with the strict parse line by line), in one process and in two, on
streams whose hostile lines fall in late blocks: repeated members in the stream's own spelling,
integral floats with "e+", 1e400, a big integer, -0, a lone surrogate, odd spaces.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any, BinaryIO, cast

import pytest

from contract.checking.checker import check
from contract.core.reader import BLOCK_BYTES
from contract.core.resources import data_dir

HELLO = data_dir("goldens") / "stream-json" / "hello.jsonl"
TOOLS = data_dir("goldens") / "stream-json" / "tool_calls.jsonl"


def _spell(obj: dict[str, Any], spelling: str) -> str:
    if spelling == "spaced":
        return json.dumps(obj, ensure_ascii=False)
    text = json.dumps(obj, separators=(",", ":"), ensure_ascii=False)
    if spelling == "go":
        text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text


def _stream(lines: int, spelling: str, faults: dict[int, str]) -> bytes:
    """A long run from the goldens in ``spelling``, with ``faults[n]`` (a line's text, {SEQ}, {TS}
    and {SID} filled in) inserted as line ``n``."""
    golden = [json.loads(x) for x in HELLO.read_text().splitlines()]
    tools = [json.loads(x) for x in TOOLS.read_text().splitlines()][1:-1]
    body = [o for o in golden[1:-1] + tools if o.get("type") != "result"]
    objs: list[Any] = [golden[0] | {"capabilities": ["partial_messages_v1", "tasks_v1", "stream_v1"]}]
    rep = 0
    while len(objs) < lines - 1:
        for o in body:
            o = json.loads(json.dumps(o).replace("toolu_", f"toolu_r{rep}_"))
            if len(objs) % 7 == 0:
                o["extension"] = {"note": "a <b> & c", "big": 3.6845546438802145e+18}
            objs.append(o)
        rep += 1
    objs.append(golden[-1])
    for line in sorted(faults):
        objs.insert(line - 1, faults[line])
    sid = golden[0]["session_id"]
    out = []
    for seq, obj in enumerate(objs):
        ts = f"2026-01-01T00:{seq // 60000 % 60:02d}:{seq // 1000 % 60:02d}.{seq % 1000:03d}Z"
        if isinstance(obj, str):
            text = obj.replace("{SEQ}", str(seq)).replace("{TS}", ts).replace("{SID}", sid)
        else:
            text = _spell(obj | {"seq": seq, "session_id": sid, "ts": ts}, spelling)
        out.append(text.encode() + b"\n")
    return b"".join(out)


def _env(body: str) -> str:
    return '"session_id": "{SID}", "seq": {SEQ}, "ts": "{TS}", ' + body


HOSTILE = {  # each past the first block, each a line a fast path could wrongly admit
    300: "{" + _env('"type": "system", "subtype": "hook", "subtype": "hook"') + "}",  # repeated, spaced
    500: '{"type":"system","subtype":"hook","subtype":"hook","session_id":"{SID}","seq":{SEQ},"ts":"{TS}"}',
    700: "{" + _env('"type": "system", "subtype": "hook", "extension": {"n": 1e400}') + "}",
    900: "{" + _env('"type": "system", "subtype": "hook", "extension": {"n": 18446744073709551616}') + "}",
    1100: "{" + _env('"type": "system", "subtype": "hook", "extension": {"n": -0, "m": 1.0}') + "}",
    1300: "{" + _env('"type": "system", "subtype": "hook", "extension": {"s": "\\ud800"}') + "}",
    1500: "{" + _env('"type": "system", "subtype": "hook", "extension": {"a": 1, "a": 2}') + "}",
    1700: "{" + _env('"type": "system", "subtype": "hook", "extension": {"s": "\\u003c"}') + "}",  # both spellings
    1900: "{" + _env('"type": "system", "subtype": "hook",  "extension": {}') + "}",  # two spaces
    2100: "{" + _env('"type": "system", "subtype": "hook", "extension": {"n": 3.6845546438802145e+18}') + "}",
    2300: "{" + _env('"type": "system", "subtype": "hook", "seq": 1') + "}",  # repeated seq, spaced
}
CLEAN = {line: text for line, text in HOSTILE.items() if line in (700, 900, 1100, 1700, 1900, 2100)}


def _line_by_line(data: bytes, **options: Any) -> dict[str, Any]:
    return check(cast(BinaryIO, _ReadlineOnly(io.BytesIO(data))), "stream-json", source="x", **options).to_json()


class _ReadlineOnly:
    def __init__(self, handle: Any) -> None:
        self.readline = handle.readline


# the default run: the hostile lines in each spelling, the odd but clean ones in Go's (whose escapes
# they include); the deep run every pair, a stream with no odd line too
FAULTS = {"hostile": HOSTILE, "odd-but-clean": CLEAN, "none": {}}
SPELLINGS = ("spaced", "go", "compact")
DEFAULT = {("hostile", spelling) for spelling in SPELLINGS} | {("odd-but-clean", "go")}
SPELT = [pytest.param(faults, spelling, id=f"{name}-{spelling}",
                      marks=[] if (name, spelling) in DEFAULT else [pytest.mark.deep])
         for name, faults in FAULTS.items() for spelling in SPELLINGS]


@pytest.mark.parametrize(("faults", "spelling"), SPELT)
def test_the_block_path_gives_the_line_by_line_report(spelling: str, faults: dict[int, str], tmp_path: Path) -> None:
    data = _stream(2600, spelling, faults)
    assert len(data) > 20 * BLOCK_BYTES  # the first block ends before line 300
    expected = _line_by_line(data, strict=True, coverage=True)
    assert check(data, "stream-json", source="x", strict=True, coverage=True).to_json() == expected
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    two = check(path, "stream-json", source="x", strict=True, coverage=True, jobs=2).to_json()
    assert two == expected
    if faults is HOSTILE:
        assert {"line.duplicate-key", "line.surrogate"} <= set(expected["counts"])
    if faults is not HOSTILE:
        assert expected["conformant"], expected["counts"]


def test_a_spaced_run_is_proven_by_blocks() -> None:
    """The fast path is taken: the facts judge all but the first block and the result line."""
    from contract.checking.fastpath import measure

    data = _stream(2600, "spaced", {})
    coverage, report = measure(data)
    assert report.conformant
    assert coverage.coverage == 1.0


def _unlisted(kind: str) -> str:
    return '{"type": "' + kind + '", "session_id": "{SID}", "seq": {SEQ}, "ts": "{TS}"}'


@pytest.mark.parametrize("spelling", ["spaced", "compact"])
def test_blocks_of_unlisted_types_in_two_processes(spelling: str, tmp_path: Path) -> None:
    """The worker proves a clean block holding line types the schema does not list and sends the
    types; the main folds it only once each type's note is given (else it judges the block
    itself, line by line, and the note names the type's first line), as one process does."""
    faults = {line: _unlisted("future_a" if line % 3 else "future_b") for line in range(400, 2500, 37)}
    faults[1900] = _unlisted("future_c")  # first met late, past blocks of the others
    data = _stream(2600, spelling, faults)
    path = tmp_path / "run.jsonl"
    path.write_bytes(data)
    one: dict[str, Any] = check(path, "stream-json", source="x", strict=True, coverage=True, jobs=1).to_json()
    assert one == _line_by_line(data, strict=True, coverage=True)
    assert one["conformant"]
    assert sum("future_" in note for note in one["notes"]) == 3
    assert check(path, "stream-json", source="x", strict=True, coverage=True, jobs=2).to_json() == one
