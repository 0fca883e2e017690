"""Shards merged equal the unsharded matrix, on a space of registries and splits (not only the example):
any consumers (names and versions drawn, hostile ones included), any columns, any N from 1 to 7. The
cells' verdicts are drawn too (``run_cell`` replaced: what is held is the partition and the merge, not a
consumer's behaviour, which tests/compat/test_matrix.py runs for real)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contract.compat import matrix
from contract.compat.columns import Column, CompatError
from contract.consumers.registered import Consumer
from contract.statement.model import seal

WIRES = ("w1", "w2")
_NAMES = st.text(st.characters(codec="utf-8", exclude_characters="\0"), min_size=1, max_size=6)


@st.composite
def _registry(draw: st.DrawFn) -> tuple[list[Consumer], list[Column]]:
    keys = draw(st.lists(st.tuples(_NAMES, _NAMES, st.sampled_from(WIRES)), min_size=1, max_size=6,
                         unique_by=lambda k: (k[0], k[1])))
    consumers = [Consumer(name, version, ("run", name), wire) for name, version, wire in keys]
    labels = draw(st.lists(st.tuples(st.sampled_from(WIRES), st.sampled_from(["r1", "r2", "r3", "adr:x.json"])),
                           min_size=1, max_size=6, unique=True))
    return consumers, [Column(wire, label, "0" * 64, error="drawn") for wire, label in labels]


def _verdict(consumer: Consumer, column: Column, _options: matrix.Options) -> dict[str, Any]:
    fail = len(consumer.name + column.label) % 3 == 0
    return {"consumer": consumer.name, "version": consumer.version, "wire": column.wire, "revision": column.label,
            "verdict": "fail" if fail else "pass",
            "finding": {"rule": "consumer.crash", "stream": "hello", "message": consumer.version} if fail else None}


@settings(derandomize=True, max_examples=60, deadline=None)
@given(registry=_registry(), total=st.integers(1, 7))
def test_the_shards_merged_are_the_unsharded_matrix(registry: tuple[list[Consumer], list[Column]],
                                                    total: int) -> None:
    consumers, columns = registry
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matrix, "run_cell", _verdict)
        whole = matrix.run(consumers, columns, matrix.Options(), "1.0")
        shards = [matrix.run(consumers, columns, matrix.Options(), "1.0", (index, total))
                  for index in range(1, total + 1)]
    assert sum(len(s["cells"]) for s in shards) == len(whole["cells"])
    texts = [(f"s{i}", json.dumps(s)) for i, s in enumerate(shards)]
    assert json.dumps(matrix.merge(texts), sort_keys=True) == json.dumps(whole, sort_keys=True)
    assert len(whole["cells"]) == sum(1 for c in consumers for col in columns if col.wire == c.wire)


@settings(derandomize=True, max_examples=20, deadline=None)
@given(registry=_registry(), total=st.integers(1, 3))
def test_every_matrix_and_shard_meets_the_shipped_schema(registry: tuple[list[Consumer], list[Column]],
                                                         total: int) -> None:
    consumers, columns = registry
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matrix, "run_cell", _verdict)
        for shard in [None, *((index, total) for index in range(1, total + 1))]:
            assert matrix.problem_of(matrix.run(consumers, columns, matrix.Options(), "1.0", shard)) is None


@pytest.mark.parametrize("edit", [
    lambda d: d["cells"][0].update(verdict="green"),
    lambda d: d["cells"][0].update(finding=None, verdict="fail"),
    lambda d: d.update(shard="0/2"),
    lambda d: d["summary"].pop("error"),
], ids=["unknown-verdict", "fail-without-finding", "shard-zero", "summary-cut"])
def test_the_schema_refuses_what_a_matrix_cannot_be(edit: Any) -> None:
    consumers = [Consumer("sdk", "1", ("x",), "w1")]
    columns = [Column("w1", "r1", "0" * 64, error="drawn")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matrix, "run_cell", _verdict)
        document = matrix.run(consumers, columns, matrix.Options(), "1.0", (1, 1))
    assert matrix.problem_of(document) is None
    edit(document)
    assert matrix.problem_of(document) is not None
    with pytest.raises(CompatError, match="is not a compat matrix"):
        matrix.merge([("edited", json.dumps(document))])


_HOSTILE = st.text(st.sampled_from(["<", ">", "&", '"', "|", "`", "\\", "\n", "\x1b", "\u202e", "\x00", "a", "é", "*"]),
                   min_size=1, max_size=12)


@settings(derandomize=True, max_examples=60, deadline=None)
@given(name=_HOSTILE, version=_HOSTILE, message=_HOSTILE)
def test_hostile_text_is_escaped_in_markdown_and_html(name: str, version: str, message: str) -> None:
    """Whatever the consumers file and a consumer's output hold: no unsafe character in either page, the
    markdown table keeps its columns, and the HTML holds no tag the page did not write."""
    from html.parser import HTMLParser

    from contract.compat import render
    from contract.core.textsafe import UNSAFE

    def verdict(consumer: Consumer, column: Column, _options: matrix.Options) -> dict[str, Any]:
        return {**_verdict(consumer, column, _options), "verdict": "fail",
                "finding": {"rule": "consumer.crash", "stream": message, "message": message}}

    consumers = [Consumer(name, version, ("x",), "w1")]
    columns = [Column("w1", "r1", "0" * 64, error=message), Column("w1", "r2", "0" * 64, error=None)]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matrix, "run_cell", verdict)
        document = matrix.run(consumers, columns, matrix.Options(), "1.0")
    markdown = render.markdown(document)
    page = render.html_page(document)
    assert not [line for line in markdown.splitlines() if UNSAFE.search(line)]
    assert not [line for line in page.splitlines() if UNSAFE.search(line)]
    row = next(line for line in markdown.splitlines() if line.startswith("| ") and "FAIL" in line)
    assert row.replace("\\|", "").count("|") == len(columns) + 2

    class Tags(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.seen: set[str] = set()

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            self.seen.add(tag)

    tags = Tags()
    tags.feed(page)
    assert tags.seen <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "p", "table", "thead", "tbody",
                         "tr", "th", "td", "code", "ul", "li", "span"}


def _shards_of_a_failing_matrix() -> list[dict[str, Any]]:
    consumers = [Consumer("sdkx", "1", ("x",), "w1"), Consumer("ab", "2", ("y",), "w1")]  # _verdict fails sdkx
    columns = [Column("w1", "r1", "0" * 64, error="drawn")]
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(matrix, "run_cell", _verdict)
        shards = [matrix.run(consumers, columns, matrix.Options(), "1.0", (index, 1)) for index in (1,)]
    assert shards[0]["summary"]["fail"] >= 1
    return shards


def _turned_green(document: dict[str, Any]) -> dict[str, Any]:
    """Every failing cell made a pass by hand, the summary made to agree: the wrong green to refuse."""
    for cell in document["cells"]:
        cell.update(verdict="pass", finding=None)
    document["summary"] = {"pass": len(document["cells"]), "fail": 0, "error": 0}
    return document


def test_a_shard_turned_green_by_hand_is_refused() -> None:
    (shard,) = _shards_of_a_failing_matrix()
    assert matrix.merge([("s", json.dumps(shard))])["summary"] == shard["summary"]
    edited = _turned_green(shard)
    assert matrix.problem_of(edited) is None  # a well-formed document: only its seal tells
    with pytest.raises(CompatError, match="sha256 is not its content's"):
        matrix.merge([("edited", json.dumps(edited))])


def test_a_resealed_shard_whose_summary_its_cells_do_not_give_is_refused() -> None:
    (shard,) = _shards_of_a_failing_matrix()
    edited = _turned_green(shard)
    edited["summary"] = {"pass": 0, "fail": len(edited["cells"]), "error": 0}
    resealed = seal({k: v for k, v in edited.items() if k != "sha256"})
    with pytest.raises(CompatError, match="its summary is not its cells'"):
        matrix.merge([("resealed", json.dumps(resealed))])


def test_a_matrix_of_the_first_version_is_refused_by_name() -> None:
    (shard,) = _shards_of_a_failing_matrix()
    older = {k: v for k, v in shard.items() if k != "sha256"} | {"version": 1}
    with pytest.raises(CompatError, match=r"not a compat matrix \(version 2\)"):
        matrix.merge([("older", json.dumps(older))])


def test_an_output_that_cannot_be_written_is_one_line_escaped_once(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from contract import cli

    (shard,) = _shards_of_a_failing_matrix()
    source = tmp_path / "s.json"
    source.write_text(json.dumps(shard), encoding="utf-8")
    capsys.readouterr()
    assert cli.run(["compat", "merge", str(source), "--output", str(tmp_path / "no" / "\x1b[31mred")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "\\u001b[31mred" in err  # escaped once: not "\\u005cu001b"
    assert "\x1b" not in err
