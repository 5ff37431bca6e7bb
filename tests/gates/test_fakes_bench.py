"""The benches' in-memory ports keep up with the ports they stand in for: a method the core
starts calling must exist there too, or `make bench` breaks while every test passes."""
import http.client
import inspect
import os
import sys

import bench
import gen_bench_snapshot
from fakes.memory_port import MemoryPort
from fakes.paths import ROOT
from fakes.splunkd import FakeSplunkd, Response
from ingest_doctor.alert import action as alert


def _methods(cls):
    return {n for n, v in vars(cls).items() if inspect.isfunction(v) and not n.startswith("_")}


def test_the_alert_bench_port_has_every_method_of_the_alert_port():
    missing = _methods(alert.Port) - _methods(MemoryPort)
    assert not missing, "tests/fakes/memory_port.py MemoryPort lacks %s" % sorted(missing)


def test_the_keep_alive_bench_server_keeps_its_connections():
    # The keep-alive bench compares a poll with bare requests on kept connections: if the fake closed them
    # (as it once did silently after a refactor), both sides would pay a handshake a request.
    for keep in (True, False):
        with FakeSplunkd(keep_alive=keep) as fake:
            fake.route("GET", "/services/server/info", Response(200, b"{}"))
            conn = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
            seen = []
            for _ in range(2):
                conn.request("GET", "/services/server/info")
                r = conn.getresponse()
                assert r.status == 200 and r.read() == b"{}"
                seen.append(conn.sock)
            conn.close()
            if keep:        # the second request went over the first one's socket
                assert seen[0] is not None and seen[0] is seen[1]
            else:           # "Connection: close": http.client drops the socket after each answer
                assert seen == [None, None]


def test_the_long_bench_log_puts_earlier_copies_before_the_judged_half_hour(tmp_path):
    logs = tmp_path / "logs"
    logs.mkdir()
    own = ["11-22-2025 09:59:30.100 +0000 INFO  Metrics - group=queue, name=parsingqueue, current_size_kb=1\n",
           "11-22-2025 10:00:00.100 +0000 INFO  Metrics - group=queue, name=parsingqueue, current_size_kb=2\n"]
    (logs / "metrics.log").write_text("".join(own))
    assert gen_bench_snapshot.earlier(str(tmp_path), 2) == 6
    lines = (logs / "metrics.log").read_text().splitlines(keepends=True)
    assert lines[4:] == own                 # the judged window is the log's own, unchanged
    assert [ln[:23] for ln in lines[:4]] == ["11-22-2025 08:59:30.100", "11-22-2025 09:00:00.100",
                                              "11-22-2025 09:29:30.100", "11-22-2025 09:30:00.100"]
    assert {ln[23:] for ln in lines[:4]} == {ln[23:] for ln in own}


def test_the_budget_table_gives_min_median_max_and_judges_the_median():
    b = bench.Budget("t", "x_s", 2, "s", "the thing, wall", "keep-alive")
    met = bench.table({"t": {"x_s": [3.0, 1.0, 1.5]}}, [b]).splitlines()
    missed = bench.table({"t": {"x_s": [2.5, 1.0, 2.1]}}, [b]).splitlines()
    assert met[:2] == list(bench.TABLE_HEAD)
    assert met[2] == "| the thing, wall | <= 2 s | keep-alive | 3 | 1 | 1.5 | 3 | yes |"
    assert missed[2] == "| the thing, wall | <= 2 s | keep-alive | 3 | 1 | 2.1 | 2.5 | NO |"


def test_a_budget_its_bench_did_not_measure_is_not_met():
    b = bench.Budget("t", "x_s", 2, "s", "the thing, wall", "-")
    for results in ({}, {"t": {}}, {"t": {"x_s": []}}):
        assert bench.table(results, [b]).splitlines()[2] == \
            "| the thing, wall | <= 2 s | - | - | - | - | - | NO (not measured) |"
    # a webhook that never came is a run that missed, not one left out
    inf = bench.table({"t": {"x_s": [1.0, float("inf"), float("inf")]}}, [b]).splitlines()[2]
    assert inf.endswith("| NO |")


def test_every_budget_is_measured_by_a_registered_bench():
    bench.discover()
    assert {b.bench for b in bench.BUDGETS} <= set(bench.REGISTRY)
    assert len({(b.bench, b.key) for b in bench.BUDGETS}) == len(bench.BUDGETS)


def test_docs_performance_has_the_one_budget_table():
    """docs/performance.md quotes the table make bench prints: the same budgets, limits and needs, in order."""
    with open(os.path.join(ROOT, "docs", "performance.md"), encoding="utf-8") as fh:
        text = fh.read()
    start = text.index(bench.TABLE_HEAD[0])
    rows = []
    for line in text[start:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append(tuple(c.strip() for c in line.strip("|").split("|"))[:3])
    assert rows == [bench.budget_cells(b) for b in bench.BUDGETS]
    assert text.count(bench.TABLE_HEAD[0]) == 1


def test_measured_reports_the_childs_own_peak_memory():
    small = bench.measured([sys.executable, "-c", "pass"])
    big = bench.measured([sys.executable, "-c", "import sys; b = bytearray(120 * 2**20); b[::4096] = b'x' * len(b[::4096]); sys.exit(3)"])
    assert small.returncode == 0 and big.returncode == 3
    assert big.rss_mb >= 120 > small.rss_mb
    assert big.wall_s > 0 and big.cpu_s > 0
    # Linux starts a forked child's ru_maxrss at its parent's RSS: a large bench must not make its
    # children look large
    ballast = bytearray(200 * 2**20)
    ballast[::4096] = b"x" * len(ballast[::4096])
    assert bench.measured([sys.executable, "-c", "pass"]).rss_mb < 100
    del ballast
