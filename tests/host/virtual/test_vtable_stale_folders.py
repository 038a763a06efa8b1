"""A table's working folder left behind by a host that died without stopping it (kill -9, a
crash) is removed by the next table once its host is gone and an hour has passed; nothing
else in the temporary folder is touched."""

import os
import subprocess
import sys
import time

from host.virtual.table import OWNER_FILE, STALE_S, VirtualTable, sweep_stale_workdirs


def folder(tmp_path, name, pid=None, age_s=0):
    path = tmp_path / name
    path.mkdir()
    (path / "tile0.log").write_text("a tile's last words\n")
    if pid is not None:
        (path / OWNER_FILE).write_text("%d\n" % pid)
    then = time.time() - age_s
    os.utime(path, (then, then))
    return str(path)


def a_dead_pid():
    p = subprocess.Popen([sys.executable, "-c", "pass"])
    p.wait()
    return p.pid


def test_only_a_dead_hosts_folder_an_hour_old_is_removed(tmp_path):
    dead = a_dead_pid()
    old = STALE_S + 60
    gone = folder(tmp_path, "fairytable-vtable-dead", dead, old)
    fresh = folder(tmp_path, "fairytable-vtable-fresh", dead, 60)        # logs kept an hour
    living = folder(tmp_path, "fairytable-vtable-living", os.getpid(), old)
    unowned = folder(tmp_path, "fairytable-vtable-unowned", None, old)   # no owner file
    other = folder(tmp_path, "someone-else", dead, old)
    assert sweep_stale_workdirs(str(tmp_path)) == [gone]
    assert not os.path.exists(gone)
    for kept in (fresh, living, unowned, other):
        assert os.path.exists(os.path.join(kept, "tile0.log")), kept
    assert sweep_stale_workdirs(str(tmp_path)) == []


def test_a_table_names_its_host_in_its_folder_and_removes_it_when_stopped():
    table = VirtualTable(tiles=1, interpreter="cpython")
    try:
        with open(os.path.join(table.workdir, OWNER_FILE)) as f:
            assert int(f.read()) == os.getpid()
    finally:
        table.stop()
    assert not os.path.exists(table.workdir)
