#!/usr/bin/env python3
"""Write every scenario snapshot folder next to this file (hand-made, real shapes).

    python3 tests/scenarios/build.py          # rewrite them
    python3 tests/scenarios/build.py --check  # exit 1 if a committed folder differs

Each scenario is a function returning a Snap; see README.md for what each one shows.
"""
from __future__ import annotations

import calendar
import filecmp
import os
import shutil
import sys
import tempfile
import time
from typing import Dict, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from fakes.snapbuilder import (T0, Snap, dutycycle_long, dutycycle_wide, maxkbps_line, paused_line,  # noqa: E402
                               pipeline_lines, pipelineset_line, queue_line, tcpout_line, thruput_lines, times,
                               wobble)

QUIET_QUEUES = {"parsingqueue": 3.0, "aggqueue": 1.0, "typingqueue": 2.0, "indexqueue": 4.0}
REST_QUIET = {"parsingQueue": (2, 3, 2, 2), "aggQueue": (0, 1, 1, 1), "typingQueue": (1, 2, 2, 2),
              "indexQueue": (3, 4, 4, 4)}
MINUTES = 12


def _queues(s: Snap, t: float, i: int, pset, fills, blocked=()):
    for q, f in fills.items():
        queue_line(s, t, pset, q, max(0.0, min(100.0, f + wobble(i, 1.5))), q in blocked)


def hec_forwarder(name: str, io_threads: str) -> Snap:
    s = Snap(name)
    s.server_info(16, ["heavyweight_forwarder"]).resources(16, 18.0, 104.0).http(io_threads, tokens=("app", "k8s"))
    s.queues({None: REST_QUIET}).indexer().server_general().server_queue().tcpout("true")
    s.pipelinesets({0: ("typing", 0.21)})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, QUIET_QUEUES)
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.985 + wobble(i, 0.004), "tail": 0.012,
                              "mgmt_httpd": 0.003, "reaper": 0.0, "udpin": 0.0})
        dutycycle_long(s, t, None, {"parsing": 0.18, "merging": 0.12, "typing": 0.21, "indexerpipe": 0.15})
        thruput_lines(s, t, None, {"app:json": 5210.0, "k8s:json": 2900.5})
    s.probes = [{"time": T0 - 30 * k, "status": 200, "rtt_ms": 41.0 + k,
                 "body": {"text": "HEC is healthy", "code": 17}} for k in range(5, 0, -1)]
    return s


def hec_pegged_default_io() -> Snap:
    return hec_forwarder("hf-01", "2")


def hec_pegged_io_raised() -> Snap:
    return hec_forwarder("hf-02", "8")


def typing_regex_hidden() -> Snap:
    s = Snap("idx-24c")
    s.server_info(24, ["indexer"]).resources(24, 6.5, 102.5).indexer()
    s.queues({None: {"parsingQueue": (100, 99, 97, 96), "aggQueue": (98, 97, 96, 95),
                     "typingQueue": (100, 99, 98, 97), "indexQueue": (2, 3, 3, 3)}})
    s.server_general().server_queue()
    s.props({"cisco:asa": {"SHOULD_LINEMERGE": "false", "TIME_FORMAT": "%b %d %H:%M:%S",
                           "MAX_TIMESTAMP_LOOKAHEAD": "20",
                           "TRANSFORMS-asa_route": "asa_route_by_severity, asa_mask_user",
                           "SEDCMD-strip": "s/\\s+$//"},
             "pan:traffic": {"SHOULD_LINEMERGE": "false", "TIME_FORMAT": "%Y/%m/%d %H:%M:%S",
                             "MAX_TIMESTAMP_LOOKAHEAD": "24", "TRANSFORMS-pan_route": "pan_route_by_type"},
             "syslog": {"SHOULD_LINEMERGE": "false", "TIME_FORMAT": "%b %d %H:%M:%S"}})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 97.0, "aggqueue": 96.0, "typingqueue": 98.5, "indexqueue": 3.0})
        pipeline_lines(s, t, None, {"typing": {"regexreplacement": 26.4 + wobble(i, 0.3), "annotator": 1.6},
                                    "parsing": {"linebreaker": 4.1, "utf8": 1.2},
                                    "merging": {"aggregator": 3.2}, "indexerpipe": {"indexer": 5.5}})
        dutycycle_long(s, t, None, {"parsing": 0.22, "merging": 0.14, "typing": 0.982, "indexerpipe": 0.19})
        for st, cpu in (("cisco:asa", 15400.0), ("pan:traffic", 7100.0), ("syslog", 310.0)):
            s.metric(t, 'group=per_sourcetype_regex_cpu, series="%s", cpu=%.3f, cpupe=%.5f, bytes=%d, ev=%d'
                     % (st, cpu, cpu / 40000, 41000000, 40000))
        thruput_lines(s, t, None, {"cisco:asa": 9100.0, "pan:traffic": 6100.0, "syslog": 410.0})
    return s


def merging_linemerge() -> Snap:
    s = Snap("hf-merge")
    s.server_info(8, ["heavyweight_forwarder"]).resources(8, 22.0, 101.0).indexer()
    s.queues({None: {"parsingQueue": (100, 99, 98, 97), "aggQueue": (99, 99, 97, 96),
                     "typingQueue": (4, 5, 6, 6), "indexQueue": (1, 2, 2, 2)}})
    s.server_general().server_queue().tcpout("true")
    s.props({"custom:java": {}, "app:log": {"TIME_PREFIX": "^\\["},
             "access_combined": {"SHOULD_LINEMERGE": "false", "TIME_PREFIX": "\\[",
                                 "TIME_FORMAT": "%d/%b/%Y:%H:%M:%S %z", "MAX_TIMESTAMP_LOOKAHEAD": "28"}})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 98.0, "aggqueue": 97.5, "typingqueue": 5.0, "indexqueue": 2.0})
        pipeline_lines(s, t, None, {"merging": {"aggregator": 28.9 + wobble(i, 0.2)},
                                    "parsing": {"linebreaker": 3.0}, "typing": {"regexreplacement": 1.0}})
        dutycycle_long(s, t, None, {"parsing": 0.31, "merging": 0.975, "typing": 0.08})
        thruput_lines(s, t, None, {"custom:java": 3900.0, "app:log": 2200.0, "access_combined": 900.0})
    return s


