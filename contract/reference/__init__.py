"""Bundled reference emitters: small, conformant programs the live drivers can talk to.

They let ``milk-contract run`` and the suite work on a machine with no milk build, and their
faulty variants (under ``tests/faulty_hosts``) prove that the drivers notice each failure.
"""
