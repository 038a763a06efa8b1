"""Chip drivers for the tile: each takes bus objects (SPI, Pin), never pin numbers."""
