"""The streams a proposed schema lets milk write (contract/evolution/adr_streams.py) and ``feed --adr``.

A new line kind is inserted before the terminal line of every golden, valid under the proposed schema
wherever its branch stands and whatever it requires (the residues of tests/evolution/test_new_line_kind.py);
a schema without a new kind feeds the goldens unchanged; a schema the goldens do not meet, or one that
cannot be read, is refused (exit 2), never fed. The reproducer: ``feed --adr`` of a kind-adding ADR fails
the SDK version that crashes on unknown types and passes the one that skips them.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from contract import cli
from contract.evolution.adr_streams import AdrError, added_kinds, read_schema, streams_under
from contract.evolution.migration import first_finding, rename
from contract.goldens.store import scenarios
from tests.compat.schemas import WIRE, with_kind, written
from tests.evolution.test_new_line_kind import RESIDUES
from tests.support.depth import sample
from tests.support.paths import TESTS
from tests.support.seeds import seed

SDK = [sys.executable, str(TESTS / "faulty_consumers" / "versioned_sdk.py")]
GOLDENS = scenarios(WIRE)


def _types(data: bytes) -> list[str]:
    return [json.loads(line)["type"] for line in data.splitlines()]


# every place in the oneOf by every residue (the drawing of a member's value is hypothesis' own ``find``,
# which may not run inside a @given): a sample in the default run, all 30 in the deep run
SPACE = sample([(at, residue) for at in range(6) for residue in RESIDUES], 4)


@pytest.mark.parametrize(("at", "residue"), SPACE, ids=[f"at{at}-{i}" for i, (at, _) in enumerate(SPACE)])
def test_a_new_kind_is_inserted_before_the_end_valid_under_the_new_schema(at: int, residue: dict[str, Any]) -> None:
    new = with_kind(residue, at)
    assert added_kinds(seed(WIRE), new) == ["rate_limit"]
    for golden, stream in zip(GOLDENS[:3], streams_under(GOLDENS[:3], seed(WIRE), new), strict=True):
        before, after = _types(golden.data()), _types(stream.data())
        assert after == [*before[:-1], "rate_limit", before[-1]]
        assert first_finding(stream.data(), new) is None
        seqs = [json.loads(line)["seq"] for line in stream.data().splitlines()]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        assert "rate_limit" in stream.changes


def test_no_new_kind_feeds_the_goldens_as_recorded() -> None:
    streams = streams_under(GOLDENS, seed(WIRE), seed(WIRE))
    assert [s.data() for s in streams] == [g.data() for g in GOLDENS]
    assert not any(s.changes for s in streams)


def test_goldens_that_do_not_meet_the_schema_are_refused() -> None:
    new = copy.deepcopy(seed(WIRE))
    new["required"] = [*new["required"], "region"]
    new["properties"]["region"] = {"type": "string"}
    with pytest.raises(AdrError, match="does not migrate to the ADR's schema: line 1"):
        streams_under(GOLDENS[:1], seed(WIRE), new)


def test_migration_steps_are_applied_then_checked() -> None:
    new = copy.deepcopy(seed(WIRE))
    new["properties"]["ttft"] = new["properties"].pop("ttft_ms")
    new["$defs"]["event"]["properties"]["ttft"] = new["$defs"]["event"]["properties"].pop("ttft_ms")
    with_ttft = [g for g in GOLDENS if b'"ttft_ms"' in g.data()]
    assert with_ttft
    with pytest.raises(AdrError):
        streams_under(with_ttft, seed(WIRE), new)
    migrated = streams_under(with_ttft, seed(WIRE), new, steps=[rename("ttft_ms=ttft")])
    assert all(b'"ttft"' in s.data() for s in migrated)
    assert not any(b'"ttft_ms"' in s.data() for s in migrated)


def test_a_kind_no_line_can_be_made_of_is_refused() -> None:
    new = with_kind({"required": ["type", "retry_after_ms"], "properties": {"retry_after_ms": {"minimum": 5,
                                                                                               "maximum": 1}}})
    with pytest.raises(AdrError, match="no line of the new kind 'rate_limit'"):
        streams_under(GOLDENS[:1], seed(WIRE), new)


@pytest.mark.parametrize(("content", "says"), [(b"{", "is not valid JSON"), (b"[]", "not an object"),
                                               (b'{"type": 3}', "not a valid JSON Schema")],
                         ids=["cut", "array", "invalid"])
def test_a_schema_that_cannot_be_read_is_refused(content: bytes, says: str, tmp_path: Path) -> None:
    path = tmp_path / "adr.json"
    path.write_bytes(content)
    with pytest.raises(AdrError, match=says):
        read_schema(path)


@pytest.mark.process
@pytest.mark.parametrize(("version", "code"), [("0.1.0", 1), ("0.2.0", 0)])
def test_feed_adr_fails_the_version_that_crashes_on_a_new_kind(version: str, code: int, tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    adr = written(tmp_path / "adr.json", with_kind())
    assert cli.run(["feed", "--adr", str(adr), "--scenario", "hello", "--pace", "0", "--format", "json",
                    "--", *SDK, version]) == code
    report = json.loads(capsys.readouterr().out)
    rules = {v["rule"] for v in report["violations"]}
    assert rules == ({"consumer.crash"} if code else set())
    # the near miss: the same consumer passes the goldens as recorded
    assert cli.run(["feed", "--scenario", "hello", "--pace", "0", "-q", "--", *SDK, version]) == 0


@pytest.mark.parametrize(("args", "says"), [
    (["--adr", "{missing}"], "cannot read"),
    (["--adr", "{bad}"], "is not valid JSON"),
    (["--adr", "{adr}", "--broken"], "not with --broken"),
    (["--adr", "{adr}", "--wire", "subagent-stdio"], "--adr feeds a"),
], ids=["missing", "not-json", "broken", "conversation"])
def test_feed_adr_misuse_is_exit_2(args: list[str], says: str, tmp_path: Path,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    adr = written(tmp_path / "adr.json", with_kind())
    (tmp_path / "bad.json").write_text("{", encoding="utf-8")
    filled = [a.format(missing=tmp_path / "none.json", bad=tmp_path / "bad.json", adr=adr) for a in args]
    assert cli.run(["feed", *filled, "--", "true"]) == 2
    err = capsys.readouterr().err
    assert says in err
    assert err.count("\n") == 1


def test_a_hostile_schema_path_is_escaped_once(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The loader's line is raw and the CLI escapes it: an ESC in the path shows as \\u001b, not twice over."""
    path = tmp_path / "bad\x1b[31m.json"
    path.write_bytes(b"{")
    assert cli.run(["feed", "--adr", str(path), "--", "cat"]) == 2
    said = capsys.readouterr().err
    assert "\\u001b[31m.json" in said
    assert "\x1b" not in said
    assert "\\u005c" not in said
