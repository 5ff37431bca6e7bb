"""The alert searches, checked without a Splunk.

- Every field an alert reads exists: each search is walked command by command,
  keeping the set of fields that exist at that point (a data source's fields
  as real-shaped sample lines carry them after key=value extraction, then what
  rex/eval/stats/lookup/rename create, and what stats/table/fields drop); every
  field used in a TERM(), stats/eval/where/by clause, sort, lookup input,
  rename, table or fields list must be in that set.
- Every alert is shaped as the issue asks (description, cron of 1 to 5
  minutes, matching window, dispatched in digest mode without throttling (issue 35:
  its rows meet in one action run, which notifies on a change only), only our
  action, enabled, ends in its filter macro, thresholds only through macros).
- Its output columns are the ones the alert action knows (alert_rows), with
  the columns its signal needs: the SPL and the Python cannot drift apart.
- The alerts and their hook and window macros pass tools/splcheck.py (the whole app's run:
  tests/gates/test_gates_spl.py).
"""
from __future__ import annotations

import json
import os
import re
from typing import List, Optional, Set, Tuple

import pytest

from ingest_doctor.delivery import store as alert_store
from ingest_doctor.collector import metrics_events
from ingest_doctor.collector.procthreads import ThreadBusy
from ingest_doctor import model, threadnames, thresholds
from ingest_doctor.evidence import Evidence, HecProbe, IndexerStatus, QueueSample

import splcheck
from confcheck import read_conf
from fakes.alert_helpers import (FIX, MACROS, TRANSFORMS, action_columns, autokv, fixture_lines, lookup_rows,
                                 own_hook, runs_our_action_in_digest_mode)
from fakes.paths import ROOT
from fakes.searches import ALERTS, HOUSEKEEPING, RELAY, SAVED, split_top


EVENT_DEFAULTS = {"_time", "_raw", "host", "source", "sourcetype", "index", "splunk_server", "linecount", "punct"}


# ---------------------------------------------------------------------------- data sources
def log_source(name: str) -> Set[str]:
    """An event's default fields and every field Splunk extracts from the fixture's real-shaped lines."""
    return set(EVENT_DEFAULTS).union(*(autokv(line) for line in fixture_lines(name)))


def finding_event_fields() -> Set[str]:
    """Fields of the collector's ingest_doctor:finding events (KV_MODE = json), open and resolved,
    as its own code writes them."""
    from ingest_doctor.findings import Finding, Recommendation
    from ingest_doctor.delivery.resolution import resolved_event
    f = Finding("hec_input", "critical", "hf-01", None, "httpinputserverdatathread", "pegged", [],
                [Recommendation("raise", "inputs.conf", "http", "dedicatedIoThreads", "2", "8")])
    opened = dict(f.to_dict(), detected_by="collector")
    return set(EVENT_DEFAULTS) | set(opened) | set(resolved_event(f, "resolved after x", 1.0))


def metric_source(metric: str) -> Set[str]:
    """The fields of the events that carry `metric`, as the collector really writes them (its own builder,
    one event of each metric family we read)."""
    ev = Evidence(host="hf-01")
    ev.queues.append(QueueSample(1.0, "typingQueue", 1, 99.0, "sample", True, "rest"))
    ev.hec_probes.append(HecProbe(1.0, 503, 18, 12.5, "health"))
    ev.hec_probes.append(HecProbe(1.0, 200, 0, 850.0, "event"))
    ev.indexer = IndexerStatus("throttled", "disk")
    threads = [ThreadBusy(4242, "httpinputserver", "httpinputserverdatathread", 99.0)]
    fields = set().union(*(e for e in metrics_events.build(ev, threads, {}, [], 5.0, 1.0, True) if metric in e))
    assert fields, "the collector writes no %s" % metric
    return fields | {"host", "_time", "metric_name", "index"}


REST_FIXTURES = {"/services/server/introspection/indexer": "rest_introspection_indexer.json",
                 "/services/search/distributed/peers": "rest_distributed_peers.json"}


