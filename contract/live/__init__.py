"""Running emitters and hosts live: the harness (a stream), the driver (a conversation), provoked
environments and live fuzzing.
"""
