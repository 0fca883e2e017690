"""stream-json's cases of the rules on what a run's lines carry: agents, messages and roles,
tool results and parent references, streamed tool arguments, capabilities, usage and the ts order
(tests/wires/stream_json/cases/)."""

from __future__ import annotations

from contract.wires.casefiles import Case, Table, case
from contract.wires.stream_json.kit.cases.lines import (
    DELETE,
    NESTED_900,
    SJ,
    after_tool_use,
    base,
    dangling,
    edit,
    insert,
    line,
    renumber,
    setf,
    stamps,
    tool_args,
    usage,
)


def sj_agent_form() -> list[Case]:
    return [
        case("a label string on system/init", True, lines=edit(setf(0, "/agent", "primary")), at=[(1, "/agent")]),
        case(
            "an AgentInfo object on an assistant line",
            True,
            lines=edit(setf(1, "/agent", {"name": "milk", "provider": "anthropic"})),
            at=[(2, "/agent")],
        ),
        case("a number as the agent of an assistant line", True, lines=edit(setf(3, "/agent", 7)),
             at=[(4, "/agent")]),
        case("null as the agent of a user line", True, lines=edit(setf(2, "/agent", None)), at=[(3, "/agent")]),
        case("an AgentInfo object on a user line", True,
             lines=edit(setf(2, "/agent", {"name": "milk", "provider": "anthropic"})), at=[(3, "/agent")]),
        case("the escalation label on an assistant line", False, lines=edit(setf(3, "/agent", "escalation"))),
        # The one reading of the dual-form sentences: the form where present, never presence.
        case("system/init without an agent", False, lines=edit(setf(0, "/agent", DELETE))),
        case("an assistant line without an agent", False, lines=edit(setf(1, "/agent", DELETE))),
        case("a user line without an agent", False, lines=edit(setf(2, "/agent", DELETE))),
        case("an unknown role label: primary | escalation are known values of an open set", False,
             lines=edit(setf(3, "/agent", "secondary"))),
    ]


def sj_message_form() -> list[Case]:
    return [
        case(
            "a Message object on system/error",
            True,
            lines=edit(insert(3, line(0, "system", subtype="error", message={"role": "assistant", "content": []}))),
            at=[(4, "/message")],
        ),
        case("a string message on an assistant line", True, lines=edit(setf(3, "/message", "hello")),
             at=[(4, "/message")]),
        case("a string message on a user line", True, lines=edit(setf(2, "/message", "hello")),
             at=[(3, "/message")]),
        case(
            "a string on system/error",
            False,
            lines=edit(insert(3, line(0, "system", subtype="error", message="provider timeout", recoverable=True))),
        ),
        # One reading of every dual-form sentence, on every line type it names: the form where
        # the member is present; the sentence does not make it present (issue 23).
        case("a system/error line without a message: the form sentence does not make it present", False,
             lines=edit(insert(3, line(0, "system", subtype="error", recoverable=True)))),
        case("an assistant line without a message is sj.message-present's (derived), not the form's", False,
             lines=edit(setf(3, "/message", DELETE))),
        case("a Message object on a line type the sentence does not name (system/warning)", False,
             lines=edit(insert(3, line(0, "system", subtype="warning",
                                       message={"role": "assistant", "content": []})))),
    ]


def sj_message_present() -> list[Case]:
    return [
        case("an assistant line without a message", True, lines=edit(setf(3, "/message", DELETE)),
             at=[(4, "/message")]),
        case("a user line without a message", True, lines=edit(setf(2, "/message", DELETE)),
             at=[(3, "/message")]),
        case("a string message on an assistant line is there (its form is sj.message-form's)", False,
             lines=edit(setf(3, "/message", "hello"))),
        case("a system/error line without a message: no words ask for one", False,
             lines=edit(insert(3, line(0, "system", subtype="error", recoverable=True)))),
    ]


