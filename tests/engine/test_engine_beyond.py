"""Issue 10 scenarios (tests/scenarios/*, hand-made in real shapes): the sender, headroom, ..."""
from dataclasses import replace

import pytest

from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine.rules import near_miss
from ingest_doctor.engine.textreport import render
from ingest_doctor.thresholds import defaults

from fakes.engine_helpers import scenario, serious, settings, signal
from fakes.rules import bottlenecks


def the_only_finding(name):
    """Scenario `name`'s one finding, in a healthy report."""
    r = diagnose(scenario(name))
    assert r.healthy
    [f] = r.findings
    return f


def test_late_data_with_every_stage_idle_is_the_sender_not_splunk():
    r = diagnose(scenario("late_upstream"))
    assert r.healthy and not serious(r)
    [f] = r.findings
    # The contract has no "upstream" bottleneck: an info finding where data enters, on the sender.
    assert (f.bottleneck, f.severity, f.component, f.pipeline_set) == ("hec_input", "info", "sender", None)
    assert f.summary.startswith("Splunk is not the bottleneck.")
    assert "upstream, in the sender" in f.summary
    assert signal(f, "data_age_s").value == 420.0
    assert signal(f, "hec_latency_ms").value < 20
    assert signal(f, "thread_busy_pct_max").value < 10
    # Client-side checks only: CPU throttling and the number of sending threads, never a Splunk setting.
    assert f.recommendations and all(rc.setting is None for rc in f.recommendations)
    actions = " ".join(rc.action for rc in f.recommendations)
    assert "CPU is throttled" in actions and "one sending thread" in actions
    assert "headroom_eps" not in [e.signal for e in f.evidence]


def test_late_data_behind_a_full_typing_queue_is_splunk_and_never_the_sender():
    r = diagnose(scenario("late_typing_full"))
    assert bottlenecks(r) == [("typing", "warning")]
    assert "sender" not in " ".join(f.summary for f in r.findings)


@pytest.mark.parametrize("name", ["busy_healthy", "typing_headroom", "transient_spike"])
def test_on_time_data_says_nothing_about_the_sender(name):
    assert all(f.component != "sender" for f in diagnose(scenario(name)).findings)


def test_late_data_with_busy_but_unsaturated_stages_says_the_evidence_cannot_decide():
    ev = scenario("late_upstream")
    for t in ev.threads:
        if t.thread == "typing":
            t.busy_pct = 70.0
    [f] = diagnose(ev).findings
    assert (f.bottleneck, f.severity, f.component) == ("hec_input", "info", "sender") and not f.recommendations
    assert (signal(f, "data_age_s").value, signal(f, "thread_busy_pct_max").value) == (420.0, 70.0)
    # the verdict and what would decide it are said, in no field (README: "the finding says what would decide it")
    assert "cannot tell whether the delay is in Splunk or in the sender" in f.summary and "would decide" in f.summary


def test_late_data_without_queues_or_threads_is_named_not_judged():
    ev = scenario("late_upstream")
    ev.threads, ev.queues, ev.processors, ev.pipelinesets = [], [], [], []
    r = diagnose(ev)
    assert not r.findings
    assert any("whether Splunk or the sender holds them is not judged" in n for n in r.not_judged)


def test_headroom_from_busy_share_and_throughput():
    r = diagnose(scenario("typing_headroom"))
    assert r.healthy and not r.findings
    by_stage = {h.stage: h for h in r.headroom}
    typing = by_stage["typing"]
    assert typing.pipeline_set is None and typing.eps == 18000.0
    assert 29500 < typing.saturates_eps < 30500       # 60% of one core for 18k events/s: about 30k
    assert by_stage["indexing"].caveat.startswith("indexing is often bound by disk I/O")
    text = render(r)
    # Issue 18: over the sustained window (10m), no longer the last 4 samples (30,100).
    assert "typing: 60% of one core for 18,000 events/s: about 30,000 events/s before it pegs" in text
    assert "events/s x 100 / busy %" in text and "not for\n  I/O-bound indexing" in text