def rest_source(path: str) -> Set[str]:
    keys = set(json.load(open(os.path.join(FIX, REST_FIXTURES[path]), encoding="utf-8"))["entry"][0]["content"])
    return keys | {"title", "id", "author", "updated", "splunk_server", "eai:acl"}


def lookup_fields(name: str) -> Set[str]:
    st = TRANSFORMS[name]
    if "fields_list" in st:
        return {f.strip() for f in st["fields_list"].split(",")}
    header = open(os.path.join(ROOT, "lookups", st["filename"]), encoding="utf-8").readline()
    return {h.strip() for h in header.split(",")}


# splunkd.log's components the searches read (their TERM()), with the fixture of real-shaped lines of each
SPLUNKD_LOG = {"HttpInputDataHandler": "splunkd_hec.log", "HttpListener": "splunkd_httplistener.log",
               "replication": "splunkd_replication.log", "ThruputProcessor": "splunkd_thruput.log"}


def source_of(segment: str) -> Tuple[str, Set[str]]:
    s = segment.strip()
    if "ingest_doctor_metrics_log" in s:
        group = re.search(r"TERM\(group=(\w+)\)", s).group(1)
        return "metrics.log group=%s" % group, log_source("metrics_%s.log" % group)
    for term, fixture in SPLUNKD_LOG.items():
        if "ingest_doctor_splunkd_log" in s and "TERM(%s)" % term in s:
            return "splunkd.log " + term, log_source(fixture)
    if s.startswith("mstats"):
        metrics = re.findall(r"\((ingest_doctor\.[\w.]+)\)", s)
        out: Set[str] = set()
        for m in metrics:
            out |= metric_source(m)
        return "collector " + ",".join(metrics), out
    if s.startswith("rest"):
        return "rest", rest_source(re.search(r"(/services/\S+)", s).group(1))
    if s.startswith("inputlookup"):
        return "kvstore", lookup_fields(s.split()[1])
    if "`ingest_doctor_events_index`" in s and 'sourcetype="ingest_doctor:finding"' in s:
        return "ingest_doctor:finding", finding_event_fields()
    raise AssertionError("no known data source for: %s" % s[:120])


# ---------------------------------------------------------------------------- a small SPL walker
KEYWORDS = {"AND", "OR", "NOT", "LIKE", "IN", "TRUE", "FALSE", "NULL", "AS", "BY"}


def idents(expr: str) -> List[str]:
    expr = re.sub(r"`[^`]*`", " 1 ", expr)
    expr = re.sub(r'"(?:[^"\\]|\\.)*"', ' "" ', expr)
    out = []
    for m in re.finditer(r"(?<![\w.])[A-Za-z_]\w*", expr):       # `.` is eval's concatenation
        if expr[m.end():].lstrip().startswith("("):
            continue
        if m.group(0).upper() in KEYWORDS:
            continue
        out.append(m.group(0))
    return out


def expand_term_macros(seg: str) -> str:
    """The search with each argument-less macro that is made of TERM()s written out (e.g. the generated
    ingest_doctor_hec_backpressure_terms), so the fields its terms read are checked too."""
    def one(m):
        d = MACROS.get(m.group(1), {}).get("definition", "")
        return d if "TERM(" in d and "(" not in m.group(1) else m.group(0)
    return re.sub(r"`([^`]+)`", one, seg)


AGG = re.compile(r"(\w+)(?:\((eval\((?:[^()]|\([^()]*\))*\)|PREFIX\([\w.]+=\)|[\w.]+)\))?\s+AS\s+(\w+)")


