"""Silence is a finding (issue 20): the saved search "Ingest Doctor - Silence - Instance stopped
reporting", its shape, and its rows for three instances replayed over hand-made metrics.log events
(heartbeat: group=thruput; receivers: group=tcpin_connections, the shapes of
tests/fixtures/alerts), then judged by the alert action dispatched and run as splunkd does: a heavy forwarder
still connected with zero throughput is a critical output finding naming its receivers and since
when; one with no connection is `gone`; one whose receivers still get data is not found."""

import json
import re

import pytest

from ingest_doctor import thresholds
from ingest_doctor.alert import rows as alert_rows
from ingest_doctor.alert.results import Row
from ingest_doctor.alert.rows import RowError
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key
from ingest_doctor.engine import silence
from fakes.alert_helpers import MACROS, action_columns, all_ok, own_hook, runs_our_action_in_digest_mode
from fakes.relaysim import saved_searches
from fakes.dispatch import AlertDispatch, execute

NAME = "Ingest Doctor - Silence - Instance stopped reporting"
NOW = 1763805600.0
SAVED = saved_searches()
KNOWN = "Ingest Doctor - Lookups - Known hosts"
TOPOLOGY = "Ingest Doctor - Lookups - Topology"
# How the keepers name an instance (issue 35): a receiver's hostname= is often short and of any case,
# the sender's own metrics.log host often its FQDN; both become the short lower-case name.
NAME_OF = 'lower(mvindex(split(%s, "."), 0))'


def short_name(text):
    """NAME_OF in Python."""
    return text.split(".", 1)[0].lower()


def test_shape_for_the_paged_admin():
    st = SAVED[NAME]
    spl, desc = st["search"], st["description"]
    assert "Stage:" in desc and "Symptom:" in desc and "Urgency:" in desc and "First check:" in desc
    # its thresholds, named in the description, are the table's (macros generated from thresholds.py)
    for name in ("silence_after_min", "silence_kb"):
        assert "`ingest_doctor_%s`" % name in spl and "ingest_doctor_" + name in desc
        assert float(MACROS["ingest_doctor_" + name]["definition"]) == thresholds.BY_NAME[name].default
    # issue 35: it reads the lookups its keepers keep, never 24 hours of metrics.log every 5 minutes
    assert spl.startswith("| inputlookup ingest_doctor_known_hosts")
    assert "| lookup ingest_doctor_topology name OUTPUT " in spl and "TERM(" not in spl
    assert re.match(r"^\d-59/5 \* \* \* \*$", st["cron_schedule"])
    # digest mode, not throttled (issue 35): the action announces a host once, on its change
    runs_our_action_in_digest_mode(st)
    assert st["alert.track"] == "true"
    assert own_hook(spl) == "ingest_doctor_filter_silence"
    action_columns(spl, "silence")


def test_the_keepers_keep_what_silence_reads():
    known, topo, silence = SAVED[KNOWN], SAVED[TOPOLOGY], SAVED[NAME]
    assert "TERM(group=thruput)" in known["search"] and "TERM(group=tcpin_connections)" in topo["search"]
    assert known["search"].rstrip().endswith("| outputlookup ingest_doctor_known_hosts")
    minute = int(silence["cron_schedule"].split("-")[0])
    for st in (known, topo):
        assert st["search"].startswith("| tstats ")                       # index-only: no raw metrics.log line read
        assert not any(k.startswith("action.") or k.startswith("alert.") for k in st)   # keepers alert no one
        assert st["enableSched"] == "1" and st["disabled"] == "0"
        m = re.match(r"^(\d)-59/5 \* \* \* \*$", st["cron_schedule"])
        assert m and int(m.group(1)) < minute                    # fresh when silence reads them
    # known hosts merges: a run delayed by its schedule window still reads everything since the run before
    assert int(re.search(r"^-(\d+)m$", known["dispatch.earliest_time"]).group(1)) >= 5 + int(known["schedule_window"])
    # the topology is a snapshot of the silence window (kb over it), replaced each run
    assert "earliest=-`ingest_doctor_silence_after_min`m" in topo["search"]
    assert topo["search"].rstrip().endswith("| outputlookup ingest_doctor_topology")


def test_names_are_compared_as_short_lower_case_names():
    """Issue 35, fix 5: the receivers' hostname= (short, any case) and the sender's host (its FQDN) meet."""
    assert "eval name=%s" % (NAME_OF % "host") in SAVED[KNOWN]["search"]
    assert "eval name=%s" % (NAME_OF % "peer") in SAVED[TOPOLOGY]["search"]
    assert "BY name" in SAVED[KNOWN]["search"] and "BY name" in SAVED[TOPOLOGY]["search"]
    heard = {"hf-09.corp.example.com": NOW - 720, "idx-01": NOW - 20}
    rows = silence_rows(heard, [(NOW - 30 * i, "idx-01", "HF-09", 0.0) for i in range(8)], NOW)
    assert [(r["host"], r["reason"], r["receivers"]) for r in rows] == \
        [("hf-09.corp.example.com", "connected_idle", ["idx-01"])]


