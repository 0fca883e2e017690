"""Faulty subagent-stdio hosts, one per live failure mode; each is a script run by the driver.

Each variant is the reference host (``contract.wires.subagent_stdio.kit.host``) with one behaviour
changed, so the only fault a test sees is the one the file is named after.
"""
