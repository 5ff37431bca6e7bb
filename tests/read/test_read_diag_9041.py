"""Issue 38: a real Splunk 9.0.4.1 install's logs and configuration (tests/fixtures/diag_9041/PROVENANCE.md),
laid out as a diag, read without error: the `dutycycle name=ingest` layout, tcpouteloop's two `ratio=`,
zero-size queues (inputs that are off), resource_usage.log, etc/ precedence and redacted values."""
import json
import pathlib

from fakes import diagbuilder
from fakes.engine_helpers import diagnose_cli
from fakes.paths import FIXTURES
from ingest_doctor import exitcodes
from ingest_doctor.read import diag

REAL = pathlib.Path(FIXTURES, "diag_9041")
TOP = "diag-codespaces-1e503f-2023-05-02_10-40-00"
ORDER = ("etc/", "log/", "introspection/")     # splunk diag's member order; diag.log last
DIAG_LOG = b"Collecting components: etc, log, introspection\n"


def test_the_real_9041_diag_reads_without_error(tmp_path):
    files = [p.relative_to(REAL).as_posix() for p in REAL.rglob("*") if p.is_file()]
    files.remove("PROVENANCE.md")
    files.sort(key=lambda r: ([i for i, p in enumerate(ORDER) if r.startswith(p)] or [9], r))
    # etc/system/local is kept as _local in the repository (no local/ folder is tracked: apps ship default/)
    parts = [(rel.replace("/_local/", "/local/"), (REAL / rel).read_bytes()) for rel in files]
    path = diagbuilder.write_tar(str(tmp_path), TOP, parts + [("diag.log", DIAG_LOG)])
    s = diag.scan(path)
    assert s.guid == "C39C9F92-4A71-49A3-92DB-0A4A14639E88" and s.version == "9.0.4.1" and s.diag_log
    ev = diag.load(s, *diag.window(s, 15))
    assert ev.problems == []
    assert not [n for n in ev.not_judged if "not usable" in n or "skipped" in n]
    assert {"tcpouteloop", "merging"} <= {t.thread for t in ev.threads}        # name=management and name=ingest lines
    assert ev.host_cpu.cores == 4 and ev.host_cpu.splunkd_cpu_pct is not None
    assert ev.config.hec_enabled is False and ev.config.dedicated_io_threads == 2
    assert ev.host == "codespaces-1e503f"
    reports = [diagnose_cli(path, "--format", fmt) for fmt in ("json", "text")]
    assert [rc for rc, _, _ in reports] == [exitcodes.OK, exitcodes.OK], reports
    assert not [out for _, out, _ in reports if "DIAG_REDACTED" in out] and json.loads(reports[0][1])
