"""subagent-stdio's authored goldens: each scenario a conversation with the host, written to the schema.

``python tools/make_goldens.py`` runs ``write_goldens``; each scenario is checked clean with
``check --strict`` before it is written (``contract.goldens.authoring``). ``Host`` holds the host's
state and writes the commands and what it answers; the ``sa_*`` functions are the scenarios,
``SUBAGENT`` their table (name, builder, description).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from contract.goldens.authoring import Obj, meta, write_golden

T0 = int(datetime(2026, 11, 30, 9, 0, tzinfo=UTC).timestamp() * 1000)  # epoch ms


def at(seconds: float) -> int:
    return T0 + int(seconds * 1000)


def tokens(inp: int, out: int, **extra: int) -> Obj:
    return {"input": inp, "output": out, "total": inp + out, **extra}


def node(key: str, status: str, *children: Obj, omitted: int = 0, **fields: Any) -> Obj:
    return {"key": key, **fields, "status": status, "children": list(children),
            "omittedChildren": omitted}


def entry(key: str, agent: str, started: float, tok: Obj, **fields: Any) -> Obj:
    return {"key": key, "agent": agent, **fields, "startedAt": at(started), "tokens": tok}


def fleet(entries: list[Obj], omitted: int = 0, limit: int = 4) -> Obj:
    active = len(entries) + omitted
    return {"version": 1, "entries": entries, "totalActive": active,
            "topLevelAsyncCapacity": {"used": active, "limit": limit}, "omitted": omitted}


def hidden_children(nodes: list[Obj]) -> int:
    return sum(n["omittedChildren"] + hidden_children(n["children"]) for n in nodes)


class Host:
    """One subagent-stdio conversation: the host's state, the commands and what it answers."""

    def __init__(self, session: str | None, epoch: str, revision: int, events: bool) -> None:
        self.session, self.epoch, self.revision, self.events = session, epoch, revision, events
        self.available = True
        self.runs: list[Obj] = []
        self.fleet = fleet([])
        self.omitted_runs = 0
        self.lines: list[Obj] = []

    def snapshot(self) -> Obj:
        return {"version": 1, "sessionId": self.session, "epoch": self.epoch,
                "revision": self.revision, "available": self.available,
                "capabilities": {"snapshot": True, "events": self.events},
                "fleet": copy.deepcopy(self.fleet), "runs": copy.deepcopy(self.runs),
                "omitted": {"runs": self.omitted_runs, "children": hidden_children(self.runs)}}

    def command(self, ident: str | None = None) -> None:
        line: Obj = {"type": "subagent_status", "version": 1}
        if ident is not None:
            line["id"] = ident
        self.lines.append(line)

    def respond(self, ident: str | None = None) -> None:
        line: Obj = {"type": "response", "command": "subagent_status"}
        if ident is not None:
            line["id"] = ident
        self.lines.append({**line, "success": True, "data": self.snapshot()})

    def poll(self, ident: str | None = None) -> None:
        self.command(ident)
        self.respond(ident)

    def event(self) -> None:
        self.revision += 1
        self.lines.append({"type": "subagent_event", "version": 1, "sessionId": self.session,
                           "epoch": self.epoch, "revision": self.revision,
                           "snapshot": self.snapshot()})


SESSION = "sess_01JDXKA4D9E2C7V5R3P8WQ1GTY"


def sa_first_poll() -> Host:
    host = Host(SESSION, "ep-7f3a9c2e", 3, events=False)
    run = node("explorer-1", "running", runId="run_01JDXKB2C3D4", agent="explorer",
               startedAt=at(10), updatedAt=at(14.5), progress="searching src/ for parse_sku",
               currentTool="Grep", tokens=tokens(5120, 310, window=5430, windowPeak=5430),
               processTerminal={"state": "pending"})
    host.runs = [run]
    host.fleet = fleet([entry("explorer-1", "explorer", 10, tokens(5120, 310, window=5430,
                                                                  windowPeak=5430),
                              role="subagent", model="claude-haiku-4-5", effort="low",
                              goal="Find every caller of parse_sku")])
    host.poll("poll-1")
    # two pipelined polls, the first without an id: answered in order, one each
    host.revision = 5
    run["updatedAt"], run["progress"] = at(16.2), "reading src/orders.py"
    run["currentTool"] = "Read"
    host.command()
    host.command("poll-2")
    host.respond()
    host.respond("poll-2")
    return host


