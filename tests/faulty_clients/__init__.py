"""Faulty subagent-stdio clients: each breaks one thing ``feed --wire subagent-stdio`` must notice."""
