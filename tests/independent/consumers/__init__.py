"""Consumers for the independent feed cases, each written from docs/consumers.md and the seed alone."""
