"""The CLI's commands: `diagnose` a snapshot folder, `snapshot` a live splunkd into one.

Pure: the entry script (bin/ingest_doctor_cli.py) passes `connect`, which returns the splunkd
port (bin/ingest_doctor_ports/splunkd.py: `fetch(endpoint)`, `request(...)`, `login(...)`); every read
of splunkd goes through it and the read step, over the endpoint table's snapshot rows.
"""
from __future__ import annotations

import argparse
import getpass
import json
import math
import os
import time
from typing import IO, Any, Callable, Mapping, Optional
from urllib.parse import urlsplit

from ingest_doctor import exitcodes, thresholds
from ingest_doctor.deployment import folder as deployment_folder
from ingest_doctor.deployment import text as deployment_text
from ingest_doctor.deployment.judge import judge
from ingest_doctor.diagnose import diagnose
from ingest_doctor.engine import textreport
from ingest_doctor.deployment.topology import Instance, uri_host
from ingest_doctor.evidence import Evidence
from ingest_doctor.read import diag, endpoints, logtime, readstep
from ingest_doctor.read.endpoints import INFO, SNAPSHOT, Fetched
from ingest_doctor.read.snapshot import (SnapshotError, has_evidence, load_snapshot, nothing_to_judge, read_meta,
                                         recorded_thresholds)
from ingest_doctor.read.snapwriter import SnapshotWriter, export_raw_lines, metrics_search, splunkd_search
from ingest_doctor.textsafe import printable, terminal

# uri, Authorization header value (None: log in with a password), CA file, insecure -> the port
Connect = Callable[[str, Optional[str], Optional[str], bool], Any]


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    """argparse, with its errors raised (run prints one line and returns exitcodes.USAGE where argparse
    would exit 2) and --help written to main's stdout."""

    def __init__(self, *args: Any, out: Optional[IO[str]] = None, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.out = out

    def error(self, message: str):
        raise UsageError("%s: %s" % (self.prog, message))

    def print_help(self, file: Optional[IO[str]] = None) -> None:
        super().print_help(file or self.out)


def build_parser(out: Optional[IO[str]] = None) -> Parser:
    p = Parser(prog="ingest_doctor_cli.py", out=out,
               description="Find where a splunkd's ingestion pipeline is stuck.")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    d = sub.add_parser("diagnose", out=out, help="judge a snapshot folder (or a deployment folder of snapshots), "
                                                 "or Splunk diags, and print the findings")
    d.add_argument("snapshot_dir", metavar="PATH", help="a snapshot folder, or a deployment folder whose subfolders are snapshots; "
                                        "or a diag (diag-<host>-<date>.tar.gz, or its extracted folder), or a "
                                        "folder of diags")
    d.add_argument("more_diags", nargs="*", metavar="DIAG",
                   help="more diags: several diags are judged as one deployment")
    d.add_argument("--at", metavar="TIME", help="diags: judge the window ending at TIME (ISO 8601, UTC unless a "
                                                "zone is given); default: the end of the diag's metrics.log")
    d.add_argument("--window", metavar="MIN", type=float,
                   help="diags: minutes judged (default: the log_window_min threshold)")
    d.add_argument("--format", choices=("json", "text"), default="json")
    d.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                   help="override a threshold (name as in thresholds.py or its macro name); without it, the "
                        "snapshot's recorded ingest_doctor_* macros, else the defaults")
    s = sub.add_parser("snapshot", out=out, help="record a live splunkd into a snapshot folder")
    s.add_argument("--uri", required=True, action="append",
                   help="https://<host>:8089; give it once per instance to write a deployment folder "
                        "(one snapshot subfolder per instance)")
    s.add_argument("--out", required=True)
    auth = s.add_mutually_exclusive_group()
    auth.add_argument("--token-env", metavar="NAME", help="environment variable holding a token")
    auth.add_argument("--username", help="user name; the password is prompted (or read from stdin)")
    tls = s.add_mutually_exclusive_group()
    tls.add_argument("--ca-file", help="CA bundle that signed splunkd's certificate")
    tls.add_argument("--insecure", action="store_true", help="do not verify splunkd's TLS certificate")
    s.add_argument("--metrics-log-minutes", type=int, default=30, help="minutes of metrics.log to export (0: none)")
    return p