def _train(stage_status: str, compile_done: bool, test_status: str) -> Obj:
    compile_fields: Obj = {"runId": "run_01JDXM0A1B2C", "agent": "builder", "startedAt": at(2),
                           "updatedAt": at(40 if compile_done else 20),
                           "tokens": tokens(8200, 950)}
    if compile_done:
        compile_fields.update(endedAt=at(40), progress="compiled 212 modules",
                              processTerminal={"state": "observed", "observedAt": at(40.3)},
                              outcome={"status": "complete", "success": True, "exitCode": 0})
    else:
        compile_fields.update(progress="compiling 140/212", currentTool="Bash",
                              processTerminal={"state": "pending"})
    compile_node = node("compile-api", "complete" if compile_done else "running", **compile_fields)
    lint = node("lint", "completed", runId="run_01JDXM0D4E5F", agent="linter", startedAt=at(2),
                updatedAt=at(9), endedAt=at(9), tokens=tokens(1200, 80),
                processTerminal={"state": "observed", "observedAt": at(9.1)},
                outcome={"status": "completed", "success": True, "exitCode": 0})
    build_fields: Obj = {"workflowId": "wf_release_train", "agent": "workflow", "startedAt": at(1),
                         "updatedAt": at(40 if compile_done else 20)}
    if stage_status == "completed":
        build_fields.update(endedAt=at(40), outcome={"status": "completed", "success": True})
    build = node("build", stage_status, compile_node, lint, **build_fields)
    test_fields: Obj = {"workflowId": "wf_release_train", "agent": "workflow"}
    if test_status == "running":
        test_fields.update(startedAt=at(41), updatedAt=at(41), progress="starting test shards")
    test = node("test", test_status, **test_fields)
    root_fields: Obj = {"runId": "run_01JDXM09Z8Y7", "workflowId": "wf_release_train",
                        "agent": "release-manager", "startedAt": at(0),
                        "updatedAt": at(41 if test_status == "running" else 20),
                        "progress": "stage 2 of 2" if test_status == "running" else "stage 1 of 2",
                        "activity": "waiting_supervisor",
                        "tokens": tokens(15400, 1830, window=17230, windowPeak=18000)}
    return node("release-train", "running", build, test, **root_fields)


def sa_workflow_events() -> Host:
    host = Host(SESSION, "ep-2b81d0c4", 4, events=True)
    host.fleet = fleet([entry("release-train", "release-manager", 0, tokens(15400, 1830),
                              role="workflow", goal="Build and test release 0.43.0")], limit=2)
    host.runs = [_train("running", False, "pending")]
    host.poll("watch-1")
    host.event()
    host.runs = [_train("running", True, "pending")]
    host.event()
    host.runs = [_train("completed", True, "running")]
    host.event()
    host.poll()
    return host


def sa_terminal_states() -> Host:
    host = Host(SESSION, "ep-c40e19aa", 57, events=False)
    host.runs = [
        node("migrate-db", "failed", runId="run_01JDXN1A", agent="dba", startedAt=at(100),
             updatedAt=at(160), endedAt=at(161), error="migration 0042 failed: deadlock detected",
             tokens=tokens(6100, 420),
             processTerminal={"state": "observed", "observedAt": at(161.2)},
             outcome={"status": "failed", "success": False, "exitCode": 1}),
        node("docs-sync", "partial", runId="run_01JDXN2B", agent="writer", startedAt=at(90),
             updatedAt=at(150), endedAt=at(150), progress="updated 7 of 9 pages",
             reason="two pages are locked by another editor",
             processTerminal={"state": "observed", "observedAt": at(150.4)},
             outcome={"status": "partial", "success": False, "exitCode": 0}),
        node("load-test", "stopped", runId="run_01JDXN3C", agent="bench", startedAt=at(60),
             updatedAt=at(130), endedAt=at(130), reason="stopped by supervisor",
             processTerminal={"state": "observed", "observedAt": at(130.9)},
             outcome={"status": "stopped", "success": False, "exitCode": -15}),
        node("deploy-prod", "paused", runId="run_01JDXN4D", agent="deployer", startedAt=at(120),
             updatedAt=at(170), activity="needs_attention",
             progress="waiting for approval of the production rollout",
             processTerminal={"state": "pending"}),
        node("scrape-vendor", "rejected", agent="crawler", startedAt=at(171), updatedAt=at(171),
             reason="network access is not allowed for this workspace",
             processTerminal={"state": "not-started"},
             outcome={"status": "rejected", "success": False}),
        node("triage-bugs", "queued", agent="triager", processTerminal={"state": "not-started"}),
        node("translate-ui", "pending", agent="translator", startedAt=at(172), updatedAt=at(172),
             processTerminal={"state": "not-started", "reason": "waiting for a capacity slot"}),
        node("index-repo", "detached", runId="run_01JDXN5E", agent="indexer", startedAt=at(20),
             updatedAt=at(80),
             processTerminal={"state": "unknown", "reason": "host restarted; process not tracked"},
             outcome={"status": "detached"}),
    ]
    host.fleet = fleet([entry("deploy-prod", "deployer", 120, tokens(2300, 190),
                              model="claude-sonnet-4-5")], limit=2)
    host.poll("status-after-incident")
    return host


