"""Issue 19: a deployment judged as a whole (contract section 5), on hand-made folders in the real shapes.

Each test builds a deployment folder (tests/deploybuilder.py: folder names differ from host names,
senders name receivers by IP or FQDN) and runs `diagnose <deployment>` in-process as the CLI does.
"""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys

from fakes import deploytiers, golden
from fakes.deploybuilder import Member, by_id, receiver, sender, settings, tcpin_line, write
from fakes.paths import BIN
from fakes.snapbuilder import times
from ingest_doctor import cli, exitcodes


def diagnose(root, fmt="json"):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose", str(root), "--format", fmt], io.StringIO(), out, err, {}, None)
    assert rc == exitcodes.OK, err.getvalue()
    if _CALLS.get("test") != golden.test_name():
        _CALLS.clear()
        _CALLS["test"] = golden.test_name()
    _CALLS[fmt] = _CALLS.get(fmt, 0) + 1
    golden.check("deployments/%s-%d.%s" % (_CALLS["test"], _CALLS[fmt], fmt), out.getvalue())
    return json.loads(out.getvalue()) if fmt == "json" else out.getvalue()


_CALLS = {}  # the calls of the running test, so each report of a test has a golden copy of its own


def actions(f):
    return " ".join(r["action"] for r in f["recommendations"])


def _forwarder_and_saturated_indexer(**receiver_kw):
    """hf-01 sending 5900 KB/s to idx-01, blocked by idx-01's saturated indexing stage."""
    hf = Member("heavy-a", "hf-01", "10.0.0.5", 1)
    idx = Member("indexer-1", "idx-01", "10.0.0.11", 2)
    receiver(idx, [(hf, 5900.0)], saturated="indexing", **receiver_kw)
    sender(hf, [("10.0.0.11", 5900.0)], blocked=True)
    return hf, idx


def _to_idle_receivers(hf, receivers, kbps, **sender_kw):
    """hf sending `kbps` KB/s to each of `receivers`, which are idle."""
    for r in receivers:
        receiver(r, [(hf, kbps)])
    sender(hf, [(r.ip, kbps) for r in receivers], **sender_kw)


def test_a_forwarder_blocked_by_its_saturated_indexer(tmp_path):
    hf, idx = _forwarder_and_saturated_indexer()
    r = diagnose(write(str(tmp_path / "dep"), [hf, idx]))
    assert r["deployment"] is True and r["hosts"] == ["hf-01", "idx-01"] and r["healthy"] is False
    assert r["root_causes"] == ["idx-01/indexing/-"]
    out = by_id(r, "hf-01/output/-")
    assert out["caused_by"] == "idx-01/indexing/-"
    assert "Caused by idx-01 indexing" in out["summary"]
    assert "The network holds it back" not in out["summary"]
    # Nothing the cause makes pointless: no compression, no pipeline sets, no threads on the sender.
    assert settings(out) == [None]
    assert "act on idx-01 indexing: server.conf [general] parallelIngestionPipelines = 2" in actions(out)
    assert by_id(r, "idx-01/indexing/-")["caused_by"] is None
    [edge] = r["topology"]
    assert (edge["from"], edge["to"], edge["blocked"]) == ("hf-01", "idx-01", True)
    assert edge["source"] == "idx-01 metrics.log group=tcpin_connections hostname=hf-01"
    # Root causes come first in the findings.
    assert r["findings"][0]["id"] == "idx-01/indexing/-"


def test_several_forwarders_behind_a_load_balancer_all_held_back_by_one_indexer(tmp_path):
    idx = Member("idx-a", "idx-01", "10.0.1.11", 10, fqdn="idx-01.corp.example")
    hfs = [Member("fwd-%d" % n, "hf-%02d" % n, "10.0.1.%d" % (20 + n), n) for n in range(1, 5)]
    receiver(idx, [(h, 2100.0) for h in hfs], saturated="typing")
    for h in hfs:
        # Each lists its receiver by FQDN in outputs.conf; tcpout_connections by IP.
        sender(h, [("10.0.1.11", 2100.0)], blocked=True, servers="idx-01.corp.example:9997")
    r = diagnose(write(str(tmp_path / "dep"), hfs + [idx]))
    assert r["root_causes"] == ["idx-01/typing/-"]
    for h in hfs:
        f = by_id(r, "%s/output/-" % h.host)
        assert f["caused_by"] == "idx-01/typing/-"
        assert "compressed" not in settings(f) and "parallelIngestionPipelines" not in settings(f)
    assert sorted(e["from"] for e in r["topology"] if e["to"] == "idx-01") == [h.host for h in hfs]
    text = diagnose(write(str(tmp_path / "dep2"), hfs + [idx]), "text")
    assert "Root cause 1: idx-01 typing" in text and "Holds back 4 instances: hf-01, hf-02, hf-03, hf-04" in text


