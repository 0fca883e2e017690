"""``milk-contract vectors export``: every vector re-checks to its stated verdict and fits its schema.

One export (drawn once per test process, tests/consumers/conftest.py: it draws and checks about a
hundred vectors) is read back as a parser in another language would read it: ``index.json``,
then each file; each validates against the exported ``vector.schema.json`` and ``check`` gives
it exactly the verdict and the rules it states.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import contract
from contract import cli
from contract.consumers import vectors
from contract.strategies import breakable
from contract.wires import NAMES, get


@pytest.fixture
def exported(exported_vectors: Path) -> Path:
    return exported_vectors  # tests/consumers/conftest.py: one export per test process


def _documents(folder: Path) -> list[dict[str, Any]]:
    index = json.loads((folder / "index.json").read_text("utf-8"))
    return [json.loads((folder / entry["file"]).read_text("utf-8")) for entry in index["vectors"]]


def test_every_vector_fits_the_vector_schema(exported: Path) -> None:
    schema = json.loads((exported / vectors.SCHEMA_FILE).read_text("utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    for document in _documents(exported):
        errors = [e.message for e in validator.iter_errors(document)]
        assert not errors, (document["id"], errors)


def test_every_vector_rechecks_to_its_stated_verdict(exported: Path) -> None:
    documents = _documents(exported)
    for document in documents:
        report = contract.check(vectors.stream_of(document), document["wire"], strict=document["strict"])
        assert ("conformant" if report.conformant else "not-conformant") == document["verdict"], document["id"]
        assert sorted(report.counts) == [rule["id"] for rule in document["rules"]], document["id"]
    groups = {(d["wire"], d["group"]) for d in documents}
    # a wire with no future variants (Wire.future None: the synthetic one) has no future-compatible group;
    # the broken streams of feed --broken are those of a wire with Wire.feeds (a client's host is the suite)
    assert groups == {(wire, group) for wire in NAMES for group in vectors.GROUPS
                      if (group != "future-compatible" or get(wire).future is not None)
                      and (group != "must-not-succeed" or get(wire).feeds is not None)}


def test_a_not_conformant_vector_for_every_breakable_rule(exported: Path) -> None:
    documents = _documents(exported)
    for wire in NAMES:
        broken = {d["id"].split("/")[2].rsplit("-", 1)[0] for d in documents
                  if d["wire"] == wire and d["group"] == "not-conformant"}
        assert broken == set(breakable(wire))


def test_a_vector_schema_that_refuses_a_wrong_vector(exported: Path) -> None:
    schema = json.loads((exported / vectors.SCHEMA_FILE).read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    [document] = [d for d in _documents(exported) if d["group"] == "not-conformant"][:1]
    assert validator.is_valid(document)
    assert not validator.is_valid({**document, "verdict": "conformant"})  # a broken stream is never conformant
    assert not validator.is_valid({**document, "stream_base64": "AA=="})  # one stream, not two


def test_a_vector_whose_verdict_disagrees_is_not_written(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    lying = vectors.Vector("stream-json", "conformant", "lie", "not a conformant stream", b"not json\n")
    monkeypatch.setattr(vectors, "_goldens", lambda: iter([lying]))
    for drawn in ("_broken", "_future", "_must_not_succeed"):  # the first vector is the lie: draw no more
        monkeypatch.setattr(vectors, drawn, lambda: iter(()))
    assert cli.run(["vectors", "export", str(tmp_path / "out")]) == 2
    assert "stream-json/conformant/lie: check says not-conformant" in capsys.readouterr().err
    assert not (tmp_path / "out" / "stream-json" / "conformant" / "lie.json").exists()


def test_every_vector_says_what_a_plain_validator_of_the_seed_says(exported: Path) -> None:
    """Issue 31: the seed's oneOf rejects an unknown line type, its words say open set; each vector
    says which lines a stock Draft 2020-12 validator rejects, and why the suite parts from it."""
    documents = _documents(exported)
    unknown_types = 0
    for document in documents:
        plain = document["plain_validator"]
        seed = json.loads(get(document["wire"]).schema_path.read_text("utf-8"))
        stock = jsonschema.Draft202012Validator(seed)
        lines = vectors.stream_of(document).split(b"\n")
        recomputed = []
        for number, body in enumerate(lines, 1):
            try:
                value = json.loads(body)
                valid = stock.is_valid(value)
            except (ValueError, RecursionError):
                continue
            if not valid:
                recomputed.append(number)
        assert plain["rejects"] == recomputed, document["id"]
        assert plain["agrees"] is (plain["rejects"] == plain["suite_rejects"]), document["id"]
        if document["group"] == "future-compatible" and not plain["agrees"]:
            assert all("open set" in why for why in plain["why"]), (document["id"], plain["why"])
            unknown_types += 1
    assert unknown_types, "no future-compatible vector with an unknown line type: the field was never exercised"


def test_the_open_set_reading_is_stated_for_an_unknown_line_type() -> None:
    from contract.consumers import plain
    line = b'{"type":"heartbeat","session_id":"sess_1","seq":2,"ts":"2026-03-15T12:00:05Z"}'
    data = (b'{"type":"system","subtype":"init","session_id":"sess_1","seq":1,"ts":"2026-03-15T12:00:01Z"}\n'
            + line + b'\n{"type":"result","subtype":"success","session_id":"sess_1","seq":3,'
            b'"ts":"2026-03-15T12:00:06Z","is_error":false}\n')
    report = contract.check(data, "stream-json")
    assert report.conformant
    field = plain.verdict("stream-json", data, report)
    assert field["rejects"] == [2]
    assert field["suite_rejects"] == []
    assert field["agrees"] is False
    assert '"heartbeat"' in field["why"][0]
    assert "open set: ignore unknown values" in field["why"][0]


def test_the_index_names_each_vectors_wire_and_group(exported: Path) -> None:
    # issue 51: a reader of index.json parsed the group out of the id or the path
    index = json.loads((exported / "index.json").read_text("utf-8"))
    assert {entry["group"] for entry in index["vectors"]} == set(vectors.GROUPS)
    for entry in index["vectors"]:
        document = json.loads((exported / entry["file"]).read_text("utf-8"))
        assert (entry["wire"], entry["group"]) == (document["wire"], document["group"]), entry["id"]


def test_vectors_without_an_action_names_it_in_the_helps_words(capsys: pytest.CaptureFixture[str]) -> None:
    # issue 51: "required: action", a word the help never uses
    assert cli.run(["vectors"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    named = err.rsplit("required: ", 1)[1].split(", ")
    assert cli.run(["vectors", "--help"]) == 0
    shown = capsys.readouterr().out
    assert named
    assert all(word in shown for word in named), (named, shown)
