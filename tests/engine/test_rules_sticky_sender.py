"""Issue 37: a sender autoLB never moves off one receiver is named as the cause of the stickiness, with
EVENT_BREAKER_ENABLE/EVENT_BREAKER and forceTimebasedAutoLB."""
from dataclasses import replace

from ingest_doctor.diagnose import diagnose
from ingest_doctor.evidence import LogSignal

from fakes.engine_helpers import scenario


def outputs(ev):
    return [f for f in diagnose(ev).findings if f.bottleneck == "output"]


def test_a_forwarder_on_one_receiver_of_three_gets_the_stickiness_advice():
    r = diagnose(scenario("sticky_uf_one_receiver"))
    assert r.healthy
    [f] = [f for f in r.findings if f.bottleneck == "output"]
    assert (f.severity, f.component) == ("info", "autoLB")
    assert "sent to 10.0.4.11:9997 only, for 12 minutes, although outputs.conf lists 3 receivers" in f.summary
    got = [(x.conf_file, x.stanza, x.setting, x.current, x.suggested) for x in f.recommendations]
    assert got == [("props.conf", "app:trades", "EVENT_BREAKER_ENABLE", "false", "true"),
                   ("props.conf", "app:trades", "EVENT_BREAKER", None, "([\\r\\n]+)(?=\\d{4}-\\d{2}-\\d{2})"),
                   ("outputs.conf", "tcpout", "forceTimebasedAutoLB", "false", "true")]


def test_a_forwarder_that_moves_between_receivers_gets_none():
    ev = scenario("sticky_uf_one_receiver")
    ev.tcpout = [replace(c, receiver="10.0.4.12:9997") if i % 2 else c for i, c in enumerate(ev.tcpout)]
    assert outputs(ev) == []


def test_forced_time_based_load_balancing_or_failing_receivers_or_a_short_window_get_none():
    ev = scenario("sticky_uf_one_receiver")
    ev.config.tcpout_force_time_lb = True
    assert outputs(ev) == []
    ev = scenario("sticky_uf_one_receiver")
    ev.log_signals.append(LogSignal(None, "tcpout_connect_failed", "", "", "10.0.4.12:9997", "refused"))
    assert outputs(ev) == []
    ev = scenario("sticky_uf_one_receiver")
    last = max(c.time for c in ev.tcpout)
    ev.tcpout = [c for c in ev.tcpout if c.time > last - 240]
    assert outputs(ev) == []


def test_one_receiver_in_outputs_conf_is_not_stickiness():
    ev = scenario("sticky_uf_one_receiver")
    ev.config.tcpout_servers = "10.0.4.11:9997"
    assert outputs(ev) == []
