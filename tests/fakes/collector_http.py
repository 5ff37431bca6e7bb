"""The collector's splunkd as a plain function (no sockets): a route table of REST answers
(an indexer with two pipeline sets, HEC on), FakeHttp serving it and recording the calls, and
a Collector wired to it with a counting clock. tests/fakes/instance.py is the same over HTTPS."""
import json

from ingest_doctor.collector import params as params_mod
from ingest_doctor.collector import poll as collector
from ingest_doctor.read import endpoints
from fakes.splunkd import envelope

Q = "services/server/introspection/queues"
MACROS = "services/configs/conf-macros"


def params(**kw):
    raw = {"poll_interval": "10"}
    raw.update(kw)
    return params_mod.parse_params(raw)


class FakeHttp:
    """routes: path -> (status, body) or a Fetched; records calls."""

    def __init__(self, routes):
        self.routes = routes
        self.calls = []

    def __call__(self, method, url, headers, body, tls):
        self.calls.append((method, url, dict(headers), body, tls))
        path = url.split("://", 1)[1].split("/", 1)[1].split("?", 1)[0]
        hit = self.routes.get(path)
        if hit is None:
            return endpoints.Fetched(404, json.dumps({"messages": [{"type": "ERROR", "text": "Not Found"}]})
                                     .encode(), 1.0)
        if isinstance(hit, endpoints.Fetched):
            return hit
        status, body = hit() if callable(hit) else hit
        return endpoints.Fetched(status, body if isinstance(body, bytes) else json.dumps(body).encode(), 1.0)


def body(path, entries):
    return 200, envelope("/" + path, entries).body


def queues(fill):
    return body(Q, [("%s.%d" % (q, p), {"current_size_bytes": int(5120 * fill), "max_size_bytes": 512000,
                                         "value_cntr1_size_bytes_lookback": 0, "value_cntr2_size_bytes_lookback": 0,
                                         "value_cntr3_size_bytes_lookback": 0, "cntr_1_lookback_time": 60,
                                         "cntr_2_lookback_time": 600, "cntr_3_lookback_time": 900})
                    for p in range(2) for q in ("parsingQueue", "aggQueue", "typingQueue", "indexQueue")])


def routes(fill=2.0, http_port="8088", ssl="1"):
    entries = {
        "services/server/info": [("server-info", {"host": "idx-01", "numberOfVirtualCores": 16,
                                                  "server_roles": ["indexer"], "version": "9.3.2"})],
        "services/data/inputs/http": [("http://app", {"index": "main"})],
        "services/data/inputs/http/http": [("http", {"dedicatedIoThreads": "2", "disabled": False, "enableSSL": ssl,
                                                     "port": http_port})],
        MACROS: [("ingest_doctor_thread_busy_pct", {"definition": "90"})],
        "services/configs/conf-server/general": [("general", {"parallelIngestionPipelines": "2"})],
        "services/configs/conf-server/queue": [("queue", {"maxSize": "500KB"})],
        "services/configs/conf-outputs/tcpout": [("tcpout", {"compressed": "false"})],
        "services/server/introspection/indexer": [("indexer", {"average_KBps": 22.9, "reason": "",
                                                                "status": "normal"})],
        "services/server/pipelinesets": [("ingest_pipe_%d" % i, {"busiest_thread_name": "indexerPipe",
                                                                 "dutycycle_ratio": "0.05",
                                                                 "requests_last_period": "12", "share": "0.5"})
                                         for i in range(2)],
        "services/server/status/resource-usage/splunk-processes": [
            ("1703", {"process": "splunkd", "process_type": "splunkd_server", "pct_cpu": "13.90",
                      "args": "-p 8089 start", "t_count": "89"})],
        "services/server/status/resource-usage/hostwide": [
            ("hostwide", {"cpu_idle_pct": "71.2", "virtual_cpu_count": "16", "cpu_count": "8"})],
    }
    out = {path: body(path, ents) for path, ents in entries.items()}
    out[Q] = lambda: queues(fill)
    out["services/collector/health"] = (200, {"text": "HEC is healthy", "code": 17})
    return out


def collector_for(http, **kw):
    return collector.Collector(params(**kw), "https://127.0.0.1:8089", "KEY", http, server_host="idx-01",
                               clock=iter(range(10 ** 6)).__next__, cpu_clock=lambda: 0.0)
