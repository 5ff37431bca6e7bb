"""The modular input (the collector) run as splunkd runs it: the script of the built add-on as a
subprocess, the input definition written to its stdin and stdin closed, its stdout (the events)
and stderr (its log) collected while it runs, its events parsed; and the add-on's Configuration >
Webhook settings served by the fake splunkd. `start` needs the `runs` fixture (tests/conftest.py),
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
from fakes.splunkd import envelope, wait_for

# The script as the add-on ships it (build/TA-ingest_doctor/bin, with the add-on's bin/lib).
SCRIPT = os.path.join(TA_BIN, "ingest_doctor_introspection.py")
PYTHONS = {name: os.path.join(VENV, name, "bin", "python") for name in ("py313", "py39")}
SETTINGS_PATH = "/servicesNS/nobody/TA-ingest_doctor/configs/conf-ta_ingest_doctor_settings/webhook"


def script_env():
    env = dict(os.environ)
    env.pop("SPLUNK_HOME", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_once(args, stdin=b"", python=sys.executable):
    p = subprocess.run([python, SCRIPT] + args, input=stdin, capture_output=True, env=script_env(), timeout=60)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def serve_webhook_settings(fake, url, min_severity="warning", allow_targets="127.0.0.1"):
    """ta_ingest_doctor_settings.conf [webhook] as splunkd's configs/conf-* endpoint answers it."""
    fake.route("GET", SETTINGS_PATH, envelope(SETTINGS_PATH.rsplit("/", 1)[0], [("webhook", {
        "url": url, "min_severity": min_severity, "allow_targets": allow_targets, "auth_header": ""})]))


class Run:
    """A streaming run: stdin written and closed (as splunkd does), stdout/stderr collected; `env`
    adds to the script's environment."""

    EXIT_S = 2          # splunkd's requirement: an exit within 2 s of SIGTERM

    def __init__(self, stdin, env=None, python=sys.executable, read_stdout=True):
        e = script_env()
        e.update(env or {})
        self.proc = subprocess.Popen([python, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=e)
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
        """Every event written so far, in order; `raw` is its data as written (JSON text)."""
        out = []
        for raw in re.findall(r"<event .*?</event>", bytes(self.out).decode("utf-8", "replace"), re.S):
            e = ET.fromstring(raw)
            out.append({"sourcetype": e.findtext("sourcetype"), "index": e.findtext("index"),
                        "host": e.findtext("host"), "time": float(e.findtext("time") or 0),
                        "stanza": e.get("stanza"), "raw": e.findtext("data"),
                        "data": json.loads(e.findtext("data") or "{}")})
        return out

    def of(self, sourcetype):
        return [e for e in self.events() if e["sourcetype"] == sourcetype]

    def findings(self):
        return self.of("ingest_doctor:finding")

    def polls(self):
        """Poll time stamps, in order (each poll writes one poll.duration_ms event)."""
        return [e["time"] for e in self.of("ingest_doctor:metrics") if "ingest_doctor.poll.duration_ms" in e["data"]]

    def wait_polls(self, n, timeout=30):
        assert wait_for(lambda: len(self.polls()) >= n, timeout), self.stderr()

    def stderr(self):
        return bytes(self.err).decode("utf-8", "replace")

    def terminate(self):
        """SIGTERM, then wait EXIT_S for the exit code."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=self.EXIT_S)
        for t in self.readers:
            t.join(5)
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


class CollectorProc(Run):
    """A run for the webhook tests and benches, which give a post in flight 5 s to end on SIGTERM."""

    EXIT_S = 5


def start(runs, xml, **kw):
    r = Run(xml if isinstance(xml, bytes) else xml.encode("utf-8"), **kw)
    runs.append(r)
    return r