def run(argv, stdin: IO[str], stdout: IO[str], stderr: IO[str], environ: Mapping[str, str],
        connect: Connect) -> int:
    try:
        args = build_parser(stdout).parse_args(argv)
        if args.command == "diagnose":
            return cmd_diagnose(args, stdout, stderr)
        if args.command == "snapshot":
            return cmd_snapshot(args, stdin, stdout, stderr, environ, connect)
        stderr.write("ingest_doctor: give a command: diagnose or snapshot (see --help)\n")
        return exitcodes.USAGE
    except UsageError as e:
        stderr.write("ingest_doctor: %s\n" % e)
        return exitcodes.USAGE
    except SystemExit as e:   # --help
        return int(e.code or 0)


def _overrides(args) -> dict:
    return dict(kv.split("=", 1) for kv in args.threshold if "=" in kv)


def _say(stderr: IO[str], message: str) -> None:
    """One line on stderr: names from files nobody vouches for are in it, so never a control character (no
    terminal escape, no forged line) and never megabytes (textsafe.printable)."""
    stderr.write("ingest_doctor: %s\n" % printable(message, MAX_STDERR))


MAX_STDERR = 4000


def _loaded(load, args, stderr: IO[str]):
    """load(folder, overrides), or the exit code of a folder that cannot be read or an invalid --threshold."""
    try:
        return load(args.snapshot_dir, _overrides(args))
    except SnapshotError as e:
        _say(stderr, str(e))
        return exitcodes.BAD_INPUT
    except thresholds.ThresholdError as e:
        _say(stderr, str(e))
        return exitcodes.BAD_CONFIG


def _json(data) -> str:
    try:
        return json.dumps(data, indent=2, allow_nan=False) + "\n"
    except ValueError:      # an inf or NaN no guard caught: null, as JSON has no such number
        return json.dumps(_finite(data), indent=2) + "\n"


def _finite(data):
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: _finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [_finite(v) for v in data]
    return data


def cmd_diagnose(args, stdout: IO[str], stderr: IO[str]) -> int:
    paths = [args.snapshot_dir] + list(args.more_diags)
    # Diags: several paths, a diag, or a folder of diags that is not a snapshot or deployment folder (one of
    # those holding a stray tarball stays what it is).
    if args.more_diags or diag.is_diag(args.snapshot_dir) or (
            not deployment_folder.is_snapshot(args.snapshot_dir)
            and not deployment_folder.is_deployment(args.snapshot_dir) and diag.diags_in(args.snapshot_dir)):
        return cmd_diagnose_diags(args, paths, stdout, stderr)
    if args.at is not None or args.window is not None:
        raise UsageError("--at and --window apply to diags (a snapshot is judged on its capture's window)")
    if deployment_folder.is_deployment(args.snapshot_dir):
        return cmd_diagnose_deployment(args, stdout, stderr)
    # The thresholds the snapshot's splunkd was tuned with, then --threshold.
    loaded = _loaded(recorded_thresholds, args, stderr)
    if isinstance(loaded, int):
        return loaded
    th, problems = loaded
    ev = load_snapshot(args.snapshot_dir, th, connections=False)     # one instance: no topology to build
    ev.problems.extend(problems)
    return _report_one(ev, th, args, args.snapshot_dir, stdout, stderr)


def _report_one(ev, th, args, label: str, stdout: IO[str], stderr: IO[str]) -> int:
    """One instance's report (contract section 2) and its exit code."""
    report = diagnose(ev, th)
    nothing = nothing_to_judge(ev)
    if nothing and has_evidence(ev):    # without evidence the engine says "nothing was judged" itself
        report.not_judged.insert(0, "nothing to judge: %s" % nothing)
    if args.format == "text":
        stdout.write(terminal(textreport.render(report, judged=not nothing)))
    else:
        stdout.write(_json(report.to_dict()))
    if not has_evidence(ev):
        why = "; ".join(ev.problems) if ev.problems else "no rest/*.json, logs/ or hec/ files"
        _say(stderr, "nothing to analyse in %s (%s)" % (label, why))
        return exitcodes.BAD_INPUT
    if nothing:
        # Files were read, so it was analysed (contract section 3: exit 0), but no rule had data to judge:
        # `healthy` keeps its rule (no warning or critical finding), `not_judged` opens with "nothing to judge"
        # and the text's first line says "nothing judged" (docs/reliability-core.md).
        _say(stderr, "nothing to judge in %s (%s)%s" % (label, nothing, "; unusable: %s"
                                                           % "; ".join(ev.problems) if ev.problems else ""))
        return exitcodes.OK
    if ev.problems:
        _say(stderr, "judged the rest; unusable: %s" % "; ".join(ev.problems))
    return exitcodes.OK


