"""The table: layout (tile slot <-> cell), tag registry, and the interpreter from sensors to actions."""
