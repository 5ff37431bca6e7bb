"""The Setup view's checks (default/data/ui/views/ingest_doctor_setup.xml): each search beside the
rule it applies, and what each returns over a recorded deployment.

The view itself is hand-written (its layout and texts); the searches of the checks below are
written into it from here (tools/generate.py), so a rule has one place. There is no Splunk here
to run them: `rows_<check>(deployment)` computes what the search returns over a recorded
deployment (tests/fixtures/install/<name>_deployment.json: what `| rest /services/server/info`,
the cluster and deployment endpoints, metrics.log, the metrics index and the app's logs return on
it) with the same rule, and writes the recordings the install tests and the offline render read.

Rules (docs/setup.md says them for the admin):
- Instances: an instance's role is the first of ROLES it matches: its `server_roles` when the
  search head reaches it over REST (itself and its search peers), else the search head's own
  view of the tiers (search head cluster members, the cluster manager, the deployer, the
  license manager, the deployment server: each endpoint names a host), else the HEC metrics it
  sends (`_introspection`, sourcetype http_event_collector_metrics: it runs HEC), else a universal
  forwarder's connection (tcpin_connections fwdType=uf). The collector is expected on indexers,
  optional on an instance running HEC, not expected anywhere else.
- Event index: counted on the search peers whose server_roles include indexer, never on the
  search head (which has the app's indexes.conf): every indexer must have it.
- Logs: red for an error other than a transient endpoint error (splunkd slow, refusing or
  answering 5xx: a busy indexer, the case the app exists for), or for transient errors in at
  least SUSTAINED_ERROR_HOURS of the last 24 hours (the collector misses its data most of the day).
- Notifications: the alert counts come from the shipped savedsearches.conf.
"""
from __future__ import annotations

import json
import os
import re
import sys
import time
from typing import Dict, List, NamedTuple, Sequence, Tuple

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bin"))
sys.path.insert(0, os.path.join(ROOT, "tools"))

from confcheck import read_conf  # noqa: E402
from splcheck import split_top  # noqa: E402
from ingest_doctor import exitcodes  # noqa: E402
from ingest_doctor.read import endpoints  # noqa: E402
from ingest_doctor_ports import logs  # noqa: E402

VIEW = os.path.join("default", "data", "ui", "views", "ingest_doctor_setup.xml")
FIXTURES = os.path.join("tests", "fixtures", "install")
DASHBOARD_FIXTURES = os.path.join("tests", "fixtures", "dashboards")
FRESH, DISTRIBUTED = "fresh", "distributed"
# The offline render's states (tests/fixtures/dashboards/<state>/): the fresh install all well, the
# distributed deployment with its gaps (README's "Setup view, with gaps to fix" screenshot).
RENDER_STATE = {"fresh": "healthy", "distributed": "saturated"}
SEEN_S = 600            # an instance, collector or probe seen within 10 minutes is up


class Role(NamedTuple):
    name: str
    expects: str                 # the collector: yes | optional | no
    server_roles: Tuple[str, ...]  # values of /services/server/info server_roles that make it


