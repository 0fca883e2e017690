"""Consumers in three languages whose reading is buffered (tests/test_feed_buffering.py)."""
