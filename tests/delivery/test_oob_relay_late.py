"""The relay selects by index time (issue 20): a collector finding indexed 5 minutes after its `_time`
is handed to the alert action by the shipped relay search (replayed minute by minute by
tests/relaysim.py from default/savedsearches.conf) and the action, dispatched as splunkd dispatches the
shipped relay over its successive runs (fakes/dispatch.py) and run as splunkd runs it (`--execute`, JSON
payload, gzipped results) against the loopback fake splunkd, stores and announces it exactly once; the
same replay of the previous 2-minute `_time` window never saw it."""
from __future__ import annotations

import json

from ingest_doctor import exitcodes
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.findings import EvidenceItem, Finding
from fakes.splunkd import FakeSplunkd
from fakes.relaysim import RELAY, Event, Relay, previous_relay
from fakes.dispatch import AlertDispatch, execute
from fakes.kvstore import Splunkd


T0 = 1763805600.0 + 17          # the collector saw it 17 s into a minute
LATE_S = 300.0                  # ... and it was indexed 5 minutes later (a blocked output drained)


def finding_raw(status="open"):
    f = Finding("output", "critical", "hf-09", None, "tcpoutput", "Output to the indexers is blocked.",
                [EvidenceItem("queue_fill_pct", 100.0, "%", "sample", "services/server/introspection/queues")])
    d = f.to_dict()
    d["detected_by"] = "collector"
    if status == "resolved":
        d.update(status="resolved", resolved_at=T0 + 400, resolution="resolved: the signal is gone")
    return json.dumps(d, separators=(",", ":"))


def relay_action(dispatch, fake, tls, rows, at):
    """The relay's run at `at` returned `rows`: the action run splunkd starts for it (digest: one)."""
    [p] = execute(dispatch.run(rows, at), fake, tls)
    assert p.returncode == exitcodes.OK, p.stderr
    return p


def test_finding_indexed_five_minutes_late_is_relayed_exactly_once(tls, tmp_path):
    relay = Relay.shipped()
    events = [Event(T0, T0 + LATE_S, finding_raw(), "hf-09")]
    runs = relay.runs(T0, T0 + LATE_S + 600)
    handed = {t: relay.rows(events, t) for t in runs}
    with_rows = [t for t in runs if handed[t]]
    assert with_rows and all(t >= T0 + LATE_S for t in with_rows)        # read once it is searchable
    assert len(with_rows) >= 2                                           # the windows overlap: handed again
    assert not any(previous_relay().rows(events, t) for t in runs)       # the 2-minute _time window missed it
    with FakeSplunkd(tls) as fake:
        sh = Splunkd(fake, server_name="sh-01")
        dispatch = AlertDispatch(RELAY, str(tmp_path))
        assert not dispatch.run([], runs[0])        # a run with no row triggers nothing (quantity 0)
        outs = [relay_action(dispatch, fake, tls, handed[t], t) for t in with_rows]
        kv = sh.kv.records
        assert list(kv) == [kv_key("hf-09/output/-")]
        rec = kv[kv_key("hf-09/output/-")]
        assert rec["count"] == 1 and rec["status"] == "open" and rec["first_seen"] == T0
        assert [("new=1" in p.stderr) for p in outs] == [True] + [False] * (len(outs) - 1)
        assert [m["name"] for m in sh.messages.posts] == [message_name("hf-09/output/-")]

        # its resolution, indexed late as well, closes it once
        events.append(Event(T0 + 400, T0 + 400 + LATE_S, finding_raw("resolved"), "hf-09"))
        later = [t for t in relay.runs(T0 + 400, T0 + 400 + LATE_S + 600) if relay.rows(events, t)
                 and relay.rows(events, t)[0]["status"] == "resolved"]
        assert later
        for t in later:
            relay_action(dispatch, fake, tls, relay.rows(events, t), t)
        rec = sh.kv.records[kv_key("hf-09/output/-")]
        assert rec["status"] == "resolved" and rec["count"] == 1
        assert sh.messages.deletes.count(message_name("hf-09/output/-")) >= 1
        assert message_name("hf-09/output/-") not in sh.messages.shown
