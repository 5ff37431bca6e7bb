"""The modular input (the collector) run as splunkd runs it: the script of the built add-on as a
subprocess, the input definition written to its stdin and stdin closed, its stdout (the events)
and stderr (its log) collected while it runs. `start` needs the `runs` fixture (tests/conftest.py),
which kills whatever a test leaves running."""
import json
import os
import re
import signal
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET

from fakes.paths import TA_BIN, VENV
from fakes.splunkd import wait_for

# The script as the add-on ships it (build/TA-ingest_doctor/bin, with the add-on's bin/lib).
SCRIPT = os.path.join(TA_BIN, "ingest_doctor_introspection.py")
PYTHONS = {name: os.path.join(VENV, name, "bin", "python") for name in ("py313", "py39")}


def script_env():
    env = dict(os.environ)
    env.pop("SPLUNK_HOME", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_once(args, stdin=b"", python=sys.executable):
    p = subprocess.run([python, SCRIPT] + args, input=stdin, capture_output=True, env=script_env(), timeout=60)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


class Run:
    """A streaming run: stdin written and closed (as splunkd does), stdout/stderr collected."""

    def __init__(self, stdin, read_stdout=True):
        self.proc = subprocess.Popen([sys.executable, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=script_env())
        self.proc.stdin.write(stdin)
        self.proc.stdin.close()
        self.out = bytearray()
        self.err = bytearray()
        self.readers = [threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True)]
        if read_stdout:
            self.readers.append(threading.Thread(target=self._pump, args=(self.proc.stdout, self.out), daemon=True))
        for t in self.readers:
            t.start()

    @staticmethod
    def _pump(stream, buf):
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            buf.extend(chunk)

    def events(self):
        out = []
        for raw in re.findall(r"<event .*?</event>", bytes(self.out).decode("utf-8", "replace"), re.S):
            e = ET.fromstring(raw)
            out.append({"sourcetype": e.findtext("sourcetype"), "index": e.findtext("index"),
                        "time": float(e.findtext("time")), "stanza": e.get("stanza"),
                        "data": json.loads(e.findtext("data"))})
        return out

    def of(self, sourcetype):
        return [e for e in self.events() if e["sourcetype"] == sourcetype]

    def polls(self):
        """Poll time stamps, in order (each poll writes one poll.duration_ms event)."""
        return [e["time"] for e in self.of("ingest_doctor:metrics") if "ingest_doctor.poll.duration_ms" in e["data"]]

    def wait_polls(self, n, timeout=30):
        assert wait_for(lambda: len(self.polls()) >= n, timeout), self.stderr()

    def stderr(self):
        return bytes(self.err).decode("utf-8", "replace")

    def terminate(self):
        """SIGTERM; splunkd's requirement is an exit within 2 s."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=2)
        for t in self.readers:
            t.join(5)
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def start(runs, xml, **kw):
    r = Run(xml if isinstance(xml, bytes) else xml.encode("utf-8"), **kw)
    runs.append(r)
    return r
