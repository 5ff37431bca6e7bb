"""The one wall-clock watchdog of every outbound call: the splunkd port (splunkd.py) and the webhook
client (webhook.py).

Why it exists: a socket timeout bounds each read, not a call. A server (or a receiver) trickling one
byte a second, or stalling in the TLS handshake or the headers, would hold a call for `timeout` per
byte; the collector's poll and the webhook's delivery must end at `timeout` whatever the peer does.
At the deadline the watchdog shuts down the sockets its call holds, which ends any read in progress.

One thread per watchdog, started with its first call and kept for the next ones (the collector
polls every 10 s on one port: a thread a call would cost more than the call's own TLS exchange).
One call at a time per watchdog: the owner (an `Http`, a webhook sender) is not shared between
threads. Deadlines only move forward (each call's is its start plus the same timeout), so a thread
sleeping towards an earlier deadline wakes then and sleeps on towards the later one.
"""
from __future__ import annotations

import socket
import threading
import time
from typing import List, Optional


class Watchdog:
    def __init__(self, name: str = "ingest_doctor call deadline") -> None:
        self.name = name
        self._cond = threading.Condition()
        self._deadline: Optional[float] = None      # the armed call's (None: nothing armed)
        self._held: List[socket.socket] = []        # the armed call's sockets
        self._until: Optional[float] = None         # when the thread wakes by itself (None: only when told)
        self._thread: Optional[threading.Thread] = None
        self.fired = False                          # the last armed call reached its deadline

    def arm(self, deadline: float) -> None:
        """Watch a call that must end by `deadline` (time.monotonic()); its sockets follow by `hold`."""
        with self._cond:
            self.fired = False
            self._deadline, self._held = deadline, []
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
                self._until = deadline
                self._thread.start()
            elif self._until is None or self._until > deadline:
                self._cond.notify()

    def hold(self, sock: Optional[socket.socket]) -> None:
        """A socket the armed call reads from; shut down at once when the deadline has passed already."""
        if sock is None:
            return
        with self._cond:
            if self._deadline is not None:
                self._held.append(sock)
                return
            late = self.fired
        if late:
            _shut(sock)

    def disarm(self) -> None:
        with self._cond:
            self._deadline, self._held = None, []

    def stop(self) -> None:
        """End the thread (a later `arm` starts another)."""
        with self._cond:
            thread, self._thread = self._thread, None
            self._deadline, self._held = None, []
            self._cond.notify()
        if thread is not None and thread is not threading.current_thread():
            thread.join(1.0)

    def _run(self) -> None:
        me = threading.current_thread()
        with self._cond:
            while self._thread is me:
                if self._deadline is None:
                    self._until = None
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._until = self._deadline
                    self._cond.wait(left)
                    continue
                held, self._deadline, self._held, self.fired = self._held, None, [], True
                for sock in held:
                    _shut(sock)


def remaining(deadline: float) -> float:
    """Seconds left until `deadline` (time.monotonic()), for a socket's timeout; past it, socket.timeout."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise socket.timeout("request took longer than its timeout")
    return left


def _shut(sock: socket.socket) -> None:
    # The plain socket's shutdown: an SSL socket's own would drop its TLS state under the reader.
    # A socket closed by its owner while a response still reads from it (http.client on
    # `Connection: close`) keeps its descriptor until that read ends, so this still reaches it.
    try:
        socket.socket.shutdown(sock, socket.SHUT_RDWR)
    except (OSError, ValueError):
        pass
