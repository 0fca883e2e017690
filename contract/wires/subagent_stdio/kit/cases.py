"""subagent-stdio's case generator: ``python tools/make_cases.py`` runs ``write_cases``.

Most of the wire's case files are kept by hand; this merges into them only the cases it names
(replacing those of the same description), and rewrites whole the framing files it writes.
"""

from __future__ import annotations

from typing import Any

from contract.wires.casefiles import CaseFiles, case

SA = "subagent-stdio"


def write_cases(files: CaseFiles) -> None:
    """Write the cases subagent-stdio's generator names, in the same order each time."""
    numbers(files)
    repeated_names(files)
    idle(files)


def sa_conversation(revisions: list[Any], tokens: str = '"input":10,"output":5,"total":15') -> str:
    """A conversation of one command and response per revision (written as given, e.g. 3.0)."""
    out = []
    for index, revision in enumerate(revisions, 1):
        out.append(f'{{"type":"subagent_status","version":1,"id":"q{index}"}}\n')
        out.append(
            '{"type":"response","command":"subagent_status","success":true,"data":{"version":1,'
            f'"sessionId":"sess_a","epoch":"e1","revision":{revision},"available":true,'
            '"capabilities":{"snapshot":true,"events":true},"fleet":{"version":1,"entries":[],'
            '"totalActive":0,"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},'
            '"runs":[{"key":"r","status":"running","children":[],"omittedChildren":0,'
            f'"tokens":{{{tokens}}}}}],"omitted":{{"runs":0,"children":0}}}},"id":"q{index}"}}\n'
        )
    return "".join(out)


def sa_events(revisions: list[Any]) -> str:
    """Pushed events at the given revisions (envelope and snapshot written alike)."""
    return "".join(
        f'{{"type":"subagent_event","version":1,"sessionId":"sess_a","epoch":"e1","revision":{r},'
        f'"snapshot":{{"version":1,"sessionId":"sess_a","epoch":"e1","revision":{r},"available":true,'
        '"capabilities":{"snapshot":true,"events":true},"fleet":{"version":1,"entries":[],'
        '"totalActive":0,"topLevelAsyncCapacity":{"used":0,"limit":4},"omitted":0},"runs":[],'
        '"omitted":{"runs":0,"children":0}}}\n'
        for r in revisions
    )


def numbers(files: CaseFiles) -> None:
    """Numbers are judged by exact value (integer-valued forms are integers; nothing rounds); the
    framing reading of white space around a line, the same on both wires."""
    files.merge(SA, "sa.schema", SA, [
        case("revision 9007199254740991.0000001 exceeds the maximum when read exactly", True,
             raw_text=sa_conversation(["9007199254740991.0000001"]), at=[(2, "/data/revision")]),
        case("revision 2.0000000000000001 is not an integer when read exactly", True,
             raw_text=sa_conversation(["2.0000000000000001"]), at=[(2, "/data/revision")]),
        case("revision 9007199254740991.0 is the maximum itself", False,
             raw_text=sa_conversation(["9007199254740991.0"])),
        case("integer-valued forms 7.0, 70e-1 and 5E0 are integers", False,
             raw_text=sa_conversation(["7.0", "70e-1"], '"input":1e1,"output":5E0,"total":15.0')),
    ])
    files.merge(SA, "sa.revision-order", SA, [
        case("revision 3.0 after 5 goes back", True,
             raw_text=sa_conversation(["5", "3.0"]), at=[(4, "/data/revision")]),
        case("an event repeats revision 5 as 5e0", True,
             raw_text=sa_events(["5", "5e0"]), at=[(2, "/revision")]),
        case("revisions 5.0 then 6e0 then 60e-1 (a response may repeat)", False,
             raw_text=sa_conversation(["5.0", "6e0", "60e-1"])),
    ])
    files.merge(SA, "sa.tokens-total", SA, [
        case("total 16.0 is not 10 + 5e0", True,
             raw_text=sa_conversation(["1"], '"input":10,"output":5e0,"total":16.0'),
             at=[(2, "/data/runs/0/tokens/total")]),
        case("total 15.0 is 1e1 + 5", False,
             raw_text=sa_conversation(["1"], '"input":1e1,"output":5,"total":15.0')),
    ])
    # The framing reading of white space around a line, the same on both wires (docs/rules.md, "line.json")
    conversation = sa_conversation(["1"])
    command_line, answer = conversation.split("\n", 1)
    files.write(SA, "line.json", SA, [
        case("spaces and tabs around a subagent-stdio object are JSON whitespace: one JSON text", False,
             raw_text=" \t" + command_line + "\t \n" + answer),
        case("a form feed after a subagent-stdio object is not JSON whitespace", True,
             raw_text=command_line + "\f\n" + answer, at=[(1, None)]),
    ])
    files.write(SA, "line.newline", SA, [
        case("a CR after a subagent-stdio object, among spaces, before its LF", True,
             raw_text=command_line + " \r\n" + answer, at=[(1, None)]),
        case("a CR escaped inside a subagent-stdio string is data, not framing", False,
             raw_text=conversation.replace('"key":"r"', '"key":"a\\r\\nb"')),
    ])
    # line.ansi is a stream-json rule: the subagent-stdio seed has no such words.
    files.write(SA, "line.c1", SA, [
        case("a C1 control inside a subagent-stdio string is not a line.c1 finding", False,
             raw_text=sa_conversation(["1"]).replace('"key":"r"', '"key":"\\u009b31mr"')),
    ])
    files.write(SA, "line.ansi", SA, [
        case("ESC inside a subagent-stdio string is not a line.ansi finding", False,
             raw_text=sa_conversation(["1"]).replace('"key":"r"', '"key":"\\u001b[31mr"')),
        case("ESC inside a subagent-stdio member name is not a line.ansi finding", False,
             raw_text=sa_events(["1"]).replace('"runs":[]', '"runs":[],"\\u001b[1m":1')),
        case("a raw ESC line between subagent-stdio lines is line.json's, not line.ansi", False,
             raw_text=sa_conversation(["1"]).replace("\n", "\n\x1b[2J\n", 1)),
    ])


