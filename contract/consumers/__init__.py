"""Judging consumers: feeding them goldens and variants, the subagent-stdio host stand-in, exported
test vectors.
"""
