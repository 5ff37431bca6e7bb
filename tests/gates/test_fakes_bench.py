"""The benches' in-memory ports keep up with the ports they stand in for: a method the core
starts calling must exist there too, or `make bench` breaks while every test passes."""
import inspect

from ingest_doctor.alert import action as alert


def _methods(cls):
    return {n for n, v in vars(cls).items() if inspect.isfunction(v) and not n.startswith("_")}


def test_the_alert_bench_port_has_every_method_of_the_alert_port():
    from fakes.memory_port import MemoryPort
    missing = _methods(alert.Port) - _methods(MemoryPort)
    assert not missing, "tests/fakes/memory_port.py MemoryPort lacks %s" % sorted(missing)
