"""The action's ingest_doctor:finding events against the app's index-time settings (issue 21).

The action sends the findings of every host in a few requests to receivers/simple on the search head,
where they are parsed with the app's props.conf: one event per line, and each event's host taken from
its JSON by the transform [ingest_doctor_finding_host]. No Splunk here: these tests replay that REGEX
(as tests/collector/test_collector_conf.py does for the add-on's metrics transforms) over the events
the action really writes, and the fake splunkd applies it to every event it receives.
"""

import json
import os
import re

import pytest

from confcheck import read_conf
from fakes.action_run import NOW, thread_row
from fakes.kvstore import Splunkd
from fakes.paths import ROOT
from ingest_doctor.delivery.store import finding_event, host_in_event
from ingest_doctor.findings import EvidenceItem, Finding, Recommendation

APP = read_conf(os.path.join(ROOT, "default", "props.conf"))["ingest_doctor:finding"]     # the app's sourcetype
# the app's index-time transform that gives each event the host in its JSON
TRANSFORM = read_conf(os.path.join(ROOT, "default", "transforms.conf"))[APP["TRANSFORMS-ingest_doctor_finding_host"]]

HOSTS = ["idx-01", "hf-01.example.com", "sh 01", "x|y]] [[https://evil.example|Click", "<script>", "=cmd|' /C calc'!A0",
         'we"ird', "back\\slash", "spät-01", "h" * 255, "a:b", "host::x", "", None, "'", "{}", "a,b"]
FIELDS = ("id", "bottleneck", "severity", "host", "pipeline_set", "component", "summary", "evidence",
          "recommendations", "detected_by")


def _finding(host, pset=2):
    return Finding("typing", "critical", host, pset, "typingQueue", 'typingQueue "full" \\ 100%',
                   [EvidenceItem("queue_fill_pct", 100.0, "%", "10m", 'metrics.log "group=queue"')],
                   [Recommendation("Raise it", "server.conf", "general", "parallelIngestionPipelines", "1", "2")])


def test_the_search_head_parses_the_action_events_like_the_add_on():
    ta = read_conf(os.path.join(ROOT, "ta", "package", "default", "props.conf"))["ingest_doctor:finding"]
    for key in ("SHOULD_LINEMERGE", "LINE_BREAKER", "TRUNCATE", "DATETIME_CONFIG", "KV_MODE"):
        assert APP[key] == ta[key], key        # an instance with both packages gets one answer
    assert APP["SHOULD_LINEMERGE"] == "false"
    breaker = re.compile(APP["LINE_BREAKER"])
    events = [finding_event(_finding(h)) for h in HOSTS]
    assert [e for e in breaker.split("\n".join(events)) if e and not breaker.fullmatch(e)] == events
    assert (TRANSFORM["DEST_KEY"], TRANSFORM["FORMAT"]) == ("MetaData:Host", "host::$1")


@pytest.mark.parametrize("pset", [None, 0, 3])
def test_the_host_transform_gives_each_event_its_own_host_or_leaves_it_to_the_request(pset):
    rx = re.compile(TRANSFORM["REGEX"])
    for host in HOSTS:
        event = finding_event(_finding(host, pset), "alert_action", caused_by='other"/typing/-',
                              mechanism="its output blocks on other")
        assert list(json.loads(event)) == list(FIELDS) + ["caused_by", "mechanism"]
        m = rx.search(event[:4096])
        if host_in_event(host) and host:
            assert m and m.group(1) == host, (host, event[:200])
        else:
            assert m is None, (host, m.group(1) if m else None)   # sent alone, with host= on its request


def test_hosts_the_transform_cannot_carry_are_exactly_those_json_escapes():
    assert all(host_in_event(h) for h in ("idx-01", "sh 01", "<script>", "a:b", "h" * 255, "", None))
    assert not any(host_in_event(h) for h in ('we"ird', "back\\slash", "spät-01", "tab\there", "del\x7f"))


def test_one_request_for_every_host_and_each_event_indexed_under_its_host(fake_splunkd, flag):
    sd = Splunkd(fake_splunkd)
    hosts = ["idx-%02d" % i for i in range(30)] + ['we"ird', "spät-01", "x|y]] [[https://evil.example|Click"]
    flag(sd.fake, [thread_row(host=h, last=NOW) for h in hosts])
    assert sorted(e["event"]["host"] for e in sd.events) == sorted(hosts)
    for e in sd.events:
        assert e["host"] == e["event"]["host"], e["event"]["id"]   # by the transform, or by the request
    # one request for every host JSON writes as it is, one each for the two it escapes
    assert sd.posts == 3
