"""Builds for the independent statement cases (replay builds with one fault)."""
