"""The collector as splunkd runs it, for the webhook tests and benches: the built add-on's script as
a subprocess, the input definition XML on stdin, stdout/stderr pumped into buffers, its events parsed,
and the add-on's Configuration > Webhook settings served by the fake splunkd."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, Optional

from fakes.paths import TA_BIN
from fakes.splunkd import FakeSplunkd, envelope

SCRIPT = os.path.join(TA_BIN, "ingest_doctor_introspection.py")
SETTINGS_PATH = "/servicesNS/nobody/TA-ingest_doctor/configs/conf-ta_ingest_doctor_settings/webhook"


def serve_webhook_settings(fake: FakeSplunkd, url: str, min_severity: str = "warning",
                           allow_targets: str = "127.0.0.1") -> None:
    """ta_ingest_doctor_settings.conf [webhook] as splunkd's configs/conf-* endpoint answers it."""
    fake.route("GET", SETTINGS_PATH, envelope(SETTINGS_PATH.rsplit("/", 1)[0], [("webhook", {
        "url": url, "min_severity": min_severity, "allow_targets": allow_targets, "auth_header": ""})]))


class CollectorProc:
    def __init__(self, stdin: bytes, env: Optional[Dict[str, str]] = None, python: str = sys.executable):
        e = dict(os.environ)
        e.pop("SPLUNK_HOME", None)
        e["PYTHONDONTWRITEBYTECODE"] = "1"
        e.update(env or {})
        self.proc = subprocess.Popen([python, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, env=e)
        assert self.proc.stdin is not None
        self.proc.stdin.write(stdin)
        self.proc.stdin.close()
        self.out = bytearray()
        self.err = bytearray()
        self.readers = [threading.Thread(target=self._pump, args=(self.proc.stdout, self.out), daemon=True),
                        threading.Thread(target=self._pump, args=(self.proc.stderr, self.err), daemon=True)]
        for t in self.readers:
            t.start()

    @staticmethod
    def _pump(stream: Any, buf: bytearray) -> None:
        fd = stream.fileno()
        while True:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                return
            if not chunk:
                return
            buf.extend(chunk)

    def events(self) -> List[Dict[str, Any]]:
        out = []
        for raw in re.findall(r"<event .*?</event>", bytes(self.out).decode("utf-8", "replace"), re.S):
            e = ET.fromstring(raw)
            out.append({"sourcetype": e.findtext("sourcetype"), "time": float(e.findtext("time") or 0),
                        "data": json.loads(e.findtext("data") or "{}")})
        return out

    def polls(self) -> List[float]:
        """Poll start times, in order (each poll writes one poll.duration_ms metrics event)."""
        return [e["time"] for e in self.events() if e["sourcetype"] == "ingest_doctor:metrics"
                and "ingest_doctor.poll.duration_ms" in e["data"]]

    def findings(self) -> List[Dict[str, Any]]:
        return [e for e in self.events() if e["sourcetype"] == "ingest_doctor:finding"]

    def stderr(self) -> str:
        return bytes(self.err).decode("utf-8", "replace")

    def terminate(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=5)
        for t in self.readers:
            t.join(5)
        return rc

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
