"""Subagent-stdio clients that poll differently and are all correct (tests/test_host_closing.py)."""