def test_a_forwarder_that_is_itself_the_cause_with_idle_indexers(tmp_path):
    hf = Member("hec-tier", "hf-01", "10.0.0.5", 1)
    i1, i2 = Member("a", "idx-01", "10.0.0.11", 2), Member("b", "idx-02", "10.0.0.12", 3)
    _to_idle_receivers(hf, [i1, i2], 900.0, blocked=False, hec_pegged=True)
    r = diagnose(write(str(tmp_path / "dep"), [hf, i1, i2]))
    assert r["root_causes"] == ["hf-01/hec_input/-"]
    assert by_id(r, "hf-01/hec_input/-")["caused_by"] is None
    assert "dedicatedIoThreads" in settings(by_id(r, "hf-01/hec_input/-"))
    assert not [f for f in r["findings"] if f["host"] != "hf-01" and f["severity"] != "info"]
    assert not any(e["blocked"] for e in r["topology"])


def test_one_of_two_indexers_saturated_in_one_pipeline_set_behind_load_balancing_forwarders(tmp_path):
    i1 = Member("idx-east", "idx-01", "10.0.2.11", 21, fqdn="idx-01.corp.example")
    i2 = Member("idx-west", "idx-02", "10.0.2.12", 22, fqdn="idx-02.corp.example")
    fa, fb = Member("fa", "hf-a", "10.0.2.31", 31), Member("fb", "hf-b", "10.0.2.32", 32)
    receiver(i1, [(fa, 1500.0), (fb, 1500.0)], sets=2)
    receiver(i2, [(fa, 1500.0), (fb, 1500.0)], saturated="typing", sets=2, saturated_set=1)
    for f in (fa, fb):
        sender(f, [("10.0.2.11", 1500.0), ("10.0.2.12", 1500.0)], blocked=True,
               servers="idx-01.corp.example:9997,idx-02.corp.example:9997")
    r = diagnose(write(str(tmp_path / "dep"), [fa, fb, i1, i2]))
    assert r["root_causes"] == ["idx-02/typing/1"]
    for f in ("hf-a", "hf-b"):
        out = by_id(r, "%s/output/-" % f)
        assert out["caused_by"] == "idx-02/typing/1"
        assert "Caused by idx-02 typing, pipeline set 1" in out["summary"] and "idx-01 idle" in out["summary"]
        assert "compressed" not in settings(out)
    assert not [f for f in r["findings"] if f["host"] == "idx-01" and f["severity"] != "info"]
    blocked = sorted((e["from"], e["to"]) for e in r["topology"] if e["blocked"])
    assert blocked == [("hf-a", "idx-02"), ("hf-b", "idx-02")]


def test_a_receiver_down_and_absent_from_the_folder(tmp_path):
    hf = Member("hf", "hf-01", "10.0.3.5", 41)
    i1 = Member("idx", "idx-01", "10.0.3.11", 42)
    receiver(i1, [(hf, 0.5)])
    sender(hf, [("10.0.3.11", 0.5)], blocked=True, servers="10.0.3.11:9997,10.0.3.13:9997",
           failing=("10.0.3.13:9997",))
    r = diagnose(write(str(tmp_path / "dep"), [hf, i1]))
    out = by_id(r, "hf-01/output/-")
    assert out["caused_by"] is None and r["root_causes"] == ["hf-01/output/-"]
    assert "10.0.3.13:9997 timed out" in out["summary"]          # its state, named (issue 18)
    assert "compressed" not in settings(out)
    assert any(n.startswith("hf-01: its receiver 10.0.3.13:9997 is not in the deployment folder")
               for n in r["not_judged"])
    assert any(e["to"] == "10.0.3.13:9997" for e in r["topology"])


def test_a_universal_forwarder_heavy_forwarder_indexer_chain_links_through(tmp_path):
    uf = Member("uf", "uf-01", "10.0.4.3", 51)
    hf = Member("hf", "hf-01", "10.0.4.5", 52)
    idx = Member("idx", "idx-01", "10.0.4.11", 53)
    receiver(idx, [(hf, 4000.0)], saturated="indexing")
    sender(hf, [("10.0.4.11", 4000.0)], blocked=True)
    # The heavy forwarder receives from the universal forwarder (its tcpin_connections, fwdType=uf).
    for i, t in enumerate(times(12)):
        tcpin_line(hf, t, i, uf, 800.0, "uf")
    sender(uf, [("10.0.4.5", 800.0)], blocked=True, uf=True)
    r = diagnose(write(str(tmp_path / "dep"), [uf, hf, idx]))
    assert r["root_causes"] == ["idx-01/indexing/-"]
    assert by_id(r, "hf-01/output/-")["caused_by"] == "idx-01/indexing/-"
    ufo = by_id(r, "uf-01/output/-")
    assert ufo["caused_by"] == "hf-01/output/-"
    assert "Caused by hf-01 output (itself held back by idx-01 indexing)" in ufo["summary"]
    assert "compressed" not in settings(ufo)
    text = diagnose(write(str(tmp_path / "dep2"), [uf, hf, idx]), "text")
    assert "Holds back 2 instances: hf-01, uf-01" in text and "through hf-01/output/-" in text


