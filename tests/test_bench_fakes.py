"""The benches' in-memory ports keep up with the ports they stand in for: a method the core
starts calling must exist there too, or `make bench` breaks while every test passes."""
import inspect
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from ingest_doctor.alert import action as alert  # noqa: E402


def _methods(cls):
    return {n for n, v in vars(cls).items() if inspect.isfunction(v) and not n.startswith("_")}


def test_the_alert_bench_port_has_every_method_of_the_alert_port():
    import bench_alerts
    missing = _methods(alert.Port) - _methods(bench_alerts.MemoryPort)
    assert not missing, "tools/bench_alerts.py MemoryPort lacks %s" % sorted(missing)