def sj_tool_result_ref() -> list[Case]:
    return [
        case(
            "a tool_result naming an unknown tool_use",
            True,
            lines=edit(setf(2, "/message/content/0/tool_use_id", "tu_9")),
            at=[(3, "/message/content/0/tool_use_id")],
        ),
        case(
            "a tool_result before its tool_use",
            True,
            lines=edit(lambda ls: (ls.insert(1, ls.pop(2)), renumber(ls))),
        ),
        case(
            "a tool_result on an assistant line naming an unknown tool_use",
            True,
            lines=edit(setf(3, "/message/content", [{"type": "tool_result", "tool_use_id": "tu_9"}])),
            at=[(4, "/message/content/0/tool_use_id")],
        ),
        case("a tool_result after its tool_use", False, lines=base()),
        case(
            "a tool_result on an assistant line naming an earlier tool_use",
            False,
            lines=edit(setf(3, "/message/content", [{"type": "tool_result", "tool_use_id": "tu_1"}])),
        ),
        # Blocks count where the wire puts them, both kinds alike (issue 46): on assistant and user
        # lines (their message carries content blocks, oneOf[2] and oneOf[3]), either of them, and
        # on no other line; a line of a type not known is ignored whole (open set) (docs/rules.md)
        case("a tool_use on a user line counts as one on an assistant line", False,
             lines=edit(lambda ls: (ls[1].update(type="user"), ls[1]["message"].update(role="user")))),
        case("a tool_use only on a line of a type not known is ignored with it: the tool_result names none",
             True, lines=edit(setf(1, "/type", "assistant_note")), at=[(3, "/message/content/0/tool_use_id")]),
        case("a tool_result on a line of a type not known is ignored with it, as a tool_use there is", False,
             lines=edit(lambda ls: (ls[2].update(type="user_note"),
                                    ls[2]["message"]["content"][0].update(tool_use_id="tu_9"))),
             exercised=False),
        case(
            "a tool_use_id that is an array is the schema's finding",
            False,
            lines=edit(setf(2, "/message/content/0/tool_use_id", ["tu_9"])),
            exercised=False,  # the only tool_result names no id the rule can follow
        ),
    ]


def sj_parent_ref() -> list[Case]:
    return [
        case(
            "a nested line naming an unknown parent",
            True,
            lines=edit(setf(3, "/parent_tool_use_id", "tu_404")),
            at=[(4, "/parent_tool_use_id")],
        ),
        case("a nested line naming an earlier tool_use", False, lines=edit(setf(3, "/parent_tool_use_id", "tu_1"))),
    ]


def sj_tool_args_reassembly() -> list[Case]:
    return [
        case(
            "fragments that do not reassemble to the input",
            True,
            lines=tool_args(['{"path":', '"b.txt"}'], {"path": "a.txt"}),
        ),
        case(
            "fragments that are not JSON when joined",
            True,
            lines=tool_args(['{"path":', '"a.txt"'], {"path": "a.txt"}),
        ),
        case("a duplicate member in the reassembly is sj.tool-args-duplicate-key's (policy)", False,
             lines=tool_args(['{"path":"a.txt",', '"path":"b.txt"}'], {"path": "b.txt"})),
        case("a number streamed as 1.5 for the input 1", True, lines=tool_args(['{"n":1.5}'], {"n": 1})),
        case("true streamed for the input 1", True, lines=tool_args(['{"n":true}'], {"n": 1})),
        case("an integer argument streamed as 1.0 is the number 1", False,
             lines=tool_args(['{"n":1.0}'], {"n": 1})),
        case("the same member name in sibling objects", False,
             lines=tool_args(['{"a":{"x":1},', '"b":{"x":1}}'], {"a": {"x": 1}, "b": {"x": 1}})),
        case("arguments nested 900 levels deep", False,
             lines=tool_args(["[" * 450, "[" * 450 + "]" * 900], NESTED_900)),
        case(
            "fragments that reassemble exactly",
            False,
            lines=tool_args(['{"pa', 'th":"a', '.txt"}'], {"path": "a.txt"}),
        ),
        # Issue 20. A call whose fragments never meet their tool_use, in a run whose result
        # does not say it failed; a fragment after the tool_use that completed the call.
        case('fragments {"a": that never meet a tool_use, in a run whose result says success', True,
             lines=dangling(['{"a":']), at=[(5, "/event/partial_json")]),
        case("fragments that join to JSON but never meet a tool_use, in a successful run", True,
             lines=dangling(['{"a":', "1}"]), at=[(5, "/event/partial_json")]),
        case("a fragment after the tool_use, contradicting its input", True,
             lines=after_tool_use(['{"path":"a.txt"}'], ['{"path":"b.txt"}']), at=[(4, "/event/partial_json")]),
        case("every fragment after the tool_use it spells out", True,
             lines=after_tool_use([], ['{"path":"a.txt"}']), at=[(3, "/event/partial_json")]),
        case("an empty fragment after the tool_use (it changes no concatenation)", False,
             lines=after_tool_use(['{"path":"a.txt"}'], [""])),
        case('fragments {"a": that never meet a tool_use, in a run whose result says it failed', False,
             lines=dangling(['{"a":'], result={"subtype": "interrupted", "is_error": True}), exercised=False),
        case("only empty fragments that never meet a tool_use (no argument text streamed)", False,
             lines=dangling(["", ""]), exercised=False),
        case("fragments that never meet a tool_use in a truncated run (sj.result-last says so)", False,
             lines=dangling(['{"a":'], ended=False), exercised=False),
    ]


