"""The modular input `ingest_doctor_introspection` on splunklib: its scheme, the poll loop, event
writing, and a clean stop within 2 s on SIGTERM or when splunkd closes its stdout.

It wires the collector's network side (ingest_doctor_ports/collector.py) and the /proc reader
to the core (bin/ingest_doctor/collector/poll.py). The script splunkd runs,
bin/ingest_doctor_introspection.py, only calls `run`.
"""
from __future__ import annotations

import json
import logging
import os
import select
import signal
import sys
import time
import traceback
from typing import Any, Dict, Optional
from xml.sax.saxutils import escape, quoteattr

from solnlib import log
from splunklib.modularinput import Argument, EventWriter, Scheme, Script

from ingest_doctor.collector import poll as collector, params as params_mod, procthreads, tls
from ingest_doctor import exitcodes
from ingest_doctor.logfmt import LogLine, kv
from ingest_doctor_ports.collector import Http, credential_reader, hec_context, log_level
from ingest_doctor_ports import logs
from ingest_doctor_ports.messages import MessageError, WebMessages
from ingest_doctor_ports.notifier import Notifier, settings_reader

SOURCETYPES = {"metrics": "ingest_doctor:metrics", "config": "ingest_doctor:config",
               "finding": "ingest_doctor:finding"}
_TYPES = {"string": Argument.data_type_string, "number": Argument.data_type_number,
          "boolean": Argument.data_type_boolean}


class Stopped(BaseException):
    """SIGTERM/SIGINT or a closed stdout: leave the loop (not an Exception: no handler swallows it)."""


class Lifecycle:
    """Stop requests. A signal interrupts whatever is blocking (a socket read,
    the wait between polls) by raising Stopped, except while an event is being
    written: then the write finishes first, so the XML stream stays well formed."""

    def __init__(self, out: Any):
        self.stopping = False
        self.writing = False
        self._poll = None
        self._fd: Optional[int] = None
        fileno = getattr(out, "fileno", None)
        try:
            fd = fileno() if fileno else None
        except (OSError, ValueError):
            fd = None
        if fd is not None and hasattr(select, "poll"):
            self._poll = select.poll()
            self._poll.register(fd, 0)      # POLLERR/POLLHUP are reported whatever the mask
            self._fd = fd

    def on_signal(self, signum: int, frame: Any) -> None:
        self.stopping = True
        if not self.writing:
            raise Stopped()

    def install(self, signums: Any) -> None:
        for sig in signums:
            signal.signal(sig, self.on_signal)
        rearm = getattr(signal, "setitimer", None)      # Unix; elsewhere check() still stops at the next step
        if rearm:
            signal.signal(signal.SIGALRM, self.on_signal)
        previous = sys.unraisablehook

        def unraisable(info: Any) -> None:
            # A signal landing in a weakref callback or __del__ (the garbage collector runs them between any
            # two bytecodes) raises Stopped where Python cannot propagate it: it would print a traceback to
            # splunkd.log and be lost. Raise it again 10 ms later, from a timer, back in the loop.
            if isinstance(info.exc_value, Stopped):
                if rearm:
                    rearm(signal.ITIMER_REAL, 0.01)
            else:
                previous(info)

        sys.unraisablehook = unraisable

    def discard_output(self) -> None:
        """splunkd closed our stdout: point the descriptor at /dev/null so the
        closing writes (</stream>, buffered bytes) succeed silently."""
        self.stopping = True
        if self._fd is not None:
            try:
                os.dup2(os.open(os.devnull, os.O_WRONLY), self._fd)
            except OSError:
                pass

    def output_closed(self) -> bool:
        if self._poll is None:
            return False
        return any(ev & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, ev in self._poll.poll(0))

    def check(self) -> None:
        if self.stopping:
            raise Stopped()
        if self.output_closed():
            self.discard_output()
            raise Stopped()

    def wait(self, seconds: float) -> None:
        """Sleep until the next poll, waking at once when stdout closes."""
        deadline = time.monotonic() + max(0.0, seconds)
        while True:
            self.check()
            left = deadline - time.monotonic()
            if left <= 0:
                return
            if self._poll is not None:
                self._poll.poll(int(min(left, 1.0) * 1000) + 1)
            else:
                time.sleep(min(left, 0.5))


LEVEL_REREAD_S = 300.0     # the Logging tab's level is read at start and again every 5 minutes


