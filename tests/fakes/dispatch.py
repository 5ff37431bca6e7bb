"""splunkd's dispatch of the app's alert action, emulated for a shipped saved search.

When a scheduled alert's search completes, splunkd (not our code) decides how often and with what
to start `ingest_doctor_flag.py --execute`. The tests hand the action only what splunkd would:

- trigger condition (`counttype`, `relation`, `quantity`): no run of the action unless it holds;
- digest mode (`alert.digest_mode = true`, splunkd's default for a scheduled alert): ONE run per alert
  run; `results_file` is the whole results file, `dispatch/<sid>/results.csv.gz`, and `result` its first
  row;
- per-result mode (`alert.digest_mode = false`): one run per result row, each with a one-row results
  file under `dispatch/<sid>/per_result_alert/` and `result` that row (the once-per-row behaviour is
  documented; the file's place and name are community-reported: docs/alerts-dispatch.md). Rows of one
  search never meet in one run;
- throttling (`alert.suppress = 1`, `alert.suppress.fields`, `alert.suppress.period`), across successive
  runs of one `AlertDispatch` on the caller's clock: per result, a row whose field values were seen
  within the period is dropped; in digest mode (or per result without fields) the whole alert is
  suppressed for the period after it fired;
- `alert.track`: each run of the action adds an entry to Triggered Alerts (`triggered`).

The payload is fakes.action_run's (`payload`, run by `run_action` as splunkd runs the script), with this
alert's name, sid, results file and `result`. `run_in_process` runs the same payloads through the
action's core over an in-memory port (the dispatch gate compares the two modes on many rows).
"""
from __future__ import annotations

import itertools
import json
import os
import re
import zlib
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from fakes.action_run import payload as action_payload
from fakes.action_run import run_action
from fakes.kvstore import columns_of, write_results
from fakes.searches import SAVED

ACTION = "action.ingest_doctor_flag"
_TRUE = ("1", "true", "t", "yes", "y", "on")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
# savedsearches.conf.spec: relation applies to the count that counttype names
_SEQ = itertools.count(1)      # the scheduler's job counter: the last part of every sid, never reused
_RELATIONS = {"greater than": lambda n, q: n > q, "less than": lambda n, q: n < q,
              "equal to": lambda n, q: n == q, "not equal to": lambda n, q: n != q}


def period_s(text: str) -> float:
    """`alert.suppress.period`: a number with s, m, h or d (seconds without a unit)."""
    m = re.fullmatch(r"\s*(\d+)\s*([smhd]?)\s*", text or "")
    if not m:
        raise ValueError("alert.suppress.period %r is not <number>[s|m|h|d]" % text)
    return float(int(m.group(1)) * _UNITS[m.group(2) or "s"])


def _on(stanza: Mapping[str, str], key: str, default: str) -> bool:
    return str(stanza.get(key, default)).strip().lower() in _TRUE


def _text(value: Any) -> str:
    """A field's value as splunkd compares it for throttling (a multivalue field: its values, in order)."""
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def result_of(row: Mapping[str, Any]) -> Dict[str, Any]:
    """The payload's `result`: a row's non-empty fields as strings (a multivalue field as a list)."""
    out: Dict[str, Any] = {}
    for k, v in row.items():
        if isinstance(v, (list, tuple)):
            vals = [str(x) for x in v]
            if vals:
                out[k] = vals if len(vals) > 1 else vals[0]
        elif v is not None and str(v) != "":
            out[k] = str(v)
    return out


@dataclass
class Execution:
    """One `--execute` of the action, as splunkd starts it for this alert run."""
    search_name: str
    sid: str
    at: float
    results_file: str
    result: Dict[str, Any]
    rows: List[Dict[str, Any]]          # what results_file holds

    def payload(self, fake: Any, **conf: Any) -> Dict[str, Any]:
        data = action_payload(fake, self.results_file, sid=self.sid, **conf)
        data.update(search_name=self.search_name, result=self.result)
        return data


class AlertDispatch:
    """splunkd's alert dispatch for one saved search, over its successive runs (the throttle's memory)."""

    def __init__(self, name: str, workdir: str, stanza: Optional[Mapping[str, str]] = None):
        st = dict(SAVED[name] if stanza is None else stanza)
        if st.get(ACTION) != "1":
            raise ValueError("%s does not trigger ingest_doctor_flag" % name)
        self.name = name
        self.stanza = st
        self.workdir = workdir
        self.digest = _on(st, "alert.digest_mode", "true")
        self.suppress = _on(st, "alert.suppress", "0")
        self.fields = [f.strip() for f in st.get("alert.suppress.fields", "").split(",") if f.strip()]
        self.period = period_s(st.get("alert.suppress.period", "")) if self.suppress else 0.0
        self.track = _on(st, "alert.track", "false")
        counttype = st.get("counttype", "always").strip().lower()
        if counttype not in ("always", "number of events", "number of results"):
            raise ValueError("%s: counttype %r is not emulated" % (name, counttype))
        relation = st.get("relation", "greater than").strip().lower()
        if counttype != "always" and relation not in _RELATIONS:
            raise ValueError("%s: relation %r is not emulated" % (name, relation))
        self.condition: Optional[Tuple[str, int]] = None if counttype == "always" else \
            (relation, int(st.get("quantity", "0")))
        self.fired_at: Optional[float] = None       # whole-alert throttle
        self.seen: Dict[Tuple[str, ...], float] = {}    # per-result throttle: field values -> when they fired
        self.triggered: List[Tuple[float, str]] = []    # Triggered Alerts entries: (time, sid)
        self.runs = 0

    def triggers(self, count: int) -> bool:
        if self.condition is None:
            return True
        relation, quantity = self.condition
        return _RELATIONS[relation](count, quantity)

    def _sid(self, at: float) -> str:
        return "scheduler__nobody_aW5nZXN0X2RvY3Rvcg__RMD5%08x_at_%d_%d" % (
            zlib.crc32(self.name.encode("utf-8")), int(at), next(_SEQ))

    def run(self, rows: Sequence[Mapping[str, Any]], at: float) -> List[Execution]:
        """The search ran at `at` and returned `rows`: the action runs splunkd would start, in order."""
        self.runs += 1
        rows = [dict(r) for r in rows]
        if not self.triggers(len(rows)):
            return []
        whole = self.digest or not self.fields
        if self.suppress and whole:
            if self.fired_at is not None and at - self.fired_at < self.period:
                return []
            self.fired_at = at
        sid = self._sid(at)
        folder = os.path.join(self.workdir, "dispatch", sid)
        cols = columns_of(rows)
        if self.digest:
            os.makedirs(folder, exist_ok=True)
            path = write_results(os.path.join(folder, "results.csv.gz"), rows, cols)
            execs = [Execution(self.name, sid, at, path, result_of(rows[0]) if rows else {}, rows)]
        else:
            kept = []
            for row in rows:
                if self.suppress and self.fields:
                    key = tuple(_text(row.get(f)) for f in self.fields)
                    when = self.seen.get(key)
                    if when is not None and at - when < self.period:
                        continue
                    self.seen[key] = at
                kept.append(row)
            os.makedirs(os.path.join(folder, "per_result_alert"), exist_ok=True)
            execs = []
            for i, row in enumerate(kept):
                path = write_results(os.path.join(folder, "per_result_alert", "tmp_%d.csv.gz" % i), [row], cols)
                execs.append(Execution(self.name, sid, at, path, result_of(row), [row]))
        if self.track:
            self.triggered.extend((at, sid) for _ in execs)
        return execs


