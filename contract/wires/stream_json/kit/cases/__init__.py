"""stream-json's case generator: ``python tools/make_cases.py`` runs ``write_cases``.

Case files are the artifact the suite reads; this only saves typing for the cases it writes. Each
case is the base stream (``lines.base``) with one edit, so a reviewer sees exactly what the near
miss and the firing stream differ in. The cases are cut by concern: the framing rules' (``framing``),
a run's shape and identity (``run``), what its lines carry (``content``); the cases that cross rules
(numbers read exactly, repeated member names, quiet streams) are here. A new rule needs no edit
here: its cases are written in its own case file, which this leaves as it is (it rewrites the files
it writes, byte for byte as they are, and merges into the rest only the cases it names).
"""

from __future__ import annotations

from contract.wires.casefiles import CaseFiles, case
from contract.wires.stream_json.kit.cases import content, framing, run
from contract.wires.stream_json.kit.cases.lines import OK, SJ, base, minimal, without


def write_cases(files: CaseFiles) -> None:
    """Rewrite every case file stream-json's generator writes, then merge the cases it adds to the others."""
    for table in (framing.CASES, run.CASES, content.CASES):
        files.write_table(SJ, table)
    numbers(files)
    repeated_names(files)
    idle(files)


def numbers(files: CaseFiles) -> None:
    """Numbers are judged by exact value (integer-valued forms are integers; nothing rounds)."""
    files.merge(SJ, "sj.schema", SJ, [
        case("seq 2.0000000000000001 is not an integer when read exactly", True,
             raw_text=OK.replace('"seq":2,', '"seq":2.0000000000000001,'), at=[(3, "/seq")]),
        case("seq written as 1e0 is the integer 1", False,
             raw_text=OK.replace('"seq":1,', '"seq":1e0,')),
    ])


def repeated_names(files: CaseFiles) -> None:
    """A repeated member name (line.duplicate-key, policy) never hides what the line breaks besides:
    the line is judged by its last-wins reading, and the schema by its first-wins reading too; a
    line the machines cannot place (a type read two ways, a lone surrogate) by the schema alone."""
    files.merge(SJ, "sj.schema", SJ, [
        case("a schema break beside a repeated member name (extension holds a twice)", True,
             raw_text=OK.replace('"is_error":false', '"is_error":"no","extension":{"a":1,"a":1}'),
             at=[(5, "/is_error")]),
        case("a schema break in the reading that keeps a repeated member's first value", True,
             raw_text=OK.replace('"is_error":false', '"is_error":"no","is_error":false'), at=[(5, "/is_error")]),
        case("a repeated member whose every reading passes the schema", False,
             raw_text=OK.replace('"is_error":false', '"is_error":false,"extension":{"a":1,"a":2}')),
        # A line whose type is read two ways, or that holds a lone surrogate, is opaque to the
        # machines, but the schema judges every reading of it (an independent reading's case).
        case("a type read two ways whose result reading breaks the schema", True,
             raw_text=OK.replace('{"type":"assistant","session_id":"sess_01HZX3","seq":3',
                                 '{"type":"assistant","type":"result","is_error":"no","session_id":"sess_01HZX3","seq":3'),
             at=[(4, "/is_error")]),
        case("a type read two ways whose every reading passes the schema", False,
             raw_text=OK.replace('{"type":"assistant","session_id":"sess_01HZX3","seq":3',
                                 '{"type":"user","type":"assistant","session_id":"sess_01HZX3","seq":3')),
        case("a schema break beside a lone surrogate", True,
             raw_text=OK.replace('"is_error":false,"result":"The file says hello."',
                                 '"is_error":"no","result":"\\ud800"'),
             at=[(5, "/is_error")]),
        case("a lone surrogate alone: the schema passes the line read with U+FFFD", False,
             raw_text=OK.replace('"result":"The file says hello."', '"result":"\\ud800"')),
    ])
    # The machines judge every reading too, each in a copy of their state before the line.
    files.merge(SJ, "sj.seq", SJ, [
        case("a step back in the reading that keeps a repeated seq's first value", True,
             raw_text=OK.replace('"seq":2,', '"seq":0,"seq":2,'), at=[(3, "/seq")]),
    ])
    files.merge(SJ, "sj.subtype", SJ, [
        case("a type read two ways whose system reading has no subtype", True,
             raw_text=OK.replace('{"type":"assistant","session_id":"sess_01HZX3","seq":3',
                                 '{"type":"assistant","type":"system","session_id":"sess_01HZX3","seq":3'),
             at=[(4, "/subtype")]),
    ])
    files.merge(SJ, "sj.seq-contiguous", SJ, [
        case("a seq gap on a line with a repeated member name", True,
             raw_text=OK.replace('"seq":2,', '"seq":7,"extension":{"a":1,"a":1},'), at=[(3, "/seq")]),
    ])