# First match wins (an all-in-one instance has indexer among its roles: it runs the collector).
ROLES = (
    Role("indexer", "yes", ("indexer",)),
    Role("search head", "no", ("search_head", "cluster_search_head", "shc_member", "shc_captain")),
    Role("heavy forwarder (HEC)", "optional", ()),
    Role("cluster manager", "no", ("cluster_master", "cluster_manager")),
    Role("search head cluster deployer", "no", ("shc_deployer",)),
    Role("deployment server", "no", ("deployment_server",)),
    Role("license manager", "no", ("license_master", "license_manager")),
    Role("universal forwarder", "no", ("universal_forwarder",)),
)
OTHER = Role("forwarder or other, no HEC", "no", ())
RANK = {r.name: i + 1 for i, r in enumerate(ROLES)}
# The endpoints of the search head's view of the tiers: (role, REST path, field holding the host's URI).
TIER_ENDPOINTS = (
    ("search head", "splunk_server=local count=0 /services/shcluster/member/members", "label"),
    ("cluster manager", "splunk_server=local count=0 /services/cluster/config", "coalesce(manager_uri, master_uri)"),
    ("search head cluster deployer", "splunk_server=local count=0 /services/shcluster/config",
     "conf_deploy_fetch_url"),
    ("license manager", "splunk_server=local count=0 /services/licenser/localslave", "master_uri"),
    ("deployment server", "splunk_server=* count=0 /services/deployment/client/config", "targetUri"),
)
# Transient endpoint errors: the kinds a run retries (endpoints.exit_code is TRANSIENT), as the
# collector logs them (category=endpoint_error ... kind=<kind>); the action logs category=transient.
TRANSIENT_KINDS = tuple(k for k in endpoints.TRANSPORT_KINDS + ("5xx",)
                        if endpoints.exit_code(k) == exitcodes.TRANSIENT)
SUSTAINED_ERROR_HOURS = 12


def _spl_roles_case() -> str:
    parts = []
    for r in ROLES:
        if r.server_roles:
            parts.append('isnotnull(mvfind(server_roles, "^(%s)$")), %d' % ("|".join(r.server_roles), RANK[r.name]))
    return "case(%s, true(), %d)" % (", ".join(parts), len(ROLES) + 1)


def _spl_rank_names(field: str) -> str:
    names = ", ".join('%s==%d, "%s"' % (field, RANK[r.name], r.name) for r in ROLES)
    return 'case(%s, true(), "%s")' % (names, OTHER.name)


def _spl_expects() -> str:
    parts = ", ".join('role=="%s", "%s"' % (r.name, r.expects) for r in ROLES if r.expects != "no")
    return 'case(%s, true(), "no")' % parts


def _tier_append(role: str, rest: str, field: str) -> str:
    host = 'host=%s' % field if field == "label" else 'uri=%s' % field
    tail = (' | rex field=uri "^(?:\\w+://)?(?<host>[^:/\\s]+)" | eval host=mvdedup(mvappend(host, '
            'mvindex(split(host, "."), 0)))' if field != "label" else "")
    return ' | append [| rest %s | eval %s, role_rank=%d%s | mvexpand host | fields host role_rank]' % (
        rest, host, RANK[role], tail)


FIX = {
    "metrics_log": "Forward this instance's _internal to the indexers (outputs.conf) or check that it is up.",
    "stopped": "The collector stopped: see its log (Logs below) and the add-on's Inputs page on this instance.",
    "install": "Install TA-ingest_doctor on the indexers (cluster manager bundle): its collector starts by itself.",
    "hec": "Optional: this instance runs HEC: install TA-ingest_doctor on it (deployment server, README Install).",
    "probe": "Optional (HEC latency alert): TA-ingest_doctor > Configuration > HEC probe tokens > Add on this "
             "instance, then Inputs > splunkd > Edit > HEC probe token.",
}


