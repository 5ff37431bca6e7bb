"""What the engine's and the readers' tests share: a scenario's Evidence (tests/scenarios/<name>), the findings
of a report that warn, one signal or the settings of a finding, and `diagnose` run through the CLI in process."""
import io
import os

from fakes.paths import SCENARIOS
from ingest_doctor import cli
from ingest_doctor.read.snapshot import load_snapshot


def scenario(name):
    """Scenario `name`'s Evidence, read from its snapshot folder."""
    return load_snapshot(os.path.join(SCENARIOS, name))


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


def diagnose_cli(*argv):
    """`diagnose` with `argv` (paths may be Path objects) through the CLI in process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose"] + [str(a) for a in argv], io.StringIO(), out, err, {}, None)
    return rc, out.getvalue(), err.getvalue()