class Logs:
    """The collector's log lines at or above `level` (the add-on's Logging tab): to splunkd.log through
    the EventWriter, as before, and to its own file $SPLUNK_HOME/var/log/splunk/ingest_doctor_collector.log
    through `file` (a logging.Logger, which holds the level)."""

    def __init__(self, ew: EventWriter, file: logging.Logger):
        self.ew, self.file = ew, file
        self.level = logs.DEFAULT_LEVEL

    @property
    def level(self) -> str:
        return self._level

    @level.setter
    def level(self, name: str) -> None:
        self._level = logs.level_name(name)
        self.file.setLevel(logs.level_number(self._level))

    def log(self, severity: str, message: str) -> None:
        number = logs.level_number(severity)
        if not self.file.isEnabledFor(number):
            return
        self.ew.log(severity, message)
        self.file.log(number, "%s %s" % (severity, message))


def file_logger() -> logging.Logger:
    """The collector's file logger from solnlib.log, with the file's name, line format and rotation
    of ingest_doctor_ports/logs.py; outside Splunk (no var/log/splunk) a logger that writes nowhere."""
    folder = logs.folder()
    if folder is None:
        quiet = logging.Logger("ingest_doctor.collector")
        quiet.addHandler(logging.NullHandler())
        return quiet
    log.Logs.set_context(directory=folder, log_format=logs.FORMAT, max_bytes=logs.MAX_BYTES,
                         backup_count=logs.BACKUPS)
    return log.Logs().get_logger(logs.COLLECTOR_LOG[:-len(".log")])      # solnlib adds ".log"


