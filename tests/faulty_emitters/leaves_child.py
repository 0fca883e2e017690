"""A whole conformant run and exit 0, leaving a child behind that holds stdout open."""

from _common import golden_lines, say, sleeping_child, write

write(*golden_lines())
sleeping_child()
say("exiting, a child still holds stdout")
