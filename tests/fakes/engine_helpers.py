"""What the engine's, the readers' and the CLI's tests share: a scenario's Evidence (tests/scenarios/<name>) or a
copy of its folder, the findings of a report that warn, one signal or the settings of a finding, the CLI run in
process."""
import io
import os
import shutil

import ingest_doctor_cli

from fakes.paths import BIN, SCENARIOS
from ingest_doctor import cli
from ingest_doctor.read.snapshot import load_snapshot


def scenario(name):
    """Scenario `name`'s Evidence, read from its snapshot folder."""
    return load_snapshot(os.path.join(SCENARIOS, name))


def copy_scenario(folder, name):
    """A copy of scenario `name`'s snapshot folder, for a test to change, at `folder`/`name`: its path."""
    dst = str(folder / name)
    shutil.copytree(os.path.join(SCENARIOS, name), dst)
    return dst


def serious(report):
    """The findings of `report` that warn or worse, in its order."""
    return [f for f in report.findings if f.severity in ("warning", "critical")]


def signal(finding, name):
    """The one evidence item of `finding` on signal `name` (there must be exactly one)."""
    hits = [e for e in finding.evidence if e.signal == name]
    assert len(hits) == 1, finding.evidence
    return hits[0]


def settings(finding):
    """The setting of each recommendation of `finding` (None for advice without one), in order."""
    return [rc.setting for rc in finding.recommendations]


CLI_SCRIPT = os.path.join(BIN, "ingest_doctor_cli.py")


def cli_main(argv, stdin=""):
    """The CLI script's main() in process, as an admin's shell runs it: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    code = ingest_doctor_cli.main(argv, io.StringIO(stdin), out, err)
    return code, out.getvalue(), err.getvalue()


def diagnose_cli(*argv):
    """`diagnose` with `argv` (paths may be Path objects) through the CLI in process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose"] + [str(a) for a in argv], io.StringIO(), out, err, {}, None)
    return rc, out.getvalue(), err.getvalue()