def indexer(name: str, host_cpu: float) -> Snap:
    s = Snap(name)
    s.server_info(16, ["indexer", "cluster_peer"]).resources(16, host_cpu, 180.0 if host_cpu < 50 else 1450.0)
    s.indexer(kbps=20400.0)
    s.queues({None: {"splunktcpin": (99, 98, 97, 97), "parsingQueue": (100, 99, 98, 97),
                     "aggQueue": (99, 98, 97, 96), "typingQueue": (100, 99, 98, 98), "indexQueue": (100, 99, 99, 98)}})
    s.server_general("1").server_queue().pipelinesets({0: ("indexerPipe", 0.99)})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"splunktcpin": 97.0, "parsingqueue": 98.0, "aggqueue": 97.0,
                                "typingqueue": 98.0, "indexqueue": 99.0})
        pipeline_lines(s, t, None, {"indexerpipe": {"indexer": 24.0, "indexandforward": 3.1, "index_thruput": 1.0},
                                    "typing": {"regexreplacement": 2.0}, "parsing": {"linebreaker": 2.0}})
        dutycycle_long(s, t, None, {"parsing": 0.28, "merging": 0.2, "typing": 0.31, "indexerpipe": 0.991})
        thruput_lines(s, t, None, {"linux:audit": 12000.0, "aws:cloudtrail": 8100.0})
    return s


def indexing_headroom() -> Snap:
    return indexer("idx-01", 32.0)


def indexing_no_headroom() -> Snap:
    return indexer("idx-02", 96.0)


def _output_full(name: str, host_cpu: float = 18.0, splunkd_cpu: float = 70.0) -> Snap:
    s = Snap(name)
    s.server_info(8, ["heavyweight_forwarder"]).resources(8, host_cpu, splunkd_cpu).indexer()
    s.queues({None: {"parsingQueue": (100, 99, 98, 98), "aggQueue": (99, 99, 98, 97),
                     "typingQueue": (100, 99, 98, 98), "indexQueue": (100, 100, 99, 99)}})
    s.server_general().tcpout("false", "10.0.0.11:9997,10.0.0.12:9997")
    return s


def _tcpout_queue(s: Snap, t: float, i: int, duty: Optional[Dict[str, float]] = None) -> None:
    _queues(s, t, i, None, {"parsingqueue": 98.0, "aggqueue": 97.0, "typingqueue": 98.0, "indexqueue": 99.0})
    # tcpout queues report bytes (max_size/current_size), not _kb, and say blocked=true when full.
    s.metric(t + 0.001, "group=queue, name=tcpout_splunk_indexers, blocked=true, max_size=512000, "
                        "current_size=%d, largest_size=512000, smallest_size=505112" % (511800 - i))
    dutycycle_long(s, t, None, duty or {"parsing": 0.08, "merging": 0.05, "typing": 0.09, "indexerpipe": 0.07})


def output_blocked() -> Snap:
    s = _output_full("hf-out", 15.0, 60.0).tcpout("false")
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i, {"parsing": 0.05, "merging": 0.04, "typing": 0.06, "indexerpipe": 0.05})
        if i % 4 == 0:
            paused_line(s, t, "idx1", 10 * (i + 1))
    return s


def one_of_four_blocked() -> Snap:
    s = Snap("idx-4p")
    s.server_info(32, ["indexer"]).resources(32, 41.0, 520.0).indexer()
    busy = {"parsingQueue": (100, 99, 98, 98), "aggQueue": (100, 99, 98, 97), "typingQueue": (100, 100, 99, 99),
            "indexQueue": (5, 6, 6, 6)}
    s.queues({p: (busy if p == 2 else REST_QUIET) for p in range(4)})
    s.server_general("4", "round_robin").server_queue()
    s.pipelinesets({0: ("indexerPipe", 0.12), 1: ("typing", 0.15), 2: ("typing", 0.995), 3: ("indexerPipe", 0.11)})
    s.props({"cisco:asa": {"SHOULD_LINEMERGE": "false", "TIME_FORMAT": "%b %d %H:%M:%S",
                           "MAX_TIMESTAMP_LOOKAHEAD": "20", "TRANSFORMS-asa_route": "asa_route_by_severity"}})
    for i, t in enumerate(times(MINUTES)):
        for p in range(4):
            if p == 2:
                _queues(s, t, i, p, {"parsingqueue": 98.0, "aggqueue": 97.0, "typingqueue": 100.0,
                                     "indexqueue": 5.0}, blocked=("typingqueue", "parsingqueue"))
                pipeline_lines(s, t, p, {"typing": {"regexreplacement": 27.5, "annotator": 1.1}})
                dutycycle_long(s, t, p, {"typing": 0.995, "indexerpipe": 0.2})
                pipelineset_line(s, t, p, "typing", 0.995, 0.25)
            else:
                _queues(s, t, i, p, QUIET_QUEUES)
                pipeline_lines(s, t, p, {"typing": {"regexreplacement": 2.5}})
                dutycycle_long(s, t, p, {"typing": 0.14, "indexerpipe": 0.12})
                pipelineset_line(s, t, p, "indexerPipe", 0.12, 0.25)
        s.metric(t, 'group=per_sourcetype_regex_cpu, ingest_pipe=2, series="cisco:asa", cpu=21000.000, '
                    'cpupe=0.52000, bytes=52000000, ev=40000')
        thruput_lines(s, t, 2, {"cisco:asa": 8800.0})
    return s


def indexer_throttled() -> Snap:
    s = Snap("idx-thr")
    s.server_info(16, ["indexer"]).resources(16, 12.0, 90.0)
    s.indexer("throttled", "Current free disk space on partition '/opt/splunk/var/lib/splunk' has fallen to 4096MB",
              kbps=0.0)
    s.queues({None: {"parsingQueue": (100, 100, 99, 99), "aggQueue": (100, 99, 99, 98),
                     "typingQueue": (100, 100, 99, 99), "indexQueue": (100, 100, 100, 100)}})
    s.server_general().server_queue()
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 99.0, "aggqueue": 99.0, "typingqueue": 99.0, "indexqueue": 100.0},
                blocked=("indexqueue",))
        dutycycle_long(s, t, None, {"parsing": 0.02, "typing": 0.03, "indexerpipe": 0.04})
        if i % 6 == 0:
            s.splunkd_line(t, "WARN", "IndexProcessor", "indexerPipe",
                           "The index processor has paused data flow. Current free disk space on partition "
                           "'/opt/splunk/var/lib/splunk' has fallen to 4096MB, below the minimum of 5000MB. "
                           "Data writes to index path '/opt/splunk/var/lib/splunk/main/db' cannot safely proceed. "
                           "Increase free disk space on partition '/opt/splunk/var/lib/splunk' by removing or "
                           "relocating data.", tid=4302)
    return s


