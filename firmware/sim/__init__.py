"""Emulated hardware for the sim board: MFRC522 readers with ISO/IEC 14443-3A cards on a
fake SPI bus."""