class Walker:
    def __init__(self, name: str):
        self.name = name
        self.problems: List[str] = []
        self.sources: List[str] = []

    def need(self, avail: Set[str], fields, where: str) -> None:
        for f in fields:
            f = f.strip().strip('"')
            if f and f not in avail:
                self.problems.append("%s: %s reads %r, which is not there (have: %s)"
                                     % (self.name, where, f, ", ".join(sorted(avail))))

    def walk(self, spl: str, avail: Optional[Set[str]] = None) -> Set[str]:
        """A search from its data source; with `avail`, a pipeline over results that exist (appendpipe)."""
        segs = [s.strip() for s in split_top(spl, "|")]
        if segs and segs[0] == "":
            segs = segs[1:]
        generating = avail is None
        avail = set() if avail is None else set(avail)
        for i, seg in enumerate(segs):
            word = seg.split(None, 1)[0] if seg else ""
            rest = seg[len(word):].strip()
            if i == 0 and generating:
                label, avail = source_of(seg)
                self.sources.append(label)
                self.need(avail, re.findall(r"TERM\((\w+)=", expand_term_macros(seg)), "%s TERM()" % label)
                if word in ("tstats", "mstats"):
                    avail = self.aggregate(word, rest, avail)
                continue
            handler = getattr(self, "cmd_" + word, None)
            if word.startswith("`"):
                continue
            assert handler is not None, "%s: no walker for command %r" % (self.name, word)
            avail = handler(rest, avail)
        return avail

    # -- generating
    def aggregate(self, word: str, rest: str, avail: Set[str]) -> Set[str]:
        parts = re.split(r"\bBY\b", rest, maxsplit=1)
        by = parts[1] if len(parts) > 1 else ""
        aggs = re.split(r"\bWHERE\b", parts[0], maxsplit=1)[0]
        out: Set[str] = set()
        for func, arg, alias in AGG.findall(aggs):
            if arg.startswith("PREFIX("):
                self.need(avail, [arg[len("PREFIX("):-2]], "%s %s()" % (word, func))
            elif arg:
                self.need(avail, [arg], "%s %s()" % (word, func))
            out.add(alias)
        for tok in by.split():                  # span=... and the like are options, not fields
            if tok.startswith("PREFIX("):
                self.need(avail, [tok[len("PREFIX("):-2]], "%s BY" % word)
                out.add(tok[len("PREFIX("):-1])
            elif "=" not in tok:
                self.need(avail, [tok], "%s BY" % word)
                out.add(tok)
        if "span=" in rest:
            out.add("_time")
        return out

    # -- commands
    def cmd_rex(self, rest: str, avail: Set[str]) -> Set[str]:
        m = re.search(r"\bfield=(\w+)", rest)
        self.need(avail, [m.group(1) if m else "_raw"], "rex")
        return avail | set(re.findall(r"\(\?<(\w+)>", rest))

    def cmd_eval(self, rest: str, avail: Set[str]) -> Set[str]:
        avail = set(avail)
        for assign in split_top(rest, ","):
            lhs, _, expr = assign.partition("=")
            self.need(avail, idents(expr), "eval %s" % lhs.strip())
            avail.add(lhs.strip())
        return avail

    def cmd_where(self, rest: str, avail: Set[str]) -> Set[str]:
        self.need(avail, idents(rest), "where")
        return avail

    def cmd_fields(self, rest: str, avail: Set[str]) -> Set[str]:
        names = rest.replace(",", " ").split()
        if names and names[0] == "-":
            return avail - set(names[1:])
        self.need(avail, names, "fields")
        return set(names)

    def cmd_table(self, rest: str, avail: Set[str]) -> Set[str]:
        names = rest.replace(",", " ").split()
        self.need(avail, names, "table")
        return set(names)

    def cmd_mvexpand(self, rest: str, avail: Set[str]) -> Set[str]:
        self.need(avail, [rest.split()[0]], "mvexpand")
        return avail

    def _stats(self, kind: str, rest: str, avail: Set[str]) -> Tuple[Set[str], Set[str]]:
        parts = re.split(r"\bBY\b", rest, maxsplit=1)
        outs: Set[str] = set()
        for func, arg, alias in AGG.findall(parts[0]):
            if arg.startswith("eval("):
                self.need(avail, idents(arg[5:-1]), "%s %s(eval)" % (kind, func))
            elif arg:
                self.need(avail, [arg], "%s %s()" % (kind, func))
            outs.add(alias)
        by = parts[1].replace(",", " ").split() if len(parts) > 1 else []
        self.need(avail, by, "%s BY" % kind)
        return outs, set(by)

    def cmd_stats(self, rest: str, avail: Set[str]) -> Set[str]:
        outs, by = self._stats("stats", rest, avail)
        return outs | by

    def cmd_eventstats(self, rest: str, avail: Set[str]) -> Set[str]:
        outs, _ = self._stats("eventstats", rest, avail)
        return avail | outs

    def cmd_sort(self, rest: str, avail: Set[str]) -> Set[str]:
        self.need(avail, [t.lstrip("+-") for t in rest.replace(",", " ").split() if not t.isdigit()], "sort")
        return avail

    def cmd_lookup(self, rest: str, avail: Set[str]) -> Set[str]:
        name, _, tail = rest.partition(" ")
        inp, out = re.split(r"\b(?:OUTPUTNEW|OUTPUT)\b", tail, maxsplit=1)
        cols = lookup_fields(name)
        m = re.match(r"\s*(\w+)(?:\s+AS\s+(\w+))?", inp)
        self.need(cols, [m.group(1)], "lookup %s input column" % name)
        self.need(avail, [m.group(2) or m.group(1)], "lookup %s input" % name)
        created = set()
        for col, alias in re.findall(r"([\w.]+)(?:\s+AS\s+([\w.]+))?", out.replace(",", " ")):
            self.need(cols, [col], "lookup %s output column" % name)
            created.add(alias or col)
        return avail | created

    def cmd_rename(self, rest: str, avail: Set[str]) -> Set[str]:
        avail = set(avail)
        for old, new in re.findall(r'("[^"]+"|\S+)\s+AS\s+("[^"]+"|\S+)', rest):
            old, new = old.strip('"'), new.strip('"')
            self.need(avail, [old], "rename")
            avail.discard(old)
            avail.add(new)
        return avail

    def cmd_fillnull(self, rest: str, avail: Set[str]) -> Set[str]:
        return avail | {t for t in rest.split() if "=" not in t}

    def cmd_append(self, rest: str, avail: Set[str]) -> Set[str]:
        inner = rest.strip()
        assert inner.startswith("[") and inner.endswith("]")
        return avail | self.walk(inner[1:-1])

    def cmd_appendpipe(self, rest: str, avail: Set[str]) -> Set[str]:
        inner = rest.strip()
        assert inner.startswith("[") and inner.endswith("]")
        return avail | self.walk(inner[1:-1], avail)

    def cmd_inputlookup(self, rest: str, avail: Set[str]) -> Set[str]:
        """`inputlookup append=true <lookup>` in a pipeline: its rows join the results."""
        words = [w for w in rest.split() if "=" not in w]
        assert "append=true" in rest and words, "inputlookup in a pipeline appends: %s" % rest
        return avail | lookup_fields(words[0])

    def cmd_dedup(self, rest: str, avail: Set[str]) -> Set[str]:
        self.need(avail, [t for t in rest.split() if "=" not in t], "dedup")
        return avail

    def cmd_outputlookup(self, rest: str, avail: Set[str]) -> Set[str]:
        name = rest.split()[-1]
        # a KV store's _key is written only as the key_field that upserts; a full rewrite makes new keys
        fields = lookup_fields(name) - (set() if "key_field=_key" in rest else {"_key"})
        self.need(avail, sorted(fields), "outputlookup %s" % name)
        return avail


