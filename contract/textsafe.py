"""Input-derived text made safe to print: for terminals (``text``), for XML (``xml``), for JSON.

Everything a report shows may come from the input: member names in JSON pointers, values
quoted in messages, the source name, an emitter's stderr. A raw ESC or OSC sequence there
can repaint the terminal (print a fake "conformant" line, hide the summary), a CR can
overwrite the line it is on, and most C0 controls cannot appear in an XML 1.0 document at
all, even as character references. So every reporter passes such strings through here:

- :func:`text` shows C0 controls, DEL, C1 controls, lone surrogates, the Unicode line and
  paragraph separators, the bidirectional controls and the noncharacters U+FFFE/U+FFFF as
  ``\\u001b``-style escapes; the result is one line of printable text.
- :func:`xml` is :func:`text` (so the result is also XML-legal) and then XML-escaped.
- :func:`json_safe` post-processes ``json.dumps(..., ensure_ascii=False)`` output the same
  way; the escapes it writes are JSON string escapes, so the document stays valid JSON.

Reporters added later (github, sarif, markdown) should use these helpers too.
"""

from __future__ import annotations

import re

# C0 (all of it: a report field is one line), DEL, C1, lone surrogates, U+2028/U+2029,
# bidirectional embeddings/overrides/isolates (they reorder what the reader sees), U+FFFE/U+FFFF.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")
# The same minus what json.dumps already escapes (C0), for its output.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\ud800-\udfff\u2028\u2029\u202a-\u202e\u2066-\u2069\ufffe\uffff]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def text(value: str) -> str:
    """``value`` with every unsafe character shown as a ``\\uXXXX`` escape."""
    return _UNSAFE.sub(_escape, value)


def xml(value: str) -> str:
    """``value`` escaped for XML character data (and safe: no XML-illegal character left)."""
    return text(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def xml_attr(value: str) -> str:
    """``value`` as a double-quoted XML attribute, quotes included."""
    return '"' + xml(value).replace('"', "&quot;") + '"'


def json_safe(document: str) -> str:
    """JSON text from ``json.dumps(ensure_ascii=False)`` with unsafe characters escaped.

    Outside strings a JSON text holds only ASCII, so every match is inside a string, where
    ``\\uXXXX`` is the standard escape of the same character (a lone surrogate stays one).
    """
    return _UNSAFE_IN_JSON.sub(_escape, document)