def cmd_diagnose_deployment(args, stdout: IO[str], stderr: IO[str]) -> int:
    loaded = _loaded(deployment_folder.load, args, stderr)
    if isinstance(loaded, int):
        return loaded
    name, instances, problems, unjudged = loaded
    return _report_deployment(name, instances, problems, unjudged, args, args.snapshot_dir, stdout, stderr)


def _report_deployment(name, instances, problems, unjudged, args, label: str, stdout: IO[str],
                       stderr: IO[str], what: str = "no instance folder has rest/*.json, logs/ or hec/ files",
                       notes=()) -> int:
    """A deployment's report (contract section 5) and its exit code; `notes` open its not_judged."""
    dep = judge(instances, name)
    dep.not_judged[:0] = list(notes)
    empty = [(i, why) for i, why in ((i, nothing_to_judge(i.evidence)) for i in instances) if why]
    # Every instance it could not judge is named where the admin reads the report, and on stderr.
    dep.not_judged[:0] = unjudged + ["%s: not judged: nothing to judge (%s)" % (i.name, why) for i, why in empty]
    stdout.write(terminal(deployment_text.render(dep, {i.host for i, _ in empty})) if args.format == "text"
                 else _json(dep.to_dict()))
    if not any(has_evidence(i.evidence) for i in instances):
        _say(stderr, "nothing to analyse in %s (%s)" % (label, what))
        return exitcodes.BAD_INPUT
    if problems or empty or unjudged:
        _say(stderr, "judged the rest; unusable: %s"
             % "; ".join(problems + unjudged + ["%s: nothing to analyse" % i.name for i, _ in empty]))
    return exitcodes.OK


# ------------------------------------------------------------------ diags

def cmd_diagnose_diags(args, paths, stdout: IO[str], stderr: IO[str]) -> int:
    """Splunk diags, or several snapshot folders (contract section 5, deployment inputs): one diag is judged as one
    instance, several paths (or a folder of diags) as one deployment. A diag that cannot be read is named on
    stderr with why; the others are judged."""
    expanded = []
    for p in paths:
        if len(paths) > 1 and deployment_folder.is_snapshot(p) and not diag.is_diag(p):
            expanded.append((p, False))
            continue
        inside = [] if diag.is_diag(p) else diag.diags_in(p)
        if not inside and not diag.is_diag(p):
            _say(stderr, "%s: not a diag (a diag-<host>-<date>.tar.gz, its extracted folder, or a folder of them)%s"
                 % (p, " nor a snapshot folder" if len(paths) > 1 else ""))
            return exitcodes.BAD_INPUT
        expanded.extend((d, True) for d in (inside or [p]))
    at = None
    if args.at is not None:
        at = logtime.iso_epoch(args.at)
        if at is None:
            raise UsageError("--at %s: not an ISO 8601 time (2025-11-22T10:00:00Z)" % args.at)
    if args.window is not None and not (0 < args.window <= 7 * 24 * 60):
        raise UsageError("--window must be between 0 and 10080 minutes")
    bad = False
    scans = []
    for p, is_diag in expanded:
        if not is_diag:
            continue
        try:
            s = diag.scan(p)
            reading = diag.config_reading(s)
            th, probs = thresholds.from_macros(reading.macros, _overrides(args))
        except diag.DiagError as e:
            _say(stderr, "%s: %s" % (p, e))
            bad = True
            continue
        except thresholds.ThresholdError as e:
            _say(stderr, str(e))
            return exitcodes.BAD_CONFIG
        scans.append((p, s, th, probs))
    windows, notes = _align([s for _, s, _, _ in scans], [args.window or float(th.log_window_min)
                                                          for _, _, th, _ in scans], at)
    loaded = []
    for (p, s, th, probs), (since, until) in zip(scans, windows):
        try:
            ev = diag.load(s, since, until)
        except diag.DiagError as e:
            _say(stderr, "%s: %s" % (p, e))
            bad = True
            continue
        ev.problems.extend(probs)
        # The host's first address (systeminfo.txt) stands where a snapshot has its management URI's host.
        loaded.append((p, ev.host, ev, th, s.addresses[0] if s.addresses else None))
    for p, is_diag in expanded:
        if not is_diag:
            try:
                loaded.append(_snapshot_member(p, args))
            except thresholds.ThresholdError as e:
                _say(stderr, str(e))
                return exitcodes.BAD_CONFIG
    if not loaded:
        return exitcodes.BAD_INPUT
    if len(expanded) == 1:
        p, _, ev, th, _ = loaded[0]
        code = _report_one(ev, th, args, p, stdout, stderr)
    else:
        instances, hosts = [], set()
        for p, name, ev, th, address in loaded:
            if ev.host in hosts or not ev.host:
                ev.host = printable(os.path.basename(os.path.abspath(p)), 200)
            hosts.add(ev.host)
            instances.append(Instance(name or ev.host, ev, th, address))
        code = _report_deployment(None, instances, [], [], args, ", ".join(p for p, _ in expanded), stdout, stderr,
                                  "no diag or snapshot holds logs or configuration", notes)
    return exitcodes.BAD_INPUT if bad and code == exitcodes.OK else code


