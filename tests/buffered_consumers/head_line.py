"""A head -n1 consumer in Python: one buffered readline (CPython reads 8 KiB ahead), then exit 0."""

import sys

sys.stdin.readline()
