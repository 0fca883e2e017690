"""The matrix for people: markdown (a CI step summary) and one self-contained HTML page.

Rows are registered consumers (name and version), columns wire revisions (``r1``, ``r2``, an
``adr:NAME``), each cell its verdict; the first finding of every cell that did not pass is listed
below the table. The page is the statement pages' (contract/statement/render.py: inline style, no
script, nothing fetched; verdicts coloured as theirs). Every string from the consumers file or a
consumer's output is escaped for its format.
"""

from __future__ import annotations

from typing import Any

from contract.compat.matrix import ERROR, FAIL, PASS
from contract.reporting.ci_reports import markdown_cell
from contract.statement.render import VERDICT_HEX, esc, page

SHOWN = {PASS: "pass", FAIL: "FAIL", ERROR: "ERROR"}
HEX = {PASS: VERDICT_HEX["passed"], FAIL: VERDICT_HEX["failed"], ERROR: VERDICT_HEX["not-exercised"]}


def _grid(matrix: dict[str, Any]) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]], dict[Any, Any]]:
    """(columns as (wire, revision)), (rows as (wire, consumer, version)), cells by (row, column)."""
    columns = [(col["wire"], col["revision"]) for col in matrix["basis"]["columns"]]
    rows = [(con["wire"], con["name"], con["version"]) for con in matrix["basis"]["consumers"]]
    cells = {((c["wire"], c["consumer"], c["version"]), (c["wire"], c["revision"])): c for c in matrix["cells"]}
    return columns, rows, cells


def _findings(matrix: dict[str, Any]) -> list[dict[str, Any]]:
    return [cell for cell in matrix["cells"] if cell["verdict"] != PASS]


def _said(finding: dict[str, Any]) -> str:
    stream = f" on {finding['stream']}" if finding.get("stream") else ""
    return f"{finding['rule']}{stream}: {finding['message']}"


def by_build(matrix: dict[str, Any]) -> tuple[list[dict[str, Any]], list[tuple[str, str, str]], dict[Any, Any]]:
    """(the builds, the rows, each row's cell for each build: the cell of the column of the build's schema,
    None where no column has it or the row reads another wire)."""
    _, rows, cells = _grid(matrix)
    builds = list(matrix["basis"].get("builds") or ())
    found = {(row, index): (cells.get((row, (build["wire"], build["column"]))) if build["column"] is not None
                            and row[0] == build["wire"] else None)
             for row in rows for index, build in enumerate(builds)}
    return builds, rows, found


def _build_said(build: dict[str, Any]) -> str:
    return f"{build['name']}, {build['version']} ({build['wire']} {build['revision']}, {build['level']})"


def _markdown_builds(matrix: dict[str, Any]) -> list[str]:
    builds, rows, found = by_build(matrix)
    if not builds:
        return []
    out = ["", "By build (each through the revision its statement was judged by):", "",
           "| consumer | " + " | ".join(markdown_cell(_build_said(b)) for b in builds) + " |",
           "| --- |" + " --- |" * len(builds)]
    for row in rows:
        shown = [SHOWN[cell["verdict"]] if (cell := found[(row, i)]) is not None
                 else ("not known" if b["wire"] == row[0] else "") for i, b in enumerate(builds)]
        out.append(f"| {markdown_cell(row[1] + ' ' + row[2])} | " + " | ".join(shown) + " |")
    return out


def _html_builds(matrix: dict[str, Any]) -> list[str]:
    builds, rows, found = by_build(matrix)
    if not builds:
        return []
    out = ["<h2>By build</h2>", '<table class="builds"><thead><tr><th>consumer</th>'
           + "".join(f'<th class="build">{esc(_build_said(b))}</th>' for b in builds) + "</tr></thead><tbody>"]
    for row in rows:
        tds = []
        for index, build in enumerate(builds):
            cell = found[(row, index)]
            if cell is None:
                tds.append(f'<td class="verdict" data-verdict="{ERROR if build["wire"] == row[0] else ""}">'
                           f'{"not known" if build["wire"] == row[0] else ""}</td>')
            else:
                tds.append(f'<td class="verdict" data-verdict="{cell["verdict"]}" style="background:'
                           f'{HEX[cell["verdict"]]}">{SHOWN[cell["verdict"]]}</td>')
        out.append(f'<tr><th class="consumer">{esc(row[1])} {esc(row[2])}</th>' + "".join(tds) + "</tr>")
    return [*out, "</tbody></table>"]