def hec_503_downstream() -> Snap:
    s = Snap("hf-hec503")
    s.server_info(16, ["heavyweight_forwarder", "indexer"]).resources(16, 28.0, 160.0).http("2").indexer()
    s.queues({None: {"parsingQueue": (100, 99, 98, 98), "aggQueue": (99, 98, 98, 97),
                     "typingQueue": (100, 99, 98, 98), "indexQueue": (100, 99, 98, 98)}})
    s.server_general("1").server_queue().tcpout("true")
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 98.0, "aggqueue": 97.0, "typingqueue": 98.0, "indexqueue": 99.0})
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.41, "tail": 0.01})
        dutycycle_long(s, t, None, {"typing": 0.3, "indexerpipe": 0.987})
        s.splunkd_line(t, "ERROR", "HttpInputDataHandler", "HttpInputServerDataThread",
                       "Failed processing http input, token name=app, channel=n/a, source_IP=10.0.0.%d, reply=9, "
                       "events_processed=0, http_input_body_size=183414, parsing_err=\"Server is busy\"" % (20 + i % 7))
    s.probes = [{"time": T0 - 30 * k, "status": 503, "rtt_ms": 2.0 + k,
                 "body": {"text": "HEC is unhealthy, queues are full", "code": 18}} for k in range(6, 0, -1)]
    return s


def busy_healthy() -> Snap:
    s = Snap("idx-busy")
    s.server_info(16, ["indexer"]).resources(16, 55.0, 480.0).http("4").indexer(kbps=18000.0)
    s.queues({None: {"parsingQueue": (61, 55, 48, 46), "aggQueue": (40, 38, 35, 34),
                     "typingQueue": (52, 50, 45, 44), "indexQueue": (66, 60, 57, 55)}})
    s.server_general("2").server_queue().pipelinesets({0: ("indexerPipe", 0.71), 1: ("indexerPipe", 0.69)})
    for i, t in enumerate(times(MINUTES)):
        for p in (0, 1):
            _queues(s, t, i, p, {"parsingqueue": 55.0, "aggqueue": 38.0, "typingqueue": 50.0, "indexqueue": 62.0})
            pipeline_lines(s, t, p, {"indexerpipe": {"indexer": 19.5}, "typing": {"regexreplacement": 9.0}})
            dutycycle_long(s, t, p, {"parsing": 0.45, "typing": 0.58, "indexerpipe": 0.74 + wobble(i, 0.05)})
            pipelineset_line(s, t, p, "indexerPipe", 0.72, 0.5)
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.63, "tail": 0.02})
        thruput_lines(s, t, None, {"app:json": 9000.0})
    s.probes = [{"time": T0 - 30 * k, "status": 200, "rtt_ms": 12.0,
                 "body": {"text": "HEC is healthy", "code": 17}} for k in range(5, 0, -1)]
    return s


def transient_spike() -> Snap:
    s = Snap("idx-spike")
    s.server_info(16, ["indexer"]).resources(16, 30.0, 150.0).indexer()
    s.queues({None: {"parsingQueue": (12, 20, 8, 7), "aggQueue": (3, 4, 3, 3), "typingQueue": (10, 22, 9, 8),
                     "indexQueue": (4, 5, 4, 4)}})
    s.server_general().server_queue()
    ts_ = times(MINUTES)
    for i, t in enumerate(ts_):
        spike = i == len(ts_) - 9
        _queues(s, t, i, None, {"parsingqueue": 8.0, "aggqueue": 3.0,
                                "typingqueue": 96.0 if spike else 9.0, "indexqueue": 4.0})
        pipeline_lines(s, t, None, {"typing": {"regexreplacement": 29.5 if spike else 6.0}})
        dutycycle_long(s, t, None, {"typing": 0.993 if spike else 0.22, "indexerpipe": 0.3})
    return s


def partial() -> Snap:
    s = Snap("hf-partial")
    s.server_info(8, ["heavyweight_forwarder"])
    # Truncated mid-body (as a cut connection leaves it) and an HTML error page saved as .json.
    s.raw_rest("services/server/introspection/queues",
               '{"links":{},"origin":"https://127.0.0.1:8089/services/server/introspection/queues","entry":'
               '[{"name":"parsingQueue","content":{"current_size_bytes":5')
    s.raw_rest("services/server/pipelinesets",
               "<!doctype html><html><head><title>503 Service Unavailable</title></head><body><h1>Service "
               "Unavailable</h1></body></html>")
    s.metrics = ["this is not a metrics line", "\x00\x01garbage\xff",
                 "11-22-2025 09:59:30.000 +0000 INFO  Metrics - group=searchscheduler, dispatched=0, skipped=0",
                 "11-22-2025 09:59:30.000 +0000 INFO  Metrics - group=queue, name=parsingqueue"]
    return s


def _hec_probes(rtt: float):
    return [{"time": T0 - 30 * k, "status": 200, "rtt_ms": rtt + k % 3, "kind": "event",
             "body": {"text": "Success", "code": 0}} for k in range(8, 0, -1)]


def late_upstream() -> Snap:
    """Events indexed ~7 minutes late while every stage idles and HEC answers in ~15 ms: the sender."""
    s = Snap("hf-late")
    s.server_info(8, ["heavyweight_forwarder"]).resources(8, 9.0, 35.0).http("2", tokens=("otel",))
    s.queues({None: REST_QUIET}).indexer().server_general().server_queue().tcpout("true")
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, QUIET_QUEUES)
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.06, "tail": 0.01})
        dutycycle_long(s, t, None, {"parsing": 0.05, "merging": 0.04, "typing": 0.07, "indexerpipe": 0.06})
        thruput_lines(s, t, None, {"otel:logs": 310.0 + wobble(i, 20.0)}, age=420.0 + wobble(i, 30.0))
    s.probes = _hec_probes(14.0)
    return s


