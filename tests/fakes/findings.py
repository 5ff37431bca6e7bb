"""Findings as the engine makes them, for the delivery tests: a pegged HEC thread on a heavy
forwarder (a warning with its evidence and setting) and a blocked typing queue on an indexer."""
from ingest_doctor.findings import EvidenceItem, Finding, Recommendation


def hec(host="hf-01", severity="warning", current="2"):
    return Finding("hec_input", severity, host, None, "httpinputserverdatathread",
                   "The HEC thread is pegged at 99% of one core.",
                   [EvidenceItem("thread_busy_pct", 99.0, "%", "sample", "collector /proc")],
                   [Recommendation("Raise the HEC I/O threads.", "inputs.conf", "http", "dedicatedIoThreads",
                                   current, "8")])


def typing(host="idx-01", pset=2, severity="critical"):
    return Finding("typing", severity, host, pset, "typing", "typingQueue is blocked.", [],
                   [Recommendation("Move index-time regex to search time.", "props.conf")])