def test_headroom_of_a_pegged_stage_is_none_and_is_in_its_findings_evidence():
    r = diagnose(scenario("late_typing_full"))
    [f] = r.findings
    h = [h for h in r.headroom if h.stage == "typing"][0]
    assert h.pegged and "typing: 98% of one core for 9,600 events/s: at its limit, no headroom" in render(r)
    # Issue 18: a pegged stage has none left; the events/s it carries (where it pegs) is its own signal.
    assert signal(f, "headroom_eps").value == 0 and h.headroom_eps == 0
    assert signal(f, "pegs_at_eps").value == round(h.saturates_eps)


def test_headroom_per_pipeline_set_needs_the_sets_own_throughput():
    r = diagnose(scenario("busy_healthy"))      # two sets, group=thruput without ingest_pipe
    assert [h.stage for h in r.headroom] == ["hec_input"]
    assert any("headroom not estimated for parsing, pipeline set 0" in n for n in r.not_judged)
    r = diagnose(scenario("one_of_four_blocked"))       # group=thruput ingest_pipe=2 only
    assert {(h.stage, h.pipeline_set) for h in r.headroom} == {("typing", 2), ("indexing", 2)}
    assert any("headroom not estimated for typing, pipeline set 0;" in n for n in r.not_judged)


def test_no_more_pipelines_when_the_sets_already_use_every_core():
    r = diagnose(scenario("typing_sets_at_cores"))     # 8 cores, 2 sets of 4 threads, host CPU 55%
    # Two bottlenecks at once: one finding per pipeline set, each with its own set and stage.
    assert [(f.bottleneck, f.pipeline_set, f.severity) for f in r.findings] == [("typing", 0, "warning"),
                                                                                ("typing", 1, "warning")]
    for f in r.findings:
        assert "parallelIngestionPipelines" not in settings(f)
        scale = [rc.action for rc in f.recommendations if "Scale out" in rc.action]
        assert scale == ["parallelIngestionPipelines is already 2: each set keeps up to 4 cores busy, so 8 cores "
                         "allow 2 sets and another would only compete for the same cores. Scale out (add indexers "
                         "or forwarders sharing the load); this is not a setting."]


def test_no_more_pipelines_when_host_cpu_is_exhausted_and_the_number_is_given():
    r = diagnose(scenario("indexing_no_headroom"))
    for f in r.findings:
        assert "parallelIngestionPipelines" not in settings(f)
        assert signal(f, "host_cpu_pct").value == 96.0
    assert 96.0 >= defaults().host_cpu_pct                  # no headroom: more sets will not help
    assert bottlenecks(r) == [("indexing", "warning"), ("host_cpu", "warning")]
    indexing, host = r.findings
    assert settings(host) == [None]
    # the advice gives the number in its words (a recommendation without a setting), and scales out
    actions = " ".join(rc.action for f in r.findings for rc in f.recommendations)
    assert "The host has no CPU headroom (host CPU 96%): more pipeline sets will not help. Scale out" in actions
    assert any("will not help" in rc.action for rc in indexing.recommendations)
    assert any("Add indexers" in rc.action for rc in indexing.recommendations)


def test_output_blocked_by_receivers_names_them_and_never_advises_compression():
    [f] = serious(diagnose(scenario("output_receivers_down")))
    assert (f.bottleneck, f.severity) == ("output", "critical")
    assert "compressed" not in settings(f)
    # each receiver by what it did: one refused or timed out (down), one connected taking nothing (blocked)
    # and the paused lines' destinations counted: all six name the blocked one
    assert [(e.signal, e.value, e.source.rsplit(" ", 1)[1]) for e in f.evidence if e.signal.startswith("tcpout_")
            and e.signal != "tcpout_paused_messages"] == [("tcpout_connect_failures", 12, "10.0.0.12:9997"),
                                                          ("tcpout_kbps", 0.0, "10.0.0.11:9997"),
                                                          ("tcpout_paused_lines", 6, "10.0.0.11")]
    assert settings(f) == [None, None]
    actions = " ".join(rc.action for rc in f.recommendations)
    assert "Check 10.0.0.12:9997" in actions and "Diagnose 10.0.0.11:9997" in actions


