#!/usr/bin/env python3
"""Ingest Doctor CLI: `diagnose` a snapshot folder, or take a `snapshot` of a live splunkd.

    python3 bin/ingest_doctor_cli.py diagnose <snapshot-dir> [--format json|text]
    python3 bin/ingest_doctor_cli.py snapshot --uri https://<host>:8089 --out <snapshot-dir>
            [--token-env NAME | --username U] [--ca-file F | --insecure] [--metrics-log-minutes N]
"""
from __future__ import annotations

import argparse
import json
import os
import ssl
import sys
import time
from urllib.parse import urlsplit

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))  # noqa: E402

from ingest_doctor import endpoints, exitcodes, rest, textreport, thresholds  # noqa: E402
from ingest_doctor.diagnose import diagnose  # noqa: E402
from ingest_doctor.snapshot import SnapshotError, has_evidence, load_snapshot, recorded_thresholds  # noqa: E402
from ingest_doctor.snapwriter import SnapshotWriter, export_raw_lines, metrics_search, splunkd_search  # noqa: E402

TIMEOUT_S = 30


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    out = None      # the stream --help writes to (main's stdout)

    def error(self, message):
        raise UsageError("%s: %s" % (self.prog, message))

    def _print_message(self, message, file=None):
        if message:
            (Parser.out or file or sys.stdout).write(message)


def build_parser() -> Parser:
    p = Parser(prog="ingest_doctor_cli.py", description="Find where a splunkd's ingestion pipeline is stuck.")
    sub = p.add_subparsers(dest="command", parser_class=Parser)
    d = sub.add_parser("diagnose", help="judge a snapshot folder and print the findings")
    d.add_argument("snapshot_dir")
    d.add_argument("--format", choices=("json", "text"), default="json")
    d.add_argument("--threshold", action="append", default=[], metavar="NAME=VALUE",
                   help="override a threshold (name as in thresholds.py or its macro name)")
    s = sub.add_parser("snapshot", help="record a live splunkd into a snapshot folder")
    s.add_argument("--uri", required=True, help="https://<host>:8089")
    s.add_argument("--out", required=True)
    auth = s.add_mutually_exclusive_group()
    auth.add_argument("--token-env", metavar="NAME", help="environment variable holding a token")
    auth.add_argument("--username", help="user name; the password is prompted (or read from stdin)")
    tls = s.add_mutually_exclusive_group()
    tls.add_argument("--ca-file", help="CA bundle that signed splunkd's certificate")
    tls.add_argument("--insecure", action="store_true", help="do not verify splunkd's TLS certificate")
    s.add_argument("--metrics-log-minutes", type=int, default=30, help="minutes of metrics.log to export (0: none)")
    return p


def cmd_diagnose(args, stdout, stderr) -> int:
    try:
        # The thresholds the snapshot's splunkd was tuned with, then --threshold.
        th, problems = recorded_thresholds(args.snapshot_dir, dict(kv.split("=", 1) for kv in args.threshold
                                                                   if "=" in kv))
    except SnapshotError as e:
        stderr.write("ingest_doctor: %s\n" % e)
        return exitcodes.BAD_INPUT
    except thresholds.ThresholdError as e:
        stderr.write("ingest_doctor: %s\n" % e)
        return exitcodes.BAD_CONFIG
    ev = load_snapshot(args.snapshot_dir, th)
    ev.problems.extend(problems)
    report = diagnose(ev, th)
    stdout.write(textreport.render(report) if args.format == "text" else json.dumps(report.to_dict(), indent=2) + "\n")
    if not has_evidence(ev):
        why = "; ".join(ev.problems) if ev.problems else "no rest/*.json, logs/ or hec/ files"
        stderr.write("ingest_doctor: nothing to analyse in %s (%s)\n" % (args.snapshot_dir, why))
        return exitcodes.BAD_INPUT
    if ev.problems:
        stderr.write("ingest_doctor: judged the rest; unusable: %s\n" % "; ".join(ev.problems))
    return exitcodes.OK


# ------------------------------------------------------------------ snapshot (the only networked part)

def _auth_kwargs(args, stdin, stderr):
    if args.token_env:
        value = os.environ.get(args.token_env, "").strip()
        if not value:
            raise UsageError("environment variable %s is empty or not set" % args.token_env)
        if value.startswith("Bearer "):
            return {"splunkToken": value[len("Bearer "):]}
        if value.startswith("Splunk "):
            return {"token": value}
        # Authentication tokens (Settings > Tokens) are JWTs sent as Bearer; session keys as "Splunk <key>".
        return {"splunkToken": value} if value.startswith("eyJ") and value.count(".") == 2 else {"token": value}
    if args.username:
        if stdin.isatty():
            import getpass
            password = getpass.getpass("Password for %s: " % args.username, stream=stderr)
        else:
            password = stdin.readline().rstrip("\r\n")
        return {"username": args.username, "password": password}
    raise UsageError("give --token-env NAME or --username U")