def late_typing_full() -> Snap:
    """Late events too, but typingQueue is full behind a pegged typing thread: Splunk is the bottleneck."""
    s = Snap("hf-late-typing")
    s.server_info(8, ["heavyweight_forwarder"]).resources(8, 30.0, 140.0).http("2", tokens=("otel",))
    s.queues({None: {"parsingQueue": (98, 97, 96, 96), "aggQueue": (97, 96, 95, 95),
                     "typingQueue": (99, 98, 97, 97), "indexQueue": (3, 4, 4, 4)}})
    s.indexer().server_general().server_queue().tcpout("true")
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 96.0, "aggqueue": 95.0, "typingqueue": 98.0, "indexqueue": 3.0})
        dutycycle_long(s, t, None, {"parsing": 0.2, "merging": 0.15, "typing": 0.985, "indexerpipe": 0.12})
        thruput_lines(s, t, None, {"otel:logs": 2400.0}, age=380.0 + wobble(i, 30.0))
    s.probes = _hec_probes(18.0)
    return s


def typing_headroom() -> Snap:
    """One pipeline set, typing at 60% of one core for 18,000 events/s, nothing saturated."""
    s = Snap("idx-room")
    s.server_info(16, ["indexer"]).resources(16, 28.0, 190.0).indexer()
    s.queues({None: REST_QUIET}).server_general().server_queue()
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, QUIET_QUEUES)
        dutycycle_long(s, t, None, {"parsing": 0.30, "merging": 0.20, "typing": 0.60 + wobble(i, 0.01),
                                    "indexerpipe": 0.45})
        # instantaneous_eps is 4 x the KB/s: 4,500 KB/s is 18,000 events/s.
        thruput_lines(s, t, None, {"cisco:asa": 3000.0, "syslog": 1500.0})
    return s


def typing_sets_at_cores() -> Snap:
    """Both pipeline sets' typing pegged on 8 cores with parallelIngestionPipelines 2 (4 threads a set):
    another set has no core to run on, even with host CPU at 55%."""
    s = Snap("hf-8c")
    s.server_info(8, ["heavyweight_forwarder"]).resources(8, 55.0, 440.0).indexer()
    full = {"parsingQueue": (97, 96, 95, 95), "aggQueue": (96, 95, 95, 94), "typingQueue": (99, 98, 97, 97),
            "indexQueue": (5, 6, 6, 6)}
    s.queues({0: full, 1: full}).server_general("2").server_queue().tcpout("true")
    s.pipelinesets({0: ("typing", 0.985), 1: ("typing", 0.98)})
    for i, t in enumerate(times(MINUTES)):
        for p in (0, 1):
            _queues(s, t, i, p, {"parsingqueue": 95.0, "aggqueue": 94.0, "typingqueue": 97.5, "indexqueue": 6.0})
            dutycycle_long(s, t, p, {"parsing": 0.3, "merging": 0.2, "typing": 0.98, "indexerpipe": 0.25})
            pipelineset_line(s, t, p, "typing", 0.98, 0.5)
            thruput_lines(s, t, p, {"cisco:asa": 2600.0})
    return s


def output_receivers_down() -> Snap:
    """tcpout full: 10.0.0.12 times out (the real AutoLoadBalancedConnectionStrategy wording), 10.0.0.11
    is connected but takes nothing."""
    s = _output_full("hf-rcv")
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i)
        tcpout_line(s, t, i, "10.0.0.11", 0.0)
        if i % 2 == 0:
            s.splunkd_line(t + 5, "WARN", "AutoLoadBalancedConnectionStrategy", "TcpOutEloop",
                           "Cooked connection to ip=10.0.0.12:9997 timed out", tid=107804)
        if i % 4 == 0:
            paused_line(s, t, "10.0.0.11", 10 * (i + 1))
    return s


def output_bandwidth() -> Snap:
    """tcpout full while both receivers take ~5,900 KB/s each, flat (~94 Mbit/s together), no errors."""
    s = _output_full("hf-wan")
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i)
        tcpout_line(s, t, i, "10.0.0.11", 5890.0 + wobble(i, 40.0))
        tcpout_line(s, t, i, "10.0.0.12", 5910.0 - wobble(i, 40.0))
        if i % 8 == 0:
            paused_line(s, t, "10.0.0.11", 10 * (i + 1))
    return s


def output_ssl_cloud() -> Snap:
    """A heavy forwarder sending to a Splunk Cloud stack over SSL (the credentials app's clientCert, useSSL
    left at legacy): tcpout full, both inputs endpoints taking ~1,200 KB/s each, flat. Judged alone it is the
    link or the stack's drain rate; `compressed` does not apply to SSL outputs (outputs.conf.spec) and
    useClientSSLCompression is on by default, so no compression is advised."""
    s = _output_full("hf-cloud")
    s.tcpout("false", "inputs1.acme.splunkcloud.com:9997,inputs2.acme.splunkcloud.com:9997", group="splunkcloud",
             clientCert="$SPLUNK_HOME/etc/apps/100_acme_splunkcloud/default/acme_server.pem",
             sslVerifyServerCert="true", sslCommonNameToCheck="*.acme.splunkcloud.com")
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i)
        tcpout_line(s, t, i, "52.1.10.21", 1190.0 + wobble(i, 15.0), "splunkcloud")
        tcpout_line(s, t, i, "52.1.10.22", 1210.0 - wobble(i, 15.0), "splunkcloud")
    return s


SIX = ["10.0.1.%d" % n for n in range(11, 17)]


def output_one_of_six() -> Snap:
    """autoLB over six indexers: 10.0.1.14 takes ~30 KB/s while the five others take ~6,000 KB/s each; five
    of the six paused lines name 10.0.1.14. Its queues are full: it is named as the cause (not the link, no
    compression), though it takes more than the absolute 1 KB/s a connection once had to fall under."""
    s = _output_full("hf-lb6")
    s.tcpout("false", ",".join("%s:9997" % ip for ip in SIX))
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i)
        for ip in SIX:
            tcpout_line(s, t, i, ip, 30.0 + wobble(i, 4.0) if ip == "10.0.1.14" else 6000.0 + wobble(i, 60.0))
        if i % 4 == 0:
            paused_line(s, t, "10.0.1.12" if i == 8 else "10.0.1.14", 10 * (i + 1))
    return s


def output_hung_useack() -> Snap:
    """useACK senders, three indexers: 10.0.2.13 accepts the connection but never acknowledges (hung): the
    real "Read operation timed out expecting ACK from ... in 300 seconds" lines name it, its connection carries
    nothing; the two others take ~4,000 KB/s. It is named (hung or full), not "down or unreachable"."""
    s = _output_full("hf-ack")
    s.tcpout("false", "10.0.2.11:9997,10.0.2.12:9997,10.0.2.13:9997", ack="true")
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i)
        for ip in ("10.0.2.11", "10.0.2.12", "10.0.2.13"):
            tcpout_line(s, t, i, ip, 0.0 if ip == "10.0.2.13" else 4000.0 + wobble(i, 50.0))
        if i % 4 == 0:
            s.splunkd_line(t + 3, "WARN", "TcpOutputProc", "indexerPipe",
                           "Read operation timed out expecting ACK from 10.0.2.13:9997 in 300 seconds.", tid=7812)
    return s