def test_output_flat_alone_is_the_link_or_the_receivers_and_compression_only_if_they_are_idle():
    # Issue 19: a saturated receiver drains at a steady rate and looks like a link from the sender, so alone
    # (one snapshot) the finding names the receivers and what decides; compression is conditional.
    [f] = serious(diagnose(scenario("output_bandwidth")))
    assert "The link or the receivers' drain rate holds it back" in f.summary and "94 Mbit/s" in f.summary
    assert "The network holds it back" not in f.summary
    # the receivers to look at first (no setting), then compression only on condition that they are idle
    assert f.recommendations[0].setting is None and "10.0.0.11:9997, 10.0.0.12:9997" in f.recommendations[0].action
    [comp] = [rc for rc in f.recommendations if rc.setting == "compressed"]
    assert (comp.current, comp.suggested) == ("false", "true")
    assert comp.action.startswith("Only if the receivers are idle")
    # all taking data together at a flat ceiling, no connection errors
    assert signal(f, "tcpout_kbps_total").value == signal(f, "tcpout_kbps_peak").value == 11800.0   # 94 Mbit/s
    assert not [e for e in f.evidence if e.signal in ("tcpout_connect_failures", "tcpout_kbps")]


def test_output_blocked_without_per_receiver_data_says_what_would_decide():
    # Paused lines naming each configured receiver in turn decide nothing (a full link pauses towards every
    # one): what would decide is said, and compression is offered only on condition that the receivers idle.
    ev = scenario("output_blocked")
    ev.log_signals.extend(replace(s, receiver="idx2") for s in list(ev.log_signals) if s.kind == "tcpout_blocked")
    [f] = serious(diagnose(ev))
    assert [e.source.rsplit(" ", 1)[1] for e in f.evidence if e.signal == "tcpout_paused_lines"] == []
    assert not [e for e in f.evidence if e.signal.startswith("tcpout_") and e.signal != "tcpout_paused_messages"]
    assert "cannot be told" in f.summary and "group=tcpout_connections" in f.summary      # what would decide
    [comp] = [rc for rc in f.recommendations if rc.setting == "compressed"]
    assert comp.action.startswith("Only if the receivers are idle")


def test_output_blocked_whose_paused_lines_all_name_one_receiver_of_two_names_it():
    # outputs.conf lists idx1 and idx2; every paused line (6) names idx1: autoLB blocks only during its turns
    # there, so idx1 holds the output back and compressing would change nothing.
    [f] = serious(diagnose(scenario("output_blocked")))
    assert (f.bottleneck, f.severity) == ("output", "critical")
    assert any(e.signal == "queue_blocked" and "metrics.log" in e.source for e in f.evidence)
    assert any(e.signal == "tcpout_paused_messages" and e.value == 6 for e in f.evidence)
    assert "idx1: every paused line names it (6) and none names the other receivers" in f.summary
    assert "compressed" not in settings(f)
    assert [(e.signal, e.value) for e in f.evidence if e.signal == "tcpout_paused_lines"] == [
        ("tcpout_paused_lines", 6)]
    assert any(rc.action.startswith("Diagnose idx1:") for rc in f.recommendations)


def test_tcpout_lines_are_parsed_by_key():
    from ingest_doctor.read import metricslog
    ev = metricslog.parse_lines([
        "11-22-2025 09:59:30.000 +0000 INFO  Metrics - group=tcpout_connections, name=grp:10.0.0.5:9997:0, "
        "sourcePort=4001, destIp=10.0.0.5, destPort=9997, _tcp_Bps=1024.00, _tcp_KBps=1.00, kb=30.00"])
    [c] = ev.tcpout
    assert (c.receiver, c.kbps, c.group) == ("10.0.0.5:9997", 1.0, "grp")


def test_flapping_queue_and_thread_just_under_its_threshold_are_info_with_the_numbers():
    f = the_only_finding("flapping")
    assert (f.bottleneck, f.severity, f.component) == ("typing", "info", "typingQueue")
    # full in 3 of 25 samples (97%), never sustained
    full = signal(f, "queue_full_samples")
    assert (full.value, full.window, round(signal(f, "queue_fill_pct").value)) == (3, "25 samples", 97)
    # the thread just under the configured threshold, with its numbers
    thr = defaults().thread_busy_pct
    assert 85 < signal(f, "thread_busy_pct").value < thr
    assert thr - near_miss.NEAR_PCT <= signal(f, "thread_busy_pct").value
    assert not f.recommendations


