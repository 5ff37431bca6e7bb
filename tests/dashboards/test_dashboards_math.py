"""The math and parsing the dashboard searches rely on, run in Python on real-shaped lines.

Lines are written here in the shapes of ../shared/reference/data-shapes.md (3.2): metrics.log
key=value pairs separated by ", ". The dutycycle long layout (thread=/ratio=) and the field
order around ingest_pipe/blocked are UNVERIFIED there: the searches parse by key, never by
position, and these tests do the same.
"""
from __future__ import annotations

import csv
import os
import re

import pytest

from fakes.paths import ROOT
from ingest_doctor import thresholds

PREFIX = "11-22-2026 03:40:57.123 +0000 INFO  Metrics - "


def macro(name):
    text = open(os.path.join(ROOT, "default", "macros.conf"), encoding="utf-8").read()
    return re.search(r"^\[%s\]\ndefinition = (.*)$" % re.escape(name), text, re.M).group(1)


def spl_regex(pattern):
    """An SPL rex pattern (PCRE, inside a quoted string) as a Python regex."""
    return re.compile(pattern.replace("(?<", "(?P<"))


def kv(line):
    """Splunk's automatic key=value extraction of a metrics.log line."""
    return dict(re.findall(r"([A-Za-z_][\w.]*)=([^,\s]+)", line.split(" - ", 1)[1]))


def dutycycle_rows(line):
    """ingest_doctor_dutycycle_samples (ingest_doctor_dutycycle_rows before its per-minute max), step by step:
    (thread, busy % of one core) pairs."""
    assert macro("ingest_doctor_dutycycle_rows").startswith("`ingest_doctor_dutycycle_samples`")
    definition = macro("ingest_doctor_dutycycle_samples")
    first = re.match(r'rex max_match=0 "(.*?)" \|', definition).group(1)
    second = re.search(r'rex field=dc_pairs "(.*?)"', definition).group(1)
    fields = kv(line)
    dc_pair = [m.group("dc_pair") for m in spl_regex(first).finditer(line)]
    if "thread" in fields and "ratio" in fields:
        pairs = [fields["thread"] + "=" + fields["ratio"]]
    elif fields.get("name") == "misc":
        pairs = dc_pair
    else:
        pairs = []
    out = []
    for p in pairs:
        m = spl_regex(second).match(p)
        out.append((m.group("dc_thread").lower(), round(float(m.group("dc_ratio")) * 100, 1)))
    return out


def test_dutycycle_wide_layout_thread_names_are_keys():
    line = PREFIX + ("group=dutycycle, name=misc, mgmt_httpd=0.002, reaper=0.000, saved_search_fetcher=0.001, "
                     "savedsplunker=0.000, tail=0.091, udpin=0.000")
    rows = dutycycle_rows(line)
    assert rows == [("mgmt_httpd", 0.2), ("reaper", 0.0), ("saved_search_fetcher", 0.1), ("savedsplunker", 0.0),
                    ("tail", 9.1), ("udpin", 0.0)]
    # neither group=/name= nor the timestamp's "57.123" is taken for a thread
    assert not any(t in ("group", "name", "57") for t, _ in rows)


def test_dutycycle_long_layout_is_one_row_per_thread_in_percent_of_one_core():
    line = PREFIX + "group=dutycycle, name=ingest, ingest_pipe=1, thread=HttpInputServerDataThread, ratio=0.987"
    assert dutycycle_rows(line) == [("httpinputserverdatathread", 98.7)]


def test_dutycycle_other_names_without_thread_are_ignored():
    assert dutycycle_rows(PREFIX + "group=dutycycle, name=ingest, ingest_pipe=0, busy=0.5") == []


def tsidx_terms(line):
    """Terms as tstats sees them: split on major breakers (space, comma, quotes, brackets)."""
    return [t for t in re.split(r"[\s,\"'\[\](){};]+", line) if t]


def tstats_prefix(lines, prefix):
    """sum(PREFIX(prefix)) over events: None when no event has the term (as tstats)."""
    vals = [float(t[len(prefix):]) for line in lines for t in tsidx_terms(line) if t.startswith(prefix)]
    return sum(vals) if vals else None


