"""The web table: the table drawn in a browser for spectators, seats and staff (docs/web.md)."""
