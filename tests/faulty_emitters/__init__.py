"""Misbehaving stream-json emitters for ``milk-contract run`` (see tests/live/test_misbehaving_emitters.py).

Each is a script run as ``python NAME.py MARKER``: it writes ``faulty-emitter NAME: …`` on
stderr (so a test can find it in the report) and passes MARKER to any child it starts (so a test
can prove, from /proc, that nothing it started survives the run).
"""