# ---------------------------------------------------------------------------- tests
def test_there_are_six_alerts():
    assert len(ALERTS) == 6, sorted(ALERTS)


@pytest.mark.parametrize("name", sorted(SAVED))
def test_every_field_a_search_reads_exists_in_its_data(name):
    w = Walker(name)
    w.walk(SAVED[name]["search"])
    assert not w.problems, "\n".join(w.problems)
    assert w.sources


HEC_TSTATS = "| tstats count AS n WHERE `ingest_doctor_splunkd_log` TERM(HttpInputDataHandler) %s BY host"


@pytest.mark.parametrize("spl,macros,missing", [
    ('`ingest_doctor_metrics_log` TERM(group=queue) | eval fill=current_size_kb/max_size_kbb | '
     'stats avg(fill) AS fill BY host | where ratio>1', {}, ["max_size_kbb", "ratio"]),   # a typo, a field stats dropped
    (HEC_TSTATS % "TERM(replies=9)", {}, ["replies"]),
    (HEC_TSTATS % "`bad_terms`", {"bad_terms": {"definition": "(TERM(replies=9))"}}, ["replies"]),
], ids=["eval_and_where", "term", "terms_in_a_macro"])
def test_walker_catches_a_missing_field(monkeypatch, spl, macros, missing):
    for name, stanza in macros.items():
        monkeypatch.setitem(MACROS, name, stanza)
    w = Walker("broken")
    w.walk(spl)
    text = "\n".join(w.problems)
    for field in missing:
        assert "%r" % field in text, text