def spl_instances() -> str:
    tiers = "".join(_tier_append(*t) for t in TIER_ENDPOINTS)
    return (
        "| tstats max(_time) AS metrics_log_last WHERE `ingest_doctor_metrics_log` TERM(group=thruput) "
        "TERM(name=thruput) BY host"
        " | append [| mstats latest_time(ingest_doctor.host.cores) AS collector_last WHERE "
        "`ingest_doctor_metrics_index` BY host]"
        " | append [| mstats latest_time(ingest_doctor.hec.latency_ms) AS probe_last WHERE "
        "`ingest_doctor_metrics_index` BY host]"
        " | append [| rest splunk_server=* count=0 /services/server/info | eval host=splunk_server, peer=1, "
        "role_rank=" + _spl_roles_case() + " | fields host peer role_rank]"
        + tiers +
        " | append [| tstats count WHERE `ingest_doctor_index_introspection` sourcetype=http_event_collector_metrics"
        " BY host | eval role_rank=%d | fields host role_rank]" % RANK["heavy forwarder (HEC)"] +
        " | append [| tstats count WHERE `ingest_doctor_metrics_log` TERM(group=tcpin_connections) TERM(fwdType=uf)"
        " BY PREFIX(hostname=) | rename \"hostname=\" AS host | eval role_rank=%d | fields host role_rank]"
        % RANK["universal forwarder"] +
        " | stats max(metrics_log_last) AS metrics_log_last max(collector_last) AS collector_last"
        " max(probe_last) AS probe_last max(peer) AS peer min(role_rank) AS role_rank BY host"
        # a host only a tier endpoint names (a short name, an instance that forwards nothing) is no row
        " | where isnotnull(metrics_log_last) OR isnotnull(collector_last) OR peer==1"
        " | eval role=" + _spl_rank_names("role_rank") + " | eval expects=" + _spl_expects() +
        " | eval metrics_log=case(metrics_log_last>=now()-%d, \"sending\", isnull(metrics_log_last), \"not seen\", "
        "true(), \"stopped\"), collector=case(collector_last>=now()-%d, \"running\", isnull(collector_last) AND "
        "expects==\"no\", \"not expected\", isnull(collector_last), \"not installed\", true(), \"stopped\"), "
        "hec_probe=case(probe_last>=now()-%d, \"running\", collector==\"running\", \"off\", true(), \"-\")"
        % (SEEN_S, SEEN_S, SEEN_S) +
        " | eval status=case(metrics_log!=\"sending\", \"gap\", collector==\"stopped\", \"gap\", "
        "collector==\"not installed\" AND expects==\"yes\", \"gap\", collector==\"not installed\", \"optional\", "
        "hec_probe==\"off\", \"optional\", true(), \"ok\"), "
        "fix=case(metrics_log!=\"sending\", \"%s\", collector==\"stopped\", \"%s\", collector==\"not installed\" "
        "AND expects==\"yes\", \"%s\", collector==\"not installed\", \"%s\", hec_probe==\"off\", \"%s\", true(), \"-\")"
        % (FIX["metrics_log"], FIX["stopped"], FIX["install"], FIX["hec"], FIX["probe"]) +
        " | eval order=case(status==\"gap\", 0, status==\"optional\", 1, true(), 2)"
        " | sort 0 order host | table host role metrics_log collector hec_probe status fix")


