"""Run single rules on plain Evidence: each rule's tests give it the state the rules before it leave."""
from ingest_doctor.evidence import CpuSample, QueueSample, ThreadSample
from ingest_doctor.engine.rules import state as state_mod
from ingest_doctor.thresholds import load

T0 = 1000.0


def state(ev, **overrides):
    return state_mod.start(ev, load(overrides))


def run(ev, *rules):
    st = state(ev)
    for rule in rules:
        rule(st)
    return st


def queue(name, pct, pset=None, n=4, blocked=False, source="logs/metrics.log group=queue"):
    return [QueueSample(T0 + 30 * i, name, pset, pct, "sample", blocked, source) for i in range(n)]


def thread(name, pct=99.0, pset=None, n=4, source="logs/metrics.log group=dutycycle"):
    return [ThreadSample(T0 + 30 * i, name, pct, pset, source=source) for i in range(n)]


def cpu(values, cores=8):
    return [CpuSample(T0 + 10 * i, v, None, cores, "rest hostwide") for i, v in enumerate(values)]


def bottlenecks(report):
    """(bottleneck, severity) of each finding of `report`, in order."""
    return [(f.bottleneck, f.severity) for f in report.findings]
