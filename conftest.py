"""Repo-level fixtures only. The milk-contract plugin is registered by its pytest11 entry point."""
