"""The table: layout (tile slot <-> cell), tag registry, sensors-to-actions interpreters."""
