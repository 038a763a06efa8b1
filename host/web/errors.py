"""What the web table refuses: an HTTP status and a sentence."""


class Refused(Exception):
    """A request the web table will not carry out: an HTTP status and a sentence."""

    def __init__(self, status, message, cells=None):
        Exception.__init__(self, message)
        self.status = status
        self.message = message
        self.cells = [list(c) for c in cells] if cells else []  # where the person acted
