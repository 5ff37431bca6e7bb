"""Issue 40, the core's edges, through the process boundaries (the CLI in-process and as a subprocess, the
alert action's `--execute`): forwarding cycles, deployment folders held to the single-snapshot guards, the
single-snapshot leftovers, formula escaping. Each test failed on the code before issue 40."""
from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys

import pytest

from fakes.action_run import payload, run_action
from fakes.deploybuilder import Member, by_id, receiver, sender, tcpin_line, write
from fakes.kvstore import Splunkd, write_results
from fakes.memory_port import MemoryPort
from fakes.paths import BIN
from fakes.snapbuilder import times
from fakes.splunkd import FakeSplunkd
from ingest_doctor import cli, exitcodes
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key

SCRIPT = os.path.join(BIN, "ingest_doctor_cli.py")
NOW = 1763805600.0


def diagnose(root, fmt="json", code=exitcodes.OK):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose", str(root), "--format", fmt], io.StringIO(), out, err, {}, None)
    assert rc == code, err.getvalue()
    return (json.loads(out.getvalue()) if fmt == "json" else out.getvalue()), err.getvalue()


def cli_process(*argv, timeout=60):
    return subprocess.run([sys.executable, "-B", SCRIPT] + list(argv), capture_output=True, text=True,
                          timeout=timeout)


# ============================================================== 1. forwarding cycles

def forwarding_loop(root, names, behind_indexer=False):
    """Heavy forwarders each sending to the next (the last to the first), every output blocked; with
    `behind_indexer`, the first also sends to idx-01, whose indexing stage is saturated."""
    ms = [Member("f-" + n, n, "10.0.9.%d" % (i + 1), 100 + i) for i, n in enumerate(names)]
    idx = Member("ix", "idx-01", "10.0.9.50", 200) if behind_indexer else None
    if idx is not None:
        receiver(idx, [(ms[0], 3000.0)], saturated="indexing")
    for i, m in enumerate(ms):
        nxt, prev = ms[(i + 1) % len(ms)], ms[i - 1]
        for k, t in enumerate(times(12)):
            tcpin_line(m, t, k, prev, 3000.0)
        sender(m, [(nxt.ip, 3000.0)] + ([(idx.ip, 3000.0)] if idx is not None and i == 0 else []), blocked=True)
    return write(str(root), ms + ([idx] if idx is not None else []))


def reaches_a_root(report):
    """Every warning/critical finding is a root cause or its chain of causes ends at one (no cycle)."""
    caused = {f["id"]: f["caused_by"] for f in report["findings"]}
    roots = set(report["root_causes"])
    for f in report["findings"]:
        if f["severity"] not in ("warning", "critical"):
            continue
        fid, seen = f["id"], set()
        while caused.get(fid) and fid not in seen:
            seen.add(fid)
            fid = caused[fid]
        assert fid in roots, (f["id"], fid, caused)


@pytest.mark.parametrize("names,behind", [(["hf-a", "hf-b"], False), (["hf-a", "hf-b", "hf-c"], False),
                                          (["hf-a", "hf-b"], True)])
def test_a_forwarding_loop_names_a_root_and_never_nests_advice(tmp_path, names, behind):
    root = forwarding_loop(tmp_path / "dep", names, behind)
    r, _ = diagnose(root)
    assert r["root_causes"], r["findings"]
    reaches_a_root(r)
    loops = [f for f in r["findings"] if f["summary"].startswith("A forwarding loop")]
    assert len(loops) == 1
    [loop] = loops
    assert loop["bottleneck"] == "output" and loop["caused_by"] is None and loop["id"] in r["root_causes"]
    assert all(n in loop["summary"] for n in names)
    [rec] = loop["recommendations"]
    assert (rec["conf_file"], rec["setting"]) == ("outputs.conf", "server") and rec["current"]
    for f in r["findings"]:
        for rec in f["recommendations"]:
            assert rec["action"].count("act on") <= 1 and "Nothing to change" not in rec["action"].split("act on", 1)[-1]
    text, _ = diagnose(root, "text")
    first = text.splitlines()[0]
    assert "0 root causes" not in first and "NOT healthy" in first
    assert "Root cause 1: " in text and "A forwarding loop" in text


def test_a_forwarding_loop_through_the_cli_process(tmp_path):
    root = forwarding_loop(tmp_path / "dep", ["hf-a", "hf-b", "hf-c"])
    p = cli_process("diagnose", root, "--format", "text")
    assert p.returncode == exitcodes.OK, p.stderr
    assert "NOT healthy: 1 root cause" in p.stdout.splitlines()[0]
    assert "A forwarding loop: " in p.stdout and "Holds back 2 instances" in p.stdout


# ---- on the search head: the action's --execute

def finding_row(host, bottleneck, severity):
    from ingest_doctor.findings import Finding, Recommendation
    rec = Recommendation("Only if the receivers are idle: compress forwarded data.", "outputs.conf", "tcpout",
                         "compressed", "false", "true") if bottleneck == "output" else \
        Recommendation("Add a pipeline set.", "server.conf", "general", "parallelIngestionPipelines", "1", "2")
    f = Finding(bottleneck, severity, host, None, bottleneck, "%s is blocked on %s." % (bottleneck, host), [], [rec])
    return {"signal": "finding", "host": host, "id": f.id, "severity": severity, "bottleneck": bottleneck,
            "pipeline_set": "", "component": bottleneck, "status": "open", "last_time": NOW - 20,
            "finding": json.dumps(dict(f.to_dict(), detected_by="collector"))}