def _snapshot_member(path: str, args):
    """A snapshot folder given beside others: read as a deployment folder reads its members (its recorded
    thresholds, its URI's host as its address)."""
    th, probs = recorded_thresholds(path, _overrides(args))
    ev = load_snapshot(path, th)
    ev.problems.extend(probs)
    source = read_meta(path, Evidence()).get("source")
    name = printable(os.path.basename(os.path.abspath(path)), 200)      # its folder name, as in a deployment folder
    return path, name, ev, th, uri_host(source) if isinstance(source, str) else None


def _align(scans, window_mins, at):
    """Each diag's (since, until), and the notes: diags are aligned on wall-clock time (the latest stretch
    they all cover); where they do not overlap, each is judged on its own last minutes, and it is said."""
    if at is not None:
        return [diag.window(s, w, at) for s, w in zip(scans, window_mins)], []
    spans = [s.span() for s in scans]
    known = [(f, l) for f, l in spans if f is not None and l is not None]
    if len(scans) < 2 or not known:
        return [diag.window(s, w) for s, w in zip(scans, window_mins)], []
    end = min(l for _, l in known)
    if all(f <= end for f, _ in known):
        return [diag.window(s, w, end) if s.span()[1] is not None else (None, None)
                for s, w in zip(scans, window_mins)], []
    shown = ", ".join("%s %s to %s" % (s.host, logtime.iso_utc(f), logtime.iso_utc(l))
                      for s, (f, l) in zip(scans, spans) if f is not None and l is not None)
    note = ("the diags' metrics.log do not overlap in time (%s): each judged on its own last minutes; "
            "links between them are not of the same moment" % shown)
    return [diag.window(s, w) for s, w in zip(scans, window_mins)], [note]


# ------------------------------------------------------------------ snapshot

def auth_header(value: str) -> str:
    """An Authorization header from a token as an admin holds it: 'Bearer <jwt>' / 'Splunk <key>'
    as given; an authentication token (a JWT, Settings > Tokens) as Bearer; else a session key."""
    value = value.strip()
    if value.startswith(("Bearer ", "Splunk ")):
        return value
    return ("Bearer " if value.startswith("eyJ") and value.count(".") == 2 else "Splunk ") + value


def _auth(args, environ: Mapping[str, str]) -> Optional[str]:
    parts = urlsplit(args.uri)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UsageError("--uri must look like https://<host>:8089")
    if parts.username or parts.password:
        raise UsageError("--uri must not carry credentials; use --token-env or --username")
    if args.token_env:
        value = environ.get(args.token_env, "").strip()
        if not value:
            raise UsageError("environment variable %s is empty or not set" % args.token_env)
        return auth_header(value)
    if args.username:
        return None
    raise UsageError("give --token-env NAME or --username U")


def _password(args, stdin: IO[str], stderr: IO[str]) -> str:
    if stdin.isatty():
        return getpass.getpass("Password for %s: " % args.username, stream=stderr)
    return stdin.readline().rstrip("\r\n")


def _refused(args, f: Fetched, what: str) -> Optional[str]:
    """The one line for a first call that failed (None: it did not)."""
    kind = endpoints.error_kind(f)
    if kind is None:
        return None
    if kind in ("401", "403"):
        return "%s rejected the credentials (HTTP %d%s)" % (args.uri, f.status, ", " + what if what else "")
    if kind == "tls":
        return ("TLS verification of %s failed (%s); give --ca-file or, on a trusted network, --insecure"
                % (args.uri, f.detail))
    if f.error:
        return "cannot reach %s (%s)" % (args.uri, f.detail or f.error)
    return "%s answered %d to %s" % (args.uri, f.status, what or endpoints.INFO.path)


def _note(fault: readstep.Fault) -> str:
    f = fault.fetched
    why = {"404": "not available on this version",
           "403": "permission denied (missing capability %s)" % fault.capability()}.get(fault.kind)
    if why is None:
        why = "HTTP %d" % f.status if f.error is None and fault.kind != "malformed" else fault.message()
    return "%s: %s (skipped)" % (fault.path, why)