def rows_instances(dep: dict) -> List[List[str]]:
    """What spl_instances returns over the recorded deployment `dep`."""
    now = dep["now"]
    hosts: Dict[str, dict] = {}

    def at(h):
        return hosts.setdefault(h, {"rank": None})

    def rank(h, r):
        cur = at(h)["rank"]
        at(h)["rank"] = r if cur is None else min(cur, r)

    for h, ago in dep["metrics_log"].items():
        at(h)["metrics_log_last"] = now - ago
    for h, ago in dep["collector"].items():
        at(h)["collector_last"] = now - ago
    for h, ago in dep["hec_probe"].items():
        at(h)["probe_last"] = now - ago
    for peer in dep["server_info"]:
        at(peer["splunk_server"])["peer"] = 1
        roles = peer["server_roles"]
        rank(peer["splunk_server"], next((RANK[r.name] for r in ROLES if set(r.server_roles) & set(roles)),
                                         len(ROLES) + 1))
    for role, _, field in TIER_ENDPOINTS:
        for value in dep["tiers"].get(role, []):
            m = re.match(r"^(?:\w+://)?([^:/\s]+)", value)
            if not m:
                continue
            for h in {m.group(1), m.group(1).split(".")[0]} if field != "label" else {value}:
                rank(h, RANK[role])
    for h in dep["hec_hosts"]:
        rank(h, RANK["heavy forwarder (HEC)"])
    for h in dep["uf_hosts"]:
        rank(h, RANK["universal forwarder"])
    out = []
    for h, v in hosts.items():
        if "metrics_log_last" not in v and "collector_last" not in v and not v.get("peer"):
            continue
        r = v["rank"]
        role = ROLES[r - 1] if r is not None and r <= len(ROLES) else OTHER
        ml, cl, pl = v.get("metrics_log_last"), v.get("collector_last"), v.get("probe_last")
        metrics_log = "sending" if ml is not None and ml >= now - SEEN_S else "not seen" if ml is None else "stopped"
        collector = ("running" if cl is not None and cl >= now - SEEN_S else
                     "not expected" if cl is None and role.expects == "no" else
                     "not installed" if cl is None else "stopped")
        probe = "running" if pl is not None and pl >= now - SEEN_S else "off" if collector == "running" else "-"
        if metrics_log != "sending":
            status, fix = "gap", FIX["metrics_log"]
        elif collector == "stopped":
            status, fix = "gap", FIX["stopped"]
        elif collector == "not installed" and role.expects == "yes":
            status, fix = "gap", FIX["install"]
        elif collector == "not installed":
            status, fix = "optional", FIX["hec"]
        elif probe == "off":
            status, fix = "optional", FIX["probe"]
        else:
            status, fix = "ok", "-"
        out.append([h, role.name, metrics_log, collector, probe, status, fix])
    order = {"gap": 0, "optional": 1, "ok": 2}
    return sorted(out, key=lambda r: (order[r[5]], r[0]))


# ------------------------------------------------------------------------------- event index
EVENTS_FIX = {
    "main": "Apps do not write to main: point the macro ingest_doctor_events_index at ingest_doctor, the event "
            "index TA-ingest_doctor creates (Settings > Advanced search > Search macros).",
    "no_indexer": "No search peer with the indexer role answered: add the indexers as search peers of this search "
                  "head (Settings > Distributed search).",
    "missing": "Install TA-ingest_doctor on the indexers through the cluster manager (it creates the event index "
               "ingest_doctor), or point the macro ingest_doctor_events_index at an event index every indexer has "
               "(Settings > Advanced search > Search macros). Until then findings sent there are lost.",
}


def spl_events_index() -> str:
    return (
        "| rest splunk_server=local /servicesNS/-/ingest_doctor/configs/conf-macros/ingest_doctor_events_index"
        " | rex field=definition \"index\\s*=\\s*\\\"?(?<index_name>[\\w-]+)\" | fields definition index_name"
        # the indexers: search peers (and this instance) whose server_roles include indexer
        " | append [| rest splunk_server=* count=0 /services/server/info | eval is_indexer=if(isnotnull(mvfind("
        "server_roles, \"^indexer$\")), 1, 0) | fields splunk_server is_indexer]"
        # splunkd filters the list (the endpoint's `search` parameter): one row per peer, not one per index
        " | append [| rest splunk_server=* count=0 /services/data/indexes datatype=event [| rest splunk_server=local"
        " /servicesNS/-/ingest_doctor/configs/conf-macros/ingest_doctor_events_index | rex field=definition"
        " \"index\\s*=\\s*\\\"?(?<index_name>[\\w-]+)\" | eval search=\"title=\".index_name | return search]"
        " | fields splunk_server title]"
        " | eventstats values(definition) AS definition values(index_name) AS index_name"
        " | eval has_index=if(title==index_name, 1, 0)"
        " | stats values(definition) AS definition values(index_name) AS index_name max(is_indexer) AS is_indexer"
        " max(has_index) AS has_index BY splunk_server"
        " | stats values(definition) AS definition values(index_name) AS index_name sum(is_indexer) AS indexers"
        " sum(eval(is_indexer*has_index)) AS indexers_with_index"
        " | where isnotnull(definition) | fillnull value=0 indexers indexers_with_index"
        " | eval status=case(index_name==\"main\", \"gap\", indexers==0, \"gap\", indexers_with_index<indexers, \"gap\","
        " true(), \"ok\"), fix=case(index_name==\"main\", \"%s\", indexers==0, \"%s\", indexers_with_index<indexers,"
        " \"%s\", true(), \"-\")" % (EVENTS_FIX["main"], EVENTS_FIX["no_indexer"], EVENTS_FIX["missing"]) +
        " | table definition index_name indexers indexers_with_index status fix")