def test_a_gone_instance_is_announced_once():
    """Issue 35, fix 5: runs every 5 minutes for a day announce a gone instance once per silence episode."""
    spl = SAVED[NAME]["search"]
    assert "| lookup ingest_doctor_silence_announced name OUTPUT announced" in spl
    assert 'where reason!="gone" OR isnull(announced) OR announced < last_heard' in spl
    assert "outputlookup append=true key_field=_key ingest_doctor_silence_announced" in spl
    announced = {}
    heard = {"hf-10": NOW - 600, "idx-01": NOW}
    runs = [silence_rows(dict(heard, **{"idx-01": NOW + 300 * i}), [], NOW + 300 * i, announced)
            for i in range(288)]
    assert [i for i, rows in enumerate(runs) if rows] == [0] and runs[0][0]["reason"] == "gone"
    # back, then gone again: a new episode, announced again
    heard["hf-10"] = NOW + 3000
    later = silence_rows(dict(heard, **{"idx-01": NOW + 3600}), [], NOW + 3600, announced)
    assert [(r["host"], r["reason"]) for r in later] == [("hf-10", "gone")]


def known_hosts(heard):
    """The known-hosts keeper's rows: host -> last metrics.log time, one row per short name."""
    out = {}
    for host, last in heard.items():
        row = out.setdefault(short_name(host), {"host": host, "last_heard": last})
        row["last_heard"] = max(row["last_heard"], last)
    return out


def topology(tcpin, now, after_min):
    """The topology keeper's rows: (time, receiver, hostname, kb) lines of its window, per short name."""
    out = {}
    for t, receiver, sender, kb in tcpin:
        if t < now - 60 * after_min:
            continue
        row = out.setdefault(short_name(sender), {"kb": 0.0, "last_time": t, "receivers": set()})
        row["kb"] += kb
        row["last_time"] = max(row["last_time"], t)
        row["receivers"].add(receiver)
    return out


def silence_rows(heard, tcpin, now, announced=None):
    """The search's rows over the keepers' lookups (built from `heard`, host -> last metrics.log time,
    and `tcpin` receiver lines (time, receiver, hostname, kb)); `announced` is the KV store of announced
    episodes, updated as the search's appendpipe does. Steps as in the SPL."""
    after = float(MACROS["ingest_doctor_silence_after_min"]["definition"])
    kb_max = float(MACROS["ingest_doctor_silence_kb"]["definition"])
    known = known_hosts(heard)
    topo = topology(tcpin, now, after)
    announced = {} if announced is None else announced
    newest = max(r["last_heard"] for r in known.values())
    rows = []
    for name, k in sorted(known.items()):
        last = k["last_heard"]
        if not last < newest - 60 * after:
            continue
        c = topo.get(name)
        connected = c is not None and c["last_time"] >= newest - 60 * after
        reason = "gone" if not connected else "connected_idle" if c["kb"] <= kb_max else "sending"
        if reason == "sending":
            continue
        if reason == "gone" and name in announced and not announced[name] < last:
            continue
        if reason == "gone":
            announced[name] = last
        rows.append({"signal": "silence", "host": k["host"], "component": "tcpout", "reason": reason,
                     "last_heard": last, "silent_min": round((now - last) / 60, 1),
                     "kb_recent": "" if c is None else c["kb"],
                     "receivers": sorted(c["receivers"]) if c else [], "threshold": kb_max, "last_time": now})
    return rows


def test_connected_with_zero_throughput_is_a_critical_output_finding(sh, tls, tmp_path):
    heard = {"hf-09": NOW - 720, "hf-10": NOW - 900, "uf-31": NOW - 600, "idx-01": NOW - 20}
    tcpin = [(NOW - 30 * i, rcv, "hf-09", 0.0) for i in range(8) for rcv in ("idx-01", "idx-02")]
    tcpin += [(NOW - 30 * i, "idx-01", "uf-31", 88.4) for i in range(8)]     # metrics.log lost, data flows
    rows = silence_rows(heard, tcpin, NOW)
    assert [(r["host"], r["reason"]) for r in rows] == [("hf-09", "connected_idle"), ("hf-10", "gone")]
    assert set(action_columns(SAVED[NAME]["search"], "silence")) <= set(rows[0])      # the rows the search returns
    # dispatched as splunkd dispatches the shipped stanza, each run as splunkd runs the script
    assert len(all_ok(execute(AlertDispatch(NAME, str(tmp_path)).run(rows, NOW), sh.fake, tls))) == 1
    blocked = sh.kv.records[kv_key("hf-09/output/-")]
    assert blocked["severity"] == "critical" and blocked["detected_by"] == silence.DETECTED_BY
    assert blocked["status"] == "open" and blocked["bottleneck"] == "output"
    text = blocked["summary"]
    assert "hf-09" in text and "idx-01, idx-02" in text and "output is blocked" in text
    assert "silent since 2025-11-22 09:48:00 UTC" in text and "12 min" in text
    assert any(e["signal"] == "tcpin_kb" and e["value"] == 0.0 for e in json.loads(blocked["evidence"]))
    gone = sh.kv.records[kv_key("hf-10/output/-")]
    assert gone["severity"] == "warning" and "down or cannot reach" in gone["summary"]
    assert kv_key("uf-31/output/-") not in sh.kv.records and kv_key("idx-01/output/-") not in sh.kv.records
    assert message_name("hf-09/output/-") in sh.messages.shown


def test_bad_silence_rows_are_bad_input():
    with pytest.raises(RowError, match="reason"):
        alert_rows.rows_to_reported([Row(1, {"signal": "silence", "host": "hf-09", "reason": "asleep",
                                            "last_heard": str(NOW)}, {})], NOW)
    with pytest.raises(RowError, match="last_heard"):
        alert_rows.rows_to_reported([Row(2, {"signal": "silence", "host": "hf-09", "reason": "gone"}, {})], NOW)
