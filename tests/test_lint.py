"""The tree passes ruff with the project's settings (pyproject.toml [tool.ruff]): a
late-binding closure or a silently truncating zip is a bug before it is a style."""

import os
import subprocess
import sys

from mpy import REPO


def test_the_tree_passes_ruff():
    ruff = os.path.join(os.path.dirname(sys.executable), "ruff")
    proc = subprocess.run([ruff, "check", "--no-cache", "."], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-1000:]
