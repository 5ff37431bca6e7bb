"""Every scenario's report, JSON and text, byte-identical to its golden copy (tests/fakes/golden.py).
The deployment cases are held the same way by tests/deployment/test_deployment_scenarios.py."""
import io
import os

import pytest

from fakes import golden
from fakes.paths import SCENARIOS
from ingest_doctor import cli, exitcodes

NAMES = sorted(n for n in os.listdir(SCENARIOS) if os.path.isdir(os.path.join(SCENARIOS, n)))


@pytest.mark.parametrize("fmt", ["json", "text"])
@pytest.mark.parametrize("name", NAMES)
def test_scenario_report_is_unchanged(name, fmt):
    out, err = io.StringIO(), io.StringIO()
    rc = cli.run(["diagnose", os.path.join(SCENARIOS, name), "--format", fmt], io.StringIO(), out, err, {}, None)
    assert rc == exitcodes.OK, err.getvalue()
    golden.check("scenarios/%s.%s" % (name, fmt), out.getvalue())