def flapping() -> Snap:
    """typingQueue full for one sample every 4 minutes, drained between; the typing thread at 86-88%,
    just under the 90% threshold, all along."""
    s = Snap("idx-flap")
    s.server_info(16, ["indexer"]).resources(16, 30.0, 220.0).indexer()
    s.queues({None: REST_QUIET}).server_general().server_queue()
    for i, t in enumerate(times(MINUTES)):
        burst = i % 8 == 5
        _queues(s, t, i, None, {"parsingqueue": 9.0, "aggqueue": 5.0, "typingqueue": 97.0 if burst else 12.0,
                                "indexqueue": 6.0})
        dutycycle_long(s, t, None, {"parsing": 0.3, "merging": 0.2, "typing": 0.87 + wobble(i, 0.01),
                                    "indexerpipe": 0.35})
        thruput_lines(s, t, None, {"cisco:asa": 3000.0})
    return s


def windows_hf() -> Snap:
    """A Windows heavy forwarder, one pipeline set (no ingest_pipe, no .N titles): hostwide without
    cpu_idle_pct or load average, splunkd.exe without process_type (both UNVERIFIED shapes); merging
    pegged behind a full aggQueue."""
    s = Snap("WIN-HF01")
    s.server_info(8, ["heavyweight_forwarder"]).indexer().server_general().server_queue().tcpout("true")
    s.rest("services/server/status/resource-usage/hostwide", [("hostwide", {
        "cpu_arch": "x86_64", "cpu_count": "8", "cpu_system_pct": "6.10", "cpu_user_pct": "14.30",
        "mem": "32768.000", "mem_used": "12000.000", "os_name": "Windows", "os_name_ext": "Windows Server 2019",
        "os_version": "10.0.17763", "splunk_version": "9.3.2", "virtual_cpu_count": "8"})])
    s.rest("services/server/status/resource-usage/splunk-processes", [
        ("splunkd.exe", {"args": "service", "elapsed": "86400.0000", "mem_used": "1900.000", "pct_cpu": "118.00",
                         "pid": "3120", "ppid": "612", "process": "splunkd.exe", "status": "R", "t_count": "140"})])
    s.queues({None: {"parsingQueue": (99, 98, 97, 97), "aggQueue": (99, 98, 98, 97), "typingQueue": (2, 3, 3, 3),
                     "indexQueue": (1, 2, 2, 2)}})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 97.0, "aggqueue": 98.0, "typingqueue": 3.0, "indexqueue": 2.0})
        dutycycle_long(s, t, None, {"parsing": 0.25, "merging": 0.975, "typing": 0.2, "indexerpipe": 0.1})
        thruput_lines(s, t, None, {"WinEventLog:Security": 1900.0})
    return s


def maxkbps_windows_uf() -> Snap:
    """A Windows universal forwarder at its limits.conf [thruput] maxKBps = 256 (the UF default): parsingQueue
    full, every thread under 10%, its thruput flat at ~255 KB/s, ThruputProcessor's "Current data throughput
    (256 kb/s) has reached maxKBps" lines (wording as Splunk Answers threads quote it). Once read as a parsing
    bottleneck; the cap is the root, with the setting and its value."""
    s = Snap("WIN-UF07")
    s.server_info(4, ["universal_forwarder"]).server_general().limits_thruput("256")
    s.tcpout("false", "10.0.3.11:9997,10.0.3.12:9997")
    s.rest("services/server/status/resource-usage/hostwide", [("hostwide", {
        "cpu_arch": "x86_64", "cpu_count": "4", "cpu_system_pct": "3.10", "cpu_user_pct": "6.20",
        "mem": "16384.000", "mem_used": "6100.000", "os_name": "Windows", "os_name_ext": "Windows 10 Enterprise",
        "os_version": "10.0.19045", "splunk_version": "9.2.1", "virtual_cpu_count": "4"})])
    s.queues({None: {"parsingQueue": (100, 99, 98, 98)}})
    for i, t in enumerate(times(MINUTES)):
        queue_line(s, t, None, "parsingqueue", 98.0 + wobble(i, 1.0), True)
        dutycycle_long(s, t, None, {"parsing": 0.04, "tailreader0": 0.05})
        kbps = 255.2 + wobble(i, 0.6)
        s.metric(t, "group=thruput, name=thruput, instantaneous_kbps=%.3f, instantaneous_eps=%.3f, "
                    "average_kbps=%.3f, total_k_processed=%.3f, kb=%.3f, ev=%d, load_average=0.40"
                 % (kbps, kbps * 2.5, kbps, 2000000.0 + kbps * 30 * i, kbps * 30, int(kbps * 75)))
        tcpout_line(s, t, i, "10.0.3.11" if i % 2 else "10.0.3.12", kbps)
        if i % 3 == 0:
            maxkbps_line(s, t + 7, kbps)
    return s


def sticky_uf_one_receiver() -> Snap:
    """A universal forwarder with three receivers in outputs.conf sends only to 10.0.4.11 for the whole
    12 minutes (~900 KB/s of app:trades, a file it never stops reading, no EVENT_BREAKER): nothing is full,
    so no problem here, but autoLB never switches: an info finding naming EVENT_BREAKER_ENABLE/EVENT_BREAKER
    and forceTimebasedAutoLB (the receiver's pipeline-set imbalance has its cause here)."""
    s = Snap("uf-trades")
    s.server_info(4, ["universal_forwarder"]).resources(4, 12.0, 18.0).server_general()
    s.tcpout("false", "10.0.4.11:9997,10.0.4.12:9997,10.0.4.13:9997")
    s.props({"app:trades": {"SHOULD_LINEMERGE": "false", "LINE_BREAKER": "([\\r\\n]+)(?=\\d{4}-\\d{2}-\\d{2})"}})
    s.queues({None: {"parsingQueue": (2, 3, 2, 2)}})
    for i, t in enumerate(times(MINUTES)):
        queue_line(s, t, None, "parsingqueue", 3.0 + wobble(i, 1.0))
        dutycycle_long(s, t, None, {"parsing": 0.06, "tailreader0": 0.09})
        thruput_lines(s, t, None, {"app:trades": 900.0 + wobble(i, 10.0)})
        tcpout_line(s, t, i, "10.0.4.11", 900.0 + wobble(i, 10.0))
    return s


