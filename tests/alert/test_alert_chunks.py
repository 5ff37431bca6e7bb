"""The action stores a run's findings a chunk at a time under the store's lock (action.PLAN_CHUNK: its
memory at 80,000 rows, docs/performance.md): the records, events, messages, webhooks and counts are
those of the same run stored at once, whatever the chunk; every event is written before its record is
saved, each record is saved once a run, and no read or event write carries more than a chunk."""

import json
from dataclasses import asdict

import pytest

from fakes.action_run import NOW, collector_finding_row, deployment_rows, tcpin_row, thread_row
from fakes.kvstore import write_results
from fakes.memory_port import MemoryPort
from ingest_doctor.alert import action
from ingest_doctor.alert.payload import parse_payload
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.diagnose import diagnose

HOOK = "https://hooks.example.com/x"
LATER = NOW + 2 * 3600.0      # past resolve_after_min (60) for what the first run saw and the second does not
RAISE_IO = [("Raise dedicatedIoThreads.", "server.conf", "general", "dedicatedIoThreads", "2", "4")]
ADD_PSET = [("Add a pipeline set.", "server.conf", "general", "parallelIngestionPipelines", "1", "2")]


class RecordingPort(MemoryPort):
    """The memory port, with every store call in order (kv_pending marks where step 3 ends)."""

    def __init__(self):
        super().__init__()
        self.calls = []
        self.bodies = []
        self.hooks = []
        self.messages = None

    def kv_read(self, keys):
        self.calls.append(("read", list(keys)))
        return super().kv_read(keys)

    def kv_save(self, records):
        self.calls.append(("save", [r["_key"] for r in records]))
        super().kv_save([json.loads(json.dumps(r)) for r in records])   # stored as splunkd would: a copy

    def write_events(self, index, host, bodies):
        self.calls.append(("events", [kv_key(json.loads(b)["id"]) for b in bodies]))
        self.bodies.extend(bodies)
        super().write_events(index, host, bodies)

    def kv_pending(self, search_name):
        self.calls.append(("pending", []))
        return super().kv_pending(search_name)

    def webhook(self, url, body):
        self.hooks.append(json.loads(body))


def first_rows():
    """Judged thread findings on eight forwarders, a forwarder whose blocked output its indexer causes
    (the symptom sorts before its root), and two of the collector's findings."""
    rows = [thread_row(host="hf-%02d" % i) for i in range(2, 10)] + deployment_rows()
    rows.append(collector_finding_row("hf-05", "hec_input", "critical", "The HEC input thread is saturated.", RAISE_IO))
    rows.append(collector_finding_row("idx-07", "typing", "warning", "typingQueue is full.", ADD_PSET))
    return rows


def second_rows(store):
    """Two hours later: four forwarders still saturated, one of them also reported by its collector (a key
    planned twice in one run), the rest listed unseen by the housekeeping search."""
    rows = [thread_row(host="hf-%02d" % i, last=LATER) for i in range(2, 6)]
    rows.append(collector_finding_row("hf-05", "hec_input", "warning", "The HEC input thread is busy.", RAISE_IO,
                                      LATER - 20))
    rows += [{"signal": "stale", "id": r["id"], "last_seen": r["last_seen"]} for r in store.values()
             if r["status"] == "open" and not r["id"].startswith(("hf-02/", "hf-03/", "hf-04/", "hf-05/"))]
    return rows


def run(tmp_path, port, name, rows, now, chunk, monkeypatch):
    monkeypatch.setattr(action, "PLAN_CHUNK", chunk)
    tmp_path.mkdir(exist_ok=True)
    path = write_results(str(tmp_path / (name + ".csv.gz")), rows)
    p = parse_payload(json.dumps({"server_uri": "https://127.0.0.1:8089", "session_key": "k", "results_file": path,
                                  "search_name": "Ingest Doctor - Queues", "sid": name,
                                  "configuration": {"min_severity": "warning", "webhook_url": HOOK}}))
    return action.run(p, port, diagnose, now)


