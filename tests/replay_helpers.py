"""Running the scenario runner as users do, for the replay tests of every game."""

import json
import os
import subprocess
import sys

from mpy import REPO, run_cpython


def fairytable(*args):
    """The installed `fairytable` command, from the repository root."""
    exe = os.path.join(os.path.dirname(sys.executable), "fairytable")
    return subprocess.run([exe] + list(args), capture_output=True, cwd=REPO, timeout=60)


def replay_doc(tmp_path, doc):
    """`python -m shared_rules.replay` on `doc` (a dict, or text as it is): its exit status,
    its JSON and its stderr; never a traceback."""
    path = tmp_path / "scenario.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    proc = run_cpython(["-m", "shared_rules.replay", str(path)])
    assert b"Traceback" not in proc.stderr
    return proc.returncode, json.loads(proc.stdout), proc.stderr.decode()