def hec_503_output_bursts() -> Snap:
    """A HEC heavy forwarder load-balancing over six indexers, one of them saturated: during its turns there
    (one sample in four) tcpout and the queues behind it fill and HEC answers reply=9 / health code 18, then
    drain. The HEC thread is 20-41% busy. Once a `hec_input` root with dedicatedIoThreads raised; the refusals
    are the output bursts' symptom."""
    s = Snap("hf-burst")
    s.server_info(16, ["heavyweight_forwarder"]).resources(16, 22.0, 130.0).http("2", tokens=("app",)).indexer()
    s.queues({None: REST_QUIET}).server_general().server_queue()
    s.tcpout("false", ",".join("%s:9997" % ip for ip in SIX))
    for i, t in enumerate(times(MINUTES)):
        burst = i % 4 == 3
        fill = 99.0 if burst else 12.0
        _queues(s, t, i, None, {"parsingqueue": fill, "aggqueue": fill, "typingqueue": fill,
                                "indexqueue": fill}, blocked=("indexqueue",) if burst else ())
        s.metric(t + 0.001, "group=queue, name=tcpout_splunk_indexers, %smax_size=512000, current_size=%d, "
                            "largest_size=512000, smallest_size=0" % ("blocked=true, " if burst else "",
                                                                      511800 if burst else 40000))
        dutycycle_wide(s, t, {"httpinputserverdatathread": 0.20 + 0.21 * ((i * 5) % 7) / 6.0, "tail": 0.01})
        dutycycle_long(s, t, None, {"parsing": 0.15, "merging": 0.1, "typing": 0.18, "indexerpipe": 0.12})
        if burst:
            for k in range(6):
                s.splunkd_line(t + k, "ERROR", "HttpInputDataHandler", "HttpInputServerDataThread",
                               "Failed processing http input, token name=app, channel=n/a, source_IP=10.0.5.%d, "
                               "reply=9, events_processed=0, http_input_body_size=183414, parsing_err=\"Server is "
                               "busy\"" % (20 + k))
    s.probes = [{"time": T0 - 30 * k, "status": 503 if k % 4 == 0 else 200, "rtt_ms": 2.0 + k,
                 "body": {"text": "HEC is unhealthy, queues are full", "code": 18} if k % 4 == 0 else
                 {"text": "HEC is healthy", "code": 17}} for k in range(12, 0, -1)]
    return s


FORBIDDEN = ('{"messages":[{"type":"ERROR","text":"You (user=svc-ingest) do not have permission to perform this '
             'operation (requires capability: admin_all_objects)."}]}')


def cloud_restricted() -> Snap:
    """Splunk Cloud-like: every configs/conf-* endpoint answers 403; metrics.log has a 5-minute gap and
    a batch written out of order. typingQueue full behind a pegged typing thread all the same."""
    s = typing_regex_hidden()
    s.host = "idx-cloud"
    s.server_info(24, ["indexer"])
    for path in ("services/configs/conf-server/general", "services/configs/conf-server/queue",
                 "services/configs/conf-props", "services/configs/conf-outputs/tcpout"):
        s.rest_bodies.pop(path, None)
        s.raw_rest(path, FORBIDDEN)
    gap = (T0 - 9 * 60, T0 - 4 * 60)
    kept = [l for l in s.metrics if not gap[0] <= _line_time(l) < gap[1]]
    late = [l for l in kept if T0 - 60 <= _line_time(l) < T0 - 30]
    s.metrics = [l for l in kept if l not in late]
    s.metrics[-40:-40] = late       # a batch written after later ones
    return s


def _line_time(line: str) -> float:
    return calendar.timegm(time.strptime(line[:19], "%m-%d-%Y %H:%M:%S"))


def sticky_set() -> Snap:
    """Three pipeline sets, round_robin: set 0 carries ~80% of the events (one long-lived forwarder
    connection), its typing at 72% of one core; sets 1 and 2 nearly idle. Nothing saturated."""
    s = Snap("idx-sticky")
    s.server_info(16, ["indexer"]).resources(16, 25.0, 190.0).indexer()
    s.queues({p: REST_QUIET for p in range(3)}).server_general("3", "round_robin").server_queue()
    s.pipelinesets({0: ("typing", 0.72), 1: ("indexerPipe", 0.09), 2: ("indexerPipe", 0.08)})
    for i, t in enumerate(times(MINUTES)):
        for p, typing, kbps in ((0, 0.72, 4000.0), (1, 0.08, 520.0), (2, 0.07, 480.0)):
            _queues(s, t, i, p, QUIET_QUEUES)
            dutycycle_long(s, t, p, {"parsing": typing / 2, "typing": typing + wobble(i, 0.01),
                                     "indexerpipe": typing / 1.8})
            thruput_lines(s, t, p, {"fwd:stream": kbps})
    return s


def two_sets_two_stages() -> Snap:
    """Two bottlenecks at once: set 0's typing pegged behind a full typingQueue, set 1's indexing pegged
    behind a full indexQueue, host CPU 40% of 16 cores."""
    s = Snap("idx-two")
    s.server_info(16, ["indexer"]).resources(16, 40.0, 300.0).indexer()
    s.queues({0: {"parsingQueue": (96, 95, 95, 95), "aggQueue": (95, 95, 94, 94), "typingQueue": (99, 98, 97, 97),
                  "indexQueue": (4, 5, 5, 5)},
              1: {"parsingQueue": (97, 96, 96, 96), "aggQueue": (96, 96, 95, 95), "typingQueue": (97, 96, 96, 95),
                  "indexQueue": (99, 98, 98, 98)}})
    s.server_general("2").server_queue()
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, 0, {"parsingqueue": 95.0, "aggqueue": 94.0, "typingqueue": 97.5, "indexqueue": 5.0})
        _queues(s, t, i, 1, {"parsingqueue": 96.0, "aggqueue": 95.0, "typingqueue": 95.5, "indexqueue": 98.5})
        dutycycle_long(s, t, 0, {"parsing": 0.3, "typing": 0.985, "indexerpipe": 0.2})
        dutycycle_long(s, t, 1, {"parsing": 0.3, "typing": 0.5, "indexerpipe": 0.985})
        thruput_lines(s, t, 0, {"cisco:asa": 2100.0})
        thruput_lines(s, t, 1, {"app:json": 2300.0})
    return s


