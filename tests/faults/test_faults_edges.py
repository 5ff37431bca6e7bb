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

from fakes.action_run import LOOPBACK_HOOK, collector_finding_row, payload, run_action
from fakes.deploybuilder import Member, by_id, receiver, sender, tcpin_line, write
from fakes.kvstore import Splunkd, write_results
from fakes.memory_port import MemoryPort
from fakes.paths import BIN
from fakes.snapbuilder import Snap, dutycycle_long, envelope_body, queue_line, times
from fakes.splunkd import FakeSplunkd
from ingest_doctor import cli, exitcodes
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.textsafe import FORMULA_START, formula_safe

SCRIPT = os.path.join(BIN, "ingest_doctor_cli.py")
NOW = 1763805600.0


def diagnose(root, fmt="json"):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose", str(root), "--format", fmt], io.StringIO(), out, err, {}, None)
    assert rc == exitcodes.OK, err.getvalue()
    return (json.loads(out.getvalue()) if fmt == "json" else out.getvalue()), err.getvalue()


def cli_process(*argv):
    return subprocess.run([sys.executable, "-B", SCRIPT] + list(argv), capture_output=True, text=True, timeout=60)


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


def ends_at_a_root(fids, caused, roots, *context):
    """Each of `fids` is one of `roots` or its chain of causes ends at one (never in a cycle)."""
    for start in fids:
        fid, seen = start, set()
        while caused.get(fid) and fid not in seen:
            seen.add(fid)
            fid = caused[fid]
        assert fid in roots, context + (start, fid, caused)


def reaches_a_root(report):
    """Every warning/critical finding is a root cause or its chain of causes ends at one (no cycle)."""
    serious = [f["id"] for f in report["findings"] if f["severity"] in ("warning", "critical")]
    ends_at_a_root(serious, {f["id"]: f["caused_by"] for f in report["findings"]}, set(report["root_causes"]))


@pytest.mark.parametrize("names,behind", [(["hf-a", "hf-b"], False), (["hf-a", "hf-b", "hf-c"], False),
                                          (["hf-a", "hf-b"], True)])
def test_a_forwarding_loop_names_a_root_and_never_nests_advice(tmp_path, names, behind):
    root = forwarding_loop(tmp_path / "dep", names, behind)
    r = loop_report(root)
    loops = [f for f in r["findings"] if f["summary"].startswith("A forwarding loop")]
    assert len(loops) == 1
    [loop] = loops
    assert loop["bottleneck"] == "output" and loop["caused_by"] is None and loop["id"] in r["root_causes"]
    assert all(n in loop["summary"] for n in names)
    assert all(e["blocked"] for e in r["topology"] if e["from"] in names and e["to"] in names), r["topology"]
    [rec] = loop["recommendations"]
    assert (rec["conf_file"], rec["setting"]) == ("outputs.conf", "server") and rec["current"]
    text, _ = diagnose(root, "text")
    assert "Root cause 1: " in text and "A forwarding loop" in text


def test_a_loop_whose_member_also_feeds_a_saturated_indexer_names_the_loop_on_that_member(tmp_path):
    # hf-b sends to hf-a and to idx-01, hf-a only to hf-b: hf-b's blocked output is the indexer's doing, and
    # hf-a's the loop's; hf-b's summary says its peer forwards back to it (never "hf-a not judged").
    root = forwarding_loop(tmp_path / "dep", ["hf-b", "hf-a"], True)
    r = loop_report(root)
    assert r["root_causes"] == ["idx-01/indexing/-"]
    assert by_id(r, "hf-b/output/-")["caused_by"] == "idx-01/indexing/-"
    assert by_id(r, "hf-a/output/-")["caused_by"] == "hf-b/output/-"
    assert "hf-a in a forwarding loop with this instance" in by_id(r, "hf-b/output/-")["summary"]


