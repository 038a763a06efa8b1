"""`fairytable doctor` on the virtual table: a healthy tile, a reader that hangs, the numbers
it prints and gives as JSON, and a port whose tile speaks another protocol version."""

import asyncio
import json
import re

from vtable_helpers import FakeTile

from host import doctor
from host.link import TableLink
from host.virtual import VirtualTable


def test_doctor_finds_a_hung_reader_and_says_what_to_do():
    async def check():
        with VirtualTable(tiles=2, cells=3, quiet=True) as vt:
            # Reader 1 (slot 1, as the wiring tables and the wire number them) of the
            # second tile hangs for good (neither a soft reset nor the RST line cures it).
            vt.tiles[1].fault(1, "hang", soft_reset_cures=False, rst_cures=False)
            link = TableLink(ports=vt.ports())
            await link.start()
            try:
                report = await doctor.examine(link, 12.0)
                numbers = doctor.numbers_for(link.tiles[vt.tiles[1].uid])
            finally:
                await link.stop()
            return report, numbers, vt.tiles[0].uid, vt.tiles[1].uid
    report, numbers, good, bad = asyncio.run(check())
    assert all(ok for ok, _ in report[good])
    problems = [text for ok, text in report[bad] if not ok]
    assert problems and "reader 1 " in problems[0] and "wiring" in problems[0]
    assert [r["ok"] for r in numbers["readers"]] == [True, False, True]


def test_doctor_json_gives_each_tiles_numbers_and_the_interpreter(capsys):
    assert doctor.main(["--virtual", "--tiles", "1", "--wait", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] and out["interpreter"] in ("micropython", "cpython")
    (tile,) = out["tiles"].values()
    health = tile["health"]
    assert health["firmware"] == "0.1.0" and health["cells"] == 7
    assert health["uptime_ms"] > 0 and health["heap_free"] > 0
    assert len(health["readers"]) == 7
    assert all(r == {"ok": True, "errors": 0, "reinits": 0} for r in health["readers"])
    for name in ("crc_errors", "protocol_errors", "host_errors"):
        assert health[name] == 0, name
    for name in ("resends", "tile_resends", "reboots", "reconnects", "garbage_bytes"):
        assert isinstance(health[name], int), name


def test_doctor_prints_each_tiles_numbers_and_says_the_tiles_run_under_cpython(capsys):
    assert doctor.main(["--virtual", "--tiles", "1", "--interpreter", "cpython",
                        "--wait", "30"]) == 0
    out = capsys.readouterr().out
    assert "the tile firmware runs under CPython" in out
    assert "firmware 0.1.0, 7 cells, up " in out and "bytes of heap free" in out
    for i in range(7):
        assert "reader %d ok (0 misreads, 0 re-inits)" % i in out
    assert re.search(r"link: 0 CRC errors, \d+ resends? \(host\) and \d+ \(tile\), "
                     r"\d+ reboots?, \d+ reconnects?, 0 protocol errors", out)
    assert "0 problems found" in out


def test_doctor_says_to_reflash_a_tile_of_another_protocol_version(capsys):
    with FakeTile("e661410400000401", protocol=2, version=2) as fake:
        assert doctor.main(["--port", fake.port, "--wait", "2"]) == 1
    out = capsys.readouterr().out
    assert "no tile answered" not in out
    assert "the tile on %s (e661410400000401) speaks protocol 2, this host speaks 1: reflash" \
        % fake.port in out


def test_doctor_says_to_unplug_one_of_two_ports_answering_with_one_tile_id(capsys):
    with FakeTile("e661410400000501") as first, FakeTile("e661410400000501") as clone:
        assert doctor.main(["--port", first.port, "--port", clone.port, "--wait", "3"]) == 1
    out = capsys.readouterr().out
    assert "tile e661410400000501 answers on both" in out and "unplug one" in out


def test_doctor_says_when_no_tile_answers(capsys):
    assert doctor.main(["--port", "/dev/null-no-such-port", "--wait", "1"]) == 2
    assert "no tile answered" in capsys.readouterr().out