def rows_events_index(dep: dict) -> List[List[str]]:
    definition = dep["events_index_macro"]
    m = re.search(r"index\s*=\s*\"?([\w-]+)", definition)
    name = m.group(1) if m else None
    indexers = [p["splunk_server"] for p in dep["server_info"] if "indexer" in p["server_roles"]]
    having = [s for s in indexers if name in dep["event_indexes"].get(s, [])]
    if name == "main":
        status, fix = "gap", EVENTS_FIX["main"]
    elif not indexers:
        status, fix = "gap", EVENTS_FIX["no_indexer"]
    elif len(having) < len(indexers):
        status, fix = "gap", EVENTS_FIX["missing"]
    else:
        status, fix = "ok", "-"
    return [[definition, name, str(len(indexers)), str(len(having)), status, fix]]


# ------------------------------------------------------------------------------- logs
LOGS = (logs.COLLECTOR_LOG, logs.ACTION_LOG)
LOGS_FIX = {
    "other": "Read its errors other than transient endpoint errors (last 24 hours): search ",
    "sustained": "Transient endpoint errors (splunkd slow, refusing or failing) in %d or more of the last 24 hours: "
                 "check splunkd's load on those hosts; search " % SUSTAINED_ERROR_HOURS,
}


def spl_logs() -> str:
    kinds = "|".join(TRANSIENT_KINDS)
    return (
        "| makeresults count=2 | streamstats count AS n | eval log=if(n==1, \"%s\", \"%s\"), errors=0, warnings=0"
        " | fields log errors warnings" % LOGS +
        " | append [search `ingest_doctor_index_internal` source=*ingest_doctor_*.log (ERROR OR WARN) earliest=-24h"
        " | rex field=source \"(?<log>ingest_doctor_\\w+\\.log)$\""
        " | eval level=if(searchmatch(\"ERROR\"), \"error\", \"warn\"), transient=if(match(_raw, "
        "\"category=transient\\b\") OR match(_raw, \"category=endpoint_error\\b.*\\bkind=(%s)\\b\"), 1, 0),"
        " error_hour=if(level==\"error\", strftime(_time, \"%%Y-%%m-%%dT%%H\"), null())" % kinds +
        " | stats count(eval(level==\"error\")) AS errors count(eval(level==\"error\" AND transient==0)) AS"
        " other_errors dc(error_hour) AS error_hours count(eval(level==\"warn\")) AS warnings BY log]"
        " | stats sum(errors) AS errors sum(other_errors) AS other_errors max(error_hours) AS error_hours"
        " sum(warnings) AS warnings BY log | fillnull value=0 other_errors error_hours"
        " | eval search=\"`ingest_doctor_index_internal` source=*\".log,"
        " status=if(other_errors>0 OR error_hours>=%d, \"gap\", \"ok\")," % SUSTAINED_ERROR_HOURS +
        " fix=case(other_errors>0, \"%s\".search.\" ERROR NOT category=transient\", error_hours>=%d, \"%s\".search."
        "\" category=endpoint_error\", true(), \"-\")" % (LOGS_FIX["other"], SUSTAINED_ERROR_HOURS,
                                                          LOGS_FIX["sustained"]) +
        " | table log errors other_errors error_hours warnings search status fix")


def _transient(line: str) -> bool:
    return bool(re.search(r"category=transient\b", line) or
                re.search(r"category=endpoint_error\b.*\bkind=(%s)\b" % "|".join(TRANSIENT_KINDS), line))