def loop_report(root):
    """The deployment's report, held to what a loop must never do: no root (or "0 root causes"), a finding
    that reaches none, a nested recommendation, a peer with data said to be "not judged"."""
    r, _ = diagnose(root)
    assert r["root_causes"], r["findings"]
    reaches_a_root(r)
    for f in r["findings"]:
        assert "not judged" not in f["summary"], f["summary"]       # a loop's peer has its own data
        for rec in f["recommendations"]:
            after = rec["action"].split("act on", 1)[-1]
            assert rec["action"].count("act on") <= 1 and "Nothing to change" not in after
    text, _ = diagnose(root, "text")
    first = text.splitlines()[0]
    assert "0 root causes" not in first and "NOT healthy" in first
    return r


def test_a_forwarding_loop_through_the_cli_process(tmp_path):
    root = forwarding_loop(tmp_path / "dep", ["hf-a", "hf-b", "hf-c"])
    p = cli_process("diagnose", root, "--format", "text")
    assert p.returncode == exitcodes.OK, p.stderr
    assert "NOT healthy: 1 root cause" in p.stdout.splitlines()[0]
    assert "A forwarding loop: " in p.stdout and "Holds back 2 instances" in p.stdout


def random_deployment(root, rng):
    """2 to 4 heavy forwarders with a forwarding cycle through some of them and random extra links, every
    output blocked or not at random, and an indexer (saturated or idle) that some of them also send to."""
    n = rng.randint(2, 4)
    hfs = [Member("f%d" % i, "hf-%d" % i, "10.0.7.%d" % (i + 1), 300 + i) for i in range(n)]
    ring = rng.sample(hfs, rng.randint(2, n))
    links = {(a.host, ring[(i + 1) % len(ring)].host) for i, a in enumerate(ring)}
    for _ in range(rng.randint(0, n)):
        a, b = rng.sample(hfs, 2)
        links.add((a.host, b.host))
    idx = Member("ix", "idx-0", "10.0.7.50", 399)
    to_idx = [h for h in hfs if rng.random() < 0.4]
    receiver(idx, [(h, 2000.0) for h in to_idx], saturated=rng.choice(["indexing", None]))
    by = {m.host: m for m in hfs}
    for m in hfs:
        for k, t in enumerate(times(12)):
            for a, b in sorted(links):
                if b == m.host:
                    tcpin_line(m, t, k, by[a], 2000.0)
        dests = [(by[b].ip, 2000.0) for a, b in sorted(links) if a == m.host] + \
            ([(idx.ip, 2000.0)] if m in to_idx else [])
        sender(m, dests, blocked=m in ring or rng.random() < 0.5)
    return write(str(root), hfs + [idx])


def test_random_deployments_with_forwarding_cycles_every_finding_reaches_a_root(tmp_path):
    rng = random.Random(40)
    for case in range(20):
        root = random_deployment(tmp_path / ("d%d" % case), rng)
        r, _ = diagnose(root)
        reaches_a_root(r)
        text, _ = diagnose(root, "text")
        if any(f["severity"] in ("warning", "critical") for f in r["findings"]):
            assert r["root_causes"] and "0 root causes" not in text.splitlines()[0], (case, r["findings"])
        for f in r["findings"]:
            for rec in f["recommendations"]:
                assert rec["action"].count("act on") <= 1, (case, rec["action"])


# ---- on the search head: the action's --execute

def finding_row(host, bottleneck, severity):
    rec = ("Only if the receivers are idle: compress forwarded data.", "outputs.conf", "tcpout", "compressed",
           "false", "true") if bottleneck == "output" else \
        ("Add a pipeline set.", "server.conf", "general", "parallelIngestionPipelines", "1", "2")
    return collector_finding_row(host, bottleneck, severity, "%s is blocked on %s." % (bottleneck, host), [rec],
                                 NOW - 20)


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


def relayed(sh, tls, results, code=exitcodes.OK, hook=True):
    """One run of the action on the relay's `results` (with the webhook on the loopback fake, unless not
    `hook`), exiting `code`; its process."""
    data = payload(sh.fake, results, **({"webhook_url": sh.fake.url + "/hook"} if hook else {}))
    data["search_name"] = "Ingest Doctor - Findings - Collector findings"
    p = run_action(data, tls, LOOPBACK_HOOK if hook else None)
    assert p.returncode == code, (p.returncode, p.stderr)
    return p