@pytest.mark.parametrize("name", sorted(ALERTS))
def test_alert_output_is_what_the_action_reads(name):
    spl = ALERTS[name]["search"]
    assert {"signal", "host", "component"} <= set(action_columns(spl, re.search(r'signal="(\w+)"', spl).group(1)))


@pytest.mark.parametrize("name", sorted(ALERTS))
def test_alert_shape_for_the_paged_admin(name):
    st = ALERTS[name]
    spl = st["search"]
    desc = st.get("description", "")
    assert len(desc) > 200 and "Stage:" in desc and "Symptom:" in desc and "Urgency:" in desc \
        and "First check:" in desc
    used_thresholds = set(re.findall(r"`(ingest_doctor_[a-z_]+)`", spl)) & {s.macro for s in thresholds.SETTINGS}
    assert used_thresholds and all(m in desc for m in used_thresholds), used_thresholds
    # cron every 1 to 5 minutes (staggered: an offset M-59/N off minute 0), a window that covers it
    m = re.match(r"^(\*|\*/([1-5])|[1-4]-59/([1-5])|[0-9,]+) \* \* \* \*$", st["cron_schedule"])
    assert m, st["cron_schedule"]
    every = int(m.group(2) or m.group(3) or 1)
    win = re.match(r"^-(\d+)m$", st["dispatch.earliest_time"])
    assert win and int(win.group(1)) >= every and st["dispatch.latest_time"] == "now"
    assert int(win.group(1)) == thresholds.BY_NAME["sustained_window_min"].default
    assert "`ingest_doctor_alert_window`" in spl          # the search itself follows the macro
    runs_our_action_in_digest_mode(st)
    assert "action.email" not in st


def test_each_alert_ends_in_its_own_hook():
    hooks = [own_hook(st["search"]) for st in ALERTS.values()]
    assert len(set(hooks)) == len(hooks)


@pytest.mark.parametrize("name", sorted(SAVED))
def test_no_threshold_literal_and_index_only_through_macros(name):
    plain = re.sub(r'"(?:[^"\\]|\\.)*"', '""', SAVED[name]["search"])
    # a comparison against a literal above 1 would be a second copy of a threshold
    for m in re.finditer(r"(\w+)\s*(>=|<=|>|<)\s*(\d+(?:\.\d+)?)", plain):
        assert float(m.group(3)) <= 1, "%s: literal threshold %s" % (name, m.group(0))
    assert not re.search(r"\bindex\s*=", plain)


