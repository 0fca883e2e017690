"""A client that sends a malformed command (no ``version``), then a correct one, and exits 0."""

from __future__ import annotations

import sys

sys.stdout.write('{"type":"subagent_status","id":"bad-1"}\n')
sys.stdout.flush()
sys.stdin.readline()
sys.stdout.write('{"type":"subagent_status","version":1,"id":"good-1"}\n')
sys.stdout.flush()
sys.stdin.readline()
