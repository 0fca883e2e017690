"""Wire evolution after an ADR: the surface of a schema, classifying changes, framing rules, the
gate and evolve.
"""