# --------------------------------------------------------------------------- issue 18: advice an expert signs

def hec_io_raised_below_cores() -> Snap:
    """HEC thread pegged with dedicatedIoThreads already raised to 4 on 32 logical (16 physical) cores."""
    s = hec_forwarder("hf-io4", "4")
    s.server_info(32, ["heavyweight_forwarder"]).resources(32, 9.0, 104.0)
    return s


def hec_io_above_physical() -> Snap:
    """HEC thread pegged with dedicatedIoThreads 12 on 16 logical but 8 physical cores."""
    return hec_forwarder("hf-io12", "12")


def output_every_wording() -> Snap:
    """tcpout full; splunkd.log carries every tcpout connection-failure wording, one receiver each:
    TcpOutputFd `Connection to host=... failed`, `Connect to ... failed. Connection refused`, the
    AutoLoadBalancedConnectionStrategy `Cooked connection to ip=... timed out` (real 2025 wording) and
    `Applying quarantine to ip=... port=...`, and `Read error. Connection reset by peer` (no address)."""
    s = _output_full("hf-fail")
    s.tcpout("false", "10.0.0.21:9997,10.0.0.22:9997,10.0.0.23:9997,10.0.0.24:9997")
    for i, t in enumerate(times(MINUTES)):
        _tcpout_queue(s, t, i)
        if i % 3 == 0:
            s.splunkd_line(t + 1, "ERROR", "TcpOutputFd", "TcpOutEloop", "Connection to host=10.0.0.21:9997 failed",
                           tid=107804)
        if i % 4 == 0:
            s.splunkd_line(t + 2, "WARN", "TcpOutputFd", "TcpOutEloop",
                           "Connect to 10.0.0.22:9997 failed. Connection refused", tid=107804)
        if i % 2 == 0:
            s.splunkd_line(t + 3, "WARN", "AutoLoadBalancedConnectionStrategy", "TcpOutEloop",
                           "Cooked connection to ip=10.0.0.23:9997 timed out", tid=107804)
        if i % 6 == 0:
            s.splunkd_line(t + 4, "WARN", "AutoLoadBalancedConnectionStrategy", "TcpOutEloop",
                           "Applying quarantine to ip=10.0.0.24 port=9997 connid=0 _numberOfFailures=2", tid=107804)
        if i % 8 == 0:
            s.splunkd_line(t + 5, "ERROR", "TcpOutputFd", "TcpOutEloop", "Read error. Connection reset by peer",
                           tid=107804)
        if i % 4 == 0:
            paused_line(s, t, "10.0.0.21", 10 * (i + 1))
    return s


def _sourcetype_thruput(s: Snap, t: float, st: str, kbps: float, event_bytes: float) -> None:
    eps = kbps * 1024.0 / event_bytes
    s.metric(t, 'group=per_sourcetype_thruput, series="%s", kbps=%.3f, eps=%.3f, kb=%.3f, ev=%d, avg_age=1.1, '
                'max_age=3' % (st, kbps, eps, kbps * 30, int(eps * 30)))


def _parsing_full(name: str) -> Snap:
    s = Snap(name)
    s.server_info(16, ["heavyweight_forwarder"]).resources(16, 20.0, 130.0).indexer()
    s.queues({None: {"parsingQueue": (100, 99, 98, 98), "aggQueue": (6, 7, 7, 7), "typingQueue": (4, 5, 5, 5),
                     "indexQueue": (2, 3, 3, 3)}})
    s.server_general().server_queue().tcpout("true")
    return s


def parsing_utf8_explicit_breaker() -> Snap:
    """parsingQueue full, parsing thread pegged; utf8 costs most (CHARSET = AUTO); vendor:xml already has an
    explicit LINE_BREAKER and TRUNCATE = 0 with ~24 KB events."""
    s = _parsing_full("hf-utf8")
    s.props({"vendor:xml": {"LINE_BREAKER": "([\\r\\n]+)(?=<event )", "SHOULD_LINEMERGE": "false",
                            "CHARSET": "AUTO", "TRUNCATE": "0", "TIME_PREFIX": "<time>",
                            "TIME_FORMAT": "%Y-%m-%dT%H:%M:%S%z", "MAX_TIMESTAMP_LOOKAHEAD": "26"},
             "syslog": {"SHOULD_LINEMERGE": "false", "TIME_FORMAT": "%b %d %H:%M:%S"}})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 98.0, "aggqueue": 6.0, "typingqueue": 4.0, "indexqueue": 2.0})
        pipeline_lines(s, t, None, {"parsing": {"utf8": 19.5 + wobble(i, 0.2), "linebreaker": 6.1, "header": 1.4},
                                    "merging": {"aggregator": 2.0}, "typing": {"regexreplacement": 1.0}})
        dutycycle_long(s, t, None, {"parsing": 0.975, "merging": 0.1, "typing": 0.08, "indexerpipe": 0.06})
        s.metric(t, "group=thruput, name=index_thruput, instantaneous_kbps=5500.000, instantaneous_eps=1600.000, "
                    "average_kbps=5480.000, total_k_processed=%.3f, kb=165000.000, ev=48000, load_average=1.10"
                 % (16500000.0 + 165000 * i))
        _sourcetype_thruput(s, t, "vendor:xml", 5200.0, 24500.0)
        _sourcetype_thruput(s, t, "syslog", 300.0, 220.0)
    return s


def parsing_linebreaker_default() -> Snap:
    """parsingQueue full, parsing pegged; the linebreaker costs most on app:events, still on the default
    LINE_BREAKER; CHARSET is UTF-8 already."""
    s = _parsing_full("hf-lb")
    s.props({"app:events": {"CHARSET": "UTF-8"}})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 98.0, "aggqueue": 6.0, "typingqueue": 4.0, "indexqueue": 2.0})
        pipeline_lines(s, t, None, {"parsing": {"utf8": 3.0, "linebreaker": 22.0 + wobble(i, 0.2), "header": 1.1},
                                    "merging": {"aggregator": 2.0}})
        dutycycle_long(s, t, None, {"parsing": 0.97, "merging": 0.1, "typing": 0.08, "indexerpipe": 0.06})
        thruput_lines(s, t, None, {"app:events": 4800.0})
    return s


