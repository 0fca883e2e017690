"""The proof that a block of lines has nothing for the reader or the schema step to report.

``clean_block`` is the block path's proof (``contract.checking.pipeline.check_blocks``, and the
two-process worker's, ``contract.checking.parallel``): a block it proves is fed whole to the
lone rule machine, and any other is judged line by line, so the report is the same either way
(docs/architecture.md, "Pipeline"; BENCHMARKS.md, issues 25 and 34).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import repeat
from typing import Any

import orjson

from contract.checking.schema import engine, known_types
from contract.core.jsonline import Spellings, go_spelling, number, parse, unspaced, written_exactly
from contract.core.reader import Block, exponent_lines
from contract.wires import Wire


def clean_block(wire: Wire, max_line_bytes: int, noted: Callable[[set[Any]], bool] | None = None,
                exact: bool = True) -> Callable[[Block], list[Any] | None]:
    """A proof that a block has nothing for the reader or the schema step to report.

    It returns the block's objects when every line is an object read as the line path reads it,
    no longer than ``max_line_bytes``, of a type the schema lists (an unlisted one gets a note;
    ``noted(types)``: whether those unlisted types' notes are given already, ``SchemaStep.noted``)
    and valid under the schema, in a block with no CR and no escaped ESC or C1 character; else
    None. A line that is a canonical spelling of what orjson read (``jsonline.Spellings``:
    orjson's own compact text, Go's escapes of it, Python's default ``json.dumps``; no duplicate
    member, every number as written, ``contract.core.jsonline.parse``'s fast path) is read by
    orjson, but for one that may hold an "e+" float (``reader.may_exponent``), whose numbers are
    read as written (``jsonline.written_exactly``, or, for a line of orjson's tokens, its
    floats of 1e16 or more read again from orjson's text: ``_exact_floats``). With ``exact``, any other line (another
    spelling of a number, other spaces) is read by the strict parse, as the line path reads it
    (``_exactly``); without (the two-process worker: its main reads a clean block with orjson)
    a block with a line orjson may not read as written is None. Any exception is a None too: the
    block is then judged line by line, where every step is guarded.
    """
    eng = engine(wire.name)
    loads, get_member = orjson.loads, dict.get
    open_types = wire.open_types
    known = known_types(wire.name) if open_types else frozenset()
    spellings = Spellings()

    def prove(block: Block) -> list[Any] | None:
        if block.overlong or block.unterminated or block.may_cr or block.may_esc:
            return None
        bodies = block.bodies
        try:
            exponents = exponent_lines(bodies) if block.may_exp else []
            if exponents and not exact:
                return None  # an "e+" float orjson may not read as written (below): no parse spent on it
            values = list(map(loads, bodies))
            if set(map(type, values)) != {dict} or max(map(len, bodies)) > max_line_bytes:
                return None
            unspelt = spellings.unproven(bodies, values)
            left = sorted({*unspelt, *exponents}) if exponents else unspelt
            if left and (not exact or not _exactly(bodies, values, unspelt, exponents)):
                return None  # some lines take the strict parse, and one of them has something to say
            unlisted = False
            if open_types:
                kinds = set(map(get_member, values, repeat("type")))
                unlisted = not kinds <= known
                if unlisted and (noted is None or not noted(kinds - known)):
                    return None
            if not valid(values, left, unlisted):
                return None
        except Exception:  # a proof that fails proves nothing: the line-by-line path judges the block
            return None
        return values

    def tolerant(value: Any) -> bool:
        """The schema's verdict as ``SchemaStep`` gives it on a strictly parsed value (a Decimal
        the fast engine cannot take goes to the reference engine)."""
        try:
            return eng.is_valid_fast(value)
        except (ValueError, OverflowError, TypeError):
            return eng.is_valid(value)

    def valid(values: list[Any], strict: list[int], unlisted: bool) -> bool:
        """The engine's verdict on every line, as ``SchemaStep`` gives it, in one call for the lot
        (with ``unlisted``, those of a type the schema does not list one by one: the lot's call
        takes the closed schema); where the fast engine cannot take a strictly parsed line
        (``strict``, maybe holding Decimals), those lines one by one (``tolerant``)."""
        try:
            return listed(values, unlisted)
        except (ValueError, OverflowError, TypeError):
            if not strict or not all(tolerant(values[at]) for at in strict):
                return False
        taken = set(strict)
        return listed([value for at, value in enumerate(values) if at not in taken], unlisted)

    def listed(values: list[Any], unlisted: bool) -> bool:
        if unlisted:
            unknown = [value for value in values if value.get("type") not in known]
            if not all(map(eng.is_valid_fast, unknown)):
                return False
            values = [value for value in values if value.get("type") in known]
        return eng.all_valid(values)

    return prove


def _exactly(bodies: list[bytes], values: list[Any], unspelt: list[int], exponents: list[int]) -> bool:
    """The values of the lines orjson may not have read as written replaced by the strict
    parse's, as the line path reads them: a line of ``unspelt`` (no canonical spelling of its
    value, ``jsonline.Spellings``) by ``contract.core.jsonline.parse`` (exact numbers, duplicate
    members), any other of ``exponents`` (it may hold an "e+" number: ``reader.may_exponent``)
    by ``jsonline.written_exactly``; False when such a line has a fault or is no object."""
    for index in unspelt:
        value, faults = parse(bodies[index])
        if faults or type(value) is not dict:
            return False
        values[index] = value
    taken = set(unspelt)
    for index in exponents:
        if index in taken:
            continue
        if _orjsons_numbers(bodies[index], values[index]):
            _exact_floats(values[index])
            continue
        value, faults = written_exactly(bodies[index])
        if faults or type(value) is not dict:
            return False
        values[index] = value
    return True


def _orjsons_numbers(body: bytes, value: Any) -> bool:
    """Whether ``body`` holds the tokens of orjson's text of ``value`` (its own compact text, Go's
    escapes of it, or either but for spaces: ``jsonline.unspaced``), so that each number in it
    is written as orjson writes the parsed number; False when orjson cannot write ``value``."""
    try:
        written = orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return unspaced(body) == unspaced(written) or (b"\\u00" in body and go_spelling(written) == body)


def _exact_floats(value: dict[str, Any]) -> None:
    """The strict reading of a line whose numbers are orjson's text of ``value``'s
    (``_orjsons_numbers``), made of orjson's reading in place: what ``jsonline.written_exactly``
    reads, without parsing the line again. The strict reading of a number is
    ``jsonline.number`` of its text, which is the float itself unless the float is integral and
    not the number written; orjson writes an integral float below 1e16 in full (exact) and one
    of 1e16 or more with "e+", so only those are read again, from orjson's text of each."""
    stack: list[Any] = [value]
    while stack:
        node = stack.pop()
        for key, item in (node.items() if type(node) is dict else enumerate(node)):
            kind = type(item)
            if kind is float:
                if item >= 1e16 or item <= -1e16:
                    exact = number(orjson.dumps(item).decode())
                    if type(exact) is not float:
                        node[key] = exact
            elif kind is dict or kind is list:
                stack.append(item)
