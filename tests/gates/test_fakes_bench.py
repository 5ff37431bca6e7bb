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


def test_the_keep_alive_bench_server_keeps_its_connections():
    # The keep-alive bench compares a poll with bare requests on kept connections: if the fake closed them
    # (as it once did silently after a refactor), both sides would pay a handshake a request.
    import http.client
    from fakes.splunkd import FakeSplunkd, Response

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


def _tool(name):
    import importlib
    import sys
    from fakes.paths import TOOLS
    if TOOLS not in sys.path:
        sys.path.insert(0, TOOLS)
    return importlib.import_module(name)


def test_the_long_bench_log_puts_earlier_copies_before_the_judged_half_hour(tmp_path):
    gen = _tool("gen_bench_snapshot")
    logs = tmp_path / "logs"
    logs.mkdir()
    own = ["11-22-2025 09:59:30.100 +0000 INFO  Metrics - group=queue, name=parsingqueue, current_size_kb=1\n",
           "11-22-2025 10:00:00.100 +0000 INFO  Metrics - group=queue, name=parsingqueue, current_size_kb=2\n"]
    (logs / "metrics.log").write_text("".join(own))
    assert gen.earlier(str(tmp_path), 2) == 6
    lines = (logs / "metrics.log").read_text().splitlines(keepends=True)
    assert lines[4:] == own                 # the judged window is the log's own, unchanged
    assert [ln[:23] for ln in lines[:4]] == ["11-22-2025 08:59:30.100", "11-22-2025 09:00:00.100",
                                              "11-22-2025 09:29:30.100", "11-22-2025 09:30:00.100"]
    assert {ln[23:] for ln in lines[:4]} == {ln[23:] for ln in own}


def test_the_bench_table_shows_a_reported_ratio_without_judging_it():
    bench = _tool("bench")
    bench.RATIOS["t_target"] = 2.0
    bench.REPORTED.add("t_reported")
    try:
        rows = [("t_target", {"figure": 3.0, "floor": 1.0, "unit": "us"}),
                ("t_reported", {"figure": 3.0, "floor": 1.0, "unit": "us"})]
        out = bench.table(rows).splitlines()
    finally:
        del bench.RATIOS["t_target"]
        bench.REPORTED.discard("t_reported")
    assert out[2] == "| t_target | 3 us | 1 us | 3.00x | <= 2x | NO |"
    assert out[3] == "| t_reported | 3 us | 1 us | 3.00x | reported | - |"


def test_the_bench_table_judges_an_absolute_target_on_a_row_of_its_own():
    bench = _tool("bench")
    bench.RATIOS["t_abs"] = 12.0
    bench.AT_MOST["t_abs"] = {"worst_s": (1.0, "s", "worst of 5 runs")}
    try:
        met = bench.table([("t_abs", {"figure": 3.0, "floor": 1.0, "unit": "s", "worst_s": 0.9})]).splitlines()
        missed = bench.table([("t_abs", {"figure": 3.0, "floor": 1.0, "unit": "s", "worst_s": 1.2})]).splitlines()
        absent = bench.table([("t_abs", {"figure": 3.0, "floor": 1.0, "unit": "s"})]).splitlines()
    finally:
        del bench.RATIOS["t_abs"], bench.AT_MOST["t_abs"]
    assert met[3] == "| t_abs: worst of 5 runs | 0.9 s | - | - | <= 1 s | yes |"
    assert missed[3] == "| t_abs: worst of 5 runs | 1.2 s | - | - | <= 1 s | NO |"
    assert absent[3] == "| t_abs: worst of 5 runs | - | - | - | <= 1 s | NO (not measured) |"
