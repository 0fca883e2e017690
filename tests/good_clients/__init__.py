"""Subagent-stdio clients that poll differently and are all correct (tests/consumers/test_host_closing.py)."""