def repeated_names(files: CaseFiles) -> None:
    """A repeated member name (line.duplicate-key, policy) never hides what the line breaks besides:
    the line is judged by its last-wins reading, and the schema by its first-wins reading too; a
    line the machines cannot place (a type read two ways, a lone surrogate) by the schema alone."""
    files.merge(SA, "sa.schema", SA, [
        case("a type read two ways whose first reading breaks the schema", True,
             raw_text=sa_conversation(["3"]).replace('{"type":"response"',
                                                     '{"type":"subagent_event","type":"response"'),
             at=[(2, p) for p in ("/command", "/version", "/sessionId", "/epoch", "/revision", "/snapshot")]),
        case("a type repeated with one value: the line is read", False,
             raw_text=sa_conversation(["3"]).replace('{"type":"response"', '{"type":"response","type":"response"')),
    ])


def idle(files: CaseFiles) -> None:
    """One not-exercised case per rule: a stream that holds nothing the rule applies to (the rule
    stays quiet and its requirement verdict is not-exercised, never passed)."""
    one = sa_conversation(["1"])
    subagent = {
        "sa.schema": case("no JSON object line for the schema to judge", False, raw_text="[1]\n",
                          exercised=False),
        "sa.response-correlation": case("events only: no command to answer", False, raw_text=sa_events(["1"]),
                                        exercised=False),
        "sa.event-envelope": case("no event", False, raw_text=one, exercised=False),
        "sa.revision-order": case("a single snapshot: no revision to compare with", False, raw_text=one,
                                  exercised=False),
        "sa.events-capability": case("no event", False, raw_text=one, exercised=False),
        "sa.unique-keys": case("one run and no fleet entry: no siblings", False, raw_text=one, exercised=False),
        "sa.fleet-counts": case("a fleet without totalActive", False,
                                raw_text=one.replace('"totalActive":0,', ""), exercised=False),
        "sa.capacity": case("a fleet without topLevelAsyncCapacity", False,
                            raw_text=one.replace('"topLevelAsyncCapacity":{"used":0,"limit":4},', ""),
                            exercised=False),
        "sa.tokens-total": case("no tokens: no runs and no fleet entries", False, raw_text=sa_events(["1"]),
                                exercised=False),
        "sa.node-times": case("a node without times", False, raw_text=one, exercised=False),
        "sa.outcome": case("a node without outcome", False, raw_text=one, exercised=False),
        "sa.unavailable": case("available true", False, raw_text=one, exercised=False),
    }
    for rule, each in subagent.items():
        files.merge(SA, rule, SA, [each])