def two_runs(tmp_path, chunk, monkeypatch):
    port = RecordingPort()
    first = run(tmp_path, port, "first", first_rows(), NOW, chunk, monkeypatch)
    firsts = list(port.calls)
    port.calls.clear()
    second = run(tmp_path, port, "second", second_rows(port.kv), LATER, chunk, monkeypatch)
    return port, [(first, firsts), (second, port.calls)]


def test_the_store_is_whole_before_it_is_chunked(tmp_path, monkeypatch):
    """The cases below hold something: symptoms, a key planned twice, resolutions, stale records."""
    port, runs = two_runs(tmp_path, 10 ** 6, monkeypatch)
    (first, _), (second, _) = runs
    assert first.findings == 12 and first.resolved == 0 and second.resolved == 7 and second.updated == 5
    recs = {r["id"]: r for r in port.kv.values()}
    assert recs["hf-01/output/-"]["caused_by"] == "idx-02/indexing/-"
    assert recs["hf-05/hec_input/-"]["detected_by"] == "alert_action,collector"
    kinds = [kind for kind, _ in runs[0][1]]
    # the first read: the stored output of hf-05, whose HEC refusals no receiver of this run explains
    # (action.link_stored); then stored at once: one of each
    assert runs[0][1][0] == ("read", ["hf-05~2Foutput~2F-"])
    assert kinds[1:kinds.index("pending")] == ["read", "events", "save"]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5])
def test_chunked_runs_store_what_the_whole_run_stores(tmp_path, monkeypatch, chunk):
    whole, whole_runs = two_runs(tmp_path / "whole", 10 ** 6, monkeypatch)
    port, runs = two_runs(tmp_path / "chunked", chunk, monkeypatch)
    assert port.kv == whole.kv
    assert sorted(port.bodies) == sorted(whole.bodies)
    assert sorted(port.hooks, key=lambda h: (h["id"], h["status"])) == \
        sorted(whole.hooks, key=lambda h: (h["id"], h["status"]))
    assert port.messages == whole.messages
    assert [asdict(s) for s, _ in runs] == [asdict(s) for s, _ in whole_runs]
    for _, calls in runs:
        step3 = calls[:[kind for kind, _ in calls].index("pending")]
        assert all(len(keys) <= chunk for kind, keys in step3 if kind != "save"), step3
        # a record that waits (here the one symptom, for its root) is saved with a later chunk's records
        assert all(len(keys) <= chunk + 1 for kind, keys in step3 if kind == "save"), step3
        evented = {k for kind, keys in step3 if kind == "events" for k in keys}
        written, saved = set(), []
        for kind, keys in step3:
            if kind == "events":
                written.update(keys)
            elif kind == "save":
                assert all(k in written for k in keys if k in evented), keys     # the event first
                saved.extend(keys)
        assert len(saved) == len(set(saved)), saved             # one save a record a run
        reads = [k for kind, keys in step3 if kind == "read" for k in keys]
        assert len(reads) == len(set(reads))                    # each record read once


def relay_rows():
    """The collector's findings over a forwarder blocked by its indexer: the forwarder's opened, then
    resolved, then the indexer's (the root cause) reported last, so it is planned after its symptom."""
    def row(host, bottleneck, last, status="open"):
        r = collector_finding_row(host, bottleneck, "critical", "%s is full." % bottleneck, ADD_PSET, last)
        r["status"] = status
        return r
    return [row("hf-01", "output", NOW - 60), row("hf-01", "output", NOW - 30, "resolved"),
            row("idx-02", "typing", NOW - 20), tcpin_row(last=NOW)]


@pytest.mark.parametrize("chunk", [1, 2])
def test_a_symptom_resolved_before_its_root_is_planned_waits_for_it(tmp_path, monkeypatch, chunk):
    """The root cause is in this run, so the symptom's resolution rides with it and is not sent alone:
    the symptom's record waits for the chunk that plans its root before it is marked and saved."""
    whole, chunked = RecordingPort(), RecordingPort()
    run(tmp_path / "whole", whole, "relay", relay_rows(), NOW, 10 ** 6, monkeypatch)
    run(tmp_path / "chunked", chunked, "relay", relay_rows(), NOW, chunk, monkeypatch)
    assert [h["id"] for h in whole.hooks] == ["idx-02/typing/-"]
    assert chunked.hooks == whole.hooks and chunked.kv == whole.kv