def tcpin_row(receiver_host, sender_host, n):
    return {"signal": "tcpin", "host": receiver_host, "peer": sender_host, "peer_ip": "10.0.8.%d" % n,
            "guid": "G-%s" % sender_host, "fwd_type": "full", "kbps": "3000", "last_time": NOW}


def loop_rows(names, indexer=False):
    rows = [finding_row(n, "output", "critical") for n in names]
    rows += [tcpin_row(names[(i + 1) % len(names)], n, i + 1) for i, n in enumerate(names)]
    if indexer:
        rows += [finding_row("idx-01", "indexing", "critical"), tcpin_row("idx-01", names[0], 1)]
    return rows


@pytest.fixture
def sh(tls):
    with FakeSplunkd(tls) as fake:
        yield Splunkd(fake)


@pytest.mark.parametrize("names,indexer", [(["hf-a", "hf-b"], False), (["hf-a", "hf-b", "hf-c"], False),
                                           (["hf-a", "hf-b"], True)])
def test_the_action_notifies_a_forwarding_loop_once(sh, tls, tmp_path, names, indexer):
    res = write_results(str(tmp_path / "relay.csv.gz"), loop_rows(names, indexer))
    data = payload(sh.fake, res, webhook_url=sh.fake.url + "/hook")
    data["search_name"] = "Ingest Doctor - Findings - Collector findings"
    p = run_action(data, tls, {"INGEST_DOCTOR_WEBHOOK_ALLOW": "127.0.0.1"})
    assert p.returncode == exitcodes.OK, p.stderr
    recs = {n: sh.kv.records[kv_key("%s/output/-" % n)] for n in names}
    roots = sorted(fid for fid in (r["id"] for r in recs.values()) if not recs[fid.split("/")[0]]["caused_by"])
    roots += ["idx-01/indexing/-"] if indexer else []
    loop_roots = [n for n, r in recs.items() if not r["caused_by"]]
    assert len(loop_roots) == 1, {n: r["caused_by"] for n, r in recs.items()}
    assert recs[loop_roots[0]]["summary"].startswith("A forwarding loop")
    # One message and one webhook per root; the loop's webhook carries the other members as symptoms.
    assert sorted(sh.messages.shown) == sorted(message_name(fid) for fid in roots)
    assert sorted(h["id"] for h in sh.hooks) == sorted(roots), p.stderr
    [hook] = [h for h in sh.hooks if h["id"] == "%s/output/-" % loop_roots[0]]
    assert sorted(s["host"] for s in hook["symptoms"]) == sorted(n for n in names if n != loop_roots[0])


# ---- the property: random link graphs with cycles

class RecordingPort(MemoryPort):
    def __init__(self):
        super().__init__()
        self.hooks = []
        self.messages = None

    def webhook(self, url, body):
        self.hooks.append(json.loads(body))


def random_graph(rng):
    n = rng.randint(2, 7)
    hosts = ["h%d" % i for i in range(n)]
    # a cycle through some of them, then random extra edges
    ring = rng.sample(hosts, rng.randint(2, n))
    edges = {(a, ring[(i + 1) % len(ring)]) for i, a in enumerate(ring)}
    for _ in range(rng.randint(0, 2 * n)):
        a, b = rng.sample(hosts, 2)
        edges.add((a, b))
    kinds = {h: rng.choice(["output", "output", "output", "indexing", "typing", None]) for h in hosts}
    sev = {h: rng.choice(["warning", "critical"]) for h in hosts}
    return hosts, sorted(edges), kinds, sev


def test_random_link_graphs_with_cycles_every_finding_reaches_a_notified_root(tmp_path):
    from ingest_doctor.alert import action
    from ingest_doctor.alert.payload import parse_payload
    from ingest_doctor.diagnose import diagnose as core
    rng = random.Random(40)
    for case in range(150):
        hosts, edges, kinds, sev = random_graph(rng)
        rows = [finding_row(h, kinds[h], sev[h]) for h in hosts if kinds[h]]
        rows += [tcpin_row(b, a, hosts.index(a) + 1) for a, b in edges]
        res = write_results(str(tmp_path / ("r%d.csv.gz" % case)), rows)
        port = RecordingPort()
        p = parse_payload(json.dumps({
            "server_uri": "https://127.0.0.1:8089", "session_key": "k", "results_file": res,
            "search_name": "Ingest Doctor - Findings - Collector findings", "sid": "s%d" % case,
            "configuration": {"min_severity": "warning", "webhook_url": "https://hooks.example.com/x"}}))
        action.run(p, port, core, NOW)
        recs = {r["id"]: r for r in port.kv.values()}
        caused = {fid: r.get("caused_by") or None for fid, r in recs.items()}
        roots = {fid for fid, c in caused.items() if c is None}
        for fid in recs:
            end, seen = fid, set()
            while caused.get(end) and end not in seen:
                seen.add(end)
                end = caused[end]
            assert end in roots, (case, edges, kinds, fid, caused)
        assert sorted(h["id"] for h in port.hooks) == sorted(roots), (case, edges, kinds, caused)
        posted = sorted(m.name for m in port.messages.posts) if port.messages else []
        assert posted == sorted(message_name(fid) for fid in roots), (case, edges, kinds, caused)