@pytest.mark.parametrize("names,indexer", [(["hf-a", "hf-b"], False), (["hf-a", "hf-b", "hf-c"], False),
                                           (["hf-a", "hf-b"], True)])
def test_the_action_notifies_a_forwarding_loop_once(sh, tls, tmp_path, names, indexer):
    p = relayed(sh, tls, write_results(str(tmp_path / "relay.csv.gz"), loop_rows(names, indexer)))
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
        ends_at_a_root(recs, caused, roots, case, edges, kinds)
        assert sorted(h["id"] for h in port.hooks) == sorted(roots), (case, edges, kinds, caused)
        posted = sorted(m.name for m in port.messages.posts) if port.messages else []
        assert posted == sorted(message_name(fid) for fid in roots), (case, edges, kinds, caused)


# ============================================================== 2. deployment folders, held to the snapshot guards

def limited(argv, rss_mb=700):
    """The CLI as a subprocess with an address-space limit (a reader that grows memory without bound dies
    of MemoryError well before it hurts the machine) and a deadline (a reader that blocks is killed)."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (rss_mb << 20, rss_mb << 20))
    try:
        p = subprocess.run([sys.executable, "-B", SCRIPT] + list(argv), capture_output=True, text=True,
                           timeout=30, preexec_fn=limit, errors="replace")
    except subprocess.TimeoutExpired:
        return None, "", "hung"
    return p.returncode, p.stdout, p.stderr


def two_instances(root):
    """A forwarder blocked by its saturated indexer: a deployment folder that judges well."""
    hf, idx = Member("heavy-a", "hf-01", "10.0.0.5", 1), Member("indexer-1", "idx-01", "10.0.0.11", 2)
    receiver(idx, [(hf, 5900.0)], saturated="indexing")
    sender(hf, [("10.0.0.11", 5900.0)], blocked=True)
    return write(str(root), [hf, idx])


def judged_anyway(rc, out, err, *named):
    assert rc == exitcodes.OK, (rc, err[-500:])
    assert "Traceback" not in err and err.count("\n") == 1, err[-500:]
    report = json.loads(out)
    assert report["root_causes"] == ["idx-01/indexing/-"]
    for n in named:
        assert n in err, (n, err[-500:])
    return report


def nested_json(path):
    with open(path, "w") as f:
        f.write("[" * 200000 + "]" * 200000)


# what replaces the file, and the words that name it on stderr
HOSTILE_FILES = {"fifo": (os.mkfifo, "a FIFO, not read"),
                 "dev_zero": (lambda path: os.symlink("/dev/zero", path), "a device, not read"),
                 "nested_json": (nested_json, "nested too deeply")}


@pytest.mark.parametrize("which", ["deployment.json", "heavy-a/snapshot.json"])
@pytest.mark.parametrize("kind", sorted(HOSTILE_FILES))
def test_a_hostile_file_in_a_deployment_folder_is_named_and_the_rest_judged(tmp_path, kind, which):
    """A FIFO never hangs the reader, a link to /dev/zero never grows its memory, JSON nested 200,000 deep is
    a clear error: each is named on stderr and the other files are judged."""
    root = two_instances(tmp_path / "dep")
    path = os.path.join(root, which)
    os.remove(path)
    plant, named = HOSTILE_FILES[kind]
    plant(path)
    rc, out, err = limited(["diagnose", root])
    assert rc is not None, "hung on " + kind
    assert "MemoryError" not in err
    judged_anyway(rc, out, err, named)


def test_a_100_mb_name_is_never_echoed(tmp_path):
    root = two_instances(tmp_path / "dep")
    with open(os.path.join(root, "deployment.json"), "w") as f:
        f.write('{"format": 1, "name": "%s"}' % ("N" * (100 << 20)))
    rc, out, err = limited(["diagnose", root, "--format", "text"], rss_mb=400)
    assert rc == exitcodes.OK, err[-300:]
    assert len(out) < 200000 and len(err) < 5000 and "N" * 300 not in out + err
    assert "deployment.json: unreadable (larger than 1 MiB, not read)" in err


def name_the_forwarder(root, host):
    """heavy-a's snapshot.json says its host is `host`."""
    meta = os.path.join(root, "heavy-a", "snapshot.json")
    with open(meta) as f:
        data = json.load(f)
    with open(meta, "w") as f:
        json.dump(dict(data, host=host), f)


