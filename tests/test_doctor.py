"""`fairytable doctor` on the virtual table: a healthy tile, and a reader that hangs."""

import asyncio

from host import doctor
from host.link import TableLink
from tools.virtual_table import VirtualTable


def test_doctor_finds_a_hung_reader_and_says_what_to_do():
    async def check():
        with VirtualTable(tiles=2, cells=3, quiet=True) as vt:
            # Reader 2 of tile 2 hangs for good (neither a soft reset nor the readers'
            # RST line cures it).
            vt.tiles[1].fault(1, "hang", soft_reset_cures=False, rst_cures=False)
            link = TableLink(ports=vt.ports())
            await link.start()
            try:
                report = await doctor.examine(link, 12.0)
            finally:
                await link.stop()
            return report, vt.tiles[0].uid, vt.tiles[1].uid
    report, good, bad = asyncio.run(check())
    assert all(ok for ok, _ in report[good])
    problems = [text for ok, text in report[bad] if not ok]
    assert problems and "reader 2" in problems[0] and "wiring" in problems[0]


def test_doctor_says_when_no_tile_answers(capsys):
    assert doctor.main(["--port", "/dev/null-no-such-port", "--wait", "1"]) == 2
    assert "no tile answered" in capsys.readouterr().out
