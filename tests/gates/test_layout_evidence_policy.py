"""Each Evidence field merges by the policy declared on it (evidence.py), and the three places that
merge evidence follow it: the collector's window, the read step's configuration merge, the engine's
sanitising. A field without a policy fails; a new field with one is carried without touching them."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import List, Optional

import pytest

from ingest_doctor import evidence
from ingest_doctor.collector.window import Window
from ingest_doctor.engine.finite import sanitise
from ingest_doctor.evidence import Evidence, QueueSample, ThreadSample
from ingest_doctor.read.endpoints import ENDPOINTS
from ingest_doctor.read.readstep import merge_config


@dataclass
class Probe:
    time: Optional[float]
    value: float


@dataclass
class Newer(Evidence):
    """Evidence as a later version might have it: one more runtime field, and one more record."""
    MERGE = dict(Evidence.MERGE, probes=evidence.merges(evidence.SAMPLES, "value"),
                 build=evidence.merges(evidence.LATEST))
    probes: List[Probe] = field(default_factory=list)
    build: Optional[str] = None


def test_every_evidence_field_declares_a_known_policy():
    pols = evidence.policies()
    assert list(pols) == [f.name for f in fields(Evidence)]
    assert all(p.merge in evidence.MERGES for p in pols.values())
    for name, p in pols.items():
        for number in p.finite:   # a declared number is an attribute of the field's samples or record
            sample_type = {"host_cpu": evidence.HostCpu}.get(name)
            if sample_type is None:
                hint = Evidence.__annotations__[name]      # List[<sample type>]
                assert "List[" in str(hint), name
                sample_type = getattr(evidence, str(hint).split("List[", 1)[1].split("]")[0])
            assert number in {f.name for f in fields(sample_type)}, (name, number)


def test_a_new_field_without_a_policy_fails_naming_it():
    @dataclass
    class Careless(Evidence):
        novel: List[int] = field(default_factory=list)

    with pytest.raises(TypeError, match="Careless.novel declares no merge policy"):
        evidence.policies(Careless)
    with pytest.raises(TypeError, match="novel"):
        Window(10, 600.0).add(Careless(), 0.0)
    with pytest.raises(TypeError, match="novel"):
        sanitise(Careless())
    with pytest.raises(TypeError, match="novel"):
        merge_config(Careless(), {})
    with pytest.raises(ValueError, match="unknown merge policy"):
        evidence.merges("sometimes")


def test_the_window_carries_a_new_field_by_its_policy():
    w = Window(10, 600.0, recent=4)
    for i, t in enumerate((0.0, 10.0, 20.0)):
        poll = Newer(host="idx-1", build="b%d" % i, probes=[Probe(t, float(i))], not_judged=["poll %d" % i],
                     queues=[QueueSample(t, "parsingQueue", None, 50.0),
                             QueueSample(t, "parsingQueue", None, 40.0 + i, window="1m")],
                     sources=["s%d" % i])
        w.add(poll, t)
    ev = w.merged()
    assert isinstance(ev, Newer)
    assert [p.value for p in ev.probes] == [0.0, 1.0, 2.0]          # SAMPLES: every poll's
    assert ev.build == "b2" and ev.sources == ["s2"]                 # LATEST and NAMES: the newest poll's
    assert ev.not_judged == []                                       # PER_READ: not kept across polls
    assert [(q.window, q.fill_pct) for q in ev.queues] == [          # AVERAGES: the newest poll's averages
        ("sample", 50.0), ("sample", 50.0), ("sample", 50.0), ("1m", 42.0)]


def test_sanitise_drops_a_new_fields_non_finite_samples():
    ev = Newer(probes=[Probe(1.0, float("nan")), Probe(2.0, 3.0)],
               threads=[ThreadSample(1.0, "typing", float("inf"))])
    clean, dropped = sanitise(ev)
    assert dropped == 2 and [p.value for p in clean.probes] == [3.0] and clean.threads == []
    assert len(ev.probes) == 2      # the caller's evidence is untouched


def test_the_read_step_merges_a_new_field_from_the_configuration_endpoints():
    config_paths = [ep.path for ep in ENDPOINTS if ep.config and ep.apply is not None]
    first, second = config_paths[0], config_paths[1]
    ev = Newer(host="idx-1", sources=["runtime"])
    parts = {second: Newer(host="other", build="b2", probes=[Probe(2.0, 2.0)], sources=[second]),
             first: Newer(build="b1", probes=[Probe(1.0, 1.0)], sources=[first, "runtime"])}
    parts[first].config.hec_port = 8088
    parts[second].config.hec_port = 9088
    parts[second].config.max_threads = 2
    merge_config(ev, parts)
    assert ev.host == "idx-1"                                   # a known value stays
    assert ev.build == "b2"                                     # the later endpoint's known value wins
    assert (ev.config.hec_port, ev.config.max_threads) == (9088, 2)
    assert [p.value for p in ev.probes] == [1.0, 2.0]           # samples added in table order
    assert ev.sources == ["runtime", first, second]             # names joined