def test_resolve_search_hands_stale_findings_to_the_action_and_writes_nothing():
    """Issue 35, defect 7: the housekeeping search used to write its copy of the records back
    (outputlookup) outside the action's lock, and could resolve a finding flagged meanwhile. It now
    lists them for the action, which resolves them under its lock; no shipped search writes the store."""
    (st,) = HOUSEKEEPING.values()
    spl = st["search"]
    assert "`ingest_doctor_resolve_after_min`" in spl and spl.startswith("| inputlookup ingest_doctor_findings")
    # the keepers and Silence (issue 35) write lookups of their own; none writes the findings store
    writers = [k for k, v in SAVED.items() if re.search(r"outputlookup\b[^|]*\bingest_doctor_findings\b", v["search"])]
    assert not writers, writers
    assert set(action_columns(spl, "stale")) - {"signal"} <= lookup_fields("ingest_doctor_findings")
    # one action run with every stale record, only when there is one; no Triggered Alerts entry
    runs_our_action_in_digest_mode(st)
    assert st["alert.track"] == "false"
    assert (st["counttype"], st["relation"], st["quantity"]) == ("number of events", "greater than", "0")


def test_collection_lookup_and_store_agree():
    coll = read_conf(os.path.join(ROOT, "default", "collections.conf"))["ingest_doctor_findings"]
    assert {k[len("field."):] for k in coll if k.startswith("field.")} == set(alert_store.FIELDS)
    assert lookup_fields("ingest_doctor_findings") == {"_key"} | set(alert_store.FIELDS)
    st = TRANSFORMS["ingest_doctor_findings"]
    assert st["external_type"] == "kvstore" and st["collection"] == alert_store.COLLECTION


def test_reply_code_lookup_covers_every_code():
    rows = lookup_rows("ingest_doctor_hec_reply_codes.csv")
    assert [int(r["reply"]) for r in rows] == list(range(28))
    assert {r["reply"]: r["http_status"] for r in rows}["9"] == "503"
    assert all(r["meaning"] and r["action"] for r in rows)
    assert all(rows[c]["http_status"] == "503" for c in (18, 19, 20))
    assert all(rows[c]["http_status"] == "429" for c in (26, 27))
    assert [int(r["reply"]) for r in rows if r["backpressure"] == "1"] == [9, 18, 19, 20, 26, 27]


def test_alert_action_conf_and_spec_agree():
    actions = read_conf(os.path.join(ROOT, "default", "alert_actions.conf"))
    conf = actions["ingest_doctor_flag"]
    assert conf["is_custom"] == "1" and conf["payload_format"] == "json"
    assert conf["python.version"] == "python3.9" and conf["python.required"] == "3.13"
    params = {k for k in conf if k.startswith("param.")}
    spec_text = open(os.path.join(ROOT, "README", "alert_actions.conf.spec"), encoding="utf-8").read()
    # each action's stanza of the spec (ingest_doctor_hold, issue 39, has one of its own)
    stanzas = dict(re.findall(r"^\[(\w+)\]\n(.*?)(?=^\[|\Z)", spec_text, re.M | re.S))
    hold = {k for k in actions["ingest_doctor_hold"] if k.startswith("param.")}
    assert hold == set(re.findall(r"^(param\.\w+) =", stanzas["ingest_doctor_hold"], re.M))
    assert params == set(re.findall(r"^(param\.\w+) =", stanzas["ingest_doctor_flag"], re.M)) == \
        {"param.min_severity", "param.webhook_url", "param.index", "param.web_messages", "param.log_level",
         "param.message_roles"}
    html = open(os.path.join(ROOT, "default", "data", "ui", "alerts", "ingest_doctor_flag.html"),
                encoding="utf-8").read()
    # the log level and the message roles are the app's settings (alert_actions.conf), not per-alert choices
    assert 'param.log_level"' not in html and 'param.message_roles"' not in html
    for p in params - {"param.log_level", "param.message_roles"}:
        assert 'name="action.ingest_doctor_flag.%s"' % p in html
    assert os.path.isfile(os.path.join(ROOT, "appserver", "static", conf["icon_path"]))