def rows_logs(dep: dict) -> List[List[str]]:
    out = []
    for log in LOGS:
        lines = dep["app_logs"].get(log, [])         # [seconds ago, level, line]
        errors = [(ago, line) for ago, level, line in lines if level == "ERROR"]
        other = [e for e in errors if not _transient(e[1])]
        hours = {time.strftime("%Y-%m-%dT%H", time.gmtime(dep["now"] - ago)) for ago, _ in errors}
        warnings = sum(1 for _, level, _ in lines if level == "WARN")
        search = "`ingest_doctor_index_internal` source=*" + log
        if other:
            status, fix = "gap", LOGS_FIX["other"] + search + " ERROR NOT category=transient"
        elif len(hours) >= SUSTAINED_ERROR_HOURS:
            status, fix = "gap", LOGS_FIX["sustained"] + search + " category=endpoint_error"
        else:
            status, fix = "ok", "-"
        out.append([log, str(len(errors)), str(len(other)), str(len(hours)), str(warnings), search, status, fix])
    return out


# ------------------------------------------------------------------------------- notifications
NOTIFY_FIX = {
    "off": "Optional: some Ingest Doctor alerts are off (alerts_on < alerts). Turn any alert on or off in "
           "Settings > Searches, reports, and alerts, app Ingest Doctor > Edit > Enable or Disable (or "
           "disabled = 0 or 1 under its name in local/savedsearches.conf).",
    "webhook": "Optional: one webhook for all alerts: set its https URL in Configuration > Notifications (kept "
               "encrypted in storage/passwords as ingest_doctor:webhook_url, with the allow-list and the minimum "
               "severity); a URL left in the macro ingest_doctor_webhook_url still works, in clear, with a warning. "
               "E-mail: add Send email to the alerts.",
}


def shipped_alerts(root: str = ROOT) -> Tuple[int, int]:
    """(alerts, alerts_on) as the notifications search counts them over the shipped conf: the saved
    searches that trigger ingest_doctor_flag, and those of them enabled and scheduled."""
    conf = read_conf(os.path.join(root, "default", "savedsearches.conf"))
    flagging = [s for k, s in conf.items() if k != "default" and s.get("action.ingest_doctor_flag") == "1"]
    on = [s for s in flagging if s.get("disabled", "0") in ("0", "false") and s.get("enableSched") == "1"]
    return len(flagging), len(on)


def rows_notifications(dep: dict) -> List[List[str]]:
    alerts, on = shipped_alerts()
    on -= len(dep.get("alerts_disabled", []))
    webhook = "set" if dep.get("webhook") else "none"
    if on < alerts:
        status, fix = "optional", NOTIFY_FIX["off"]
    elif webhook != "set":
        status, fix = "optional", NOTIFY_FIX["webhook"]
    else:
        status, fix = "ok", "-"
    return [[dep.get("min_severity", "warning"), webhook, "-", str(alerts), str(on), status, fix]]


