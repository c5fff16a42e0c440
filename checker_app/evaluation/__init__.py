"""Measuring the checker against labelled data: AmbiQT (`ambiqt`), and the lead's gold answers (`gold`).

Nothing is imported here: each module is loaded by the command that needs it.
"""
