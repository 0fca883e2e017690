"""The rule catalog (every wire's rules composed), requirement verdicts, the report and baselines:
what findings become. Sits above the wires.
"""
