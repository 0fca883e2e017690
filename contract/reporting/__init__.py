"""Rendering reports: text, JSON, JUnit, markdown and the CI formats (GitHub, SARIF).
"""