def sj_tool_args_duplicate_key() -> list[Case]:
    return [
        case("a duplicate member in the reassembly (no last-wins)", True,
             lines=tool_args(['{"path":"a.txt",', '"path":"b.txt"}'], {"path": "b.txt"}),
             at=[(4, "/message/content/0/input")]),
        case("a duplicate member deep in the reassembly", True,
             lines=tool_args(['{"o":{"x":1,', '"x":1}}'], {"o": {"x": 1}})),
        case("the same member name in sibling objects", False,
             lines=tool_args(['{"a":{"x":1},', '"b":{"x":1}}'], {"a": {"x": 1}, "b": {"x": 1}})),
        case("fragments that do not reassemble to the input are sj.tool-args-reassembly's", False,
             lines=tool_args(['{"path":', '"b.txt"}'], {"path": "a.txt"})),
    ]


def sj_capabilities() -> list[Case]:
    return [
        case(
            "stream_event without partial_messages_v1",
            True,
            lines=edit(
                lambda ls: (
                    ls[0].update(capabilities=["stream_v1"]),
                    ls.insert(
                        1,
                        line(
                            0,
                            "stream_event",
                            event={
                                "type": "content_block_delta",
                                "index": 0,
                                "delta": {"type": "text_delta", "text": "Th"},
                            },
                        ),
                    ),
                    renumber(ls),
                )
            ),
            at=[(2, "/type")],
            strict=True,
        ),
        case(
            "task lines without tasks_v1",
            True,
            lines=edit(
                lambda ls: (
                    ls[0].update(capabilities=["stream_v1"]),
                    ls.insert(1, line(0, "system", subtype="task_started", task_id="t1")),
                    renumber(ls),
                )
            ),
            strict=True,
        ),
        case(
            "stream_event with partial_messages_v1 advertised",
            False,
            lines=edit(
                insert(
                    1,
                    line(
                        0,
                        "stream_event",
                        event={
                            "type": "content_block_delta",
                            "index": 0,
                            "delta": {"type": "text_delta", "text": "Th"},
                        },
                    ),
                )
            ),
            strict=True,
        ),
    ]


def sj_usage_rollup() -> list[Case]:
    return [
        case(
            "model_usage does not add up to usage",
            True,
            lines=edit(setf(4, "/usage/output_tokens", 6)),
            at=[(5, "/usage/output_tokens")],
            strict=True,
        ),
        case(
            "two models that add up",
            False,
            lines=edit(
                lambda ls: ls[4].update(usage=usage(30, 9), model_usage={"m-1": usage(10, 5), "m-2": usage(20, 4)})
            ),
            strict=True,
        ),
    ]


def sj_ts_order() -> list[Case]:
    return [
        case(
            "ts goes back a second",
            True,
            lines=edit(setf(3, "/ts", "2026-03-01T10:00:01Z")),
            at=[(4, "/ts")],
            strict=True,
        ),
        case(
            "ts goes back across offsets",
            True,
            lines=edit(setf(3, "/ts", "2026-03-01T10:59:00+01:00")),
            strict=True,
        ),
        case(
            "23:59:59.9 after the leap second 23:59:60 of the same minute",
            True,
            lines=edit(stamps("2016-12-31T23:59:00Z", "2016-12-31T23:59:30Z", "2016-12-31T23:59:60Z",
                              "2016-12-31T23:59:59.9Z", "2017-01-01T00:00:00Z")),
            at=[(4, "/ts")],
            strict=True,
        ),
        case(
            "23:59:59.5, the leap second 23:59:60, then the next day",
            False,
            lines=edit(stamps("2016-12-31T23:59:00Z", "2016-12-31T23:59:30Z", "2016-12-31T23:59:59.5Z",
                              "2016-12-31T15:59:60-08:00", "2017-01-01T00:00:00Z")),
            strict=True,
        ),
        case(
            "equal timestamps and a later one with an offset",
            False,
            lines=edit(lambda ls: (ls[2].update(ts=ls[1]["ts"]), ls[3].update(ts="2026-03-01T11:00:03+01:00"))),
            strict=True,
        ),
    ]


def sj_role_form() -> list[Case]:
    return [
        case(
            "role user on an assistant line",
            True,
            lines=edit(setf(3, "/message/role", "user")),
            at=[(4, "/message/role")],
            strict=True,
        ),
        case("matching roles", False, lines=base(), strict=True),
    ]


CASES: Table = (
    (SJ, "sj.agent-form", sj_agent_form),
    (SJ, "sj.message-form", sj_message_form),
    (SJ, "sj.message-present", sj_message_present),
    (SJ, "sj.tool-result-ref", sj_tool_result_ref),
    (SJ, "sj.parent-ref", sj_parent_ref),
    (SJ, "sj.tool-args-reassembly", sj_tool_args_reassembly),
    (SJ, "sj.tool-args-duplicate-key", sj_tool_args_duplicate_key),
    (SJ, "sj.capabilities", sj_capabilities),
    (SJ, "sj.usage-rollup", sj_usage_rollup),
    (SJ, "sj.ts-order", sj_ts_order),
    (SJ, "sj.role-form", sj_role_form),
)