def sa_truncated() -> Host:
    host = Host(SESSION, "ep-91d5e7f0", 212, events=False)
    shards = [node(f"shard-{n}", "running", agent="tester", startedAt=at(300 + n),
                   updatedAt=at(330 + n), progress=f"shard {n}: {run} tests run")
              for n, run in ((1, 41), (2, 42))]
    host.runs = [
        node("test-matrix", "running", *shards, omitted=6, runId="run_01JDXP0A",
             agent="release-manager", startedAt=at(299), updatedAt=at(333),
             progress="8 shards running, 2 shown", tokens=tokens(3000, 200)),
        node("changelog", "running", agent="writer", startedAt=at(301), updatedAt=at(320)),
    ]
    host.omitted_runs = 5
    entries = [entry("test-matrix", "release-manager", 299, tokens(3000, 200)),
               entry("changelog", "writer", 301, tokens(900, 60))]
    host.fleet = fleet(entries, omitted=3, limit=8)
    host.poll("big-fleet")
    return host


def sa_unavailable() -> Host:
    host = Host(None, "ep-0d3f5a71", 0, events=False)
    host.available = False
    host.poll()
    host.poll("retry-1")
    return host


def sa_epoch_change() -> Host:
    host = Host(SESSION, "ep-aa01f3c9", 10, events=True)
    run = node("reviewer-1", "running", runId="run_01JDXQ1A", agent="reviewer", startedAt=at(500),
               updatedAt=at(510), progress="reviewing 3 of 12 files", currentTool="Read",
               processTerminal={"state": "pending"})
    host.runs = [run]
    host.fleet = fleet([entry("reviewer-1", "reviewer", 500, tokens(4000, 150))])
    host.poll("sub-1")
    run["updatedAt"], run["progress"] = at(520), "reviewing 5 of 12 files"
    host.event()
    # the host restarted: a new epoch whose revisions start again from 0
    host.epoch, host.revision = "ep-5c7e2b18", -1
    host.runs = [node("reviewer-1", "detached", runId="run_01JDXQ1A", agent="reviewer",
                      startedAt=at(500), updatedAt=at(520),
                      processTerminal={"state": "unknown", "reason": "lost across host restart"})]
    host.fleet = fleet([])
    host.event()
    host.poll("sub-2")
    return host


SUBAGENT: list[tuple[str, Callable[[], Host], str]] = [
    ("first_poll", sa_first_poll,
     "A first poll with an id, then two pipelined polls (one without id) answered in order; one "
     "running run with every optional node and fleet-entry field; events not offered."),
    ("workflow_events", sa_workflow_events,
     "A three-level workflow tree (release-train > build > compile-api) pushed as events: a "
     "stage completes (complete and completed nodes, observed process terminals, outcomes with "
     "success and exitCode) while the root waits on its supervisor; a final poll without id."),
    ("terminal_states", sa_terminal_states,
     "One snapshot holding every other node status: failed (error), partial, stopped (negative "
     "exit code), paused (needs_attention), rejected, queued, pending, detached; process "
     "terminals observed, pending, not-started and unknown with reasons."),
    ("truncated", sa_truncated,
     "A bounded snapshot: omitted runs, a node with omitted children, fleet entries omitted "
     "from a larger active count."),
    ("unavailable", sa_unavailable,
     "No session yet: available false, a null sessionId, no runs and no fleet entries, events "
     "false; polled once without an id and once with one."),
    ("epoch_change", sa_epoch_change,
     "Events across a host restart: the epoch changes and revisions start again; the lost run "
     "becomes detached with an unknown process terminal."),
]


def write_goldens(goldens: Path) -> None:
    """Write every subagent-stdio scenario under ``goldens/subagent-stdio/``."""
    for name, build_host, description in SUBAGENT:
        info = meta(description, ["--subagent-stdio"], {"from": "transcript"}, 0)
        write_golden(goldens, "subagent-stdio", name, build_host().lines, info)