def test_two_independent_problems_stay_independent(tmp_path):
    i1, i2 = Member("x", "idx-01", "10.0.5.11", 61), Member("y", "idx-02", "10.0.5.12", 62)
    fa, hb = Member("fa", "hf-a", "10.0.5.31", 63), Member("hb", "hf-b", "10.0.5.32", 64)
    receiver(i1, [(fa, 2000.0)], saturated="typing")
    receiver(i2, [(hb, 700.0)])
    sender(fa, [("10.0.5.11", 2000.0)], blocked=True)
    sender(hb, [("10.0.5.12", 700.0)], blocked=False, hec_pegged=True)
    r = diagnose(write(str(tmp_path / "dep"), [fa, hb, i1, i2]))
    assert sorted(r["root_causes"]) == ["hf-b/hec_input/-", "idx-01/typing/-"]
    assert by_id(r, "hf-a/output/-")["caused_by"] == "idx-01/typing/-"
    assert by_id(r, "hf-b/hec_input/-")["caused_by"] is None
    assert [(e["from"], e["to"]) for e in r["topology"] if e["blocked"]] == [("hf-a", "idx-01")]


def test_a_true_bandwidth_ceiling_with_idle_receivers_keeps_its_own_cause(tmp_path):
    hf = Member("wan-hf", "hf-wan", "10.0.6.5", 71)
    i1, i2 = Member("r1", "idx-01", "10.0.6.11", 72), Member("r2", "idx-02", "10.0.6.12", 73)
    _to_idle_receivers(hf, [i1, i2], 5900.0, blocked=True)
    r = diagnose(write(str(tmp_path / "dep"), [hf, i1, i2]))
    out = by_id(r, "hf-wan/output/-")
    assert out["caused_by"] is None and r["root_causes"] == ["hf-wan/output/-"]
    assert "The network holds it back, not the receivers" in out["summary"] and "idle" in out["summary"]
    assert out["recommendations"][0]["setting"] == "compressed"
    assert not out["recommendations"][0]["action"].startswith("Only if")


def test_the_same_sender_alone_says_what_would_decide(tmp_path):
    hf = Member("wan-hf", "hf-wan", "10.0.6.5", 71)
    sender(hf, [("10.0.6.11", 5900.0), ("10.0.6.12", 5900.0)], blocked=True)
    r = deploytiers.diagnose(hf.snap.write(str(tmp_path / "alone")))   # a single instance: no golden copy
    assert "deployment" not in r and "caused_by" not in r["findings"][0]
    [f] = [f for f in r["findings"] if f["bottleneck"] == "output"]
    assert "The link or the receivers' drain rate holds it back" in f["summary"]
    assert "10.0.6.11:9997, 10.0.6.12:9997" in f["recommendations"][0]["action"]
    [comp] = [rc for rc in f["recommendations"] if rc["setting"] == "compressed"]
    assert comp["action"].startswith("Only if the receivers are idle")


def test_next_bottlenecks_orders_every_stage_by_the_load_at_which_it_pegs(tmp_path):
    hf, idx = _forwarder_and_saturated_indexer(busy=0.5)
    r = diagnose(write(str(tmp_path / "dep"), [hf, idx]))
    nb = r["next_bottlenecks"]
    assert nb and [n["at_load_x"] for n in nb] == sorted(n["at_load_x"] for n in nb)
    assert set(nb[0]) >= {"host", "bottleneck", "pipeline_set", "at_load_x"}
    assert (nb[0]["host"], nb[0]["bottleneck"], nb[0]["at_load_x"]) == ("idx-01", "typing", 2.0)
    # The pegged stage is the root cause, not a next one.
    assert ("idx-01", "indexing") not in [(n["host"], n["bottleneck"]) for n in nb]
    text = diagnose(write(str(tmp_path / "dep2"), [hf, idx]), "text")
    assert "After idx-01 indexing:" in text and "idx-01 typing at about 2.0x today's load" in text


def test_cli_subprocess_diagnose_deployment_and_errors(tmp_path):
    hf, idx = _forwarder_and_saturated_indexer()
    root = write(str(tmp_path / "dep"), [hf, idx])
    cmd = [sys.executable, "-B", os.path.join(BIN, "ingest_doctor_cli.py"), "diagnose", root]
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == exitcodes.OK, p.stderr
    assert json.loads(p.stdout)["root_causes"] == ["idx-01/indexing/-"]
    # An instance folder with nothing readable is named; the rest is judged.
    os.makedirs(os.path.join(root, "broken", "rest"))
    p = subprocess.run(cmd, capture_output=True, text=True)
    assert p.returncode == exitcodes.OK and "broken: nothing to analyse" in p.stderr
    assert json.loads(p.stdout)["hosts"] == ["broken", "hf-01", "idx-01"]
