"""A deliberately strict stream-json consumer: the mistake ``milk-contract feed --future`` finds.

Run as ``python -m contract.reference.strict_consumer``. It reads a run as the reference consumer
does (``contract.wires.stream_json.consumer``) but treats the known values as closed sets: a
line type, system or result subtype, content block type, delta or payload type it does not know,
or a member it does not model, makes it exit 1 with a message. Every golden passes; a future
variant (a new line type such as ``rate_limit_event``, say) fails, which is the breakage SDKs in
this wire family actually shipped. It exists for the suite's tests and for the quick start in
docs/consumers.md; do not copy it.
"""

from __future__ import annotations

import json
import sys
from typing import Any

from contract.wires.stream_json.consumer import read

KNOWN = {
    "type": {"system", "stream_event", "assistant", "user", "result"},
    "block": {"text", "thinking", "tool_use", "tool_result"},
    "delta": {"text_delta", "thinking_delta"},
    "event": {"content_block_delta", "tool_args_delta"},
}
LINE_MEMBERS = {"type", "subtype", "session_id", "seq", "ts", "agent", "capabilities", "cwd", "milk_version",
                "tools", "mcp_servers", "message", "event", "parent_tool_use_id", "tool_use_result", "is_error",
                "stop_reason", "num_turns", "duration_ms", "ttft_ms", "usage", "model_usage",
                "output_tokens_per_second", "result", "task_id", "task", "from", "to", "route", "route_history",
                "escalation_agent", "reason", "status", "body", "subject", "severity", "category", "kind",
                "count", "limit", "commands", "option", "value", "finished_ids", "running_ids", "session_state",
                "op", "percept_id", "command_hint", "recoverable", "warnings", "id", "tool"}


def reject(line: dict[str, Any]) -> str | None:
    """Why this strict reader refuses the line, or None."""
    if line.get("type") not in KNOWN["type"]:
        return f"unknown line type {line.get('type')!r}"
    extra = set(line) - LINE_MEMBERS
    if extra:
        return f"unknown members {sorted(extra)!r}"
    event = line.get("event")
    if isinstance(event, dict):
        if event.get("type") not in KNOWN["event"]:
            return f"unknown stream event {event.get('type')!r}"
        delta = event.get("delta")
        if isinstance(delta, dict) and delta.get("type") not in KNOWN["delta"]:
            return f"unknown delta {delta.get('type')!r}"
    message = line.get("message")
    for block in message.get("content", []) if isinstance(message, dict) else []:
        if isinstance(block, dict) and block.get("type") not in KNOWN["block"]:
            return f"unknown block {block.get('type')!r}"
    return None


def main() -> int:
    kept: list[bytes] = []
    for number, raw in enumerate(sys.stdin.buffer, 1):
        line = json.loads(raw)
        why = reject(line) if isinstance(line, dict) else "not an object"
        if why:
            sys.stderr.write(f"strict_consumer: line {number}: {why}\n")
            return 1
        kept.append(raw)
    sys.stdout.write(json.dumps(read(kept), ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
