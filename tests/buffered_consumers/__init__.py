"""Consumers in three languages whose reading is buffered (tests/consumers/test_feed_buffering.py)."""
