"""Fairytable host: the Raspberry Pi application that runs the table."""
