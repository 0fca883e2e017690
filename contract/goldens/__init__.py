"""Golden transcripts: normalisation, the store, comparison, rewriting, scenarios and re-recording.
"""