def test_a_long_host_name_is_cut(tmp_path):
    root = two_instances(tmp_path / "dep")
    name_the_forwarder(root, "h" * 500000)
    r, _ = diagnose(root)
    assert all(len(h) < 400 for h in r["hosts"]) and any("(500000 characters)" in h for h in r["hosts"])


CONTROL = "\x1b]0;pwned\x07\x1b[2J\r\nFAKE: healthy\x9b31m\u202e"


def test_names_with_control_characters_are_never_printed(tmp_path):
    root = two_instances(tmp_path / "dep")
    with open(os.path.join(root, "deployment.json"), "w") as f:
        json.dump({"format": 1, "name": "prod" + CONTROL}, f)
    name_the_forwarder(root, "hf-01" + CONTROL)
    os.rename(os.path.join(root, "indexer-1"), os.path.join(root, "indexer\x1b[31m-1\rX"))
    for fmt in ("text", "json"):
        rc, out, err = limited(["diagnose", root, "--format", fmt])
        assert rc == exitcodes.OK, err[-300:]
        for c in out + err:
            assert c in "\n" or c.isprintable(), (fmt, repr(c))
        if fmt == "text":
            assert "FAKE: healthy" in out and not any(line.startswith("FAKE") for line in out.splitlines())


def test_every_instance_deployment_json_lists_but_the_folder_lacks_is_named(tmp_path):
    root = two_instances(tmp_path / "dep")
    with open(os.path.join(root, "not-a-folder"), "w") as f:
        f.write("x")
    os.mkdir(os.path.join(root, "empty-one"))
    with open(os.path.join(root, "deployment.json"), "w") as f:
        json.dump({"format": 1, "name": "prod", "instances": {
            "heavy-a": "https://10.0.0.5:8089", "indexer-1": "https://10.0.0.11:8089",
            "gone": "https://10.0.0.12:8089", "not-a-folder": "https://10.0.0.13:8089",
            "empty-one": "https://10.0.0.14:8089", "../../etc": "https://10.0.0.15:8089"}}, f)
    p = cli_process("diagnose", root)
    assert p.returncode == exitcodes.OK, p.stderr
    nj = json.loads(p.stdout)["not_judged"]
    for name, why in (("gone", "absent from the folder"), ("not-a-folder", "not a folder"),
                      ("empty-one", "without a snapshot"), ("../../etc", "not a folder name")):
        assert any(n.startswith(name) and why in n for n in nj), (name, nj)
        assert name in p.stderr and p.stderr.count("\n") == 1


def test_an_instance_with_nothing_to_judge_is_named(tmp_path):
    root = two_instances(tmp_path / "dep")
    os.makedirs(os.path.join(root, "hollow", "rest", "services", "server", "introspection"))
    with open(os.path.join(root, "hollow", "rest", "services", "server", "introspection", "queues.json"), "w") as f:
        json.dump({"entry": []}, f)
    r, err = diagnose(root)
    assert any(n.startswith("hollow: not judged: nothing to judge") for n in r["not_judged"]), r["not_judged"]
    assert "hollow: nothing to analyse" in err
    text, _ = diagnose(root, "text")
    heads = [line for line in text.splitlines() if line.startswith("Ingest Doctor: ")]
    assert len(heads) == 4 and sum(h.endswith("nothing judged (see Not judged)") for h in heads) == 1, heads
    assert not any(h.endswith(": healthy") for h in heads), heads


# ============================================================== 3. single-snapshot leftovers