class CollectorInput(Script):
    def __init__(self, life: Lifecycle, out: Any = None):
        super().__init__()
        self.life = life
        self.out = out if out is not None else sys.stdout
        self.exit_code: Optional[int] = None
        self.logs: Optional[Logs] = None

    def get_scheme(self) -> Scheme:
        scheme = Scheme("Ingest Doctor introspection")
        scheme.description = ("Polls this splunkd's REST introspection endpoints (queues, pipeline sets, indexer, "
                              "resource usage, HEC settings and health) and per-thread CPU, and reports "
                              "bottlenecks as they happen.")
        scheme.use_external_validation = True
        scheme.use_single_instance = False
        scheme.streaming_mode = Scheme.streaming_mode_xml
        for p in params_mod.PARAMS:
            scheme.add_argument(Argument(p.name, title=p.title, description=p.description,
                                         data_type=_TYPES[p.data_type], required_on_create=False,
                                         required_on_edit=False))
        return scheme

    def validate_input(self, definition: Any) -> None:
        params_mod.parse_params(definition.parameters, os.path.isfile)

    def stream_events(self, inputs: Any, ew: EventWriter) -> None:
        for name, stanza in inputs.inputs.items():      # use_single_instance = false: one stanza
            try:
                self._run(name, stanza, inputs.metadata, ew)
            except Stopped:
                pass
            return

    def _run(self, name: str, stanza: Dict[str, Any], meta: Dict[str, Any], ew: EventWriter) -> None:
        lines = self.logs = Logs(ew, file_logger())
        try:
            params = params_mod.parse_params(stanza, os.path.isfile)
        except params_mod.ParamError as e:
            self.logs.log(EventWriter.ERROR, kv("bad_parameter", input=name, message=str(e)))
            self.exit_code = exitcodes.BAD_CONFIG
            return
        index = stanza.get("index")
        index = None if index in (None, "", "default") else index
        indexes = {"metrics": params.metrics_index, "config": index, "finding": index}
        server_uri, session_key = meta.get("server_uri") or "", meta.get("session_key") or ""
        http_call = Http(params.request_timeout, hec_context(params))
        lines.level = log_level(http_call, server_uri, session_key) or lines.level
        level_at = time.monotonic()
        coll = collector.Collector(params, server_uri, session_key, http_call,
                                   credential_reader(params, session_key, server_uri, http_call),
                                   meta.get("server_host"), check_stop=self.life.check)
        # this instance's Splunk Web messages, shown to the input's message_roles only
        web = WebMessages(server_uri, session_key, http_call, params.message_roles)
        # The webhook, out of band: its own thread and its own connection (Http is not thread-safe).
        notifier_http = Http(params.request_timeout, hec_context(params))
        notifier = Notifier(meta.get("checkpoint_dir") or ".", meta.get("server_host"),
                            settings_reader(notifier_http, server_uri, session_key))
        notifier.start()
        tracker, pid, pid_source = None, None, "off"
        if params.thread_cpu:
            pid, pid_source = procthreads.splunkd_pid(os.environ.get("SPLUNK_HOME"), procthreads.DEFAULT_PROC,
                                                      os.getppid())
            tracker = procthreads.ThreadCpu() if pid else None
        self.logs.log(EventWriter.INFO, kv(
            "start", input=name, poll_interval=params.poll_interval, metrics_index=params.metrics_index,
            hec_health_url=params.hec_health_url or "derived", hec_probe_event=bool(params.hec_token_credential),
            thread_cpu=("pid=%s source=%s" % (pid, pid_source)) if pid else pid_source))
        if not params.hec_tls_verify:
            lines.log(EventWriter.WARN, kv("hec_tls_unverified", input=name, message=tls.warning(params.tls())))
        next_at = time.monotonic()
        try:
            while True:
                self.life.check()
                try:
                    threads = tracker.sample(pid, time.monotonic()) if tracker and pid else None
                    result = coll.poll(time.time(), threads)
                except Exception as e:  # a bug must not end the input: log it, poll again next time
                    result = collector.PollResult(logs=[LogLine("ERROR", kv(
                        "poll_error", input=name, error=type(e).__name__,
                        detail=" ".join(traceback.format_exception_only(type(e), e)).strip()[:300]))])
                notifier.submit(result.changes, time.time())
                result.logs.extend(notifier.drain_logs())
                self._write(name, result, indexes, ew)
                if result.messages:
                    self._post_messages(name, web, result.messages, ew)
                next_at += params.poll_interval
                now = time.monotonic()
                if next_at < now:               # a slow poll: skip the missed slots, never overlap
                    next_at = now
                if now - level_at >= LEVEL_REREAD_S:
                    lines.level = log_level(http_call, server_uri, session_key) or lines.level
                    level_at = now
                self.life.wait(next_at - now)
        finally:
            notifier.close()
            http_call.close()
            try:
                self.logs.log(EventWriter.INFO, kv("stop", input=name, polls=coll.polls))
            except (OSError, ValueError):
                pass

    def _post_messages(self, name: str, web: WebMessages, plan: Any, ew: EventWriter) -> None:
        try:
            error = web.apply(plan)
        except MessageError as e:           # apply() collects per-message errors; this is a safety net
            error = str(e)
        if error:
            self.logs.log(EventWriter.WARN, kv("web_message", input=name, error=error[:300],
                                                  action="the finding events are written; set web_messages "
                                                         "= 0 to stop posting"))

    def _write(self, name: str, result: collector.PollResult, indexes: Dict[str, Optional[str]],
               ew: EventWriter) -> None:
        """The poll's log lines, then its events as one buffered write and one flush (the same XML
        as splunklib's EventWriter.write_event would write event by event)."""
        life = self.life
        log = self.logs.log if self.logs is not None else ew.log      # _run sets self.logs
        life.writing = True
        try:
            for line in result.logs:
                log(line.severity, line.message)
            if result.events:
                parts = []
                if not ew.header_written:
                    parts.append("<stream>")
                    ew.header_written = True
                head = '<event stanza=%s unbroken="1"><time>' % quoteattr(name)   # Event's defaults
                tails = {kind: "</time><sourcetype>%s</sourcetype>%s<data>" % (
                    escape(st), "" if indexes.get(kind) is None else "<index>%s</index>" % escape(indexes[kind] or ""))
                    for kind, st in SOURCETYPES.items()}
                dumps = json.JSONEncoder(separators=(",", ":")).encode
                for out in result.events:
                    parts.append("%s%.3f%s%s</data><done /></event>" % (head, out.time, tails[out.kind],
                                                                          escape(dumps(out.data))))
                # ASCII with character references, as ElementTree writes it: safe whatever stdout's encoding.
                # The JSON is ASCII already (ensure_ascii): only a non-ASCII stanza or index needs the pass.
                text = "".join(parts)
                if not text.isascii():
                    text = text.encode("ascii", "xmlcharrefreplace").decode("ascii")
                self.out.write(text)
            self.out.flush()
        except (BrokenPipeError, ValueError, OSError):
            life.discard_output()
            raise Stopped()
        finally:
            life.writing = False
        life.check()


def run(argv, stdin, stdout, stderr) -> int:
    # solnlib logs each failed try, traceback and all, on the root logger (solnlib.utils.retry); with
    # no handler there, logging's last resort prints it to stderr, which splunkd files in splunkd.log.
    # Our own lines say what failed; those go nowhere. A log line that cannot be written (a full disk)
    # is lost without a traceback on stderr either (raiseExceptions, logging's switch for production).
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.NullHandler())
    logging.raiseExceptions = False
    life = Lifecycle(stdout)
    script = CollectorInput(life, stdout)
    streaming = len(argv) == 1
    if streaming:
        life.install((signal.SIGTERM, signal.SIGINT))
    ew = EventWriter(stdout, stderr)
    try:
        rc = script.run_script(argv, ew, getattr(stdin, "buffer", stdin))
    except Stopped:
        rc = 0
    if script.exit_code is not None:
        return script.exit_code
    if rc == 0:
        return exitcodes.OK
    if len(argv) > 1 and str(argv[1]).lower() == "--validate-arguments":
        return exitcodes.BAD_CONFIG
    return exitcodes.BAD_INPUT if streaming else exitcodes.USAGE

