"""The collector hands a 429 code-26 health answer to the rules as an answer, not as an endpoint fault."""
from fakes.collector_http import FakeHttp, collector_for, routes  # the collector's own fake splunkd


def test_429_with_a_hec_code_is_an_answer_not_a_fault():
    r = routes()
    r["services/collector/health"] = (429, {"text": "HEC queue is at capacity and cannot process any more requests",
                                            "code": 26})
    c = collector_for(FakeHttp(r))
    res = c.poll(1000.0)
    errs = [o.data for o in res.events if o.kind == "metrics" and "ingest_doctor.endpoint.errors" in o.data]
    assert not [e for e in errs if "health" in e.get("endpoint", "")]
    (probe,) = [p for p in c.window.merged().hec_probes if p.kind == "health"]
    assert (probe.status, probe.code) == (429, 26)
