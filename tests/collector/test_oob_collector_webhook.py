"""The collector notifies its webhook out of band (issue 20), run as splunkd runs it: the built
add-on's script as a subprocess with the input XML on stdin, against the loopback HTTPS fake splunkd
(the add-on's Configuration > Webhook settings served from its conf endpoint) and a loopback HTTPS
webhook receiver that is down, hangs, answers 500 then 200, answers slowly and is restarted
mid-outage, and a collector restarted with notifications pending. Every open and resolve arrives
exactly once, in order, and polling never stalls while the webhook hangs."""
from __future__ import annotations

import json

from fakes.collector_run import CollectorProc, serve_webhook_settings
from fakes.splunkd import wait_for
from fakes.hookreceiver import HookReceiver, free_port
from ingest_doctor import exitcodes

from fakes import instance as fi

FULL = {"indexQueue", "typingQueue"}


def _env(tls, timeout="2"):
    return {"SSL_CERT_FILE": tls[0], "INGEST_DOCTOR_WEBHOOK_TIMEOUT_S": timeout,
            "INGEST_DOCTOR_WEBHOOK_BACKOFF_S": "0.5"}


def _xml(fake, tmp_path, host, interval="1"):
    return fi.input_xml(fake.url, {"poll_interval": interval, "thread_cpu": "0"}, host,
                        checkpoint_dir=str(tmp_path)).encode("utf-8")


def _resolved(c):
    return [f for f in c.findings() if f["data"].get("status") == "resolved"]


def _exactly_once_in_order(bodies):
    """Per finding id: open, then resolved, each once; notification ids unique."""
    by_id = {}
    for b in bodies:
        by_id.setdefault(b["id"], []).append(b["event"])
    assert by_id and all(events == ["open", "resolved"] for events in by_id.values()), by_id
    keys = [b["notification_id"] for b in bodies]
    assert len(keys) == len(set(keys))
    assert all(b["detected_by"] == "collector" and b["path"] == "instance" for b in bodies)
    return by_id


def test_receiver_down_restarted_mid_outage_and_collector_restarted(fake_splunkd, tls, tmp_path, runs):
    inst = fi.Instance(fake_splunkd, host="hf-07", psets=1)
    rec = HookReceiver(tls, port=free_port())           # down: nothing listens on its port yet
    serve_webhook_settings(fake_splunkd, rec.url)
    xml, env = _xml(fake_splunkd, tmp_path, "hf-07"), _env(tls)
    c1 = CollectorProc(xml, env)
    runs.append(c1)
    try:
        assert wait_for(lambda: len(c1.polls()) >= 2, 30), c1.stderr()
        inst.full_queues = set(FULL)
        # the finding opens while the receiver is down: queued on disk, retried with backoff
        assert wait_for(lambda: c1.findings() and "post failed, will retry" in c1.stderr(), 40), c1.stderr()
        assert c1.terminate() == exitcodes.OK
        state = json.loads((tmp_path / "webhook_outbox.json").read_text())
        pending = [e["event"] for e in state["entries"]]
        assert pending and set(pending) == {"open"}
        # the collector restarts (same checkpoint dir): the outbox is restored, the still-open
        # finding it detects again is not queued twice
        c2 = CollectorProc(xml, env)
        runs.append(c2)
        assert wait_for(lambda: "outbox restored" in c2.stderr() and len(c2.findings()) >= 1, 40), c2.stderr()
        rec.start()                                       # the receiver comes up
        assert wait_for(lambda: len(rec.bodies) >= len(pending), 30), c2.stderr()
        rec.stop()                                        # ... and goes down again (a second outage)
        inst.full_queues = set()
        assert wait_for(lambda: _resolved(c2), 40), c2.stderr()
        n_retry = c2.stderr().count("post failed, will retry")
        assert wait_for(lambda: c2.stderr().count("post failed, will retry") > n_retry, 20), c2.stderr()
        rec.start()                                       # restarted mid-outage, same port
        assert wait_for(lambda: len(rec.bodies) >= 2 * len(pending), 30), c2.stderr()
        polls = len(c2.polls())
        assert wait_for(lambda: len(c2.polls()) >= polls + 3, 20)      # nothing more arrives after
        assert c2.terminate() == exitcodes.OK
    finally:
        rec.stop()
    by_id = _exactly_once_in_order(rec.bodies)
    assert set(by_id) == {f["data"]["id"] for f in c2.findings()}
    assert json.loads((tmp_path / "webhook_outbox.json").read_text())["entries"] == []
    assert "Traceback" not in c1.stderr() + c2.stderr()


def test_hanging_failing_slow_receiver_never_stalls_polling(fake_splunkd, tls, tmp_path, runs):
    inst = fi.Instance(fake_splunkd, host="hf-08", psets=1)
    with HookReceiver(tls) as rec:
        # a hang cut at the 3 s deadline (longer than the 2 s poll interval), 500, a 503 with
        # Retry-After, then a slow 200: one delivery of the open
        rec.plan = ["hang", 500, (503, {"Retry-After": "1"}), "slow"]
        serve_webhook_settings(fake_splunkd, rec.url)
        c = CollectorProc(_xml(fake_splunkd, tmp_path, "hf-08", interval="2"), _env(tls, timeout="3"))
        runs.append(c)
        assert wait_for(lambda: len(c.polls()) >= 2, 30), c.stderr()
        inst.full_queues = set(FULL)
        assert wait_for(lambda: len(rec.bodies) >= 1, 60), c.stderr()
        inst.full_queues = set()
        assert wait_for(lambda: _resolved(c), 60), c.stderr()
        assert wait_for(lambda: any(b["event"] == "resolved" for b in rec.bodies), 30), c.stderr()
        polls = len(c.polls())
        assert wait_for(lambda: len(c.polls()) >= polls + 2, 20)
        assert c.terminate() == exitcodes.OK
    _exactly_once_in_order(rec.bodies)
    assert [s for _, s in rec.seen[:4]] == ["hang", 500, (503, {"Retry-After": "1"}), "slow"]
    times = c.polls()
    gaps = [b - a for a, b in zip(times, times[1:])]
    # Within 10% of the setting; a poll that itself ran longer than the interval (a CPU-starved test
    # machine) starts the next at once, so the slot is the longer of the two: the webhook adds nothing.
    took = [e["data"]["ingest_doctor.poll.duration_ms"] / 1000.0 for e in c.events()
            if e["sourcetype"] == "ingest_doctor:metrics" and "ingest_doctor.poll.duration_ms" in e["data"]]
    slots = [max(2.0, d) for d in took[:-1]]
    assert len(gaps) >= 8 and all(abs(g - s) <= 0.1 * s for g, s in zip(gaps, slots)), list(zip(gaps, slots))
    assert "Traceback" not in c.stderr()
