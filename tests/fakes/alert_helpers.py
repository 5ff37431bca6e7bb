"""What the alert tests (tests/alert/) share beyond their fixtures: the webhook receiver's
secret, the app's lookups and the real-shaped log lines the searches read (as Splunk extracts them), the
check that dispatched runs exited OK, what every shipped stanza that triggers the action holds, and the
form views' check that a page ran clean."""
from __future__ import annotations

import csv
import os
import re
from typing import Dict, List, Mapping

from confcheck import read_conf
from fakes.paths import FIXTURES, ROOT
from fakes.searches import final_columns, split_top
from ingest_doctor import exitcodes
from ingest_doctor.alert import rows as alert_rows

SECRET = "tok-7f3a9c-do-not-leak"          # a receiver's token in its webhook URL: never to appear in clear
STORED = "ingest_doctor:webhook_url:"      # the webhook URL's storage/passwords entry (realm:name:)
# how the hold action and the Acknowledge and snooze page refuse a user without the capability, before ": ..."
LACKS = "user '%s' lacks the capability ingest_doctor_acknowledge (role ingest_doctor_admin)"
MACROS = read_conf(os.path.join(ROOT, "default", "macros.conf"))
TRANSFORMS = read_conf(os.path.join(ROOT, "default", "transforms.conf"))
FIX = os.path.join(FIXTURES, "alerts")      # real-shaped log lines and REST bodies of what the searches read


def fixture_lines(name: str) -> List[str]:
    """The lines of a tests/fixtures/alerts file, blank ones left out."""
    return [l.rstrip("\n") for l in open(os.path.join(FIX, name), encoding="utf-8") if l.strip()]


def lookup_rows(name: str) -> List[Dict[str, str]]:
    """The rows of the app's lookups/<name> CSV."""
    return list(csv.DictReader(open(os.path.join(ROOT, "lookups", name), encoding="utf-8")))


def autokv(line: str) -> Dict[str, str]:
    """Splunk's automatic key=value extraction over a log line's message (what follows ` - `)."""
    msg = line.split(" - ", 1)[1] if " - " in line else line
    return {m.group(1): m.group(2).strip('"')
            for m in re.finditer(r'(?:^|[\s,])([A-Za-z_][\w.]*)=("[^"]*"|[^,\s]*)', msg)}


def all_ok(procs: List) -> List:
    """Every action run splunkd made (fakes.dispatch.execute) exited OK; returns them."""
    assert [p.returncode for p in procs] == [exitcodes.OK] * len(procs), [p.stderr for p in procs]
    return procs


# ---------------------------------------------------------------------------- what a stanza holds
def runs_our_action_in_digest_mode(st: Mapping[str, str]) -> None:
    """Enabled, scheduled, only our own action, in digest mode, not throttled (issue 35): the action runs
    once per alert run with every row and notifies on a change only; splunkd's digest throttling would
    hold back a second host's new problem."""
    assert st["disabled"] == "0" and st["enableSched"] == "1"
    actions = {k.split(".")[1] for k in st if k.startswith("action.") and st[k] == "1" and k.count(".") == 1}
    assert actions == {"ingest_doctor_flag"}
    assert st["alert.digest_mode"] == "true" and st["alert.suppress"] == "0"
    assert not any(k.startswith("alert.suppress.") for k in st)


def action_columns(spl: str, signal: str) -> List[str]:
    """The search's output columns, every one known to the action (alert_rows), with those `signal` needs."""
    cols = final_columns(spl)
    assert set(cols) <= alert_rows.KNOWN_COLUMNS, set(cols) - alert_rows.KNOWN_COLUMNS
    assert set(alert_rows.SIGNALS[signal].required) <= set(cols), (signal, alert_rows.SIGNALS[signal].required)
    return cols


def own_hook(spl: str) -> str:
    """The exclusion hook macro the search ends in, which exists and ships as a no-op."""
    last = split_top(spl, "|")[-1].strip()
    hook = re.match(r"^`(ingest_doctor_filter_\w+)`$", last)
    assert hook, last
    assert MACROS[hook.group(1)]["definition"] == "search *"
    return hook.group(1)


# ---------------------------------------------------------------------------- the form views
def clean_page(browser, web) -> dict:
    """No request left the page for another site, no script error, no write refused for its CSRF header;
    returns the browser's report."""
    r = browser.report()
    assert r["external"] == [] and r["errors"] == [], r
    assert web.csrf_refused == 0
    return r
