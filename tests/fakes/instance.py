"""A whole splunkd (management port, and optionally its HEC port) for the collector tests.

State is plain attributes a test flips mid-run (`full_queues`, `health_code`,
`faults`), and every route answers from the state at request time. Shapes: see
tests/fixtures/modinput/README.md (beside the XML templates this fake fills in).
"""
from __future__ import annotations

import importlib.util
import json
import os
import sys
import threading
from typing import Callable, Dict, List, Optional, Set

from fakes.paths import BIN, FIXTURES
from fakes.splunkd import FakeSplunkd, Request, Response, envelope, fault

TEMPLATES = os.path.join(FIXTURES, "modinput")         # the XML templates (input, validation, storage/passwords)
if BIN not in sys.path:     # the benches run this fake in a process of its own
    sys.path.insert(0, BIN)
from ingest_doctor.thresholds import SETTINGS  # noqa: E402
SESSION_KEY = "0123456789abcdef-fake-session-key"
PROBE_TOKEN = "11111111-2222-3333-4444-555555555555"
MAX_BYTES = 512000

# Queue titles splunkd lists per pipeline set (MC 9.0.3 names; `.N` suffix with several sets).
PIPELINE_QUEUES = ("parsingQueue", "aggQueue", "typingQueue", "indexQueue", "tcpin_queue")
INSTANCE_QUEUES = ("AEQ", "AQ", "auditQueue", "execProcessorInternalQ", "fschangemanager_queue", "nullQueue",
                   "stashparsing")

REST = {
    "queues": "/services/server/introspection/queues",
    "indexer": "/services/server/introspection/indexer",
    "pipelinesets": "/services/server/pipelinesets",
    "processes": "/services/server/status/resource-usage/splunk-processes",
    "hostwide": "/services/server/status/resource-usage/hostwide",
    "info": "/services/server/info",
    "http": "/services/data/inputs/http",
    "http_global": "/services/data/inputs/http/http",
    "macros": "/services/configs/conf-macros",
    "general": "/services/configs/conf-server/general",
    "queue": "/services/configs/conf-server/queue",
    "tcpout": "/services/configs/conf-outputs/tcpout",
}


