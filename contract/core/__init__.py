"""The vocabulary every layer speaks: safe text, JSON values and lines, the line reader, sinks,
rule declarations, exit codes, interrupts, user files and bundled resources. Imports nothing
else of the package.
"""