def idle(files: CaseFiles) -> None:
    """One not-exercised case per rule: a stream that holds nothing the rule applies to.

    The rule must stay quiet and its requirement verdict must be not-exercised (never passed).
    sj.init-first and sj.result-last have none: they judge the end of every stream, an empty
    one included (contract.rules.requirements.ALWAYS_JUDGED).
    """
    empty = case("an empty stream: no line to judge", False, raw_text="", exercised=False)
    for rule in ("line.utf8", "line.newline", "line.blank", "line.json", "line.object",
                 "line.duplicate-key", "line.limit", "line.ansi", "line.c1", "line.surrogate"):
        files.merge("line", rule, SJ, [empty])
    only_init = [base()[0]]
    stream_json = {
        "sj.schema": case("no JSON object line for the schema to judge", False, raw_text="[1]\n", exercised=False),
        "sj.init-once": case("no system/init line", False, lines=base()[1:], exercised=False),
        "sj.result-once": case("no result line (a truncated run)", False, lines=only_init, exercised=False),
        "sj.seq": case("a single line: no seq to compare with", False, lines=only_init, exercised=False),
        "sj.seq-contiguous": case("a single line: no seq to compare with", False, lines=only_init,
                                  exercised=False),
        "sj.session": case("no session_id on any line", False, lines=without("session_id", base()),
                           exercised=False),
        "sj.session-constant": case("no session_id on any line", False, lines=without("session_id", base()),
                                    exercised=False),
        "sj.ts-format": case("no ts on any line", False, lines=without("ts", base()), exercised=False),
        "sj.ts-order": case("a single line: no ts to compare with", False, lines=only_init, exercised=False),
        "sj.agent-form": case("no agent on any line", False, lines=without("agent", base()), exercised=False),
        "sj.message-form": case("init and result only: no message", False, lines=minimal(), exercised=False),
        "sj.message-present": case("init and result only: no assistant or user line", False, lines=minimal(),
                                   exercised=False),
        "sj.role-form": case("init and result only: no role", False, lines=minimal(), exercised=False),
        "sj.result-is-error": case("no result line", False, lines=only_init, exercised=False),
        "sj.result-success": case("no result line", False, lines=only_init, exercised=False),
        "sj.session-suffix": case("no session_id on any line", False, lines=without("session_id", base()),
                                  exercised=False),
        "sj.ts-leap-second": case("no second 60 on any line", False, lines=base(), exercised=False),
        "sj.usage-rollup": case("a result without model_usage", False, lines=minimal(), exercised=False),
        "sj.capabilities": case("no stream_event or task line", False, lines=minimal(), exercised=False),
        "sj.tool-result-ref": case("no tool_result block", False, lines=minimal(), exercised=False),
        "sj.parent-ref": case("no parent_tool_use_id", False, lines=base(), exercised=False),
        "sj.tool-args-reassembly": case("a tool_use without tool_args_delta fragments", False, lines=base(),
                                        exercised=False),
        "sj.tool-args-duplicate-key": case("a tool_use without tool_args_delta fragments", False, lines=base(),
                                           exercised=False),
        "sj.subtype": case("no system or result line", False, lines=base()[1:4], exercised=False),
    }
    for rule, each in stream_json.items():
        files.merge(SJ, rule, SJ, [each])
