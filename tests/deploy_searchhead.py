"""A search head's splunkd for the deployment tests of the alert action (tests/test_deployment_searchhead.py):
the KV store findings collection, the app's macros, the oneshot config search, event submission, Splunk Web
messages and a webhook receiver, on one loopback FakeSplunkd; and the results file as splunkd writes it.
Kept beside fakesplunkd.py so that no test module imports another."""
from __future__ import annotations

import csv
import gzip
import io
import json
import os
import sys
from typing import Any, Dict, List, Sequence

from fakesplunkd import Messages, Request, Response, envelope

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if os.path.join(ROOT, "tools") not in sys.path:
    sys.path.insert(0, os.path.join(ROOT, "tools"))
from confcheck import read_conf  # noqa: E402

NS = "/servicesNS/nobody/ingest_doctor"
KV_BASE = NS + "/storage/collections/data/ingest_doctor_findings"
SCRIPT = os.path.join(ROOT, "bin", "ingest_doctor_flag.py")


class SearchHead:
    def __init__(self, fake):
        self.fake = fake
        self.records: Dict[str, Dict[str, Any]] = {}
        self.events: List[Dict[str, Any]] = []
        self.hooks: List[Dict[str, Any]] = []
        self.messages = Messages(fake, "sh-01")
        macros = {n: st.get("definition", "") for n, st in read_conf(os.path.join(ROOT, "default", "macros.conf")).items()}
        fake.route("GET", NS + "/configs/conf-macros", envelope(NS + "/configs/conf-macros", [
            (k, {"definition": v, "iseval": "0"}) for k, v in sorted(macros.items())]))
        fake.route("POST", NS + "/search/jobs", lambda req: Response(200, {
            "preview": False, "init_offset": 0, "messages": [], "fields": [{"name": "host"}, {"name": "_raw"}],
            "results": [], "highlighted": {}}))
        fake.route("POST", NS + "/receivers/simple", self._receive)
        fake.route("POST", "/hook", lambda req: (self.hooks.append(req.json()), Response(200, {"ok": True}))[1])
        fake.route("GET", "/services/server/info", envelope("/services/server/info", [
            ("server-info", {"serverName": "sh-01", "host": "sh-01", "numberOfCores": 8})]))
        fake.route_prefix("GET", KV_BASE, self._kv)
        fake.route_prefix("POST", KV_BASE, self._kv)

    def _receive(self, req: Request) -> Response:
        q = {k: v[0] for k, v in req.query.items()}
        for line in req.body.decode("utf-8").splitlines():
            if line.strip():
                self.events.append({"host": q.get("host"), "event": json.loads(line)})
        return Response(200, {"bytes": len(req.body)})

    def _kv(self, req: Request) -> Response:
        rest = req.path[len(KV_BASE):].lstrip("/")
        if req.method == "GET" and not rest:
            q = json.loads(req.query.get("query", ["{}"])[0])
            keys = {c.get("_key") for c in q.get("$or", [])}
            return Response(200, [dict(r) for k, r in self.records.items() if k in keys])
        if req.method == "POST" and rest == "batch_save":
            docs = req.json()
            for d in docs:
                self.records[d["_key"]] = dict(d, _user="nobody")
            return Response(200, [d["_key"] for d in docs])
        return Response(400, {"messages": [{"type": "ERROR", "text": "unsupported by the fake"}]})


def write_results(path: str, rows: Sequence[Dict[str, Any]]) -> str:
    """results.csv.gz as splunkd writes it: a multivalue field as newline-joined text and its __mv_ twin."""
    cols: List[str] = []
    for r in rows:
        cols.extend(k for k in r if k not in cols)
    mv = [c for c in cols if any(isinstance(r.get(c), (list, tuple)) for r in rows)]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols + ["__mv_" + c for c in mv])
    for r in rows:
        line = ["\n".join(map(str, r[c])) if isinstance(r.get(c), (list, tuple)) else str(r.get(c, "")) for c in cols]
        line += [";".join("$%s$" % str(x).replace("$", "$$") for x in r[c])
                 if isinstance(r.get(c), (list, tuple)) and len(r[c]) > 1 else "" for c in mv]
        w.writerow(line)
    with gzip.open(path, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))
    return path


def payload(fake, results_file: str, search_name: str, **conf: str) -> Dict[str, Any]:
    sid = "scheduler__nobody_aW5nZXN0X2RvY3Rvcg__RMD5dep_at_1763805600_7"
    configuration = {"min_severity": "warning", "webhook_url": "", "index": ""}
    configuration.update(conf)
    return {"app": "ingest_doctor", "owner": "nobody", "results_file": results_file,
            "results_link": "https://sh-01:8000/app/ingest_doctor/@go?sid=" + sid, "search_name": search_name,
            "server_host": "sh-01", "server_uri": fake.url, "session_key": "s3cr3t-session-key", "sid": sid,
            "configuration": configuration, "result": {}}
