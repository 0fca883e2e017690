"""stream-json's authored goldens: each scenario a plausible milk run written to the schema.

``python tools/make_goldens.py`` runs ``write_goldens``; each scenario is checked clean with
``check --strict`` before it is written (``contract.goldens.authoring``). ``Run`` fills each line's
type and subtype, session_id, seq and ts; the ``sj_*`` functions are the scenarios, ``STREAM_JSON``
their table (name, builder, description, argv, exit status).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from contract.goldens.authoring import Obj, dumps, meta, write_golden


class Run:
    """One stream-json run: fills type/subtype, session_id, seq and ts on each line."""

    def __init__(self, session: str, start: str) -> None:
        self.session = session
        self.at = datetime.fromisoformat(start.replace("Z", "+00:00"))
        self.seq = 0
        self.lines: list[Obj] = []

    def emit(self, kind: str, subtype: str | None = None, /, *, after_ms: int = 7,
             **fields: Any) -> Obj:
        self.seq += 1
        self.at += timedelta(milliseconds=after_ms)
        head: Obj = {"type": kind}
        if subtype is not None:
            head["subtype"] = subtype
        ts = self.at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.at.microsecond // 1000:03d}Z"
        line = {**head, "session_id": self.session, "seq": self.seq, "ts": ts, **fields}
        self.lines.append(line)
        return line

    def assistant(self, msg_id: str, *blocks: Obj, agent: str = "primary", after_ms: int = 40,
                  **fields: Any) -> Obj:
        message = {"id": msg_id, "role": "assistant", "content": list(blocks)}
        return self.emit("assistant", agent=agent, message=message, after_ms=after_ms, **fields)

    def user(self, *blocks: Obj, agent: str = "primary", after_ms: int = 30, **fields: Any) -> Obj:
        return self.emit("user", agent=agent, message={"role": "user", "content": list(blocks)},
                         after_ms=after_ms, **fields)

    def text_deltas(self, index: int, text: str, parts: int, kind: str = "text",
                    **fields: Any) -> None:
        for piece in split(text, parts):
            delta = {"type": f"{kind}_delta", kind: piece}
            self.emit("stream_event", event={"type": "content_block_delta", "index": index,
                                             "delta": delta}, after_ms=25, **fields)

    def args_deltas(self, tool_id: str, index: int, args: Obj, parts: int, **fields: Any) -> None:
        for piece in split(dumps(args), parts):
            self.emit("stream_event", event={"type": "tool_args_delta", "index": index,
                                             "tool_use_id": tool_id, "partial_json": piece},
                      after_ms=18, **fields)


def split(text: str, parts: int) -> list[str]:
    size = -(-len(text) // parts)
    return [text[i:i + size] for i in range(0, len(text), size)]


def text(value: str) -> Obj:
    return {"type": "text", "text": value}


def thinking(value: str) -> Obj:
    return {"type": "thinking", "thinking": value}


def tool_use(tool_id: str, name: str, args: Obj) -> Obj:
    return {"type": "tool_use", "id": tool_id, "name": name, "input": args}


def tool_result(tool_id: str, content: Any, is_error: bool = False) -> Obj:
    block: Obj = {"type": "tool_result", "tool_use_id": tool_id, "content": content}
    if is_error:
        block["is_error"] = True
    return block


SONNET = "claude-sonnet-4-5"
OPUS = "claude-opus-4-1"
PRIMARY = {"name": "milk", "provider": "anthropic", "model": SONNET, "role": "primary",
           "context_window_tokens": 200000}
TOOLS = ["Read", "Edit", "Write", "Bash", "Grep", "Glob", "Task"]


def init(run: Run, caps: list[str], **fields: Any) -> Obj:
    base: Obj = {"agent": PRIMARY, "capabilities": caps, "cwd": "/home/dev/acme-api",
                 "milk_version": "0.42.0", "tools": TOOLS, "mcp_servers": []}
    base.update(fields)
    return run.emit("system", "init", after_ms=0, **base)


def usage(inp: int, out: int, read: int = 0, create: int = 0) -> Obj:
    return {"input_tokens": inp, "output_tokens": out, "cache_read": read, "cache_creation": create}


def total(*parts: Obj) -> Obj:
    return {key: sum(p[key] for p in parts) for key in parts[0]}


def result(run: Run, subtype: str, is_error: bool, stop: str, turns: int, per_model: dict[str, Obj],
           *, duration: int, ttft: int, **fields: Any) -> Obj:
    sums = total(*per_model.values())
    rate = round(sums["output_tokens"] / (duration / 1000), 1)
    return run.emit("result", subtype, after_ms=12, is_error=is_error, stop_reason=stop,
                    num_turns=turns, duration_ms=duration, ttft_ms=ttft, usage=sums,
                    model_usage=per_model, output_tokens_per_second=rate, **fields)


def sj_hello() -> Run:
    run = Run("sess_01JDXK3M7Q9T2VB8H4N6ZC5WRA", "2026-11-30T09:14:02.311Z")
    init(run, ["stream_v1"])
    answer = "Hi! I'm milk. What would you like to work on in acme-api today?"
    run.assistant("msg_01HV8Q2M4ZB7T3X9K5C1NRWDFE", text(answer), after_ms=912)
    result(run, "success", False, "end_turn", 1, {SONNET: usage(2411, 19, 1800, 0)},
           duration=1204, ttft=688, result=answer)
    return run


def sj_streaming_thinking() -> Run:
    run = Run("sess_01JDXK6Y2F8R4QW1M9T7BC3NHS", "2026-11-30T09:20:45.017Z")
    init(run, ["stream_v1", "partial_messages_v1"])
    idea = ("The user asks why the cache test is flaky. The TTL is 1s and the test sleeps 1s, so "
            "expiry races the assertion.")
    answer = ("The test sleeps exactly as long as the TTL (1 s), so whether the entry has expired "
              "when the assertion runs depends on scheduling. Use a fake clock, or sleep well past "
              "the TTL.")
    run.text_deltas(0, idea, 3, kind="thinking")
    run.text_deltas(1, answer, 4)
    run.assistant("msg_01HV8R0K7C2P5N1X3T9QWB6MJA", thinking(idea), text(answer), after_ms=15)
    result(run, "success", False, "end_turn", 1, {SONNET: usage(3120, 96, 2900, 0)},
           duration=3610, ttft=742, result=answer)
    return run


def sj_tool_calls() -> Run:
    run = Run("sess_01JDXKA4D9E2C7V5R3P8WQ1GTY", "2026-11-30T09:31:10.500Z")
    init(run, ["stream_v1", "partial_messages_v1"])
    read = "toolu_01Q7ZrB3xK9mV2cT8nW4pLdE"
    edit = "toolu_01M5hG2vS8kJ3wQ6yR1tXbNa"
    read_args = {"file_path": "README.md"}
    run.text_deltas(0, "I'll look at README.md first.", 2)
    run.args_deltas(read, 1, read_args, 2)
    run.assistant("msg_01HV8S3B6N9Q2W5E8R1T4YUIOP", text("I'll look at README.md first."),
                  tool_use(read, "Read", read_args), after_ms=9)
    readme = "# acme-api\n\nA small HTTP API for the Acme inventroy service.\n"
    run.user(tool_result(read, readme),
             tool_use_result={"path": "README.md", "is_error": False, "summary": "read 3 lines"})
    edit_args = {"file_path": "README.md", "old_string": "inventroy", "new_string": "inventory"}
    run.text_deltas(0, "Fixing the typo.", 1)
    run.args_deltas(edit, 1, edit_args, 3)
    run.assistant("msg_01HV8S4C7M1R3T5Y7U9I2O4PAS", text("Fixing the typo."),
                  tool_use(edit, "Edit", edit_args), after_ms=8)
    run.user(tool_result(edit, "Replaced 1 occurrence in README.md"),
             tool_use_result={"path": "README.md", "is_error": False, "summary": "1 replacement"})
    done = "Fixed the typo in README.md: \"inventroy\" is now \"inventory\"."
    run.text_deltas(0, done, 2)
    run.assistant("msg_01HV8S5D8L2K4J6H8G1F3D5SAZ", text(done), after_ms=6)
    result(run, "success", False, "end_turn", 3, {SONNET: usage(9850, 212, 8400, 1210)},
           duration=7342, ttft=655, result=done)
    return run


def sj_subagent_tasks() -> Run:
    run = Run("sess_01JDXKF8J3L6N9Q2T5W8Z1C4EG", "2026-11-30T09:45:00.000Z")
    init(run, ["stream_v1", "partial_messages_v1", "tasks_v1", "workflows_v1"])
    task = "toolu_01T9aK3bN6cQ8dW2eR5fY7gHj"
    grep = "toolu_01G4hJ7kL1mN3pQ6rS8tU2vWx"
    task_args = {"description": "Find every caller of parse_sku",
                 "prompt": "List the files and functions that call parse_sku, with line numbers.",
                 "subagent_type": "explorer"}
    run.assistant("msg_01HV8T1A2S3D4F5G6H7J8K9LQW", text("I'll have an explorer map the callers."),
                  tool_use(task, "Task", task_args), after_ms=1500)
    run.emit("system", "task_started", task_id="task_01JDXKG0P2R4", parent_tool_use_id=task,
             kind="subagent",
             task={"agent": "explorer", "description": task_args["description"], "depth": 1})
    run.emit("system", "background_tasks_changed", running_ids=["task_01JDXKG0P2R4"],
             finished_ids=[], count=1, limit=4)
    grep_args = {"pattern": "parse_sku\\(", "path": "src", "output_mode": "content"}
    run.args_deltas(grep, 0, grep_args, 2, parent_tool_use_id=task)
    run.assistant("msg_01HV8T2B3N4M5Q6W7E8R9T0YUA", tool_use(grep, "Grep", grep_args),
                  parent_tool_use_id=task)
    hits = ("src/orders.py:41: sku = parse_sku(row[\"sku\"])\n"
            "src/stock.py:17: return parse_sku(code)")
    run.user(tool_result(grep, hits), parent_tool_use_id=task,
             tool_use_result={"path": "src", "is_error": False, "summary": "2 matches"})
    run.emit("system", "task_progress", task_id="task_01JDXKG0P2R4", status="running",
             parent_tool_use_id=task, task={"step": 2, "note": "grep found 2 call sites"})
    summary = "parse_sku is called in src/orders.py:41 (load_order) and src/stock.py:17 (lookup)."
    run.text_deltas(0, summary, 2, parent_tool_use_id=task)
    run.assistant("msg_01HV8T3C4V5B6N7M8Q9W0E1RTS", text(summary), parent_tool_use_id=task)
    run.emit("system", "task_notification", task_id="task_01JDXKG0P2R4", status="completed",
             parent_tool_use_id=task, body="explorer finished: 2 callers found")
    run.emit("system", "background_tasks_changed", running_ids=[],
             finished_ids=["task_01JDXKG0P2R4"], count=0, limit=4)
    run.user(tool_result(task, [{"type": "text", "text": summary}]),
             tool_use_result={"is_error": False, "summary": "explorer: 2 callers"})
    final = ("Two callers: load_order in src/orders.py (line 41) and lookup in src/stock.py "
             "(line 17).")
    run.text_deltas(0, final, 2)
    run.assistant("msg_01HV8T4D5C6X7Z8A9S0D1F2GHJ", text(final))
    result(run, "success", False, "end_turn", 4,
           {SONNET: usage(14210, 388, 11020, 2048), "claude-haiku-4-5": usage(6120, 141, 0, 512)},
           duration=11875, ttft=702, result=final)
    return run


def sj_escalation() -> Run:
    run = Run("sess_01JDXKM2P5S8V1Y4B7E0H3K6NQ", "2026-11-30T10:02:33.250Z")
    escalation = {"name": "milk-escalation", "provider": "anthropic", "model": OPUS,
                  "role": "escalation", "context_window_tokens": 200000}
    init(run, ["stream_v1"], escalation_agent=escalation)
    first = "toolu_01E1aB2cD3eF4gH5iJ6kL7mNo"
    second = "toolu_01E8pQ9rS0tU1vW2xY3zA4bCd"
    args = {"command": "pytest tests/test_migrations.py -x -q"}
    run.assistant("msg_01HV8U1Q2W3E4R5T6Y7U8I9OPA", text("Running the failing migration test."),
                  tool_use(first, "Bash", args), after_ms=1320)
    failure = ("FAILED tests/test_migrations.py::test_0042_backfill - deadlock detected\n"
               "1 failed in 4.81s")
    run.user(tool_result(first, failure, is_error=True),
             tool_use_result={"is_error": True, "summary": "exit 1: deadlock detected"})
    switch: dict[str, Any] = {"from": "primary", "to": "escalation"}  # `from`: a keyword, so spread
    run.emit("system", "agent_switch", **switch, reason="repeated failure on a concurrency bug")
    idea = ("Two transactions lock stock then orders in opposite orders; the backfill must lock "
            "orders first.")
    fix = {"file_path": "migrations/0042_backfill.py", "old_string": "lock_stock(); lock_orders()",
           "new_string": "lock_orders(); lock_stock()"}
    run.assistant("msg_01HV8U2A3S4D5F6G7H8J9K0LZX", thinking(idea), tool_use(second, "Edit", fix),
                  agent="escalation", after_ms=4210)
    run.user(tool_result(second, "Replaced 1 occurrence"), agent="escalation",
             tool_use_result={"path": "migrations/0042_backfill.py", "is_error": False,
                              "summary": "1 replacement"})
    switch = {"from": "escalation", "to": "primary"}
    run.emit("system", "agent_switch", **switch, reason="escalated step complete")
    final = ("The backfill took its locks in the opposite order to the API; it now locks orders "
             "first.")
    run.assistant("msg_01HV8U3Z4X5C6V7B8N9M0Q1WER", text(final))
    result(run, "success", False, "end_turn", 3,
           {SONNET: usage(12004, 301, 9000, 0), OPUS: usage(8450, 512, 0, 3200)},
           duration=15220, ttft=810, result=final)
    return run


def sj_routing() -> Run:
    run = Run("sess_01JDXKR7T0W3Z6C9F2I5L8O1RU", "2026-11-30T10:11:00.900Z")
    init(run, ["stream_v1"])
    run.emit("system", "route", after_ms=240,
             route={"target": "code", "reason": "the prompt names a file and a change",
                    "conclusive": False})
    grep = "toolu_01R5sT6uV7wX8yZ9aB0cD1eFgH"
    run.assistant("msg_01HV8V1P2O3I4U5Y6T7R8E9WQA",
                  tool_use(grep, "Grep", {"pattern": "RATE_LIMIT"}))
    run.user(tool_result(grep, "config/settings.py:12: RATE_LIMIT = 100"))
    run.emit("system", "route", after_ms=90,
             route={"target": "explain", "reason": "the question is about behaviour, not a change",
                    "conclusive": True})
    final = "RATE_LIMIT in config/settings.py caps each API key at 100 requests a minute."
    run.assistant("msg_01HV8V2S3D4F5G6H7J8K9L0ZXC", text(final))
    result(run, "success", False, "end_turn", 2, {SONNET: usage(5120, 74, 4096, 0)},
           duration=4120, ttft=530, result=final,
           route_history=[{"turn": 1, "target": "code"}, {"turn": 2, "target": "explain"}])
    return run


def sj_execution_error() -> Run:
    run = Run("sess_01JDXKW1Y4B7E0H3K6N9Q2T5WZ", "2026-11-30T10:20:17.480Z")
    init(run, ["stream_v1"])
    bash = "toolu_01X2yZ3aB4cD5eF6gH7iJ8kLmN"
    run.assistant("msg_01HV8W1M2N3B4V5C6X7Z8L9KJA", text("Let me run the build."),
                  tool_use(bash, "Bash", {"command": "make build"}), after_ms=1100)
    run.user(tool_result(bash, "make: *** [build] Error 2", is_error=True),
             tool_use_result={"is_error": True, "summary": "exit 2"})
    run.emit("system", "warning", after_ms=2000, category="provider", severity="warning",
             body="provider overloaded (HTTP 529); retrying in 2 s")
    run.emit("system", "error", after_ms=6100, category="provider", recoverable=False,
             message="provider returned HTTP 529 (overloaded) after 3 retries")
    result(run, "error_during_execution", True, "error", 1, {SONNET: usage(3900, 41, 2048, 0)},
           duration=10420, ttft=1030)
    return run


def sj_max_turns() -> Run:
    run = Run("sess_01JDXL0C3F6I9L2O5R8U1X4A7D", "2026-11-30T10:31:05.005Z")
    init(run, ["stream_v1"])
    ids = ["toolu_01A1bC2dE3fG4hI5jK6lM7nOpQ", "toolu_01B8rS9tU0vW1xY2zA3bC4dEfG"]
    for turn, tool_id in enumerate(ids, start=1):
        args = {"command": f"pytest -q --lf  # attempt {turn}"}
        run.assistant(f"msg_01HV8X{turn}A2S3D4F5G6H7J8K9L0Q", text(f"Attempt {turn} at the suite."),
                      tool_use(tool_id, "Bash", args), after_ms=900)
        run.user(tool_result(tool_id, "3 failed, 41 passed", is_error=True),
                 tool_use_result={"is_error": True, "summary": "3 failed"})
    run.emit("system", "warning", category="limits", severity="warning",
             body="max turns (2) reached; stopping")
    result(run, "error_max_turns", True, "max_turns", 2, {SONNET: usage(7010, 120, 5000, 0)},
           duration=8500, ttft=640, warnings=["stopped after 2 turns (--max-turns 2)"])
    return run


def sj_interrupted() -> Run:
    run = Run("sess_01JDXL5H8K1N4Q7T0W3Z6C9F2I", "2026-11-30T10:40:40.040Z")
    init(run, ["stream_v1"])
    run.emit("system", "state", session_state="running")
    first = "toolu_01P1qR2sT3uV4wX5yZ6aB7cDeF"
    second = "toolu_01P8gH9iJ0kL1mN2oP3qR4sTuV"
    run.assistant("msg_01HV8Y1Q2A3Z4W5S6X7E8D9CRF", text("Cleaning the build directory first."),
                  tool_use(first, "Bash", {"command": "rm -rf build/"}), after_ms=1400)
    run.emit("system", "permission_denied", tool="Bash",
             reason="denied by policy: rm -rf is not allowed in this workspace")
    run.user(tool_result(first, "Permission denied by policy", is_error=True),
             tool_use_result={"is_error": True, "summary": "permission denied"})
    run.assistant("msg_01HV8Y2V3F4R5T6G7B8Y9H0NUJ", text("Using make clean instead."),
                  tool_use(second, "Bash", {"command": "make clean && make"}), after_ms=1100)
    run.emit("system", "state", after_ms=5200, session_state="interrupted")
    result(run, "interrupted", True, "cancelled", 2, {SONNET: usage(4410, 66, 3000, 0)},
           duration=8150, ttft=700)
    return run


def sj_refused() -> Run:
    run = Run("sess_01JDXLA2D5G8J1M4P7S0V3Y6B9", "2026-11-30T10:50:12.120Z")
    init(run, ["stream_v1"])
    answer = ("I can't help write a script that pulls customer card numbers out of the "
              "production database. I can help you build a masked export instead.")
    run.assistant("msg_01HV8Z1K2J3H4G5F6D7S8A9PLO", text(answer), after_ms=1310)
    result(run, "refused", False, "refusal", 1, {SONNET: usage(1980, 38, 1536, 0)},
           duration=1502, ttft=710, result=answer)
    return run


def sj_session_housekeeping() -> Run:
    run = Run("sess_01JDXLF9I2L5O8R1U4X7A0D3G6", "2026-11-30T11:00:00.100Z")
    servers = [{"name": "github", "status": "connected"}, {"name": "jira", "status": "failed"}]
    init(run, ["stream_v1", "partial_messages_v1"], mcp_servers=servers,
         _meta={"host": "milk-cli", "terminal": "dumb"})
    run.emit("system", "notification", id="ntf_01JDXLFA0B1C", kind="mcp", severity="warning",
             body="MCP server jira failed to start (exit 1)", command_hint="/mcp restart jira")
    run.emit("system", "commands", commands=[
        {"name": "/compact", "description": "summarise the conversation to free context",
         "hint": "[instructions]"},
        {"name": "/model", "description": "switch the model for this session", "hint": "<name>"},
        {"name": "/mcp"},
    ])
    run.emit("system", "config_option", option="model", value=SONNET)
    run.emit("system", "memory", after_ms=350, op="read", subject="project conventions",
             percept_id="pct_01JDXLFB7Q2W")
    answer = "This repo uses pnpm and Vitest; run `pnpm test` for the suite."
    run.emit("stream_event", after_ms=600, event={
        "type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": answer},
        "extension": {"anthropic": {"event": "content_block_delta"}},
        "_meta": {"relay": "local"}})
    block = {**text(answer), "extension": {"anthropic": {"citations": []}},
             "_meta": {"source_turn": 1}}
    run.assistant("msg_01HV90A1S2D3F4G5H6J7K8L9ZA", block,
                  extension={"anthropic": {"service_tier": "standard"}})
    run.emit("system", "memory", op="write", subject="user prefers pnpm over npm",
             percept_id="pct_01JDXLFC3E4R")
    result(run, "success", False, "end_turn", 1, {SONNET: usage(4800, 22, 4096, 0)},
           duration=1460, ttft=590, result=answer)
    return run


# (scenario, builder, description, argv, exit status)
STREAM_JSON: list[tuple[str, Callable[[], Run], str, list[str], int]] = [
    ("hello", sj_hello,
     "The smallest complete run: system/init (AgentInfo object), one assistant text message "
     "(role label primary), result/success with usage, model_usage, timings and rate.",
     ["say hi", "--output-format", "stream-json"], 0),
    ("streaming_thinking", sj_streaming_thinking,
     "Partial messages: thinking_delta and text_delta content_block_delta stream events, then the "
     "completed assistant message with thinking and text blocks.",
     ["why is test_cache_expiry flaky?", "--output-format", "stream-json",
      "--include-partial-messages"], 0),
    ("tool_calls", sj_tool_calls,
     "A three-turn edit: tool arguments streamed as tool_args_delta fragments that reassemble to "
     "each tool_use input, tool_result blocks with tool_use_result summaries.",
     ["fix the typo in README.md", "--output-format", "stream-json",
      "--include-partial-messages"], 0),
    ("subagent_tasks", sj_subagent_tasks,
     "A Task tool spawns a sub-agent: nested system, stream_event, assistant and user lines carry "
     "parent_tool_use_id; task_started, task_progress, task_notification and "
     "background_tasks_changed (tasks_v1); model_usage across two models.",
     ["who calls parse_sku?", "--output-format", "stream-json", "--include-partial-messages"], 0),
    ("escalation", sj_escalation,
     "Escalation: init advertises escalation_agent; agent_switch hands over and back; assistant "
     "and user lines labelled escalation; a failed tool_result (is_error).",
     ["fix the deadlock in migration 0042", "--output-format", "stream-json"], 0),
    ("routing", sj_routing,
     "Routing: two system/route decisions (inconclusive, then conclusive) and the result's "
     "route_history.",
     ["what does RATE_LIMIT do?", "--output-format", "stream-json"], 0),
    ("execution_error", sj_execution_error,
     "A provider failure: system/warning while retrying, system/error with a string message, and "
     "result/error_during_execution with is_error true and no result text.",
     ["build the project", "--output-format", "stream-json"], 1),
    ("max_turns", sj_max_turns,
     "The turn limit: two tool turns, a warning, and result/error_max_turns with warnings.",
     ["make the test suite pass", "--output-format", "stream-json", "--max-turns", "2"], 1),
    ("interrupted", sj_interrupted,
     "An interrupted run: system/state transitions, a permission_denied tool call, and "
     "result/interrupted (stop_reason cancelled) while a tool call is still open.",
     ["rebuild from scratch", "--output-format", "stream-json"], 130),
    ("refused", sj_refused,
     "A refusal is a completed turn: result/refused with is_error false and stop_reason refusal.",
     ["write a script that dumps customer card numbers from prod", "--output-format",
      "stream-json"], 0),
    ("session_housekeeping", sj_session_housekeeping,
     "Session lifecycle lines: init with MCP servers and _meta, notification, commands, "
     "config_option, memory read and write; provider detail in extension and _meta on the line, "
     "the stream payload and the content block.",
     ["how do I run the tests here?", "--output-format", "stream-json",
      "--include-partial-messages"], 0),
]


def write_goldens(goldens: Path) -> None:
    """Write every stream-json scenario under ``goldens/stream-json/``."""
    for name, build, description, argv, status in STREAM_JSON:
        write_golden(goldens, "stream-json", name, build().lines, meta(description, argv, None, status))