def test_the_same_thread_over_the_configured_threshold_warns():
    # Only what is sustained by the configured rule warns: lower the threshold and it does.
    [f] = diagnose(scenario("flapping"), {"thread_busy_pct": 85}).findings
    assert (f.bottleneck, f.severity) == ("typing", "warning")


def test_windows_single_set_instance_still_localises():
    ev = scenario("windows_hf")
    assert {q.pipeline_set for q in ev.queues} == {None}          # no ingest_pipe, no .N titles
    [f] = serious(diagnose(ev))
    assert (f.bottleneck, f.pipeline_set, f.component) == ("merging", None, "merging")
    # Host CPU from user + system (no cpu_idle_pct), splunkd.exe read without process_type: about 15% of
    # 8 cores, one core's worth.
    share = signal(f, "splunkd_cpu_pct_of_host")
    assert (round(share.value), round(share.value * 8 / 100.0)) == (15, 1)
    assert share.source == "rest services/server/status/resource-usage/splunk-processes"
    assert [rc.suggested for rc in f.recommendations if rc.setting == "parallelIngestionPipelines"] == ["2"]


def test_configuration_endpoints_answering_403_still_localise_and_name_what_was_not_read():
    r = diagnose(scenario("cloud_restricted"))
    [f] = serious(r)
    assert f.bottleneck == "typing"
    pip = [rc for rc in f.recommendations if rc.setting == "parallelIngestionPipelines"]
    assert pip and pip[0].current is None
    forbidden = [n for n in r.not_judged if "do not have permission" in n]
    assert len(forbidden) == 4 and any("conf-props" in n for n in forbidden)


def test_a_metrics_log_gap_and_lines_out_of_order_are_named_and_the_rest_judged():
    r = diagnose(scenario("cloud_restricted"))
    assert "logs/metrics.log has no lines from 09:50:30 to 09:56:00 UTC (6 minutes): judged on the lines around " \
           "the gap" in r.not_judged
    assert any(n.startswith("logs/metrics.log has 34 lines out of time order") for n in r.not_judged)
    gapless = diagnose(scenario("typing_regex_hidden"))
    assert [f.bottleneck for f in serious(r)] == [f.bottleneck for f in serious(gapless)]
    assert not any("no lines from" in n for n in gapless.not_judged)


def test_one_set_carrying_most_of_the_load_is_an_imbalance_info_with_the_shares():
    f = the_only_finding("sticky_set")
    assert (f.bottleneck, f.severity) == ("pipeline_set_imbalance", "info")
    share = signal(f, "pipeline_set_load_share_pct")
    assert (share.value, share.source.rsplit(" ", 1)[1]) == (80.0, "ingest_pipe=0")
    assert "of 3 sets (a fair share is 33%)" in f.summary        # the number of sets is in no field
    assert [rc.suggested for rc in f.recommendations if rc.setting == "pipelineSetSelectionPolicy"] == \
        ["weighted_random"]


def test_two_bottlenecks_in_two_sets_are_two_findings_each_with_its_own_set_and_stage():
    r = diagnose(scenario("two_sets_two_stages"))
    assert [(f.bottleneck, f.pipeline_set) for f in serious(r)] == [("typing", 0), ("indexing", 1)]
    typing, indexing = serious(r)
    assert typing.component == "typingQueue" or typing.component == "typing"
    # each full queue of its own set (splunkd's title with the set's number)
    assert [e.value for e in typing.evidence if e.source.endswith(" typingQueue.0")] == [97.0]
    assert [e.value for e in indexing.evidence if e.source.endswith(" indexQueue.1")] == [98.0]
    assert all(e.source.endswith(".1") for e in indexing.evidence if e.signal == "queue_fill_pct")
    assert all("queues/typingQueue.1" not in e.source and "typingQueue.1" not in e.source for e in typing.evidence)


def test_a_thread_just_under_its_threshold_alone_makes_no_finding_only_its_headroom():
    ev = scenario("flapping")
    ev.queues = []
    r = diagnose(ev)
    assert r.healthy and not r.findings
    assert "typing: 87% of one core for 12,000 events/s: about 13,800 events/s before it pegs" in render(r)
