"""Issue 37, rules side: the receiver or the link decided by comparing a sender's connections, the paused and
connection-failure lines' destinations counted, and compression advised only where it applies."""
from ingest_doctor.diagnose import diagnose

from fakes.engine_helpers import scenario, serious, settings


def the_serious_one(name, change=None, **config):
    """Scenario `name`'s one finding that warns, once `change` (if any) has changed its Evidence and `config`
    its configuration's fields."""
    ev = scenario(name)
    if change:
        change(ev)
    for field, value in config.items():
        setattr(ev.config, field, value)
    [f] = serious(diagnose(ev))
    return f


def test_one_receiver_of_six_taking_almost_nothing_is_named_by_comparison():
    # 10.0.1.14 takes ~30 KB/s (over the absolute 1 KB/s) while five others take ~6,000 KB/s each.
    f = the_serious_one("output_one_of_six")
    assert (f.bottleneck, f.severity) == ("output", "critical")
    assert "10.0.1.14:9997 connected but taking 30 KB/s while another receiver of this output takes 5,992 KB/s" \
        in f.summary and "it is the one holding the output back" in f.summary
    assert "5 of the 6 paused lines name it" in f.summary
    assert [(e.value, e.source.rsplit(" ", 1)[1]) for e in f.evidence if e.signal == "tcpout_paused_lines"] == [
        (1, "10.0.1.12"), (5, "10.0.1.14")]
    assert "compressed" not in settings(f) and "link or the receivers' drain rate" not in f.summary
    assert [r.action.split(":")[0] for r in f.recommendations] == ["Diagnose 10.0.1.14"]


def test_the_same_six_all_at_the_full_rate_leave_the_link_or_the_drain():
    # The comparison, not a lower absolute rate, decides: with 10.0.1.14 at the others' rate nobody is named.
    def even(ev):
        for c in ev.tcpout:
            if c.receiver.startswith("10.0.1.14"):
                c.kbps = 6000.0
    f = the_serious_one("output_one_of_six", even)
    assert "10.0.1.14:9997 connected" not in f.summary and "link or the receivers' drain rate" in f.summary


def test_a_hung_receiver_with_useack_is_named_as_hung_not_unreachable():
    f = the_serious_one("output_hung_useack")
    assert "10.0.2.13:9997 ACK timed out 6 times (connected but not acknowledging what it received, with " \
           "useACK on" in f.summary
    assert [(e.signal, e.value) for e in f.evidence if e.signal == "tcpout_connect_failures"] == [
        ("tcpout_connect_failures", 6)]
    assert "compressed" not in settings(f)
    actions = " ".join(r.action for r in f.recommendations)
    assert actions.startswith("Diagnose 10.0.2.13:9997") and "Check 10.0.2.13" not in actions


def test_an_ssl_output_to_a_cloud_stack_gets_no_compression_advice():
    f = the_serious_one("output_ssl_cloud")
    assert "link or the receivers' drain rate" in f.summary
    assert "The output uses SSL: `compressed` does not apply there" in f.summary
    assert not {"compressed", "useClientSSLCompression"} & set(settings(f))


def test_an_ssl_output_with_ssl_compression_off_gets_that_setting_not_compressed():
    f = the_serious_one("output_ssl_cloud", tcpout_ssl_compression=False)
    [r] = [r for r in f.recommendations if r.setting == "useClientSSLCompression"]
    assert (r.conf_file, r.current, r.suggested) == ("outputs.conf", "false", "true")
    assert r.action.startswith("Only if the receivers are idle") and "compressed" not in settings(f)


def test_the_same_output_without_ssl_is_offered_compression_only_if_the_receivers_idle():
    f = the_serious_one("output_ssl_cloud", tcpout_ssl=False)
    [r] = [r for r in f.recommendations if r.setting == "compressed"]
    assert r.action.startswith("Only if the receivers are idle") and "uses SSL" not in f.summary


def test_the_same_output_whose_outputs_conf_was_not_read_is_offered_no_compression_setting():
    """Unread, the output may be SSL (this one is): no `compressed` to set, whatever the condition in front of it
    (the search head's action, whose rows carry no configuration, posted "Change compressed = true" here)."""
    f = the_serious_one("output_ssl_cloud", tcpout_ssl=None, tcpout_ssl_compression=None, tcpout_compressed=None)
    assert not {"compressed", "useClientSSLCompression"} & set(settings(f))
    [r] = [r for r in f.recommendations if "compress" in r.action]
    assert r.setting is None and r.action.startswith("Read this instance's outputs.conf before any compression")


def test_hec_refusals_during_output_bursts_are_the_outputs_symptom_not_a_hec_root():
    # autoLB over six, one saturated: tcpout fills one sample in four, HEC answers 503/code 18 then, its thread
    # 20-41% busy. Once a hec_input root with dedicatedIoThreads 2 -> 8.
    ev = scenario("hec_503_output_bursts")
    r = diagnose(ev)
    assert [(f.bottleneck, f.severity) for f in r.findings if f.severity != "info"] == [("output", "warning")]
    [f] = [f for f in r.findings if f.bottleneck == "output"]
    assert "HEC refuses data during them" in f.summary and "a symptom of the output, not of the HEC input" in \
        f.summary
    assert {e.signal for e in f.evidence} >= {"hec_reply_9_server_busy", "hec_health_code"}
    assert "dedicatedIoThreads" not in [x.setting for f in r.findings for x in f.recommendations]


def test_hec_refusals_with_the_hec_thread_over_its_threshold_stay_a_hec_finding():
    ev = scenario("hec_503_output_bursts")
    for t in ev.threads:
        if "httpinput" in t.thread.lower():
            t.busy_pct = 97.0
    assert [f.bottleneck for f in diagnose(ev).findings if f.severity != "info"] == ["hec_input"]


def test_paused_lines_naming_the_only_receiver_decide_nothing():
    # One server in outputs.conf (by name) and every paused line naming its address: nothing to compare with.
    f = the_serious_one("output_blocked", tcpout_servers="idx1:9997")
    assert "cannot be told" in f.summary and "every paused line names it" not in f.summary
