"""Identity writes under the MicroPython unix port: the portable write tests unchanged,
then 8 readers on one bus enrolling a card each in a 64 KB heap, modules precompiled by
mpy-cross as they are deployed (bytecode in the heap: the harder case).
"""

import os
import shutil
import tempfile

import mpy
import pytest

from mpy import (requires_micropython, run_micropython_code,
                 run_portable_tests)
from tile_mpy import EIGHT_READERS
from test_mfrc522_micropython import compile_tree, needs_mpy_cross

PORTABLE = ["test_mfrc522_write", "test_mfrc522_write_emulator"]


@requires_micropython
@pytest.mark.micropython
@pytest.mark.parametrize("module", PORTABLE)
def test_portable_write_tests_pass_under_micropython(module):
    out = run_portable_tests(module)
    assert int(out.split(" passed")[0].split()[-1]) >= 10, out


ENROLL = """
import gc
from firmware.drivers.mfrc522 import MFRC522
from shared_rules.tag_identity import parse as parse_identity, record as identity_record
from firmware.sim.mfrc522_emu import SimSPI, SimPin, Mfrc522Emulator, NtagCard
gc.collect()
""" + EIGHT_READERS + """
# Cell i: a card, and a pawn sharing its first UID bytes; cell 5's card is read-only.
for i in range(8):
    emus[i].place(NtagCard(bytes([4, i, 2, 3, 4, 5, 6]), identity_record(b"old%d" % i),
                           read_only=(i == 5)))
    emus[i].place(NtagCard(bytes([4, i, 2, 3, 4, 5, 0x10])))
for i in range(8):
    uid = bytes([4, i, 2, 3, 4, 5, 6])
    before = emus[i].transactions
    ok, why = readers[i].write_identity(uid, identity_record(b"card%d" % i))
    print("w", i, ok, emus[i].transactions - before, why)
for i in range(8):
    ids = {}
    tags = readers[i].inventory(4, ids)
    print("r", i, len(tags), parse_identity(ids[bytes([4, i, 2, 3, 4, 5, 6])]))
gc.collect()
print("contention", spi.contention)
print("free", gc.mem_free())
"""


@requires_micropython
@pytest.mark.micropython
@needs_mpy_cross
def test_eight_readers_enroll_a_card_each_in_a_64k_heap(tmp_path):
    # Deployed under a short path, as on a board: every module's __file__ and sys.path entry
    # is a heap string (see test_mfrc522_micropython's bytecode-in-the-heap test).
    tree = tempfile.mkdtemp(prefix="t", dir="/tmp")
    try:
        enroll_eight(tmp_path, tree)
    finally:
        shutil.rmtree(tree, ignore_errors=True)


def enroll_eight(tmp_path, tree):
    compile_tree(tree)
    src = tmp_path / "enroll_scenario.py"
    src.write_text(ENROLL)
    mpy.mpy_cross(str(src), os.path.join(tree, "enroll_scenario.mpy"))
    code = "import sys\nsys.path.insert(0, %r)\nimport enroll_scenario\n" % tree
    out = run_micropython_code(code, heapsize="64k").splitlines()
    writes = [line.split(None, 4) for line in out if line.startswith("w ")]
    assert len(writes) == 8
    for _, cell, ok, spent, why in writes:
        if cell == "5":
            assert ok == "False" and why == "NAK on page 4 (locked or read-only tag?)"
        else:
            assert ok == "True" and why == "written", writes
            assert int(spent) < 1200, writes
    reads = [line.split() for line in out if line.startswith("r ")]
    for _, cell, n, ident in reads:
        assert n == "2"
        assert ident == ("b'old5'" if cell == "5" else "b'card%s'" % cell), reads
    assert "contention 0" in out
    free = int([line for line in out if line.startswith("free")][0].split()[1])
    print("heap free after 8 enrollments:", free)
    assert free > 4096