def test_splcheck_passes_on_the_alerts():
    ctx = splcheck.load_context(ROOT)
    for name, st in SAVED.items():
        assert splcheck.check_search(st["search"], ctx) == [], name
    for name, st in MACROS.items():
        if name.startswith("ingest_doctor_filter_") or name == "ingest_doctor_alert_window":
            assert splcheck.check_search(st["definition"], ctx, in_macro=True) == [], name


# ---------------------------------------------------------------------------- the collector findings relay
def test_one_relay_of_collector_findings_every_two_minutes():
    assert len(RELAY) == 1, sorted(RELAY)
    st = list(RELAY.values())[0]
    spl = st["search"]
    # cheap: the tiny finding sourcetype through the events index macro, the collector's only
    assert spl.startswith('`ingest_doctor_events_index` sourcetype="ingest_doctor:finding" detected_by="collector"')
    # every 2 minutes with a 1-minute schedule window (Splunk's spec: a window shorter than the period,
    # none for a search that runs every minute), so the scheduler delays a run rather than skip it
    assert st["cron_schedule"] == "1-59/2 * * * *" and st["schedule_window"] == "1"
    # selected by index time (issue 20), the index-time window covering the period, the schedule window
    # and skipped runs (issue 35): an event indexed minutes after its _time still meets a run, and a run
    # after three skipped ones still reads what they would have; the _time range bounds the buckets
    # read, and how late a finding may be indexed and still be relayed
    m = re.search(r"_index_earliest=-(\d+)m _index_latest=now", spl)
    assert m and int(m.group(1)) >= 4 * 2 + 1
    assert st["dispatch.earliest_time"] == "-2h" and st["dispatch.latest_time"] == "now"
    assert "last_time" in action_columns(spl, "finding")
    # tracked in Triggered Alerts, in digest mode, not throttled (issue 35): its finding rows and the
    # tcpin/tcpout rows that link them meet in one action run, which stores an event once
    runs_our_action_in_digest_mode(st)
    assert st["alert.track"] == "true"
    assert own_hook(spl) == "ingest_doctor_filter_collector_findings"


def test_back_pressure_codes_come_from_the_model_once():
    codes = [c.code for c in model.HEC_CODES if c.backpressure]
    assert codes == list(model.HEC_BACKPRESSURE_CODES) and 9 in codes
    terms = MACROS["ingest_doctor_hec_backpressure_terms"]["definition"]
    assert terms == "(" + " OR ".join("TERM(reply=%d)" % c for c in codes) + ")"
    spl = SAVED["Ingest Doctor - HEC - Server busy"]["search"]
    assert "`ingest_doctor_hec_backpressure_terms`" in spl
    assert "lookup ingest_doctor_hec_reply_codes reply AS code OUTPUT backpressure" in spl
    for name, st in SAVED.items():          # no reply or health code written by hand in any search
        assert not re.search(r"reply=\d|\bcode\s*(?:[<>]=?|==?)\s*\d", st["search"]), name


def test_the_ambiguous_proc_hec_name_is_never_the_hec_data_thread():
    """Issue 12: the collector's `httpinputserver` (/proc's 15 characters of the HEC data AND
    management threads) gets no stage and a label saying so; only the full name ranks as HEC."""
    (proc_name,) = [k for k, v in threadnames.AMBIGUOUS.items() if model.HEC_THREAD in v]
    spl = SAVED["Ingest Doctor - Thread - Saturated splunkd thread"]["search"]
    assert 'hec_first=if(thread=="%s", 0, 1)' % model.HEC_THREAD in spl
    assert re.search(r'eval label=if\(thread=="%s", "HEC data or management thread[^"]*not judged as the HEC '
                     r'data thread[^"]*", label\)' % proc_name, spl)
    members = {r["member"] for r in lookup_rows("ingest_doctor_pipeline.csv")}
    assert model.HEC_THREAD in members and proc_name not in members      # no stage for the /proc name
    assert "ingest_doctor.thread.busy_pct" in spl and "metrics.log group=dutycycle" in spl
