"""Faulty stream-json consumers: each fails one way ``milk-contract feed`` must notice."""