def test_a_folder_it_may_not_list_is_named_not_a_traceback(tmp_path, monkeypatch):
    # Tests run as root, and root lists any folder: the listing is made to fail where the process meets the
    # file system (os.listdir / os.scandir, as a folder without read permission fails for any other user).
    folder = Snap("hf-01").server_info(8, ["indexer"]).resources(8, 20.0, 60.0).write(str(tmp_path / "s"))
    real = {"listdir": os.listdir, "scandir": os.scandir}

    def refusing(which):
        def refuse(path=".", *a):
            if os.path.abspath(os.fspath(path)) == os.path.abspath(folder):
                raise PermissionError(13, "Permission denied", os.fspath(path))
            return real[which](path, *a)
        return refuse
    for which in real:      # a folder without read permission fails both
        monkeypatch.setattr(os, which, refusing(which))
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose", folder], io.StringIO(), out, err, {}, None)
    assert rc == exitcodes.BAD_INPUT and err.getvalue().count("\n") == 1, err.getvalue()
    assert "cannot list the snapshot folder" in err.getvalue() and "Permission denied" in err.getvalue()


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists any folder (the in-process test above covers it)")
def test_a_folder_it_may_not_list_as_another_user(tmp_path):
    folder = Snap("hf-01").server_info(8, ["indexer"]).write(str(tmp_path / "s"))
    os.chmod(folder, 0)
    try:
        p = cli_process("diagnose", folder)
    finally:
        os.chmod(folder, 0o755)
    assert p.returncode == exitcodes.BAD_INPUT and "Traceback" not in p.stderr and "cannot list" in p.stderr


def overflowing(root):
    s = Snap("hf-01").server_info(8, ["indexer"]).resources(8, 20.0, 60.0)
    for t in times(12):
        dutycycle_long(s, t, None, {"parsing": 0.3, "typing": 0.4, "indexerpipe": 0.2, "merging": 0.1})
        queue_line(s, t, None, "parsingqueue", 3.0)
        s.metric(t, "group=thruput, name=index_thruput, instantaneous_kbps=1e308, instantaneous_eps=1e308, "
                    "average_kbps=1e308, total_k_processed=1, kb=1e308, ev=5, load_average=1.20")
    return s.write(str(root))


def strict_json(text):
    def refuse(name):
        raise ValueError("%s in JSON" % name)
    return json.loads(text, parse_constant=refuse)


def test_numbers_that_overflow_never_reach_round_or_json(tmp_path):
    folder = overflowing(tmp_path / "s")
    p = cli_process("diagnose", folder)
    assert p.returncode == exitcodes.OK and "Traceback" not in p.stderr, p.stderr[-500:]
    r = strict_json(p.stdout)
    assert r["headroom"] and all(h["pegs_at_eps"] is None for h in r["headroom"])
    p = cli_process("diagnose", folder, "--format", "text")
    assert p.returncode == exitcodes.OK and " inf " not in p.stdout and "nan" not in p.stdout.lower()


def hollow_snapshots(tmp_path):
    """Snapshots that can be read and hold nothing to judge."""
    old = Snap("hf-old").server_info(8, ["indexer"])
    for t in times(12, end=NOW - 86400):            # a day before the capture: all outside the window
        queue_line(old, t, None, "parsingqueue", 99.0)
    yield "logs outside the window", old.write(str(tmp_path / "old"))
    empty = str(tmp_path / "empty")
    for path in ("services/server/introspection/queues", "services/server/pipelinesets",
                 "services/server/status/resource-usage/hostwide", "services/server/introspection/indexer"):
        fname = os.path.join(empty, "rest", *path.split("/")) + ".json"
        os.makedirs(os.path.dirname(fname), exist_ok=True)
        with open(fname, "w") as f:
            json.dump(envelope_body("https://hf:8089/" + path, "/" + path, [], updated="2026-11-22T10:00:00+00:00"), f)
    yield "REST files that are empty envelopes", empty


