"""The codec fuzz tool (tools/fuzz_wire.py): a short run on both interpreters, and its
checks catch a decoder that loses whole frames or lets a damaged one through."""

import os
import sys

from mpy import REPO, requires_micropython, run_cpython, run_micropython

sys.path.insert(0, REPO)
from tools import fuzz_wire  # noqa: E402

FRAMES = 20000


def test_short_fuzz_run_holds_every_check_on_cpython():
    proc = run_cpython([os.path.join("tools", "fuzz_wire.py"), "--frames", str(FRAMES)])
    out = proc.stdout.decode()
    assert proc.returncode == 0, out + proc.stderr.decode()
    assert "lost=0" in out and "accepted_damaged=0" in out and "decoder_errors=0" in out


@requires_micropython
def test_micropython_gives_the_same_line_as_cpython():
    mpy = run_micropython([os.path.join("tools", "fuzz_wire.py"), "--frames", "5000"])
    cpy = run_cpython([os.path.join("tools", "fuzz_wire.py"), "--frames", "5000"])
    assert mpy.returncode == 0, mpy.stdout.decode() + mpy.stderr.decode()
    assert mpy.stdout == cpy.stdout


def test_a_decoder_that_drops_frames_is_caught(monkeypatch):
    feed = fuzz_wire.wire.Decoder.feed
    calls = {"n": 0}

    def lossy(self, data):
        frames = feed(self, data)
        calls["n"] += 1
        return frames[1:] if calls["n"] % 7 == 0 else frames

    monkeypatch.setattr(fuzz_wire.wire.Decoder, "feed", lossy)
    results = fuzz_wire.run(3000)
    assert results["lost"] > 0 and fuzz_wire.failed(results)


def test_a_decoder_that_accepts_damage_is_caught(monkeypatch):
    feed = fuzz_wire.wire.Decoder.feed

    def careless(self, data):
        frames = feed(self, data)
        for frame in frames:
            frame.payload = bytes(frame.payload) + b"!"
        return frames

    monkeypatch.setattr(fuzz_wire.wire.Decoder, "feed", careless)
    results = fuzz_wire.run(500)
    assert results["accepted_damaged"] > 0 and fuzz_wire.failed(results)


def test_bad_arguments_are_a_sentence():
    assert fuzz_wire.main(["--frames", "many"]) == 2
    assert fuzz_wire.main(["--colour"]) == 2