def _queue_content(cur: int, avg: int, max_bytes: int):
    """One introspection/queues entry's content: `cur` bytes now, `avg` bytes over each lookback."""
    return {"cntr_1_lookback_time": 60, "cntr_2_lookback_time": 600, "cntr_3_lookback_time": 900,
            "current_size": cur // 500, "current_size_bytes": cur, "largest_size": cur // 500,
            "max_size_bytes": max_bytes, "sampling_interval": 1, "smallest_size": 0,
            "value_cntr1_size_bytes_lookback": avg, "value_cntr1_size_lookback": avg // 500,
            "value_cntr2_size_bytes_lookback": avg, "value_cntr2_size_lookback": avg // 500,
            "value_cntr3_size_bytes_lookback": avg, "value_cntr3_size_lookback": avg // 500}


class Instance:
    def __init__(self, fake: FakeSplunkd, host: str = "idx-01", psets: int = 4,
                 roles: Optional[List[str]] = None, cores: int = 16, tokens: int = 3,
                 hec: Optional[FakeSplunkd] = None, hec_enabled: bool = False):
        self.fake = fake
        self.host = host
        self.psets = psets
        self.roles = roles or ["indexer", "kv_store", "license_master"]
        self.cores = cores
        self.tokens = tokens
        self.hec = hec
        self.hec_enabled = hec_enabled or hec is not None
        self.full_queues: Set[str] = set()
        self.full_for_requests = 0                  # > 0: the next N queue reads are full (a spike)
        self.fill_pct = 2.0
        self.health_code = 17
        self.faults: Dict[str, str] = {}            # REST key or "hec_health"/"hec_event" -> fault name
        self.dedicated_io_threads = "2"
        self.parallel = str(psets)
        self.thread_pct: Dict[str, float] = {}      # pipelinesets' busiest thread dutycycle, by pipeline set
        self.macros: Dict[str, str] = {}            # tuned ingest_doctor_* macros (the app's defaults otherwise)
        self.lock = threading.Lock()
        for key, path in REST.items():
            fake.route("GET", path, self._guarded(key, self._rest(key), session=True))
        fake.route("GET", "/servicesNS/nobody/TA-ingest_doctor/storage/passwords",
                   self._guarded("passwords", self._passwords, session=True))
        if hec is not None:
            hec.route("GET", "/services/collector/health", self._guarded("hec_health", self._health))
            hec.route("POST", "/services/collector/event", self._guarded("hec_event", self._event))

    # -- helpers
    def _guarded(self, key: str, answer: Callable[[Request], Response], session: bool = False):
        """`answer` behind what a test set: a 401 without the session key (with `session`), then the
        fault set for `key`."""
        def handle(req: Request) -> Response:
            if session and req.headers.get("Authorization") != "Splunk " + SESSION_KEY:
                return fault("401")
            with self.lock:
                name = self.faults.get(key)
            if name:
                return fault(name)
            return answer(req)
        return handle

    def _rest(self, key: str) -> Callable[[Request], Response]:
        build = getattr(self, "_" + key)
        return lambda req: envelope(REST[key], build())

    def _fill(self, queue: str) -> float:
        return 98.0 if queue in self.full_queues else self.fill_pct

    # -- REST bodies (content dictionaries in real shapes)
    def _queues(self):
        out = []
        spike = False
        with self.lock:
            if self.full_for_requests > 0:
                self.full_for_requests -= 1
                spike = True
        sets = [None] if self.psets == 1 else list(range(self.psets))
        for pset in sets:
            for q in PIPELINE_QUEUES:
                title = q if pset is None else "%s.%d" % (q, pset)
                cur = int(MAX_BYTES * (98.0 if spike and q == "indexQueue" else self._fill(q)) / 100.0)
                avg = int(MAX_BYTES * self.fill_pct / 100.0)   # the averages rise slowly: stay low
                out.append((title, _queue_content(cur, avg, MAX_BYTES)))
        out.extend((q, _queue_content(0, 0, 512000 if q != "AQ" else 10000000)) for q in INSTANCE_QUEUES)
        return out

    def _indexer(self):
        return [("indexer", {"average_KBps": 22.898836366625424, "reason": "", "status": "normal"})]

    def _pipelinesets(self):
        busy = "0.985" if "indexQueue" in self.full_queues else "0.0052506416"
        return [("ingest_pipe_%d" % i, {"busiest_thread_name": "indexerPipe",
                                        "dutycycle_ratio": "%g" % (self.thread_pct[i] / 100.0)
                                        if i in self.thread_pct else busy,
                                        "requests_last_period": "12", "share": str(round(1.0 / self.psets, 4))})
                for i in range(self.psets)]

    def _processes(self):
        return [("1703", {"args": "-p 8089 start", "elapsed": "2313.6800", "fd_used": "225",
                          "mem_used": "313.688", "normalized_pct_cpu": "1.74", "page_faults": "0",
                          "pct_cpu": "13.90", "pct_memory": "0.65", "pid": "1703", "process": "splunkd",
                          "process_type": "splunkd_server", "read_mb": "0.012", "status": "W", "t_count": "89",
                          "written_mb": "1188.965"})]

    def _hostwide(self):
        return [("hostwide", {"cpu_arch": "x86_64", "cpu_count": str(self.cores // 2), "cpu_idle_pct": "71.20",
                              "cpu_system_pct": "8.10", "cpu_user_pct": "20.70", "forks": "591134",
                              "mem": "48091.605", "mem_used": "6099.367", "normalized_load_avg_1min": "0.32",
                              "os_name": "Linux", "splunk_version": "9.3.2", "swap": "12288.000",
                              "swap_used": "0.000", "virtual_cpu_count": str(self.cores)})]

    def _info(self):
        return [("server-info", {"build": "d8bb32809498", "cpu_arch": "x86_64", "guid": "0F93F33C-4BDA",
                                 "host": self.host, "host_fqdn": self.host, "isForwarding": "hf" in self.host,
                                 "numberOfCores": self.cores // 2, "numberOfVirtualCores": self.cores,
                                 "os_name": "Linux", "physicalMemoryMB": 48091, "product_type": "enterprise",
                                 "serverName": self.host, "server_roles": self.roles, "version": "9.3.2"})]

    def _http(self):
        """The token list, as real servers list it: `http://<name>` entries only."""
        return [("http://app_%d" % i, {"_rcvbuf": 1572864, "description": "App events", "disabled": False,
                                       "eai:appName": "splunk_httpinput", "eai:userName": "nobody",
                                       "host": "$decideOnStartup", "index": "main", "indexes": ["main"],
                                       "source": "app", "sourcetype": "app_json",
                                       "token": "00000000-0000-0000-0000-%012d" % i, "useACK": "0"})
                for i in range(self.tokens)]

    def _http_global(self):
        port = str(self.hec.port) if self.hec is not None else "8088"
        return [("http", {"_rcvbuf": 1572864, "ackIdleCleanup": "true", "dedicatedIoThreads":
                          self.dedicated_io_threads, "disabled": not self.hec_enabled,
                          "enableSSL": "1" if (self.hec is None or self.hec.tls) else "0",
                          "host": "$decideOnStartup", "index": "default", "indexes": [], "maxSockets": "0",
                          "maxThreads": "0", "port": port, "sslVersions": "tls1.2, tls1.3",
                          "useDeploymentServer": "0"})]

    def _macros(self):
        """The app's threshold macros as splunkd lists them: shipped defaults, then what a test tuned."""
        with self.lock:
            tuned = dict({s.macro: "%g" % s.default for s in SETTINGS}, **self.macros)
        return [(name, {"definition": value, "iseval": "0", "eai:appName": "ingest_doctor"})
                for name, value in sorted(tuned.items())]

    def _general(self):
        return [("general", {"parallelIngestionPipelines": self.parallel,
                             "pipelineSetSelectionPolicy": "round_robin", "serverName": self.host,
                             "pass4SymmKey": "********", "sessionTimeout": "1h"})]

    def _queue(self):
        return [("queue", {"maxSize": "500KB", "cntr_1_lookback_time": "60s", "cntr_2_lookback_time": "600s",
                           "cntr_3_lookback_time": "900s", "sampling_interval": "1s"})]

    def _tcpout(self):
        return [("tcpout", {"compressed": "false", "useACK": "false", "defaultGroup": "primary_indexers",
                            "forwardedindex.filter.disable": "false", "indexAndForward": "0"}),
                ("tcpout:primary_indexers", {"server": "10.0.0.11:9997,10.0.0.12:9997", "compressed": "false"})]

    # -- HEC port
    def _health(self, req: Request) -> Response:
        if self.health_code == 17:
            return Response(200, {"text": "HEC is healthy", "code": 17})
        return Response(503, {"text": "HEC is unhealthy, queues are full", "code": self.health_code})

    def _event(self, req: Request) -> Response:
        if req.headers.get("Authorization") != "Splunk " + PROBE_TOKEN:
            return Response(403, {"text": "Invalid token", "code": 4})
        json.loads(req.body.decode("utf-8"))
        return Response(200, {"text": "Success", "code": 0})

    # -- storage/passwords (Atom, what splunklib's storage_passwords reads)
    def _passwords(self, req: Request) -> Response:
        body = _template("storage_passwords.atom.xml").replace("{token}", PROBE_TOKEN).replace("{base}", self.fake.url)
        return Response(200, body, content_type="text/xml; charset=UTF-8")


def _template(name: str) -> str:
    with open(os.path.join(TEMPLATES, name), encoding="utf-8") as f:
        return f.read()


def webhook_passwords_atom(base: str, secret: str) -> str:
    """storage/passwords' Atom feed (the recorded template) holding the add-on's webhook auth header `secret`."""
    return (_template("storage_passwords.atom.xml")
            .replace("conf-ta_ingest_doctor_account", "conf-ta_ingest_doctor_settings")
            .replace("hec_probe", "webhook").replace("{&quot;token&quot;: &quot;{token}&quot;}",
                                                     "{&quot;auth_header&quot;: &quot;%s&quot;}" % secret)
            .replace("{base}", base))


def input_xml(server_uri: str, params: Dict[str, str], server_host: str = "idx-01",
              session_key: str = SESSION_KEY, checkpoint_dir: str = "/tmp") -> str:
    lines = "\n".join('      <param name="%s">%s</param>' % (k, v) for k, v in params.items())
    return (_template("input.xml").replace("{server_host}", server_host).replace("{server_uri}", server_uri)
            .replace("{checkpoint_dir}", checkpoint_dir).replace("{session_key}", session_key)
            .replace("{params}", lines))


def validation_xml(params: Dict[str, str], session_key: str = SESSION_KEY) -> str:
    lines = "\n".join('    <param name="%s">%s</param>' % (k, v) for k, v in params.items())
    return _template("validation.xml").replace("{session_key}", session_key).replace("{params}", lines)


def utf16(xml: str) -> bytes:
    """The same document as the SDK's fixtures: UTF-16 with a BOM, declared so."""
    return xml.replace('encoding="utf-8"', 'encoding="utf-16"').encode("utf-16")


def load_script(path: str, name: str):
    """The Python file at `path` imported afresh as module `name`, not put in sys.modules (as splunk diag
    imports an extension script, or a test loads an entry script in process)."""
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def load_shell(name: str):
    """bin/ingest_doctor_introspection.py loaded afresh as module `name`."""
    return load_script(os.path.join(BIN, "ingest_doctor_introspection.py"), name)