def spl_notifications() -> str:
    return (
        "| rest splunk_server=local /servicesNS/-/ingest_doctor/configs/conf-macros count=0 search=\""
        "ingest_doctor_min_severity OR ingest_doctor_webhook_url\" | eval min_severity=if(title==\""
        "ingest_doctor_min_severity\", definition, null()), webhook=if(title==\"ingest_doctor_webhook_url\", "
        "if(match(definition, \"^\\\"?https://\"), \"set\", null()), null()) | fields min_severity webhook"
        # the URL's place since issue 39: storage/passwords, asked whether it exists, its value dropped at once
        " | append [| rest splunk_server=local /servicesNS/nobody/ingest_doctor/storage/passwords count=0 "
        "search=\"realm=ingest_doctor\" | fields - clear_password encr_password | where realm==\"ingest_doctor\" AND "
        "username==\"webhook_url\" | eval webhook=\"set\" | fields webhook]"
        " | append [| rest splunk_server=local /servicesNS/-/ingest_doctor/configs/conf-alert_actions/"
        "ingest_doctor_flag | eval global_param=if(len('param.min_severity')>0 OR len('param.webhook_url')>0, "
        "\"set in alert_actions.conf\", \"-\") | fields global_param]"
        " | append [| rest splunk_server=local /servicesNS/-/ingest_doctor/saved/searches count=0 | search "
        "eai:acl.app=ingest_doctor action.ingest_doctor_flag=1 | stats count AS alerts count(eval(disabled==0 AND "
        "is_scheduled==1)) AS alerts_on]"
        " | stats values(min_severity) AS min_severity values(webhook) AS webhook values(global_param) AS "
        "global_param max(alerts) AS alerts max(alerts_on) AS alerts_on | fillnull value=\"none\" webhook"
        " | eval status=case(alerts_on<alerts, \"optional\", webhook!=\"set\", \"optional\", true(), \"ok\"), "
        "fix=case(alerts_on<alerts, \"%s\", webhook!=\"set\", \"%s\", true(), \"-\")"
        % (NOTIFY_FIX["off"], NOTIFY_FIX["webhook"]) +
        " | table min_severity webhook global_param alerts alerts_on status fix")


# ------------------------------------------------------------------------------- the verdict
# The tables, in the view's order, as the verdict names them: (data source, name).
CHECKS = (("ds_instances", "Instances"), ("ds_metrics_index", "Metrics index"), ("ds_events_index", "Event index"),
          ("ds_hec_data", "HEC data"), ("ds_notifications", "Notifications"), ("ds_logs", "Logs"))
VERDICT_FIX = {
    "gap": "Fix the gaps first: each gap row in the tables below names its fix.",
    "optional": "Optional extras only: each optional row below says how to enable it (Settings > ..., or "
                "TA-ingest_doctor > Configuration > ...).",
}


def spl_verdict(queries: Dict[str, str]) -> str:
    """One line over every check: the checks' own searches (as the view runs them), their status counted."""
    parts = ["| makeresults | eval check_order=0 | fields check_order"]
    for i, (key, name) in enumerate(CHECKS, 1):
        # counted inside the subsearch: one row each, whatever the deployment's size (append keeps 50,000)
        parts.append(" | append [%s | stats count(eval(status==\"gap\")) AS g count(eval(status==\"optional\")) AS o"
                     " | eval check=\"%s\", check_order=%d]" % (queries[key], name, i))
    return "".join(parts) + (
        " | where check_order>0 | sort 0 check_order | eval gap_part=if(g>0, check.\" (\".g.\")\", null()), optional_part=if(o>0, "
        "check.\" (\".o.\")\", null())"
        " | stats sum(g) AS gaps sum(o) AS optional list(gap_part) AS gap_checks list(optional_part) AS"
        " optional_checks | fillnull value=0 gaps optional"
        " | eval verdict=if(gaps==0 AND optional==0, \"all checks ok\", gaps.if(gaps==1, \" gap, \", \" gaps, \")"
        ".optional.\" optional\"), gap_checks=coalesce(mvjoin(gap_checks, \", \"), \"-\"),"
        " optional_checks=coalesce(mvjoin(optional_checks, \", \"), \"-\"),"
        " status=case(gaps>0, \"gap\", optional>0, \"optional\", true(), \"ok\"),"
        " fix=case(status==\"gap\", \"%s\", status==\"optional\", \"%s\", true(), \"-\")"
        % (VERDICT_FIX["gap"], VERDICT_FIX["optional"]) +
        " | table verdict gap_checks optional_checks status fix")


