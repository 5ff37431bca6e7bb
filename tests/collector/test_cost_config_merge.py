"""Issue 21 (cost): the collector merges its configuration readings into each poll with
readstep.ConfigMerge, which works out what the readings give once per set of readings (they change
about once a minute) instead of merging them again every poll. Pinned here: over polls where a
reading changes, stays the same object, comes, and goes, what it gives equals readstep.merge_config."""
import copy
from dataclasses import asdict, replace

from fakes.collector_http import scenario_bodies
from ingest_doctor.evidence import Config, Evidence, HostCpu
from ingest_doctor.read import readstep
from ingest_doctor.read.endpoints import COLLECTOR, Fetched


def _bodies():
    return scenario_bodies("busy_healthy")


def _read(bodies, parsed, time):
    return readstep.read(lambda ep: Fetched(200, bodies[ep.path], 1.0), [ep for ep in COLLECTOR if ep.path in bodies],
                         time, parsed=parsed)


def test_the_cached_merge_equals_merging_again_poll_after_poll():
    bodies = _bodies()
    config = [ep.path for ep in COLLECTOR if ep.config and ep.path in bodies and ep.apply is not None]
    assert len(config) >= 4
    parsed = {}
    first = _read(bodies, parsed, 100.0).config
    parts = dict(first)
    cached = readstep.ConfigMerge()
    for i in range(40):
        if i == 10:             # a reading changes: another object, other values
            old = parts[config[1]]
            parts[config[1]] = replace(old, host="changed", config=replace(old.config, version="1.0"),
                                       sources=old.sources + ["changed"])
        if i == 20:             # a reading goes ...
            del parts[config[0]]
        if i == 30:             # ... and comes back
            parts[config[0]] = first[config[0]]
        if i == 35:             # the same values in a new object (a body that changed back)
            parts[config[2]] = copy.deepcopy(parts[config[2]])
        ev = _read(bodies, parsed, 100.0 + 10 * i).evidence
        assert _read(bodies, parsed, 100.0).config == first      # unchanged bodies: the same readings
        if i % 3 == 0:          # the runtime evidence knows some values itself: those stand
            ev.host = "runtime-host"
            ev.config = Config(version="9.9", roles=["indexer"])
            ev.host_cpu = HostCpu(cores=2)
        if i % 4 == 1:
            ev.saw("proc")
            ev.saw(config[0])
        fresh = copy.deepcopy(ev)
        cached(ev, parts)
        readstep.merge_config(fresh, parts)
        assert ev == fresh, i
        assert asdict(ev) == asdict(fresh), i
        if i in (16, 25):       # the change shows (else this test would not see a stale cache)
            assert ev.host == "changed" and ev.config.version == "1.0" and "changed" in ev.sources, i


def test_the_cached_merge_of_no_parts_and_of_a_subclass():
    cached = readstep.ConfigMerge()
    ev, fresh = Evidence(host="h"), Evidence(host="h")
    cached(ev, {})
    readstep.merge_config(fresh, {})
    assert ev == fresh
    part = Evidence(host="other", config=Config(hec_port=8088), sources=["a", "a", "b"])
    ev, fresh = Evidence(sources=["b"]), Evidence(sources=["b"])
    cached(ev, {COLLECTOR[0].path: part})
    readstep.merge_config(fresh, {COLLECTOR[0].path: part})
    assert ev == fresh and ev.sources == ["b", "a"] and ev.config.hec_port == 8088 and ev.host == "other"
