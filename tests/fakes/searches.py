"""The app's saved searches as shipped (default/savedsearches.conf): those that trigger the alert
action, the relay of the collectors' findings and the housekeeping search among them, a search's
final columns (its last `table`), split with SPL's quotes and brackets, and what the housekeeping
search returns over a findings store."""
import os
import sys
from typing import Any, Dict, List

from fakes.paths import ROOT, TOOLS

if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)
import splcheck  # noqa: E402
from confcheck import read_conf  # noqa: E402

SAVED = {k: v for k, v in read_conf(os.path.join(ROOT, "default", "savedsearches.conf")).items()
         if k != "default"}
FLAGGING = {k: v for k, v in SAVED.items() if v.get("action.ingest_doctor_flag") == "1"}
# The relay of the collectors' findings triggers the action too, but detects nothing itself.
RELAY = {k: v for k, v in FLAGGING.items() if 'signal="finding"' in v["search"]}
# Silence (issue 20) looks back 24 hours for who should report: shaped apart (tests/alert/test_oob_silence.py).
SILENCE = {k: v for k, v in FLAGGING.items() if 'signal="silence"' in v["search"]}
# The housekeeping search lists stale records for the action to resolve (issue 35): it detects nothing.
HOUSEKEEPING = {k: v for k, v in FLAGGING.items() if 'signal="stale"' in v["search"]}
ALERTS = {k: v for k, v in FLAGGING.items() if k not in RELAY and k not in SILENCE and k not in HOUSEKEEPING}


def split_top(text: str, sep: str) -> List[str]:
    """splcheck's splitter with SPL's quotes (" and `) and brackets (() and [])."""
    return splcheck.split_top(text, sep, quotes='"`', opens="([", closes=")]")


def final_columns(spl: str) -> List[str]:
    segs = [s.strip() for s in split_top(spl, "|")]
    tables = [s for s in segs if s.startswith("table ")]
    assert tables, "no table command"
    return tables[-1][len("table "):].split()


def final_fields(spl: str) -> List[str]:
    """The columns of a search whose last command is its `table` (a view's search), split as splcheck
    splits a search."""
    last = [p.strip() for p in splcheck.split_top(spl, "|") if p.strip()][-1]
    assert last.startswith("table "), last
    return last[len("table "):].split()


def stale_rows(records: Dict[str, Dict[str, Any]], now: float, resolve_after_min: float) -> List[Dict[str, Any]]:
    """What the housekeeping search returns over the store's records at `now`: `inputlookup ... where
    status="open" | where last_seen < now() - 60*<resolve_after_min> | eval signal="stale" | table ...`."""
    (st,) = HOUSEKEEPING.values()
    cols = final_columns(st["search"])
    rows = [dict(r, signal="stale") for r in records.values()
            if r.get("status") == "open" and float(r.get("last_seen") or 0) < now - 60 * resolve_after_min]
    return [{c: r.get(c, "") for c in cols} for r in rows]