def host_busy_searches() -> Snap:
    """Typing pegged behind a full typingQueue on 32 cores; splunkd's server at 290% (9% of the host) while
    18 scheduled searches take ~30 cores: the host is at 96%, busy with searches."""
    s = Snap("idx-srch")
    s.server_info(32, ["indexer"]).resources(32, 96.0, 290.0, threads=210,
                                             searches=[165.0 + (k % 5) for k in range(18)]).indexer()
    s.queues({None: {"parsingQueue": (97, 96, 96, 95), "aggQueue": (96, 96, 95, 95), "typingQueue": (99, 98, 98, 97),
                     "indexQueue": (4, 5, 5, 5)}})
    s.server_general().server_queue()
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 96.0, "aggqueue": 95.0, "typingqueue": 98.0, "indexqueue": 5.0})
        dutycycle_long(s, t, None, {"parsing": 0.4, "merging": 0.3, "typing": 0.975, "indexerpipe": 0.3})
        thruput_lines(s, t, None, {"fw:traffic": 3100.0})
    return s


def thread_over_tuned_threshold() -> Snap:
    """The admin tuned ingest_doctor_thread_busy_pct to 80; typing runs at ~85% of one core, sustained, with
    its queue draining: over its threshold, far from a full core."""
    s = Snap("idx-tuned")
    s.server_info(16, ["indexer"]).resources(16, 35.0, 260.0).indexer()
    s.queues({None: REST_QUIET}).server_general().server_queue()
    s.macros({"ingest_doctor_thread_busy_pct": "80"})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, None, {"parsingqueue": 20.0, "aggqueue": 12.0, "typingqueue": 35.0, "indexqueue": 5.0})
        dutycycle_long(s, t, None, {"parsing": 0.3, "merging": 0.2, "typing": 0.85 + wobble(i, 0.01),
                                    "indexerpipe": 0.3})
        thruput_lines(s, t, None, {"cisco:asa": 3600.0})
    return s


def sticky_hot_saturated() -> Snap:
    """Three sets, round_robin: set 0 carries ~80% of the throughput and its typing is pegged behind a full
    typingQueue; sets 1 and 2 run at ~45% (not idle, so no imbalance finding)."""
    s = Snap("idx-hot")
    s.server_info(16, ["indexer"]).resources(16, 45.0, 260.0).indexer()
    quiet = dict(REST_QUIET)
    hot = {"parsingQueue": (97, 96, 96, 95), "aggQueue": (96, 96, 95, 95), "typingQueue": (99, 98, 98, 97),
           "indexQueue": (4, 5, 5, 5)}
    s.queues({0: hot, 1: quiet, 2: quiet}).server_general("3", "round_robin").server_queue()
    s.pipelinesets({0: ("typing", 0.975), 1: ("typing", 0.45), 2: ("typing", 0.44)})
    for i, t in enumerate(times(MINUTES)):
        _queues(s, t, i, 0, {"parsingqueue": 96.0, "aggqueue": 95.0, "typingqueue": 98.0, "indexqueue": 5.0})
        dutycycle_long(s, t, 0, {"parsing": 0.5, "typing": 0.975, "indexerpipe": 0.4})
        thruput_lines(s, t, 0, {"fwd:stream": 6400.0})
        for p in (1, 2):
            _queues(s, t, i, p, {"parsingqueue": 30.0, "aggqueue": 20.0, "typingqueue": 35.0, "indexqueue": 8.0})
            dutycycle_long(s, t, p, {"parsing": 0.35, "typing": 0.45, "indexerpipe": 0.36})
            thruput_lines(s, t, p, {"fwd:stream": 800.0})
    return s


def headroom_burst_fallback() -> Snap:
    """Healthy, one set, typing at ~50% of one core with ONE burst sample of 99% at the end; metrics.log has
    group=thruput name=thruput (the instance total) but no name=index_thruput."""
    s = Snap("idx-fallback")
    s.server_info(16, ["indexer"]).resources(16, 30.0, 200.0).indexer()
    s.queues({None: REST_QUIET}).server_general().server_queue()
    ts_ = times(MINUTES)
    for i, t in enumerate(ts_):
        burst = i == len(ts_) - 1
        _queues(s, t, i, None, QUIET_QUEUES)
        dutycycle_long(s, t, None, {"parsing": 0.25, "merging": 0.15, "typing": 0.99 if burst else 0.50,
                                    "indexerpipe": 0.35})
        s.metric(t, "group=thruput, name=thruput, instantaneous_kbps=3000.000, instantaneous_eps=12000.000, "
                    "average_kbps=2990.000, total_k_processed=%.3f, kb=90000.000, ev=360000, load_average=0.90"
                 % (9000000.0 + 90000 * i))
    return s


SCENARIOS = {f.__name__: f for f in (hec_pegged_default_io, hec_pegged_io_raised, typing_regex_hidden,
                                     merging_linemerge, indexing_headroom, indexing_no_headroom, output_blocked,
                                     one_of_four_blocked, indexer_throttled, hec_503_downstream, busy_healthy,
                                     transient_spike, partial, late_upstream, late_typing_full,
                                     typing_headroom, typing_sets_at_cores,
                                     output_receivers_down, output_bandwidth, flapping,
                                     windows_hf, cloud_restricted, sticky_set,
                                     two_sets_two_stages,
                                     hec_io_raised_below_cores, hec_io_above_physical, output_every_wording,
                                     parsing_utf8_explicit_breaker, parsing_linebreaker_default,
                                     host_busy_searches, thread_over_tuned_threshold, sticky_hot_saturated,
                                     headroom_burst_fallback, output_ssl_cloud, output_one_of_six,
                                     output_hung_useack, maxkbps_windows_uf, sticky_uf_one_receiver,
                                     hec_503_output_bursts)}


def write_all(root: str) -> None:
    for name, fn in SCENARIOS.items():
        d = os.path.join(root, name)
        if os.path.isdir(d):
            shutil.rmtree(d)
        fn().write(d)


def _same(a: str, b: str) -> bool:
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.diff_files or cmp.funny_files:
        return False
    return all(_same(os.path.join(a, s), os.path.join(b, s)) for s in cmp.common_dirs)


def main(argv) -> int:
    if "--check" in argv:
        with tempfile.TemporaryDirectory() as tmp:
            write_all(tmp)
            bad = [n for n in SCENARIOS if not os.path.isdir(os.path.join(HERE, n))
                   or not _same(os.path.join(tmp, n), os.path.join(HERE, n))]
        if bad:
            print("scenario folders out of date (run tests/scenarios/build.py): %s" % ", ".join(bad))
            return 1
        return 0
    write_all(HERE)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