def fill_pct(lines):
    cur_kb, max_kb = tstats_prefix(lines, "current_size_kb="), tstats_prefix(lines, "max_size_kb=")
    cur_b, max_b = tstats_prefix(lines, "current_size="), tstats_prefix(lines, "max_size=")
    # the macro: coalesce(cur_kb/max_kb, cur_b/max_b); a division with a null side is null
    ratio = cur_kb / max_kb if cur_kb is not None and max_kb else None
    if ratio is None and cur_b is not None and max_b:
        ratio = cur_b / max_b
    return round(ratio * 100, 1) if ratio is not None else None


def test_queue_fill_reads_kb_fields_and_not_the_event_count():
    line = PREFIX + ("group=queue, name=typingqueue, ingest_pipe=1, blocked=true, max_size_kb=500, "
                     "current_size_kb=499, current_size=1873, largest_size=1900, smallest_size=1700")
    # PREFIX(current_size=) must not match current_size_kb= (the prefix includes "=")
    assert tstats_prefix([line], "current_size=") == 1873
    assert fill_pct([line]) == 99.8
    assert "TERM(group=queue)" in open(os.path.join(ROOT, "default", "data", "ui", "views",
                                                    "ingest_doctor_pipeline_sets.xml")).read()
    assert "group=queue" in tsidx_terms(line) and "blocked=true" in tsidx_terms(line)


def test_queue_fill_of_byte_sized_tcpout_queues():
    line = PREFIX + ("group=queue, name=tcpout_splunk_indexers, max_size=512000, current_size=507329, "
                     "largest_size=507329, smallest_size=507329")
    assert fill_pct([line]) == 99.1


def test_two_samples_in_a_bucket_give_the_average_fill():
    a = PREFIX + "group=queue, name=indexqueue, max_size_kb=500, current_size_kb=500, current_size=10"
    b = PREFIX + "group=queue, name=indexqueue, max_size_kb=500, current_size_kb=0, current_size=0"
    assert fill_pct([a, b]) == 50.0


def test_every_metrics_queue_maps_to_one_stage():
    rows = list(csv.DictReader(open(os.path.join(ROOT, "lookups", "ingest_doctor_pipeline.csv"))))
    for q in ("parsingqueue", "aggqueue", "typingqueue", "indexqueue", "tcpout"):
        stages = {(r["stage"], r["stage_order"]) for r in rows if r["metrics_queue"] == q}
        assert len(stages) == 1, (q, stages)  # mvindex(stage, 0) is then the stage
    order = {r["metrics_queue"]: int(r["stage_order"]) for r in rows if r["metrics_queue"]}
    assert order["parsingqueue"] < order["aggqueue"] < order["typingqueue"] < order["indexqueue"] < order["tcpout"]


def chain_bottleneck(fills, threshold=thresholds.defaults().queue_fill_pct):
    """ds_chain: the stage draining the last full queue in the chain, or none."""
    rows = list(csv.DictReader(open(os.path.join(ROOT, "lookups", "ingest_doctor_pipeline.csv"))))
    order = {r["stage"]: int(r["stage_order"]) for r in rows if r["queue"]}
    full = [order[s] for s, f in fills.items() if f >= threshold]
    last = max(full) if full else 0
    return next((s for s in fills if order[s] == last), "none") if last else "none"


def test_bottleneck_is_the_stage_draining_the_last_full_queue():
    assert chain_bottleneck({"parsing": 100, "merging": 100, "typing": 100, "indexing": 30}) == "typing"
    assert chain_bottleneck({"parsing": 100, "merging": 100, "typing": 99, "indexing": 95}) == "indexing"
    assert chain_bottleneck({"parsing": 40, "merging": 12, "typing": 8, "indexing": 5}) == "none"


def test_rates_from_per_interval_counters():
    # _introspection HEC counters cover 60 s each: a 1-minute bucket summed / 60 is per second
    events_in_minute = 312000
    assert events_in_minute / 60 == 5200
    # metrics.log group=pipeline cpu_seconds every 30 s: two samples in a 1-minute span / 60 * 100
    # is % of one core (the MC's per_second(cpu_seconds*100))
    assert round((29.4 + 29.7) / 60 * 100, 1) == 98.5


@pytest.mark.parametrize("name", ["thread_busy_pct", "queue_fill_pct", "hec_latency_ms", "regex_cpu_share_pct"])
def test_threshold_macros_exist_with_the_python_defaults(name):
    assert float(macro("ingest_doctor_" + name)) == float(getattr(thresholds.defaults(), name))