def execute(execs: Sequence[Execution], fake: Any, tls: Any, extra_env: Optional[Dict[str, str]] = None,
            **conf: Any) -> List[Any]:
    """Each run as splunkd starts it (a subprocess, JSON payload on stdin), in order; their processes."""
    return [run_action(e.payload(fake, **conf), tls, extra_env) for e in execs]


def dispatch(name: str, rows: Sequence[Mapping[str, Any]], at: float, fake: Any, tls: Any, workdir: str,
             stanza: Optional[Mapping[str, str]] = None, extra_env: Optional[Dict[str, str]] = None,
             **conf: Any) -> List[Any]:
    """One run of the shipped alert `name` over `rows`, dispatched and executed as splunkd would."""
    return execute(AlertDispatch(name, workdir, stanza).run(rows, at), fake, tls, extra_env, **conf)


def run_in_process(execs: Sequence[Execution], port: Any, **conf: Any) -> List[Any]:
    """The same runs through the action's core (ingest_doctor.alert.action.run) over `port`, each at its
    alert run's time; their summaries."""
    from ingest_doctor.alert.action import run
    from ingest_doctor.alert.payload import parse_payload
    from ingest_doctor.diagnose import diagnose
    local = SimpleNamespace(url="https://127.0.0.1:8089")     # no splunkd: the port stands in for it
    return [run(parse_payload(json.dumps(e.payload(local, **conf))), port, diagnose, now=e.at) for e in execs]


# ---------------------------------------------------------------------------- the dispatch gate's rule
def _top_pipes(spl: str) -> List[str]:
    from fakes.searches import split_top
    return [s.strip() for s in split_top(spl, "|")]


def cross_row_reasons(stanza: Mapping[str, str]) -> List[str]:
    """Why the action, run on one row of this search at a time, would miss rows it needs (static rule):
    - rows of more than one `signal`: the rows of the other signals (tcpin/tcpout connections, ...) are
      appended to meet these in one action run;
    - `eventstats`/`streamstats`/`join` once the rows have their signal: the rows handed over are kept or
      shaped by one another."""
    spl = stanza["search"]
    reasons = []
    signals = sorted(set(re.findall(r'\bsignal="(\w+)"', spl)))
    if len(signals) > 1:
        reasons.append("its rows carry %d signals (%s): they must meet in one action run"
                       % (len(signals), ", ".join(signals)))
    pipes = _top_pipes(spl)
    first = next((i for i, p in enumerate(pipes) if re.search(r'\bsignal="\w+"', p)), None)
    if first is not None:
        for p in pipes[first:]:
            word = p.split(None, 1)[0] if p else ""
            if word in ("eventstats", "streamstats", "join"):
                reasons.append("`%s` across the rows handed to the action: %s" % (word, p[:80]))
    return reasons


def stored(port: Any) -> Dict[str, Tuple[Any, ...]]:
    """What the findings store says, per finding id: what a mode of dispatch must not change."""
    return {r["id"]: (r.get("status"), r.get("severity"), r.get("caused_by") or "", r.get("summary"))
            for r in port.kv.values()}


def modes_differ(name: str, stanza: Mapping[str, str], rows: Sequence[Mapping[str, Any]], at: float,
                 workdir: str, make_port: Any) -> Dict[str, Tuple[Any, Any]]:
    """Run `rows` through the action dispatched in digest mode and per result (throttling off, so only
    the mode differs), each on a fresh port; the finding ids whose stored record differs."""
    out = {}
    for digest in ("true", "false"):
        st = dict(stanza, **{"alert.digest_mode": digest, "alert.suppress": "0"})
        port = make_port()
        run_in_process(AlertDispatch(name, os.path.join(workdir, "digest_" + digest), st).run(rows, at), port)
        out[digest] = stored(port)
    ids = set(out["true"]) | set(out["false"])
    return {i: (out["true"].get(i), out["false"].get(i)) for i in sorted(ids)
            if out["true"].get(i) != out["false"].get(i)}
