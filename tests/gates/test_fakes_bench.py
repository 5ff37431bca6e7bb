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
