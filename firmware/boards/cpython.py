"""What the unix port of MicroPython has built in, for the sim board under CPython.

The virtual table falls back to CPython where no `micropython` is installed
(a Raspberry Pi). Kept out of sim.py so a MicroPython tile never loads it.
"""

import asyncio
import os
import time
import traceback

_T0 = time.monotonic_ns()


def ticks_ms():
    return (time.monotonic_ns() - _T0) // 1000000


def ticks_us():
    return (time.monotonic_ns() - _T0) // 1000


def ticks_diff(a, b):
    return a - b


def ticks_add(a, b):
    return a + b


def sleep_ms(ms):
    return asyncio.sleep(ms / 1000)


def sleep_us(us):
    time.sleep(us / 1000000)


def wall_ns():
    return time.time_ns()


def urandom32():
    return int.from_bytes(os.urandom(4), "big")


def heap_free():
    return 0


__all__ = ["ticks_ms", "ticks_us", "ticks_diff", "ticks_add", "sleep_ms", "sleep_us",
           "urandom32", "wall_ns", "heap_free", "fd_read", "fd_write", "gc_collect",
           "sock_connect", "sock_readinto", "sock_write", "print_exception"]


def gc_collect():
    pass


def fd_read(fd):
    return os.read(fd, 4096)


def fd_write(fd, data):
    os.write(fd, data)


def sock_connect(sock, path):
    # "@NAME": NAME in Linux's abstract namespace (host/virtual/table.py).
    sock.connect("\0" + path[1:] if path.startswith("@") else path)


def sock_readinto(sock, buf):
    return sock.recv_into(buf)


def sock_write(sock, data):
    sock.sendall(data)


def print_exception(e):
    traceback.print_exception(e)
