"""The collector's use of the engine: REST bodies per poll (time=poll time) plus /proc thread samples,
in a rolling Evidence, diagnose after each poll. Sustained -> a finding within 3 polls at 10 s; a
one-poll spike -> no warning."""
import pytest

from ingest_doctor.read import endpoints
from ingest_doctor import thresholds
from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import Evidence, HecProbe, ThreadSample
from fakes.snapbuilder import Snap

QUIET = {"parsingQueue": (3, 3, 3, 3), "aggQueue": (1, 1, 1, 1), "typingQueue": (2, 2, 2, 2),
         "indexQueue": (4, 4, 4, 4)}
FULL_NOW = {"parsingQueue": (100, 60, 20, 15), "aggQueue": (99, 60, 20, 15), "typingQueue": (100, 70, 25, 20),
            "indexQueue": (100, 80, 30, 25)}


def poll(ev, t, queues, hec_busy):
    s = Snap("hf-01").server_info(16, ["heavyweight_forwarder"]).resources(16, 20.0, 105.0).http("2")
    s.queues({None: queues})
    for path, body in s.rest_bodies.items():
        endpoints.apply_rest(ev, path, body, time=t)
    ev.threads.append(ThreadSample(t, "httpinputserverdatathread", hec_busy, source="proc"))
    ev.saw("proc")
    return diagnose(ev).to_dict()


def warnings(r):
    return [(f["bottleneck"], f["severity"]) for f in r["findings"] if f["severity"] != "info"]


def test_sustained_hec_thread_found_at_the_third_poll():
    ev = Evidence()
    results = [poll(ev, 1000.0 + 10 * i, QUIET, busy) for i, busy in enumerate([20, 97, 98, 99])]
    assert [warnings(r) for r in results] == [[], [], [], [("hec_input", "warning")]]
    f = results[3]["findings"][0]
    assert f["evidence"][0]["source"] == "proc thread=httpinputserverdatathread"
    assert f["evidence"][0]["window"] == "3 of the last 4 samples"


def test_one_poll_spike_is_info_at_most():
    ev = Evidence()
    for i, busy in enumerate([20, 21, 99, 22, 20]):
        r = poll(ev, 1000.0 + 10 * i, QUIET, busy)
        assert warnings(r) == [] and r["healthy"]
    ev = Evidence()
    poll(ev, 1000.0, QUIET, 20)
    r = poll(ev, 1010.0, QUIET, 99)
    assert [f["severity"] for f in r["findings"]] == ["info"]


@pytest.mark.parametrize("polls, want", [
    ([QUIET, FULL_NOW, FULL_NOW, FULL_NOW], [[], [], [], [("indexing", "warning")]]),
    ([QUIET, FULL_NOW, QUIET], [[], [], []]),
], ids=["full_for_three_polls_localise_at_the_fourth", "one_poll_spike_with_low_averages_is_no_finding"])
def test_queues_full_for_three_polls_localise_and_a_one_poll_spike_does_not(polls, want):
    ev = Evidence()
    assert [warnings(poll(ev, 2000.0 + 10 * i, queues, 30)) for i, queues in enumerate(polls)] == want


def test_thresholds_reach_the_engine_as_settings_or_macro_names():
    ev = Evidence()
    for i, busy in enumerate([85, 86, 87]):
        r = poll(ev, 1000.0 + 10 * i, QUIET, busy)
    assert warnings(r) == []
    assert warnings(diagnose(ev, {"ingest_doctor_thread_busy_pct": "80"}).to_dict()) == [("hec_input", "warning")]
    assert warnings(diagnose(ev, thresholds.load({"thread_busy_pct": 80})).to_dict()) == [("hec_input", "warning")]
    with pytest.raises(thresholds.ThresholdError):
        diagnose(ev, {"thread_busy_pcx": 80})


def test_slow_hec_requests_are_not_hidden_by_fast_health_probes():
    ev = Evidence()
    for i in range(4):
        t = 1000.0 + 10 * i
        ev.hec_probes.append(HecProbe(t, 200, 17, 3.0, kind="health", source="collector health"))
        ev.hec_probes.append(HecProbe(t, 200, 0, 2500.0, kind="event", source="collector event"))
    r = diagnose(ev).to_dict()
    lat = [e for f in r["findings"] for e in f["evidence"] if e["signal"] == "hec_latency_ms"]
    assert lat and lat[0]["value"] >= 2500 and lat[0]["source"] == "collector event"
    assert ("hec_input", "warning") in warnings(r)


def test_health_probe_round_trip_stands_in_without_event_probes():
    ev = Evidence(hec_probes=[HecProbe(1000.0 + 10 * i, 200, 17, 2500.0, kind="health", source="collector health")
                              for i in range(4)])
    assert ("hec_input", "warning") in warnings(diagnose(ev).to_dict())
