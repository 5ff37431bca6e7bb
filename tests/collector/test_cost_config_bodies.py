"""Issue 21 (cost): the collector does not parse a configuration body again when it is the same, byte for
byte, as the last one it read (readstep.read's `parsed`): configuration changes rarely and the HEC token
list is large. Pinned here: what such a read gives equals parsing the body again (evidence, macros),
and a body that changed is parsed again."""

from fakes.collector_http import scenario_bodies
from ingest_doctor.read import readstep
from ingest_doctor.read.endpoints import COLLECTOR, Fetched, MACROS

MACROS_BODY = (b'{"entry": [{"name": "ingest_doctor_queue_fill_pct", "content": {"definition": "85"}}, '
               b'{"name": "other", "content": {"definition": "1"}}]}')


def _bodies():
    out = scenario_bodies("busy_healthy")
    out[MACROS] = MACROS_BODY
    return out


def _read(bodies, parsed, time):
    return readstep.read(lambda ep: Fetched(200, bodies[ep.path], 1.0), [ep for ep in COLLECTOR if ep.path in bodies],
                         time, parsed=parsed)


def test_an_unchanged_configuration_body_reads_as_parsing_it_again(monkeypatch):
    bodies = _bodies()
    config = [ep.path for ep in COLLECTOR if ep.config and ep.path in bodies and ep.apply is not None]
    assert len(config) >= 4
    parsed = {}
    first = _read(bodies, parsed, 100.0)
    assert set(parsed) == set(config) | {MACROS}
    calls = []
    real = readstep.apply_rest
    monkeypatch.setattr(readstep, "apply_rest", lambda ev, path, body, time=None: calls.append(path) or
                        real(ev, path, body, time=time))
    again = _read(bodies, parsed, 110.0)
    fresh = _read(bodies, None, 110.0)
    # Only the runtime bodies were parsed again (twice: the cached read and the fresh one).
    assert sorted(calls) == sorted(2 * [ep.path for ep in COLLECTOR if ep.runtime and ep.path in bodies]
                                   + config)
    assert again.config == fresh.config == first.config
    assert again.macros == fresh.macros == {"ingest_doctor_queue_fill_pct": "85"}
    assert again.evidence == fresh.evidence and again.bodies == fresh.bodies
    merged, merged_fresh = again.evidence, fresh.evidence
    readstep.merge_config(merged, again.config)
    readstep.merge_config(merged_fresh, fresh.config)
    assert merged == merged_fresh
    # A changed body is parsed again, and its reading replaces the last one.
    del calls[:]
    bodies[MACROS] = MACROS_BODY.replace(b'"85"', b'"70"')
    changed = _read(bodies, parsed, 120.0)
    assert changed.macros == {"ingest_doctor_queue_fill_pct": "70"}
    assert parsed[MACROS][0] == bodies[MACROS]
    # The macros handed out are a copy: changing them does not change the next read's.
    changed.macros["ingest_doctor_queue_fill_pct"] = "1"
    assert _read(bodies, parsed, 130.0).macros == {"ingest_doctor_queue_fill_pct": "70"}