def markdown(matrix: dict[str, Any]) -> str:
    """The matrix as a markdown table, then each cell's first finding."""
    columns, rows, cells = _grid(matrix)
    summary = matrix["summary"]
    out = [f"## Consumer compatibility{' (shard ' + matrix['shard'] + ')' if matrix.get('shard') else ''}", "",
           f"{summary[PASS]} pass, {summary[FAIL]} fail, {summary[ERROR]} error", "",
           "| consumer | " + " | ".join(markdown_cell(f"{wire} {rev}") for wire, rev in columns) + " |",
           "| --- |" + " --- |" * len(columns)]
    for row in rows:
        shown = []
        for column in columns:
            cell = cells.get((row, column))
            shown.append("" if cell is None else SHOWN[cell["verdict"]] + (
                f" `{markdown_cell(cell['finding']['rule'])}`" if cell.get("finding") else ""))
        out.append(f"| {markdown_cell(row[1] + ' ' + row[2])} | " + " | ".join(shown) + " |")
    failing = _findings(matrix)
    if failing:
        out += ["", "First findings:", ""]
        out += [f"- {markdown_cell(c['consumer'] + ' ' + c['version'])} × "
                f"{markdown_cell(c['wire'] + ' ' + c['revision'])}: {markdown_cell(_said(c['finding']))}"
                for c in failing]
    out += _markdown_builds(matrix)
    derived = [col for col in matrix["basis"]["columns"] if col["derived"] or col["error"]]
    if derived:
        out += ["", "Columns not recorded:", ""]
        out += [f"- {markdown_cell(col['wire'] + ' ' + col['revision'])}: "
                + markdown_cell(col["error"] or "the goldens migrated to its schema: " + "; ".join(col["changes"]))
                for col in derived]
    return "\n".join(out) + "\n"


def html_page(matrix: dict[str, Any]) -> str:
    """The matrix as one self-contained HTML page."""
    columns, rows, cells = _grid(matrix)
    summary = matrix["summary"]
    body = [f"<h1>Consumer compatibility{' (shard ' + esc(matrix['shard']) + ')' if matrix.get('shard') else ''}</h1>",
            f'<p id="summary">{summary[PASS]} pass, {summary[FAIL]} fail, {summary[ERROR]} error</p>',
            '<table class="compat"><thead><tr><th>consumer</th>'
            + "".join(f'<th class="revision" data-wire="{esc(w)}">{esc(w)} {esc(r)}</th>' for w, r in columns)
            + "</tr></thead><tbody>"]
    for row in rows:
        tds = []
        for column in columns:
            cell = cells.get((row, column))
            if cell is None:
                tds.append('<td class="empty"></td>')
                continue
            verdict = cell["verdict"]
            title = f' title="{esc(_said(cell["finding"]))}"' if cell.get("finding") else ""
            rule = f" <code>{esc(cell['finding']['rule'])}</code>" if cell.get("finding") else ""
            tds.append(f'<td class="verdict" data-verdict="{verdict}" style="background:{HEX[verdict]}"{title}>'
                       f"{SHOWN[verdict]}{rule}</td>")
        body.append(f'<tr data-consumer="{esc(row[1])}"><th class="consumer">{esc(row[1])} {esc(row[2])}</th>'
                    + "".join(tds) + "</tr>")
    body.append("</tbody></table>")
    body += _html_builds(matrix)
    failing = _findings(matrix)
    if failing:
        body.append('<h2>First findings</h2><ul class="findings">')
        body += [f"<li>{esc(c['consumer'])} {esc(c['version'])} × {esc(c['wire'])} {esc(c['revision'])}: "
                 f"<code>{esc(_said(c['finding']))}</code></li>" for c in failing]
        body.append("</ul>")
    return page("milk-contract: consumer compatibility", body)