def rows_verdict(checks: Dict[str, List[List[str]]]) -> List[List[str]]:
    """What spl_verdict returns over the checks' rows (each row's status is its last but one column)."""
    gaps, optional, gap_parts, opt_parts = 0, 0, [], []
    for key, name in CHECKS:
        g = sum(1 for r in checks[key] if r[-2] == "gap")
        o = sum(1 for r in checks[key] if r[-2] == "optional")
        gaps, optional = gaps + g, optional + o
        gap_parts += ["%s (%d)" % (name, g)] if g else []
        opt_parts += ["%s (%d)" % (name, o)] if o else []
    verdict = ("all checks ok" if not gaps and not optional else
               "%d gap%s, %d optional" % (gaps, "" if gaps == 1 else "s", optional))
    status = "gap" if gaps else "optional" if optional else "ok"
    return [[verdict, ", ".join(gap_parts) or "-", ", ".join(opt_parts) or "-", status,
             VERDICT_FIX.get(status, "-")]]


# ------------------------------------------------------------------------------- the view and recordings
# The checks computed here; ds_metrics_index and ds_hec_data are the view's own searches, their rows
# recorded in the deployment file (`recorded`).
SEARCHES = {"ds_instances": (spl_instances, rows_instances), "ds_events_index": (spl_events_index, rows_events_index),
            "ds_logs": (spl_logs, rows_logs), "ds_notifications": (spl_notifications, rows_notifications)}


def deployment(name: str, root: str = ROOT) -> dict:
    with open(os.path.join(root, FIXTURES, name + "_deployment.json"), encoding="utf-8") as fh:
        return json.load(fh)


def view_text(text: str) -> str:
    """The hand-written view with the checks' searches written in."""
    m = re.search(r"(<!\[CDATA\[\n)(.*)(\n\]\]>)", text, re.S)
    defn = json.loads(m.group(2))
    for key, (spl, _) in SEARCHES.items():
        defn["dataSources"][key]["options"]["query"] = spl()
    queries = {k: d["options"]["query"] for k, d in defn["dataSources"].items()}
    defn["dataSources"]["ds_verdict"]["options"]["query"] = spl_verdict(queries)
    return text[:m.start(2)] + json.dumps(defn, indent=2, ensure_ascii=False) + text[m.end(2):]


def final_fields(spl: str) -> List[str]:
    """The columns of a search ending in `table`."""
    last = [p.strip() for p in split_top(spl, "|", quotes='"`', opens="([", closes=")]") if p.strip()][-1]
    return last[len("table "):].split()


def _json_rows(fields: Sequence[str], rows: List[List[str]]) -> str:
    return json.dumps({"fields": list(fields), "rows": rows}, separators=(",", ":"), ensure_ascii=False) + "\n"


def outputs(root: str = ROOT) -> Dict[str, str]:
    """{path relative to the project: text}: the view, and the recordings of the checks written here
    (the install fixtures per recorded deployment, and the offline render's: RENDER_STATE)."""
    with open(os.path.join(root, VIEW), encoding="utf-8") as fh:
        view = view_text(fh.read())
    out = {VIEW: view}
    queries = {k: d["options"]["query"] for k, d in definition(view)["dataSources"].items()}
    for name in (FRESH, DISTRIBUTED):
        checks = check_rows(deployment(name, root))
        checks["ds_verdict"] = rows_verdict(checks)
        for key, rows in checks.items():
            text = _json_rows(final_fields(queries[key]), rows)
            out[os.path.join(FIXTURES, name + "_setup", key + ".json")] = text
            state = RENDER_STATE[name]
            out[os.path.join(DASHBOARD_FIXTURES, state, "ingest_doctor_setup", key + ".json")] = text
    return out


def definition(view_xml: str) -> dict:
    return json.loads(re.search(r"<!\[CDATA\[\n(.*)\n\]\]>", view_xml, re.S).group(1))


def check_rows(dep: dict) -> Dict[str, List[List[str]]]:
    """Every check's rows over the deployment `dep`: computed here, or recorded for the view's own searches."""
    out = {key: rows(dep) for key, (_, rows) in SEARCHES.items()}
    out.update(dep["recorded"])
    return out
