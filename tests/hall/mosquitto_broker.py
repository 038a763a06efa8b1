"""A real Mosquitto broker for the hall's tests: its own config on a free loopback port
(anonymous, no persistence), started, killed and restarted on the same port."""

import os
import shutil
import signal
import socket
import subprocess
import time

MOSQUITTO = shutil.which("mosquitto") or (
    "/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    def __init__(self, folder, port=None, extra="", anonymous=True):
        self.folder = str(folder)
        self.port = port or free_port()
        self.conf = os.path.join(self.folder, "mosquitto.conf")
        self.log = os.path.join(self.folder, "mosquitto.log")
        with open(self.conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous %s\npersistence false\n"
                    "log_dest file %s\nlog_type all\n%s" % (
                        self.port, "true" if anonymous else "false", self.log, extra))
        self.proc = None

    @property
    def url(self):
        return "mqtt://127.0.0.1:%d" % self.port

    def start(self, timeout_s=10.0):
        self.proc = subprocess.Popen([MOSQUITTO, "-c", self.conf], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError("mosquitto stopped at start (exit %s): %s" % (
                    self.proc.returncode, self.read_log()[-2000:]))
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("mosquitto did not listen on port %d" % self.port)
                time.sleep(0.05)

    def kill(self):
        """Gone at once, as a broker whose machine lost power."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(10)
        self.proc = None

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None

    def read_log(self):
        try:
            with open(self.log, errors="replace") as f:
                return f.read()
        except OSError:
            return ""
