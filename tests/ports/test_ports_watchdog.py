"""The one wall-clock watchdog (ingest_doctor_ports/watchdog.py): at the deadline it shuts the armed
call's sockets (a blocked read ends), a disarmed call is left alone, one kept thread serves call
after call, and a socket held after the deadline is shut at once."""
import socket
import threading
import time

import pytest

from ingest_doctor_ports.watchdog import Watchdog


@pytest.fixture
def dog():
    d = Watchdog()
    yield d
    d.stop()


def blocked_read(sock):
    out = {}

    def read():
        out["data"] = sock.recv(10)
    t = threading.Thread(target=read, daemon=True)
    t.start()
    return t, out


def test_a_blocked_read_ends_at_the_deadline_and_the_thread_is_kept(dog):
    threads = set()
    for _ in range(3):
        a, b = socket.socketpair()
        with a, b:
            began = time.monotonic()
            dog.arm(began + 0.3)
            dog.hold(a)
            threads.add(dog._thread)
            t, out = blocked_read(a)
            t.join(5)
            assert not t.is_alive() and out["data"] == b"" and dog.fired
            assert 0.25 < time.monotonic() - began < 3
            dog.disarm()
    assert len(threads) == 1


def test_a_disarmed_call_is_left_alone(dog):
    a, b = socket.socketpair()
    with a, b:
        dog.arm(time.monotonic() + 0.2)
        dog.hold(a)
        dog.disarm()
        time.sleep(0.4)
        b.sendall(b"ok")
        assert a.recv(10) == b"ok" and not dog.fired


def test_a_socket_held_after_the_deadline_is_shut_at_once(dog):
    a, b = socket.socketpair()
    with a, b:
        dog.arm(time.monotonic() + 0.1)
        time.sleep(0.3)
        assert dog.fired
        dog.hold(a)
        t, out = blocked_read(a)
        t.join(5)
        assert not t.is_alive() and out["data"] == b""
