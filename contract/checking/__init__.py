"""Checking a captured stream: the schema step, coverage, the fail-safe wrapper, the one- and two-
process pipelines, the public check() and many-file runs.
"""