def test_nothing_to_judge_is_stated_never_a_plain_healthy(tmp_path):
    for what, folder in hollow_snapshots(tmp_path):
        p = cli_process("diagnose", folder)
        assert p.returncode == exitcodes.OK and "Traceback" not in p.stderr, (what, p.stderr)
        r = json.loads(p.stdout)
        assert r["findings"] == [] and r["not_judged"][0].startswith("nothing to judge"), (what, r["not_judged"])
        assert "nothing to judge" in p.stderr and p.stderr.count("\n") == 1, (what, p.stderr)
        p = cli_process("diagnose", folder, "--format", "text")
        first = p.stdout.splitlines()[0]
        assert "nothing judged" in first and not first.endswith("healthy"), (what, first)


def test_a_trailing_undated_line_keeps_the_logs_dated_lines(tmp_path):
    s = Snap("hf-01").server_info(8, ["indexer"])
    for t in times(12):
        s.splunkd_line(t, "WARN", "TcpOutputProc", "TcpOutEloop", "The TCP output processor has paused the data "
                                                                  "flow. Forwarding to host_dest=idx-01 inside "
                                                                  "output group default-autolb-group is blocked.")
    folder = s.write(str(tmp_path / "s"))
    with open(os.path.join(folder, "logs", "splunkd.log"), "a") as f:
        f.write("    at a stack frame of a trace with no date " * 2000 + "\n")      # ~90 KiB, undated
    p = cli_process("diagnose", folder)
    r = json.loads(p.stdout)
    assert not any("splunkd.log: not a splunkd log" in n for n in r["not_judged"]), r["not_judged"]
    assert "splunkd.log" not in p.stderr or "not a splunkd log" not in p.stderr


# ============================================================== 4. formulas and bytes from the results

FORMULA_HOST = "-2+3+cmd|' /C calc'!A0"


def test_formula_safe_quotes_every_formula_and_only_whole_numbers_are_exempt():
    for cell in (FORMULA_HOST, "=1+1", "+cmd|x", "@SUM(A1)", "-", "-1-1", "-2e3+", "\tx", "\r=1", "\x00=1"):
        assert formula_safe(cell) == "'" + cell, cell
    for cell in ("-2", "+3.5", "-1e-3", "hf-01", "", "12", "tcpout is full"):
        assert formula_safe(cell) == cell, cell


def test_a_formula_host_is_escaped_in_the_lookup_the_messages_and_the_webhook(sh, tls, tmp_path):
    rows = [finding_row(FORMULA_HOST, "indexing", "critical"), finding_row("=HYPERLINK(\"x\")", "typing", "warning")]
    relayed(sh, tls, write_results(str(tmp_path / "relay.csv.gz"), rows))
    assert len(sh.kv.records) == 2 and len(sh.hooks) == 2
    for rec in sh.kv.records.values():
        for k, v in rec.items():
            if isinstance(v, str) and not k.startswith("_"):
                assert not v.startswith(FORMULA_START), (k, v)
    for hook in sh.hooks:
        for k, v in hook.items():
            assert not (isinstance(v, str) and v.startswith(FORMULA_START)), (k, v)
        assert hook["host"].startswith("'")
    for m in sh.messages.shown.values():
        assert "'" + FORMULA_HOST[:8] in m["message"] or "'=HYPERLINK" in m["message"], m["message"]


def test_invalid_utf8_in_the_results_is_named_not_replaced(sh, tls, tmp_path):
    import gzip
    res = str(tmp_path / "results.csv.gz")
    good = write_results(str(tmp_path / "good.csv.gz"), [finding_row("hf-01", "indexing", "critical")])
    with gzip.open(good, "rb") as f:
        raw = f.read()
    with gzip.open(res, "wb") as f:
        f.write(raw.replace(b"hf-01", b"hf-\xff\xfe1"))
    p = relayed(sh, tls, res, exitcodes.BAD_INPUT, hook=False)
    assert "not valid UTF-8" in p.stderr and "Traceback" not in p.stderr
    assert not sh.kv.records and "\ufffd" not in json.dumps(sh.events)
