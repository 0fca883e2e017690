"""A statement for people and badges: markdown (a GitHub step summary), one self-contained HTML page
(inline style, no script, no network: the verdict table and a coloured level badge) and a shields.io
endpoint JSON. The matrix across builds is rendered by ``contract.statement.combine``.

Every string a statement holds may come from the build (its command, its --version output, the
scenario labels of captures): each is escaped for its format (``textsafe`` first, then markdown's
cell escapes or HTML's entities).
"""

from __future__ import annotations

import html
import json
from typing import Any

from contract.core import textsafe
from contract.reporting.ci_reports import markdown_cell
from contract.statement.model import FULL, MUST, MUST_SHOULD, rests_on

COLOURS = {FULL: "brightgreen", MUST_SHOULD: "green", MUST: "yellow"}  # shields.io names; else red
HEX = {"brightgreen": "#2da44e", "green": "#4c9a2a", "yellow": "#b08800", "red": "#cf222e", "lightgrey": "#6e7781"}
VERDICT_HEX = {"passed": "#dafbe1", "failed": "#ffebe9", "not-exercised": "#fff8c5", "not-applicable": "#f6f8fa"}


def colour(level: str, note: str | None = None) -> str:
    """The level's colour; a shard's (``note``: it has no level of its own) is grey."""
    return "lightgrey" if note else COLOURS.get(level, "red")


def revisions_text(document: dict[str, Any]) -> str:
    return ", ".join(f"{w['wire']} {w['revision']}" for w in document["wires"]) or "no wire"


def shields(document: dict[str, Any]) -> str:
    """The shields.io endpoint JSON (https://shields.io/badges/endpoint-badge) for a README badge."""
    level = document["level"]["achieved"]
    note = document["level"].get("note")
    badge = {"schemaVersion": 1, "label": "milk-contract", "message": f"{note or level} ({revisions_text(document)})",
             "color": colour(level, note)}
    return json.dumps(badge, ensure_ascii=True) + "\n"


def _build(document: dict[str, Any]) -> tuple[str, str]:
    build = document["build"]
    return textsafe.text(str(build.get("name") or "")), textsafe.text(str(build.get("version") or "unknown"))


def markdown(document: dict[str, Any]) -> str:
    """The statement as GitHub-flavoured markdown: the level, the build, then a table per wire."""
    name, version = _build(document)
    level = document["level"]
    out = [f"### milk-contract statement: **{markdown_cell(level.get('note') or level['achieved'])}**", "",
           f"- level: {markdown_cell(rests_on(document))}",
           f"- build: {markdown_cell(name)} ({markdown_cell(version)})",
           f"- suite: milk-contract {markdown_cell(document['suite']['version'])}; wire revisions: "
           f"{markdown_cell(revisions_text(document))}; scenarios: {len(document['scenarios'])}"
           + ("; provoked environments included" if level["provoked"] else ""),
           f"- sha256: `{document['sha256']}`"]
    for key, title in (("short_of_must", "MUST rules short"), ("short_of_should", "SHOULD rules short")):
        if level[key]:
            out.append(f"- {title}: {', '.join(markdown_cell(rule) for rule in level[key])}")
    out.extend(f"- finding: {markdown_cell(f['message'])}" for f in document["findings"])
    for wire in document["wires"]:
        out += ["", f"#### {markdown_cell(wire['wire'])} {markdown_cell(wire['revision'])}", "",
                "| Rule | Level | Verdict | Runs | Failed in / why not applicable |", "| --- | --- | --- | --- | --- |"]
        for r in wire["requirements"]:
            runs = ", ".join(f"{n} {status}" for status, n in sorted(r["runs"].items()))
            why = ", ".join(r["failed_in"]) or r["reason"]
            verdict = f"**{r['verdict']}**" if r["verdict"] in ("failed", "not-exercised") else r["verdict"]
            out.append(f"| {markdown_cell(r['rule'])} | {r['level']} | {verdict} | {runs} | {markdown_cell(why)} |")
    return "\n".join(out) + "\n"


STYLE = """body{font-family:system-ui,sans-serif;margin:2em;color:#1f2328}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #d0d7de;padding:4px 8px;text-align:left}
.badge{display:inline-block;border-radius:4px;overflow:hidden;font-weight:600}
.badge span{display:inline-block;padding:4px 8px;color:#fff}.badge .label{background:#555}
code{font-size:90%}
.matrix th.wire,.matrix td.level{vertical-align:top;white-space:nowrap}.matrix td code{white-space:nowrap}
td.verdict[data-verdict=failed]{font-weight:600;color:#cf222e}
th.shard{background:#f6f8fa;font-style:italic}"""


def badge(level: str, note: str | None = None) -> str:
    """The coloured level badge, as inline HTML (no image, no network); a shard's says it has no level."""
    hexa = HEX[colour(level, note)]
    shown = f"{note.split(':')[0]}: no level" if note else level
    return (f'<span class="badge" id="level-badge" data-level="{html.escape(level)}"><span class="label">'
            f'milk-contract</span><span class="level" style="background:{hexa}">{html.escape(shown)}</span></span>')


def page(title: str, body: list[str]) -> str:
    """One self-contained HTML page: inline style, no script, nothing fetched."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head><body>\n"
            + "\n".join(body) + "\n</body></html>\n")


def esc(text: object) -> str:
    return html.escape(textsafe.text(str(text)))


def html_page(document: dict[str, Any]) -> str:
    """The statement as one HTML page: the badge, the build, a verdict table per wire."""
    name, version = _build(document)
    level = document["level"]["achieved"]
    body = [f"<h1>milk-contract statement {badge(level, document['level'].get('note'))}</h1>",
            f'<p class="rests-on">level: {esc(rests_on(document))}</p>',
            f"<p>build: <code>{esc(name)}</code> ({esc(version)}); "
            f"suite milk-contract {esc(document['suite']['version'])};"
            f" wire revisions: {esc(revisions_text(document))}; "
            f"{textsafe.counted(len(document['scenarios']), 'scenario')}"
            f"{'; provoked environments included' if document['level']['provoked'] else ''}</p>",
            f"<p>sha256 <code>{esc(document['sha256'])}</code></p>"]
    body += [f"<p class=\"finding\">finding: {esc(f['message'])}</p>" for f in document["findings"]]
    for wire in document["wires"]:
        body.append(f"<h2>{esc(wire['wire'])} {esc(wire['revision'])}</h2>")
        body.append(f'<table class="verdicts" data-wire="{esc(wire["wire"])}"><thead><tr><th>rule</th><th>level</th>'
                    "<th>verdict</th><th>runs</th><th>failed in / why not applicable</th></tr></thead><tbody>")
        for r in wire["requirements"]:
            runs = ", ".join(f"{n} {status}" for status, n in sorted(r["runs"].items()))
            shade = VERDICT_HEX.get(r["verdict"], "#ffffff")
            body.append(f'<tr data-rule="{esc(r["rule"])}"><td><code>{esc(r["rule"])}</code></td><td>{esc(r["level"])}'
                        f'</td><td class="verdict" style="background:{shade}">{esc(r["verdict"])}</td><td>{esc(runs)}'
                        f"</td><td>{esc(', '.join(r['failed_in']) or r['reason'])}</td></tr>")
        body.append("</tbody></table>")
    return page(f"milk-contract statement: {level}", body)
