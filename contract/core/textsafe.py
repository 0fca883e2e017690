"""The one escaping every report format shares (which input characters are shown escaped, and how),
and the one wording of counts (:func:`counted`).

Everything a report shows may come from the input: member names in JSON pointers, values
quoted in messages, file names, an emitter's stderr, the command line. A raw ESC or OSC
sequence there can repaint the terminal (print a fake "conformant" line, hide the summary), a
CR can overwrite the line it is on, a bidirectional control can reorder what a reviewer reads
(a "Trojan Source" name), and most C0 controls cannot appear in an XML 1.0 document at all.

:data:`UNSAFE` is the one list of such code points, for every format: C0 (all of it: a report
field is one line), DEL, C1, the surrogates (a lone one cannot even be written as UTF-8),
U+2028/U+2029, every bidirectional control (U+061C, U+200E/U+200F, U+202A to U+202E,
U+2066 to U+2069) and the noncharacters (U+FDD0 to U+FDEF and the last two code points of every
plane, U+FFFE/U+FFFF … U+10FFFE/U+10FFFF).

:func:`text` is the one visible form: ``\\u202e`` (``\\U0001fffe`` past the BMP). A backslash
that is followed by ``u`` or ``U`` is itself shown as ``\\u005c``, so every ``\\u``/``\\U`` in
escaped text is an escape, and reading them back gives the input exactly: distinct inputs
stay distinct. It is not idempotent (no injective escaping can be): apply it once, where the
input-derived string is put into the output. Each format then adds its own syntax layer on
top (XML entities, markdown backslashes, the percent-encoding of workflow commands).

The JSON documents (``--format json``, SARIF's JSON) keep the input's strings for the tools
that read them: :func:`json_safe` writes the same code points as JSON string escapes (the
same ``\\u202e`` form; a surrogate pair past the BMP), so the document holds none of them raw
and decodes to the exact strings. Text meant for a person inside a JSON document (SARIF's
messages) goes through :func:`text` first.
"""

from __future__ import annotations

import re

# The code points no report shows raw. One class, so that every format escapes the same set.
_UNSAFE_CLASS = (
    "\x00-\x1f\x7f-\x9f"  # C0, DEL, C1
    "\ud800-\udfff"  # surrogates: in a str, always lone
    "\u2028\u2029"  # line and paragraph separators
    "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"  # bidirectional controls (marks, embeddings, isolates)
    "\ufdd0-\ufdef"  # noncharacters in the BMP's Arabic block
    + "".join(f"{chr(plane << 16 | 0xfffe)}{chr(plane << 16 | 0xffff)}" for plane in range(17))
)
UNSAFE = re.compile(f"[{_UNSAFE_CLASS}]")
# Unsafe characters, and a backslash that would otherwise read as the start of an escape.
_TO_ESCAPE = re.compile(f"[{_UNSAFE_CLASS}]|\\\\(?=[uU])")
# What json.dumps(ensure_ascii=False) leaves raw: UNSAFE minus C0 (which it escapes itself).
_UNSAFE_IN_JSON = re.compile(f"[{_UNSAFE_CLASS.replace(chr(0) + '-' + chr(0x1f), '', 1)}]")


def escape_char(char: str) -> str:
    """The visible form of one code point: ``\\uXXXX``, or ``\\UXXXXXXXX`` past the BMP."""
    code = ord(char)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def _escape(match: re.Match[str]) -> str:
    return escape_char(match.group()[0])


def text(value: str, limit: int | None = None) -> str:
    """``value`` as one line of safe text: every :data:`UNSAFE` character shown escaped.

    With ``limit``, at most ``limit`` characters of ``value`` are shown, followed by how many
    were left out (``…(123 more characters)``): a bound that says so.
    """
    rest = ""
    if limit is not None and len(value) > limit:
        value, rest = value[:limit], f"…({counted(len(value) - limit, 'more character', 'more characters')})"
    return _TO_ESCAPE.sub(_escape, value) + rest


def xml(value: str, limit: int | None = None) -> str:
    """``value`` escaped for XML character data (:func:`text`, so no XML-illegal character is left)."""
    return text(value, limit).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(value: str) -> str:
    """``value`` as a double-quoted XML attribute, quotes included."""
    return '"' + xml(value).replace('"', "&quot;") + '"'


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a JSON string writes a code point past the BMP as a surrogate pair
    return f"\\u{0xd800 | code >> 10:04x}\\u{0xdc00 | code & 0x3ff:04x}"


def json_safe(document: str) -> str:
    """JSON text from ``json.dumps(ensure_ascii=False)`` with every unsafe character escaped.

    Outside strings a JSON text holds only ASCII, so every match is inside a string, where
    ``\\uXXXX`` is the standard escape of the same character (a lone surrogate stays one).
    """
    return _UNSAFE_IN_JSON.sub(_json_escape, document)


# A JSON string token (its escapes included), to tell a line's strings from what is between them.
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.S)
_JSON_SPACE = "\t\r"  # C0 characters JSON allows between tokens (a line holds no LF)


def json_line(line: str) -> str:
    """A transcript line shown so that it can be copied back: valid JSON stays valid JSON.

    :func:`text` would show a backslash before ``u`` as ``\\u005c``, so a line holding a JSON escape
    (``"a\\u000ab"``) could not be pasted back. Here backslashes are left alone, and every
    :data:`UNSAFE` character is written as JSON writes it: inside a string as its ``\\uXXXX``
    escape (a surrogate pair past the BMP), which decodes to the same string; between tokens a
    tab or CR (JSON whitespace) as a space, which is the same JSON value. Nothing unsafe is left
    raw, so the line is as safe on a terminal as :func:`text` makes it; a line that was not JSON
    stays not JSON, with its unsafe characters escaped the same way.
    """
    out: list[str] = []
    end = 0
    for match in _JSON_STRING.finditer(line):
        out.append(_between(line[end:match.start()]))
        out.append(UNSAFE.sub(_json_escape, match.group()))
        end = match.end()
    out.append(_between(line[end:]))
    return "".join(out)


def _between(part: str) -> str:
    return UNSAFE.sub(lambda m: " " if m.group() in _JSON_SPACE else _json_escape(m), part)


def counted(n: int, noun: str, plural: str | None = None) -> str:
    """``n`` and the noun in the number it needs: ``1 finding``, ``2 findings``, ``0 findings``.

    Here because every report words its counts through it, as it shows its input through
    :func:`text` (issue 31: "1 findings" was printed where a count bypassed it; a test scans the
    package for counts worded without it). ``plural`` for a noun that does not take an ``s``
    (``kinds of finding``).
    """
    return f"{n} {number(n, noun, plural)}"


def number(n: int, noun: str, plural: str | None = None) -> str:
    """The noun alone in the number ``n`` needs, where words stand between the count and it
    (``3 more sj.schema findings``): ``counted`` without the count."""
    if n == 1:
        return noun
    if plural:
        return plural
    if noun.endswith("y") and noun[-2:-1] not in ("", "a", "e", "i", "o", "u"):  # entry, entries
        return noun[:-1] + "ies"
    return noun + "s"
