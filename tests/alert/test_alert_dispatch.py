"""The shipped alerts over successive runs, dispatched as splunkd dispatches them (tests/fakes/dispatch.py)
and each action run as splunkd runs it, against the loopback fake splunkd (issue 35, defect 1).

Every flagging alert runs in digest mode without throttling: in digest mode splunkd's throttling would
hold back the whole alert for its period, so a second host's new problem would wait behind the first's.
The action keeps one record per finding id and notifies only on a change, so a problem that persists is
stored again (last_seen, count) but not announced again."""

import pytest

from fakes.action_run import NOW, queue_row, tcpin_row, tcpout_row
from fakes.alert_helpers import all_ok
from fakes.dispatch import AlertDispatch, execute
from fakes.searches import FLAGGING
from ingest_doctor.delivery.messages import message_name
from ingest_doctor.delivery.store import kv_key

QUEUES = "Ingest Doctor - Queues - Blocked or saturated pipeline queues"


def posts_for(sh, fid):
    return [p for p in sh.messages.posts if p["name"] == message_name(fid)]


def test_a_new_host_while_another_persists_is_stored_and_announced_and_the_first_is_not_again(sh, tls, tmp_path):
    d = AlertDispatch(QUEUES, str(tmp_path))
    first, second = "idx-01/typing/1", "idx-03/typing/1"

    def run(at, hosts):
        assert len(all_ok(execute(d.run([queue_row(host=h, last=at) for h in hosts], at), sh.fake, tls))) == 1

    run(NOW, ["idx-01"])
    assert len(posts_for(sh, first)) == 1 and sh.kv.records[kv_key(first)]["count"] == 1
    # 5 minutes later idx-01 still has it and idx-03 starts: splunkd runs the action (nothing held back)
    run(NOW + 300, ["idx-01", "idx-03"])
    rec = sh.kv.records[kv_key(second)]
    assert rec["status"] == "open" and rec["count"] == 1
    assert len(posts_for(sh, second)) == 1
    assert len(posts_for(sh, first)) == 1 and sh.kv.records[kv_key(first)]["count"] == 2   # stored, not re-announced
    # both persist: stored again, announced never again
    run(NOW + 600, ["idx-01", "idx-03"])
    assert len(posts_for(sh, first)) == 1 and len(posts_for(sh, second)) == 1
    assert sh.kv.records[kv_key(first)]["count"] == 3 and sh.kv.records[kv_key(second)]["count"] == 2
    assert sorted(sh.messages.shown) == sorted([message_name(first), message_name(second)])
    assert len(d.triggered) == 3                         # one Triggered Alerts entry per alert run


def test_digest_throttling_would_hold_a_new_host_back(tmp_path):
    """Why no flagging alert is throttled: the same runs with splunkd's digest throttling for 30 minutes
    start no action run for idx-03 until the period is over."""
    st = dict(FLAGGING[QUEUES], **{"alert.suppress": "1", "alert.suppress.period": "30m"})
    d = AlertDispatch(QUEUES, str(tmp_path), st)
    assert len(d.run([queue_row(host="idx-01")], NOW)) == 1
    assert d.run([queue_row(host="idx-01"), queue_row(host="idx-03")], NOW + 300) == []


def test_digest_adds_one_triggered_alert_a_run_where_per_result_added_one_a_row(tmp_path):
    """Defect 1's count: the Queues alert's rows at scale (two findings; per sender a tcpin row at its
    receiver and a tcpout row at itself). As shipped before (per result, throttled by host, pipeline_set,
    component) splunkd ran the action and added a Triggered Alerts entry for each finding, for the first
    tcpin row of each receiver and for every sender's tcpout row; now once per alert run."""
    senders = ["uf-%04d" % i for i in range(500)]
    rows = [queue_row(host="idx-01"), queue_row(host="idx-02")]
    rows += [tcpin_row("idx-%02d" % (i % 2 + 1), s, "10.1.%d.%d" % (i // 250, i % 250)) for i, s in enumerate(senders)]
    rows += [tcpout_row(s, "10.0.0.%d:9997" % (i % 2 + 1)) for i, s in enumerate(senders)]
    now = AlertDispatch(QUEUES, str(tmp_path / "now"))
    assert len(now.run(rows, NOW)) == 1 and len(now.triggered) == 1
    before = dict(FLAGGING[QUEUES], **{"alert.digest_mode": "false", "alert.suppress": "1",
                                       "alert.suppress.fields": "host,pipeline_set,component",
                                       "alert.suppress.period": "30m"})
    old = AlertDispatch(QUEUES, str(tmp_path / "before"), before)
    assert len(old.run(rows, NOW)) == 2 + 2 + len(senders) and len(old.triggered) == 504


@pytest.mark.parametrize("name", sorted(FLAGGING))
def test_every_flagging_search_is_dispatched_once_a_run_with_every_row(name, tmp_path):
    d = AlertDispatch(name, str(tmp_path))
    assert d.digest and not d.suppress
    execs = d.run([{"signal": "x", "host": "a"}, {"signal": "y", "host": "b"}], NOW)
    assert len(execs) == 1 and len(execs[0].rows) == 2
