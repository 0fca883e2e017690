"""The bundled reference programs, by the paths users type (``python -m contract.reference.X``).

Each module here is a thin alias: the program itself is its wire's (``contract/wires/<wire>/``),
an emitter or host the live drivers can talk to (``Wire.reference``) or a consumer or client
``milk-contract feed`` can judge. They let ``milk-contract run`` and the suite work on a machine
with no milk build, and their faulty variants (under ``tests/faulty_hosts`` and the like) prove
that the drivers notice each failure.
"""
