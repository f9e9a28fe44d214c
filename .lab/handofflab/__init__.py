"""Handoff Lab's orchestration: the Python behind `./lab`.

Each module drives one part of the kit (specs, java, notebooks, book,
grading) with the real tool for it; `cli` ties them together.
"""
