"""Golden reports: what `diagnose` printed for a scenario or a deployment case, kept in
tests/fixtures/golden/ and compared byte for byte, so a refactor that should change nothing is
held to changing nothing.

A deliberate change of a report is written anew with `INGEST_DOCTOR_GOLDEN=write` in the
environment of the pytest run that makes it, and the diff of tests/fixtures/golden/ is then
reviewed and committed with the change that explains it."""
import os

from fakes.paths import FIXTURES

GOLDEN = os.path.join(FIXTURES, "golden")


def check(name: str, text: str) -> None:
    path = os.path.join(GOLDEN, name)
    if os.environ.get("INGEST_DOCTOR_GOLDEN") == "write":
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        return
    assert os.path.isfile(path), "no golden report %s: write it with INGEST_DOCTOR_GOLDEN=write" % name
    with open(path, encoding="utf-8", newline="") as f:
        want = f.read()
    assert text == want, "the report %s differs from its golden copy (INGEST_DOCTOR_GOLDEN=write writes it anew)" % name


def test_name() -> str:
    """The running test's function name (with its parameters), as a file name."""
    current = os.environ.get("PYTEST_CURRENT_TEST", "unknown").split("::")[-1].split(" ")[0]
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in current)
