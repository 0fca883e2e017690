"""The independent reading of the verdict surfaces: cases from the seeds and docs alone (READINGS.md)."""
