"""Measuring the checker against labelled data: AmbiQT (`ambiqt`), the labelled question sets (`labelled`) and
the gold answers (`gold`).

Nothing is imported here: each module is loaded by the command that needs it.
"""
