"""Queue titles, pool names and average windows: each read by its one pattern (model.TITLE,
threadnames.POOL, evidence.WINDOW)."""
import pytest

from ingest_doctor import model, threadnames
from ingest_doctor.evidence import window_minutes


@pytest.mark.parametrize("title, want", [
    ("parsingQueue", ("parsingQueue", None)), ("parsingQueue.2", ("parsingQueue", 2)),
    ("parsingqueue.0", ("parsingQueue", 0)), ("tcpout_default-autolb-group", ("tcpout", None)),
    ("tcpout_x.3", ("tcpout", 3)), ("splunktcpin.1", ("splunktcpin", 1)),
    # not a title splunkd writes: the whole text is the name, no pipeline set
    ("a.b.3", ("a.b.3", None)), ("9a.1", ("9a.1", None)), (".3", (".3", None)), ("x.", ("x.", None)),
    ("aggQueue.1a", ("aggQueue.1a", None)), ("parsingQueue.2\n", ("parsingQueue.2\n", None)),
])
def test_queue_titles(title, want):
    assert model.split_queue_title(title) == want


@pytest.mark.parametrize("name, want", [
    ("indexertpoolworker-3", "indexertpoolworker"), ("indexertpoolworker-03", "indexertpoolworker"),
    ("indexertpoolworker-", "indexertpoolworker-"), ("indexertpoolworker", "indexertpoolworker"),
    ("unknownpool-3", "unknownpool-3"), ("1-2", "1-2"), ("indexertpoolworker-3\n", "indexertpoolworker-3\n"),
])
def test_pool_names(name, want):
    assert threadnames.pool_name(name) == want


@pytest.mark.parametrize("window, want", [
    ("10m", 10.0), ("1m", 1.0), ("1.5m", 1.5), ("900s", 15.0), ("sample", None), ("", None), (None, None),
    ("m", None), (".5m", None), ("5.m", None), ("10M", None), (" 5m", None), ("10m\n", None),
    ("3 of the last 4 samples", None),
])
def test_average_windows_in_minutes(window, want):
    assert window_minutes(window) == want