def cmd_snapshot(args, stdin: IO[str], stdout: IO[str], stderr: IO[str], environ: Mapping[str, str],
                 connect: Connect) -> int:
    if os.path.isdir(args.out) and os.listdir(args.out):
        stderr.write("ingest_doctor: --out %s exists and is not empty\n" % args.out)
        return exitcodes.USAGE
    uris = list(dict.fromkeys(args.uri))
    if len(uris) == 1:
        return _snapshot_one(args, uris[0], args.out, stdin, stdout, stderr, environ, connect)
    # Several instances: a deployment folder (contract section 5), one snapshot subfolder per --uri.
    for uri in uris:
        _auth(_one(args, uri, args.out), environ)
    password = _password(args, stdin, stderr) if args.username else None
    worst = exitcodes.OK
    for uri in uris:
        sub = os.path.join(args.out, instance_folder(uri))
        code = _snapshot_one(args, uri, sub, stdin, stdout, stderr, environ, connect, password)
        if code != exitcodes.OK:
            stderr.write("ingest_doctor: %s: not captured; the deployment folder lacks it\n" % uri)
            worst = worst or code
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, deployment_folder.META), "w", encoding="utf-8") as f:
        json.dump({"format": 1, "name": os.path.basename(os.path.abspath(args.out)),
                   "instances": {instance_folder(u): u for u in uris}}, f, indent=1)
        f.write("\n")
    return worst


def instance_folder(uri: str) -> str:
    """The subfolder of one --uri: its host and port, safe as a folder name."""
    parts = urlsplit(uri)
    name = (parts.hostname or "instance") + ("_%d" % parts.port if parts.port and parts.port != 8089 else "")
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in name)


def _one(args: argparse.Namespace, uri: str, out_dir: str) -> argparse.Namespace:
    """The arguments of one instance's capture: one --uri, its own --out."""
    return argparse.Namespace(**dict(vars(args), uri=uri, out=out_dir))


def _snapshot_one(args, uri: str, out_dir: str, stdin: IO[str], stdout: IO[str], stderr: IO[str],
                  environ: Mapping[str, str], connect: Connect, password: Optional[str] = None) -> int:
    args = _one(args, uri, out_dir)
    port = connect(uri, _auth(args, environ), args.ca_file, args.insecure)
    try:
        return _capture(args, port, stdin, stdout, stderr, password)
    finally:
        port.close()


def _capture(args, port: Any, stdin: IO[str], stdout: IO[str], stderr: IO[str],
             password: Optional[str] = None) -> int:
    if args.username:
        first = port.login(args.username, password if password is not None else _password(args, stdin, stderr))
    else:
        first = None
    what = "the login" if first is not None else ""
    if first is None or endpoints.error_kind(first) is None:
        first, what = port.fetch(INFO), ""
    why = _refused(args, first, what)
    if why:
        stderr.write("ingest_doctor: %s\n" % why)
        return endpoints.exit_code(endpoints.error_kind(first) or "error")
    captured_at = time.time()
    reading = readstep.read(lambda ep: first if ep is INFO else port.fetch(ep), SNAPSHOT)
    out = SnapshotWriter(args.out)
    for ep in SNAPSHOT:
        if ep.path in reading.bodies:
            out.write_rest(ep.path, reading.bodies[ep.path])
    out.notes.extend(_note(fault) for fault in reading.faults)
    info = reading.config.get(INFO.path)
    host = info.host if info is not None else None
    if not host:
        out.notes.append("%s: no host name" % INFO.path)
    if args.metrics_log_minutes > 0 and host:
        for name, spl in (("metrics.log", metrics_search(host, args.metrics_log_minutes)),
                          ("splunkd.log", splunkd_search(host, args.metrics_log_minutes))):
            f = port.request("POST", "/services/search/jobs/export", form={"search": spl, "output_mode": "json"})
            if f.error:
                out.notes.append("logs/%s: search export failed: %s (skipped)" % (name, f.detail or f.error))
            elif f.status != 200:
                out.notes.append("logs/%s: search export answered HTTP %d (skipped; search not permitted?)"
                                 % (name, f.status))
            else:
                out.write_log(name, export_raw_lines([f.body]))
    parts = urlsplit(args.uri)
    out.write_meta(host, "%s://%s" % (parts.scheme, parts.netloc), captured_at)
    for note in out.notes:
        stderr.write("ingest_doctor: note: %s\n" % note)
    stdout.write("wrote %d files to %s\n" % (len(out.written), args.out))
    return exitcodes.OK