def _service(args, stdin, stderr):
    from splunklib import binding
    parts = urlsplit(args.uri)
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise UsageError("--uri must look like https://<host>:8089")
    if parts.username or parts.password:
        raise UsageError("--uri must not carry credentials; use --token-env or --username")
    context = None
    if not args.insecure and parts.scheme == "https":
        context = ssl.create_default_context(cafile=args.ca_file) if args.ca_file else ssl.create_default_context()
    handler = binding.handler(timeout=TIMEOUT_S, verify=not args.insecure, context=context)
    ctx = binding.Context(handler=handler, scheme=parts.scheme, host=parts.hostname, port=parts.port or 8089,
                          verify=not args.insecure, **_auth_kwargs(args, stdin, stderr))
    ctx.login()
    return ctx


def _tls_error(e: BaseException) -> bool:
    return isinstance(e, ssl.SSLError) or "CERTIFICATE_VERIFY_FAILED" in str(e)


def cmd_snapshot(args, stdin, stdout, stderr) -> int:
    from splunklib import binding
    if os.path.isdir(args.out) and os.listdir(args.out):
        stderr.write("ingest_doctor: --out %s exists and is not empty\n" % args.out)
        return exitcodes.USAGE
    try:
        ctx = _service(args, stdin, stderr)
        first = ctx.get("/services/server/info", output_mode="json", count=0).body.read()
    except binding.AuthenticationError as e:
        stderr.write("ingest_doctor: %s rejected the credentials (%s)\n" % (args.uri, e))
        return exitcodes.AUTH
    except binding.HTTPError as e:
        code = exitcodes.AUTH if e.status in (401, 403) else exitcodes.TRANSIENT
        stderr.write("ingest_doctor: %s answered %d to services/server/info%s\n"
                     % (args.uri, e.status, " (check the credentials)" if e.status == 401 else ""))
        return code
    except (OSError, ssl.SSLError) as e:
        if _tls_error(e):
            stderr.write("ingest_doctor: TLS verification of %s failed (%s); give --ca-file or, on a trusted "
                         "network, --insecure\n" % (args.uri, getattr(e, "reason", None) or e))
            return exitcodes.BAD_CONFIG
        stderr.write("ingest_doctor: cannot reach %s (%s)\n" % (args.uri, e))
        return exitcodes.TRANSIENT
    out = SnapshotWriter(args.out)
    out.write_rest("services/server/info", first)
    host = None
    try:
        host = rest.as_str(rest.get(rest.entries(first)[0].content, "host"))
    except (rest.RestError, IndexError):
        out.notes.append("services/server/info: no host name")
    captured_at = time.time()
    for ep in endpoints.SNAPSHOT:
        path = ep.path
        if path == "services/server/info":
            continue
        try:
            body = ctx.get("/" + path, **endpoints.query(ep)).body.read()
        except binding.HTTPError as e:
            why = {404: "not available on this version", 403: "permission denied (missing capability)"}.get(
                e.status, "HTTP %d" % e.status)
            out.notes.append("%s: %s (skipped)" % (path, why))
            continue
        except OSError as e:
            out.notes.append("%s: %s (skipped)" % (path, e))
            continue
        out.write_rest(path, body)
    if args.metrics_log_minutes > 0 and host:
        for name, spl in (("metrics.log", metrics_search(host, args.metrics_log_minutes)),
                          ("splunkd.log", splunkd_search(host, args.metrics_log_minutes))):
            try:
                resp = ctx.post("/services/search/jobs/export", search=spl, output_mode="json")
                lines = export_raw_lines(iter(lambda: resp.body.read(65536), b""))
                out.write_log(name, lines)
            except binding.HTTPError as e:
                out.notes.append("logs/%s: search export answered HTTP %d (skipped; search not permitted?)"
                                 % (name, e.status))
            except OSError as e:
                out.notes.append("logs/%s: search export failed: %s (skipped)" % (name, e))
    out.write_meta(host, "%s://%s" % (urlsplit(args.uri).scheme, urlsplit(args.uri).netloc), captured_at)
    for note in out.notes:
        stderr.write("ingest_doctor: note: %s\n" % note)
    stdout.write("wrote %d files to %s\n" % (len(out.written), args.out))
    return exitcodes.OK


def main(argv, stdin, stdout, stderr) -> int:
    Parser.out = stdout
    try:
        args = build_parser().parse_args(argv)
        if args.command == "diagnose":
            return cmd_diagnose(args, stdout, stderr)
        if args.command == "snapshot":
            return cmd_snapshot(args, stdin, stdout, stderr)
        stderr.write("ingest_doctor: give a command: diagnose or snapshot (see --help)\n")
        return exitcodes.USAGE
    except UsageError as e:
        stderr.write("ingest_doctor: %s\n" % e)
        return exitcodes.USAGE
    except SystemExit as e:   # --help
        return int(e.code or 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr))
