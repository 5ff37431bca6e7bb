#!/usr/bin/env python3
"""Write the Dashboard Studio views in default/data/ui/views/ from one description.

Why a generator: five dashboards share their inputs, their base searches per data family and
their layout grid; writing them from one place keeps the SPL of a family identical wherever it
is used. The XML files are committed; `--check` (run by the tests) fails when they are stale.

    python3 tools/dashboards/gen_views.py          # write
    python3 tools/dashboards/gen_views.py --check  # exit 1 when a view differs
"""
from __future__ import annotations

import json
import os
import re
import sys
from xml.sax.saxutils import escape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bin"))

from ingest_doctor import model, threadnames  # noqa: E402

VIEWS = os.path.join(ROOT, "default", "data", "ui", "views")
APP = "ingest_doctor"
WIDTH = 1440

# Colours (Splunk's dark palette): ok, warn, critical, accent.
OK, WARN, CRIT, ACCENT, GREY = "#118832", "#CBA700", "#D41F1F", "#7B56DB", "#3C444D"
THRESHOLD_STYLE = {"seriesColorsByField": {"threshold": CRIT}, "lineDashStylesByField": {"threshold": "dash"}}

# ----------------------------------------------------------------------------- shared SPL
# Host and pipeline-set scope of every search; the tokens come from the global inputs.
HOSTS = "host IN ($host$)"
PSET = 'search ingest_pipe="$pset$"'
# An empty result never shows a bare "No data", nor a row of dashes posing as data: the search
# then returns one column, `message`, saying what is missing and how to get it.
def empty_message(text: str) -> str:
    return "| appendpipe [ stats count | where count==0 | eval message=\"{}\" | table message ]".format(text)


# Time charts name the host (and pipeline set) in every series and show the worst few, the rest
# summarised as one "others" series: `ingest_doctor_top_series(value, n)` ranks the values of
# `series` by their peak (then average) of `value` and prefixes the kept ones with their rank,
# so the legend lists them worst first.
TOP_N = 5


def top_series(value: str, n: int = TOP_N) -> str:
    return "`ingest_doctor_top_series({},{})`".format(value, n)


HOSTS_SEARCH = "| tstats count where `ingest_doctor_metrics_log` by host | sort host | table host"
PSETS_SEARCH = ("| tstats fillnull_value=\"none\" count where `ingest_doctor_metrics_log` TERM(group=queue) "
                "by PREFIX(ingest_pipe=) | rename \"ingest_pipe=\" AS ingest_pipe | sort ingest_pipe | table ingest_pipe")

# metrics.log group=queue, one row per 30 s sample (metrics.log's interval) with fill %.
# tstats over indexed terms: TERM() selects, PREFIX() reads the value after "key=". tcpout
# queues report max_size/current_size in bytes instead of *_kb: both are read and coalesced.
QUEUE_BASE = (
    "| tstats fillnull_value=\"none\" sum(PREFIX(current_size_kb=)) AS cur_kb sum(PREFIX(max_size_kb=)) AS max_kb "
    "sum(PREFIX(current_size=)) AS cur_b sum(PREFIX(max_size=)) AS max_b "
    "where `ingest_doctor_metrics_log` TERM(group=queue) " + HOSTS + " "
    "by host PREFIX(name=) PREFIX(ingest_pipe=) _time span=30s\n"
    "| `ingest_doctor_queue_fill_rows`\n"
    "| " + PSET
)

# Findings (KV store) as annotations: first seen within the time range, coloured by severity.
def findings_annotations(where: str) -> str:
    return (
        "| inputlookup ingest_doctor_findings\n"
        "| search " + HOSTS + " " + where + "\n"
        "| addinfo\n| where first_seen>=info_min_time AND first_seen<=info_max_time\n"
        "| eval _time=first_seen, label=\"finding (\".severity.\"): \".host.\" \".bottleneck."
        "if(isnull(pipeline_set) OR pipeline_set==\"\", \"\", \" set \".pipeline_set), "
        "color=case(severity==\"critical\", \"" + CRIT + "\", severity==\"warning\", \"" + WARN + "\", true(), \"" + GREY + "\")\n"
        "| table _time label color")


# Blocked queues (blocked=true) as annotations: one per 5 minutes and pipeline set.
BLOCKED_ANNOTATIONS = (
    "| tstats fillnull_value=\"none\" count where `ingest_doctor_metrics_log` TERM(group=queue) TERM(blocked=true) "
    + HOSTS + " by host PREFIX(name=) PREFIX(ingest_pipe=) _time span=5m\n"
    "| rename \"name=\" AS queue \"ingest_pipe=\" AS ingest_pipe\n"
    "| " + PSET + "\n"
    "| stats values(queue) AS queues BY _time host ingest_pipe\n"
    "| eval label=host.\" set \".ingest_pipe.\": \".mvjoin(queues, \", \").\" blocked\", color=\"" + CRIT + "\"\n"
    "| table _time label color\n"
    "| append [" + findings_annotations("bottleneck!=\"hec_input\"").replace("\n", " ") + "]\n"
    "| sort _time"
)

# metrics.log group=dutycycle in both layouts, normalised to one row per sample and thread:
#   long:  group=dutycycle, name=ingest, ingest_pipe=0, thread=typing, ratio=0.97
#   wide:  group=dutycycle, name=misc, mgmt_httpd=0.001, tail=0.088  (thread names are keys)
# plus the collector's per-thread CPU from /proc (mstats), where it runs. busy_pct is % of one core.
DUTYCYCLE_BASE = (
    "`ingest_doctor_metrics_log` TERM(group=dutycycle) " + HOSTS + "\n"
    "| `ingest_doctor_dutycycle_rows`\n"
    "| append [| mstats max(_value) AS busy_pct WHERE `ingest_doctor_metrics_index` "
    "metric_name=\"ingest_doctor.thread.busy_pct\" " + HOSTS + " BY host thread span=1m "
    "| eval thread=lower(thread), ingest_pipe=\"none\", origin=\"collector\"]\n"
    "| search ingest_pipe=\"$pset$\" OR ingest_pipe=\"none\"\n"
    "| fields _time host ingest_pipe thread origin busy_pct"
)

# _introspection HttpEventCollector counters, per minute, per host and token.
HEC_BASE = (
    "`ingest_doctor_index_introspection` component=HttpEventCollector " + HOSTS + "\n"
    "| `ingest_doctor_hec_counters`"
)

# splunkd.log HEC rejections: "ERROR HttpInputDataHandler ... token name=t, ..., reply=9, ... parsing_err=..."
HEC_ERRORS_BASE = (
    "`ingest_doctor_splunkd_log` " + HOSTS + " TERM(HttpInputDataHandler) reply\n"
    "| `ingest_doctor_hec_reply_rows`"
)

FINDINGS_EVAL = (
    "eval pipeline_set=if(isnull(pipeline_set) OR pipeline_set==\"\", \"-\", pipeline_set)\n"
    "| eval advice=mvjoin(spath(recommendations, \"{}.action\"), \" | \"), "
    "evidence_text=mvjoin(mvzip(spath(evidence, \"{}.signal\"), mvzip(spath(evidence, \"{}.value\"), spath(evidence, \"{}.unit\"), \" \"), \"=\"), \"; \")\n"
    "| eval settings=mvjoin(mvzip(spath(recommendations, \"{}.setting\"), spath(recommendations, \"{}.suggested\"), \" -> \"), \"; \")\n"
    "| eval first_seen=strftime(first_seen, \"%F %T\"), last_seen_epoch=last_seen, last_seen=strftime(last_seen, \"%F %T\")\n"
    "| eval severity_rank=case(severity==\"critical\", 0, severity==\"warning\", 1, true(), 2)\n"
    "| eval detected=case(like(detected_by, \"%collector%\") AND like(detected_by, \"%alert_action%\"), \"both\", "
    "like(detected_by, \"%collector%\"), \"collector\", true(), \"alert\")\n"
    "| eval evidence_dashboard=case(bottleneck==\"hec_input\", \"ingest_doctor_hec_performance\", "
    "bottleneck==\"typing\" OR bottleneck==\"merging\" OR bottleneck==\"parsing\", \"ingest_doctor_cpu_by_processor\", "
    "bottleneck==\"host_cpu\", \"ingest_doctor_thread_activity\", true(), \"ingest_doctor_pipeline_sets\")\n"
    "| fields id host bottleneck pipeline_set component severity severity_rank status summary evidence_text advice settings "
    "first_seen last_seen last_seen_epoch count detected resolution evidence_dashboard"
)

FINDINGS_BASE = "| inputlookup ingest_doctor_findings\n| `ingest_doctor_findings_rows`"

# ----------------------------------------------------------------------------- macros
# The pipelines each base search applies after selecting its events, as macros: an admin (or an
# alert) reuses exactly what the dashboards compute. This script writes them to the
# "# Dashboards" block of default/macros.conf (one line each).
MACROS = {}


def macro(name: str, description: str, *parts: str, args: str = "") -> None:
    MACROS[name] = (" ".join(p.strip().replace("\n", " ") for p in parts), description, args)


macro("ingest_doctor_hec_data",
      "HEC data for the ingestion-lag panel: events whose source is http:<token name> (HEC's default source). "
      "Narrow the indexes, or match the source your tokens set.",
      "index=* source=http:*")
macro("ingest_doctor_dutycycle_rows",
      "metrics.log group=dutycycle in both layouts (thread=/ratio=, and name=misc with thread names as keys) as one "
      "row per minute, host, ingest_pipe and thread; busy_pct is % of one core.",
      "rex max_match=0 \"[\\s,](?<dc_pair>[a-z][a-z0-9_]*=\\d+\\.\\d+)\"",
      "| eval dc_pairs=if(isnotnull(thread) AND isnotnull(ratio), thread.\"=\".ratio, if(name==\"misc\", dc_pair, null()))",
      "| fields _time host ingest_pipe dc_pairs | mvexpand dc_pairs",
      "| rex field=dc_pairs \"^(?<dc_thread>[^=]+)=(?<dc_ratio>[0-9.]+)\"",
      "| eval thread=lower(dc_thread), busy_pct=round(dc_ratio*100, 1), ingest_pipe=coalesce(ingest_pipe, \"none\"), origin=\"metrics.log\"",
      "| bin _time span=1m | stats max(busy_pct) AS busy_pct BY _time host ingest_pipe thread origin")
macro("ingest_doctor_queue_fill_rows",
      "After a tstats over metrics.log group=queue by PREFIX(name=) PREFIX(ingest_pipe=) giving cur_kb/max_kb "
      "(and cur_b/max_b for queues sized in bytes): fill_pct and the stage that drains the queue (ingest_doctor_pipeline).",
      "rename \"name=\" AS queue \"ingest_pipe=\" AS ingest_pipe",
      "| eval fill_pct=round(coalesce(cur_kb/max_kb, cur_b/max_b)*100, 1), queue_key=if(like(queue, \"tcpout%\"), \"tcpout\", queue)",
      "| lookup ingest_doctor_pipeline metrics_queue AS queue_key OUTPUT stage stage_order",
      "| eval stage=mvindex(stage, 0), stage_order=tonumber(mvindex(stage_order, 0))",
      "| fields _time host ingest_pipe queue stage stage_order fill_pct")
macro("ingest_doctor_hec_counters",
      "_introspection component=HttpEventCollector counters summed per minute, host, series and token "
      "(series http_event_collector: instance totals; http_event_collector_token: per token).",
      "eval series='data.series', token=if(series==\"http_event_collector_token\", 'data.token_name', \"(all tokens)\")",
      "| bin _time span=1m",
      "| stats sum(data.num_of_events) AS events sum(data.num_of_requests) AS requests",
      "sum(data.total_bytes_received) AS bytes_in sum(data.num_of_parser_errors) AS parser_errors",
      "sum(data.num_of_auth_failures) AS auth_failures max(data.num_of_requests_waiting_ack) AS waiting_ack",
      "BY _time host series token")
macro("ingest_doctor_hec_reply_rows",
      "splunkd.log HttpInputDataHandler rejections: reply=N, the token, and the code's meaning and advice "
      "(lookup ingest_doctor_hec_reply_codes).",
      "rex \"token name=(?<hec_token>[^,]+),\" | rex \"reply=(?<reply>\\d+)\" | where isnotnull(reply)",
      "| lookup ingest_doctor_hec_reply_codes reply OUTPUT http_status meaning action",
      "| eval meaning=coalesce(meaning, \"unknown reply code\"), reply_label=reply.\" \".meaning",
      "| fields _time host hec_token reply http_status meaning action reply_label")
macro("ingest_doctor_pipeline_cpu_rows",
      "After a tstats over metrics.log group=pipeline by host PREFIX(name=) PREFIX(processor=) PREFIX(ingest_pipe=) "
      "_time span=1s giving max cpu_seconds and executes (a line repeated in the index is counted once): a reading "
      "counts as CPU time only when plausible, at most the interval's wall time x the stage's threads (lookup "
      "ingest_doctor_pipeline: max_cpu_pct is threads_per_set x 100% plus the engine's slack for interval jitter); "
      "per minute, pct_one_core is the plausible CPU over the wall time it covers and "
      "unreliable counts the readings left out.",
      "rename \"name=\" AS pipeline \"processor=\" AS processor \"ingest_pipe=\" AS ingest_pipe",
      "| sort 0 host ingest_pipe pipeline processor _time",
      "| streamstats current=f window=1 last(_time) AS prev_time BY host ingest_pipe pipeline processor",
      "| eval interval_s=if(isnull(prev_time) OR _time-prev_time>300, 30, _time-prev_time)",
      "| lookup ingest_doctor_pipeline pipeline OUTPUT stage threads_per_set max_cpu_pct",
      "| eval stage=coalesce(mvindex(stage, 0), \"other\"), threads=coalesce(tonumber(mvindex(threads_per_set, 0)), 1),",
      "max_cpu_pct=coalesce(tonumber(mvindex(max_cpu_pct, 0)), 100*threads)",
      "| eval plausible=if(cpu_seconds<=interval_s*max_cpu_pct/100, 1, 0)",
      "| bin _time span=1m",
      "| stats sum(eval(if(plausible==1, cpu_seconds, 0))) AS cpu_seconds sum(eval(if(plausible==1, interval_s, 0))) AS wall_s",
      "sum(eval(1-plausible)) AS unreliable max(cpu_seconds) AS max_reading max(interval_s) AS interval_s sum(executes) AS executes",
      "BY _time host ingest_pipe stage pipeline processor threads",
      "| eval pct_one_core=if(wall_s>0, round(cpu_seconds/wall_s*100, 1), null())")
macro("ingest_doctor_top_series(2)",
      "Keeps the n values of `series` with the highest peak (then average) of the value field, prefixed with their rank "
      "so a chart's legend lists them worst first; the others become one series \"others: N more\". Then "
      "timechart ... BY series limit=0.",
      "eventstats max($value$) AS series_peak avg($value$) AS series_avg BY series",
      "| sort 0 - series_peak - series_avg series",
      "| streamstats dc(series) AS series_rank",
      "| eventstats dc(series) AS series_count",
      "| eval series=if(series_rank<=$n$, series_rank.\". \".series, \"others: \".(series_count-$n$).\" more\")",
      "| fields - series_peak series_avg series_rank series_count", args="value, n")
macro("ingest_doctor_findings_rows",
      "After | inputlookup ingest_doctor_findings: evidence and recommendations (JSON) as text, dates, a severity "
      "rank, and the dashboard that shows the finding's evidence.",
      FINDINGS_EVAL)

# HEC settings: REST on this search head and its search peers (tokens and the global [http]
# entry), plus the collector's ingest_doctor:config events, which also cover heavy forwarders.
GLOBAL = "if(title==\"http\", {}, null())"
HEC_SETTINGS = (
    "| rest splunk_server=* /services/data/inputs/http count=0\n"
    "| append [| rest splunk_server=* /services/data/inputs/http/http count=0 | eval title=\"http\"]\n"
    "| eval token=if(title==\"http\", null(), replace(title, \"^http://\", \"\")), "
    "ack_token=if(title!=\"http\" AND (useACK==\"1\" OR useACK==\"true\"), token, null())\n"
    "| stats max(eval(" + GLOBAL.format("dedicatedIoThreads") + ")) AS dedicatedIoThreads "
    "max(eval(" + GLOBAL.format("maxThreads") + ")) AS maxThreads max(eval(" + GLOBAL.format("maxSockets") + ")) AS maxSockets "
    "max(eval(" + GLOBAL.format("port") + ")) AS port max(eval(" + GLOBAL.format("enableSSL") + ")) AS enableSSL "
    "dc(token) AS tokens values(ack_token) AS useACK_tokens BY splunk_server\n"
    "| eval source=\"REST\"\n"
    "| append [search `ingest_doctor_events_index` sourcetype=\"ingest_doctor:config\" " + HOSTS + "\n"
    "  | spath path=config.dedicated_io_threads output=dedicatedIoThreads | spath path=config.max_threads output=maxThreads "
    "| spath path=config.max_sockets output=maxSockets | spath path=config.hec_port output=port "
    "| spath path=config.hec_ssl output=enableSSL | spath path=config.hec_tokens output=tokens\n"
    "  | stats latest(dedicatedIoThreads) AS dedicatedIoThreads latest(maxThreads) AS maxThreads latest(maxSockets) AS maxSockets "
    "latest(port) AS port latest(enableSSL) AS enableSSL latest(tokens) AS tokens BY host\n"
    "  | rename host AS splunk_server | eval source=\"collector\"]\n"
    "| table splunk_server source dedicatedIoThreads maxThreads maxSockets port enableSSL tokens useACK_tokens\n"
    "| sort splunk_server source"
)

NO_FINDINGS = empty_message(
    "No finding matches these inputs. The Ingest Doctor alerts and the collector (through the search "
    "Ingest Doctor - Findings - Collector findings) write findings: if there are none at all, check that they "
    "are enabled (Settings > Searches, reports, and alerts, app Ingest Doctor).")


# ----------------------------------------------------------------------------- builders
class Dash:
    def __init__(self, name: str, label: str, description: str):
        self.name, self.label, self.description = name, label, description
        self.ds: dict = {}
        self.viz: dict = {}
        self.inputs: dict = {}
        self.rows: list = []          # [(height, [(viz_id, weight), ...])]
        self.global_inputs: list = []
        self.tokens: dict = {}

    # data sources
    def search(self, ds_id: str, name: str, query: str, **params) -> str:
        ds = {"type": "ds.search", "name": name, "options": {"query": query}}
        if params:
            ds["options"]["queryParameters"] = params
        self.ds[ds_id] = ds
        return ds_id

    def chain(self, ds_id: str, name: str, extend: str, query: str) -> str:
        self.ds[ds_id] = {"type": "ds.chain", "name": name, "options": {"extend": extend, "query": query}}
        return ds_id

    # visualizations
    def add(self, viz_id: str, vtype: str, title: str, ds: str = None, description: str = None,
            options: dict = None, **extra) -> str:
        v = {"type": vtype, "title": title}
        if description:
            v["description"] = description
        if ds:
            v["dataSources"] = {"primary": ds}
        v["options"] = options or {}
        v.update(extra)
        self.viz[viz_id] = v
        return viz_id

    def markdown(self, viz_id: str, title: str, text: str) -> str:
        # Studio draws no title bar for markdown: the title is the text's heading.
        return self.add(viz_id, "splunk.markdown", title,
                        options={"markdown": "#### " + title + "\n\n" + text, "fontSize": "small"})

    def row(self, height: int, *items) -> None:
        self.rows.append((height, [(i, 1) if isinstance(i, str) else i for i in items]))

    def fit_headers(self, panel_width: dict) -> None:
        """Set every table column's width: at least its header's (a one-word header wraps at any
        character when its column is narrow), the panel's remaining width shared among the
        columns without a width of their own, so the table fills its panel and no more."""
        for vid, v in self.viz.items():
            if v["type"] != "splunk.table":
                continue
            fmt = v["options"].setdefault("columnFormat", {})
            cols = [c for c in table_fields(self.query_of(v["dataSources"]["primary"])) if not c.startswith("_")]
            need = {c: HEADER_PX_PER_CHAR * max(len(w) for w in c.split()) + HEADER_PX_EXTRA for c in cols}
            fixed = {c: max(fmt[c]["width"], need[c]) for c in cols if "width" in fmt.get(c, {})}
            flexible = [c for c in cols if c not in fixed]
            spare = panel_width[vid] - TABLE_PADDING_PX - sum(fixed.values()) - sum(need[c] for c in flexible)
            for c in cols:
                width = fixed.get(c) or need[c] + max(0, spare) // len(flexible)
                fmt.setdefault(c, {})["width"] = width

    def query_of(self, ds_id: str) -> str:
        ds = self.ds[ds_id]
        return ds["options"]["query"]

    def definition(self) -> dict:
        structure, y = [], 0
        for height, items in self.rows:
            total = sum(w for _, w in items)
            x = 0
            for n, (item, weight) in enumerate(items):
                w = WIDTH - x if n == len(items) - 1 else int(round(WIDTH * weight / total))
                structure.append({"item": item, "type": "block", "position": {"x": x, "y": y, "w": w, "h": height}})
                x += w
            y += height
        self.fit_headers({b["item"]: b["position"]["w"] for b in structure})
        d = {
            "title": self.label,
            "description": self.description,
            "inputs": self.inputs,
            "defaults": {
                "dataSources": {"ds.search": {"options": {"queryParameters": {
                    "earliest": "$global_time.earliest$", "latest": "$global_time.latest$"}}}},
            },
            "visualizations": self.viz,
            "dataSources": self.ds,
            "layout": {"type": "grid", "options": {"width": WIDTH}, "structure": structure,
                       "globalInputs": self.global_inputs},
        }
        if self.tokens:
            d["defaults"]["tokens"] = {"default": {k: {"value": v} for k, v in self.tokens.items()}}
        return d

    def xml(self) -> str:
        body = json.dumps(self.definition(), indent=2, ensure_ascii=False)
        assert "]]>" not in body
        return ('<dashboard version="2" theme="dark">\n'
                "  <!-- generated by tools/dashboards/gen_views.py, do not edit (edit there, then run tools/generate.py) -->\n"
                "  <label>{}</label>\n  <description>{}</description>\n"
                "  <definition><![CDATA[\n{}\n]]></definition>\n"
                "</dashboard>\n").format(escape(self.label), escape(self.description), body)


# A table header in Splunk's dark theme takes about this many pixels per character, plus the
# sort icon and the padding.
HEADER_PX_PER_CHAR, HEADER_PX_EXTRA = 8, 44
TABLE_PADDING_PX = 40   # the panel's padding and the table's scroll bar


def table_fields(query: str) -> list:
    """The columns a search ends with: its last `table` command, after the renames that follow."""
    parts = [p.strip() for p in re.split(r"\n\|\s*", query)]
    at = max((i for i, p in enumerate(parts) if p.startswith("table ")), default=None)
    if at is None:
        return []
    fields = re.findall(r'"[^"]+"|\S+', parts[at][len("table "):])
    fields = [f.strip('"') for f in fields]
    for p in parts[at + 1:]:
        if p.startswith("rename "):
            for old, new in re.findall(r'("[^"]+"|\S+) AS ("[^"]+"|\S+)', p):
                fields = [new.strip('"') if f == old.strip('"') else f for f in fields]
    return fields


def std_inputs(d: Dash, pset: bool = True) -> None:
    d.search("ds_hosts", "Hosts reporting metrics.log", HOSTS_SEARCH)
    d.inputs["input_time"] = {"type": "input.timerange", "title": "Time range",
                              "options": {"token": "global_time", "defaultValue": "-4h@m,now"}}
    d.inputs["input_host"] = {
        "type": "input.multiselect", "title": "Hosts",
        "options": {"items": ">frame(label, value) | prepend(formattedStatics) | objects()",
                    "token": "host", "defaultValue": ["*"]},
        "dataSources": {"primary": "ds_hosts"},
        "context": {
            "formattedConfig": {"number": {"prefix": ""}},
            "formattedStatics": ">statics | formatByType(formattedConfig)",
            "statics": [["All hosts"], ["*"]],
            "label": ">primary | seriesByName(\"host\") | renameSeries(\"label\") | formatByType(formattedConfig)",
            "value": ">primary | seriesByName(\"host\") | renameSeries(\"value\") | formatByType(formattedConfig)",
        },
    }
    d.global_inputs += ["input_time", "input_host"]
    if pset:
        d.search("ds_psets", "Pipeline sets (ingest_pipe) in metrics.log", PSETS_SEARCH)
        d.inputs["input_pset"] = {
            "type": "input.dropdown", "title": "Pipeline set",
            "options": {"items": ">frame(label, value) | prepend(formattedStatics) | objects()",
                        "token": "pset", "defaultValue": "*"},
            "dataSources": {"primary": "ds_psets"},
            "context": {
                "formattedConfig": {"number": {"prefix": ""}},
                "formattedStatics": ">statics | formatByType(formattedConfig)",
                "statics": [["All pipeline sets"], ["*"]],
                "label": ">primary | seriesByName(\"ingest_pipe\") | renameSeries(\"label\") | formatByType(formattedConfig)",
                "value": ">primary | seriesByName(\"ingest_pipe\") | renameSeries(\"value\") | formatByType(formattedConfig)",
            },
        }
        d.global_inputs.append("input_pset")


def link(dashboard: str, **tokens: str) -> dict:
    """A drilldown to another view of the app, carrying input tokens as form.<token> URL parameters.

    drilldown.customUrl to /app/ingest_doctor/<view> (Splunk Web adds the locale), values URL-encoded
    by the |u filter. customUrl rather than linkToDashboard: it is in the published presets, so the
    render test clicks it and checks where it leads; Studio accepts only absolute or /-rooted URLs.
    """
    query = "&".join("form.{}={}|u$".format(k, v[:-1]) for k, v in tokens.items())  # "$row.host.value$" -> "...|u$"
    return {"type": "drilldown.customUrl",
            "options": {"url": "/app/{}/{}".format(APP, dashboard) + ("?" + query if query else ""), "newTab": False}}


ANNOTATION_OPTS = {"annotationX": "> annotation | seriesByName(\"_time\")",
                   "annotationLabel": "> annotation | seriesByName(\"label\")",
                   "annotationColor": "> annotation | seriesByName(\"color\")"}


def line_opts(ytitle: str, ymax=None, **extra) -> dict:
    o = {"yAxisTitleText": ytitle, "xAxisTitleVisibility": "hide", "legendDisplay": "right",
         "legendTruncation": "ellipsisOff", "showYAxisWithZero": True}
    if ymax is not None:
        o["yAxisMax"] = ymax
    o.update(THRESHOLD_STYLE)
    o.update(extra)
    return o


def single(title: str, field: str, unit: str = "", ds: str = "", under: str = "") -> tuple:
    opts = {"majorValue": "> primary | seriesByName(\"{}\") | lastPoint()".format(field),
            "sparklineDisplay": "off", "trendDisplay": "off", "unit": unit, "underLabel": under}
    return title, ds, opts


def table_colors(ranges: dict) -> dict:
    """columnFormat colouring numeric columns by range: {column: [(to, colour), ...]}."""
    fmt, ctx = {}, {}
    for col, bands in ranges.items():
        key = "colors_" + "".join(c if c.isalnum() else "_" for c in col)
        cfg, lo = [], None
        for to, colour in bands:
            band = {"value": colour}
            if lo is not None:
                band["from"] = lo
            if to is not None:
                band["to"] = to
            cfg.append(band)
            lo = to
        ctx[key] = cfg
        fmt[col] = {"rowBackgroundColors": "> table | seriesByName(\"{}\") | rangeValue({})".format(col, key)}
    return {"columnFormat": fmt}, ctx


def busy_bands():
    return [(60, OK), (90, WARN), (None, CRIT)]


# ----------------------------------------------------------------------------- deployment overview
# One row per instance: its worst stage (the last full queue's stage, or the busiest thread or
# queue when nothing is full) over the last 15 minutes of the range, the open finding, the
# setting to change. Queue fill and thread busy share one score: any reading at or above its
# threshold ranks above every reading below, and among those the later stage wins (back-pressure
# fills everything upstream of the bottleneck).
RECENT_S = 900


def _one_line(spl: str) -> str:
    return " ".join(line.strip() for line in spl.splitlines())


OVERVIEW = (
    QUEUE_BASE + "\n| where isnotnull(stage)\n"
    "| addinfo | where _time>=info_max_time-" + str(RECENT_S) + "\n"
    "| stats avg(fill_pct) AS value BY host ingest_pipe stage stage_order\n"
    "| eval reading=stage.\" queue \".round(value, 0).\"% full\", limit=`ingest_doctor_queue_fill_pct`\n"
    "| append [search " + _one_line(DUTYCYCLE_BASE) + " | addinfo | where _time>=info_max_time-" + str(RECENT_S)
    + " | lookup ingest_doctor_pipeline member AS thread OUTPUT stage stage_order "
    "| eval stage=mvindex(stage, 0), stage_order=tonumber(mvindex(stage_order, 0)) | where isnotnull(stage) "
    "| stats avg(busy_pct) AS value BY host ingest_pipe stage stage_order "
    "| eval reading=stage.\" thread \".round(value, 0).\"% of one core\", limit=`ingest_doctor_thread_busy_pct`]\n"
    "| eval score=if(value>=limit, 1000+stage_order*100+value, value)\n"
    "| append [| rest splunk_server=* /services/server/info count=0 | eval host=splunk_server "
    "| search " + HOSTS + " | eval rest_role=if(isnotnull(mvfind(server_roles, \"^indexer$\")), \"indexer\", null()) "
    "| table host rest_role]\n"
    "| append [| inputlookup ingest_doctor_findings | search status=\"open\" " + HOSTS + " | `ingest_doctor_findings_rows` "
    "| sort 0 severity_rank - last_seen_epoch | dedup host "
    "| eval finding=severity.\": \".bottleneck.if(pipeline_set==\"-\", \"\", \" (set \".pipeline_set.\")\"), "
    "settings=if(settings==\"\", advice, settings) "
    "| table host finding settings severity_rank]\n"
    "| sort 0 host - score\n"
    "| stats first(stage) AS worst_stage first(ingest_pipe) AS pipeline_set first(reading) AS reading max(score) AS score "
    "max(eval(if(stage==\"hec_input\", 1, 0))) AS hec max(eval(if(stage==\"output\", 1, 0))) AS fwd "
    "first(rest_role) AS rest_role first(finding) AS finding first(settings) AS settings min(severity_rank) AS severity_rank BY host\n"
    "| where isnotnull(worst_stage)\n"
    "| eval role=coalesce(rest_role, if(fwd==1, \"forwarder\", \"instance\")).if(hec==1, \" + HEC\", \"\"), "
    "state=case(score>=1000, \"saturated\", score>=60, \"busy\", true(), \"ok\"), severity_rank=coalesce(severity_rank, 3)\n"
    "| sort 0 - score severity_rank host\n"
    "| eval finding=coalesce(finding, \"none open\"), settings=if(isnull(settings) OR settings==\"\", "
    "if(state==\"saturated\", \"open the stage's view\", \"-\"), settings)\n"
    "| table host role state worst_stage pipeline_set reading finding settings\n"
    "| rename worst_stage AS \"worst stage\" reading AS \"its reading (last 15 min)\" finding AS \"open finding\" "
    "settings AS \"what to change\"\n"
    + empty_message("No metrics.log queue or thread data from the selected hosts: they must forward _internal "
                    "to the indexers this search head searches.")
)


def host_set(prefix: str = "") -> str:
    """`series` = host, plus ` set N` where metrics.log names a pipeline set."""
    return (prefix + "eval series=host.if(ingest_pipe==\"none\", \"\", \" set \".ingest_pipe)")


# The collector names threads as /proc does: HEC's data thread and its management thread share
# their first 15 characters, so the collector's `httpinputserver` may be either (issue 12). The HEC
# chart shows it beside the data thread, labelled so, never as the data thread.
(PROC_HEC_THREAD,) = [k for k, names in threadnames.AMBIGUOUS.items() if model.HEC_THREAD in names]
PROC_HEC_SUFFIX = " (/proc: data or mgmt)"
PROC_HEC_LABEL = " " + PROC_HEC_THREAD + PROC_HEC_SUFFIX


# ----------------------------------------------------------------------------- HEC performance
def hec_performance() -> Dash:
    d = Dash("ingest_doctor_hec_performance", "HEC performance",
             "Which instance is the bottleneck, and what do I change? The deployment overview first (worst stage per "
             "instance), then HEC throughput, batching, errors, latency, the HEC thread, the queues behind it, lag, "
             "settings and open findings.")
    std_inputs(d)
    d.search("ds_overview", "Deployment overview: worst stage per instance (last 15 minutes of the range)", OVERVIEW)
    d.search("ds_hec", "HEC counters per minute (_introspection HttpEventCollector)", HEC_BASE)
    d.chain("ds_hec_kpi", "HEC totals", "ds_hec",
            "| where series==\"http_event_collector\"\n"
            "| stats sum(events) AS events sum(requests) AS requests sum(bytes_in) AS bytes_in dc(_time) AS minutes\n"
            "| eval eps=round(events/(minutes*60), 0), mbps=round(bytes_in/(minutes*60)/1048576, 2), "
            "rps=round(requests/(minutes*60), 1), epr=round(events/requests, 1)\n"
            "| table eps mbps rps epr")
    for ds_id, name, field, rate in (("ds_hec_eps", "Events/s", "eps", "round(events/60, 1)"),
                                     ("ds_hec_mbps", "MB/s", "mbps", "round(bytes_in/60/1048576, 3)")):
        d.chain(ds_id, name + " per host (top 5)", "ds_hec",
                "| where series==\"http_event_collector\"\n| eval " + field + "=" + rate + ", series=host\n"
                "| " + top_series(field) + "\n"
                "| timechart span=1m sum(" + field + ") BY series limit=0 useother=false")
    d.chain("ds_hec_tokens", "Throughput and batching by host and token", "ds_hec",
            "| where series==\"http_event_collector_token\"\n"
            "| stats sum(events) AS events sum(requests) AS requests sum(bytes_in) AS bytes_in max(waiting_ack) AS waiting_ack dc(_time) AS minutes BY host token\n"
            "| eval eps=round(events/(minutes*60), 1), mbps=round(bytes_in/(minutes*60)/1048576, 3), "
            "rps=round(requests/(minutes*60), 2), epr=round(events/requests, 1)\n"
            "| sort - eps\n"
            "| table host token eps mbps rps epr waiting_ack\n"
            "| rename eps AS \"events/s\" mbps AS \"MB/s\" rps AS \"requests/s\" epr AS \"events/request\" waiting_ack AS \"max requests waiting ack\"")
    d.chain("ds_hec_batching", "Events per request by token", "ds_hec",
            "| where series==\"http_event_collector_token\"\n"
            "| stats sum(events) AS events sum(requests) AS requests BY token\n"
            "| eval events_per_request=round(events/requests, 1)\n| sort events_per_request\n"
            "| table token events_per_request")
    d.search("ds_hec_errors", "HEC rejections in splunkd.log (HttpInputDataHandler reply=)", HEC_ERRORS_BASE)
    d.chain("ds_hec_errors_time", "HEC errors per host and reply code (top 5)", "ds_hec_errors",
            "| eval series=host.\" \".reply_label\n| bin _time span=5m\n| stats count AS errors BY _time series\n"
            "| " + top_series("errors") + "\n"
            "| timechart span=5m sum(errors) BY series limit=0 useother=false")
    d.chain("ds_hec_errors_table", "HEC errors by host and reply code", "ds_hec_errors",
            "| stats count AS errors latest(_time) AS last_seen values(hec_token) AS tokens BY host reply http_status meaning action\n"
            "| eval reply=reply.\" (HTTP \".coalesce(http_status, \"?\").\")\", last_seen=strftime(last_seen, \"%F %T\"), tokens=mvjoin(tokens, \", \")\n"
            "| sort 0 - errors host reply\n"
            "| table host reply meaning errors tokens action last_seen\n"
            + empty_message("No HEC request was rejected in this time range (splunkd.log HttpInputDataHandler)."))
    d.search("ds_hec_latency", "HEC request latency p95 per host (collector probe, mstats)",
             "| mstats perc95(_value) AS p95 WHERE `ingest_doctor_metrics_index` "
             "metric_name=\"ingest_doctor.hec.latency_ms\" " + HOSTS + " BY host span=1m\n"
             "| eval series=host\n| " + top_series("p95") + "\n"
             "| timechart span=1m max(p95) BY series limit=0 useother=false\n"
             "| eval threshold=`ingest_doctor_hec_latency_ms`")
    d.search("ds_hec_health", "HEC health probes (collector, mstats)",
             "| mstats count(_value) AS probes avg(_value) AS avg_rtt_ms max(_value) AS max_rtt_ms "
             "WHERE `ingest_doctor_metrics_index` metric_name=\"ingest_doctor.hec.health_rtt_ms\" " + HOSTS + " BY host code\n"
             "| lookup ingest_doctor_hec_reply_codes reply AS code OUTPUT meaning\n"
             "| eval avg_rtt_ms=round(avg_rtt_ms, 1), max_rtt_ms=round(max_rtt_ms, 1), healthy=if(code==\"17\", 1, 0)\n"
             "| sort 0 healthy - probes host\n"
             "| table host code meaning probes avg_rtt_ms max_rtt_ms\n"
             + empty_message("No HEC health probe found: enable the ingest_doctor_introspection input on the HEC "
                             "hosts (README, Collector)."))
    d.search("ds_dc", "Thread busy % of one core (metrics.log dutycycle, both layouts, and the collector)",
             DUTYCYCLE_BASE)
    d.chain("ds_hec_thread", "HEC thread busy % per host (top 5)", "ds_dc",
            "| where thread==\"{hec}\" OR thread==\"{proc}\"\n"
            "| ".format(hec=model.HEC_THREAD, proc=PROC_HEC_THREAD) + host_set()
            + ".if(thread==\"{}\", \"{}\", \"\")\n| ".format(PROC_HEC_THREAD, PROC_HEC_LABEL) + top_series("busy_pct") + "\n"
            "| timechart span=1m max(busy_pct) BY series limit=0 useother=false\n"
            "| eval threshold=`ingest_doctor_thread_busy_pct`")
    d.search("ds_hec_findings_ann", "HEC findings as annotations (KV store ingest_doctor_findings)",
             findings_annotations("bottleneck=\"hec_input\""))
    d.search("ds_hec_queues", "Fullest queue per host and pipeline set on the HEC hosts (tstats over metrics.log)",
             QUEUE_BASE.replace(HOSTS + " ", HOSTS + " [search `ingest_doctor_index_introspection` "
                                "component=HttpEventCollector " + HOSTS + " | stats count BY host | fields host] ", 1)
             + "\n| where isnotnull(stage)\n| " + host_set() + "\n| " + top_series("fill_pct") + "\n"
             "| timechart span=1m max(fill_pct) BY series limit=0 useother=false\n"
             "| eval threshold=`ingest_doctor_queue_fill_pct`")
    d.search("ds_hec_lag", "Ingestion lag of HEC data per receiving indexer (_indextime - _time, 1 in 100 events sampled)",
             "`ingest_doctor_hec_data`\n| eval lag_s=_indextime-_time\n| bin _time span=5m\n"
             "| stats perc95(lag_s) AS p95 BY _time splunk_server\n"
             "| eval series=splunk_server\n| " + top_series("p95") + "\n"
             "| timechart span=5m max(p95) BY series limit=0 useother=false",
             earliest="$global_time.earliest$", latest="$global_time.latest$", sampleRatio=100)
    d.search("ds_hec_settings", "HEC settings per instance (REST data/inputs/http, and the collector's config events)",
             HEC_SETTINGS)
    d.search("ds_open_findings", "Open findings (KV store ingest_doctor_findings)",
             FINDINGS_BASE + "\n| search status=\"open\" " + HOSTS + "\n| sort severity_rank - last_seen_epoch\n"
             "| table severity host bottleneck pipeline_set summary advice settings detected first_seen last_seen\n"
             + NO_FINDINGS)

    states = [{"match": "saturated", "value": CRIT}, {"match": "busy", "value": WARN}, {"match": "ok", "value": OK}]
    d.add("viz_overview", "splunk.table", "Deployment overview: the worst stage of each instance and what to change",
          "ds_overview",
          "Last 15 minutes of the range, worst first. A stage at its threshold (queue fill or thread busy % of one core) "
          "ranks first, the later stage of a full chain before the earlier. Click a row for its pipeline set.",
          {"columnFormat": {"state": {"rowBackgroundColors": "> table | seriesByName(\"state\") | matchValue(stateColors)",
                                      "width": 95},
                            "host": {"width": 75}, "role": {"width": 125}, "worst stage": {"width": 105},
                            "pipeline_set": {"width": 105}, "its reading (last 15 min)": {"width": 230},
                            "open finding": {"width": 170}, "what to change": {"width": 440}},
           "count": 8},
          context={"stateColors": states},
          eventHandlers=[link("ingest_doctor_pipeline_sets", host="$row.host.value$", pset="$row.pipeline_set.value$")])
    for vid, (title, field, unit, under) in {
        "viz_kpi_eps": ("Events per second", "eps", "", "events/s, all HEC hosts"),
        "viz_kpi_mbps": ("MB per second", "mbps", "MB/s", "received, all HEC hosts"),
        "viz_kpi_rps": ("Requests per second", "rps", "", "requests/s, all HEC hosts"),
        "viz_kpi_epr": ("Events per request", "epr", "", "batching: below 5 is chatty"),
    }.items():
        t, _, opts = single(title, field, unit, under=under)
        d.add(vid, "splunk.singlevalue", t, "ds_hec_kpi", options=opts)
    d.add("viz_hec_eps", "splunk.line", "Events/s per host: top 5", "ds_hec_eps",
          "_introspection HttpEventCollector instance totals per minute; the 5 busiest hosts, the rest summed as \"others\".",
          line_opts("events/s"))
    d.add("viz_hec_mbps", "splunk.line", "MB/s received per host: top 5", "ds_hec_mbps",
          "The 5 hosts receiving most, the rest summed as \"others\".", line_opts("MB/s"))
    cf, ctx = table_colors({"events/request": [(5, CRIT), (20, WARN), (None, OK)]})
    d.add("viz_hec_tokens", "splunk.table", "Throughput and batching by host and token", "ds_hec_tokens",
          "Tokens sending fewer than 5 events per request cost a request per handful of events: batch them in the client.",
          cf, context=ctx)
    d.add("viz_hec_batching", "splunk.bar", "Events per request by token (fewest first)", "ds_hec_batching",
          "All HEC hosts together, per token.",
          {"legendDisplay": "off", "xAxisTitleVisibility": "hide", "yAxisTitleText": "events/request"})
    d.add("viz_hec_errors_time", "splunk.column", "HEC errors per host and reply code: top 5", "ds_hec_errors_time",
          "reply=N per 5 min, the rest as \"others\". 9: the queues behind HEC are full.",
          {"stackMode": "stacked", "xAxisTitleVisibility": "hide", "yAxisTitleText": "errors / 5 min",
           "legendDisplay": "bottom", "legendTruncation": "ellipsisOff"})
    d.add("viz_hec_errors_table", "splunk.table", "HEC errors: what they mean and what to do", "ds_hec_errors_table",
          "Meaning and action per reply code from the lookup ingest_doctor_hec_reply_codes.",
          {"columnFormat": {"action": {"width": 240}}})
    d.add("viz_hec_latency", "splunk.line", "HEC request latency p95 per host (ms): top 5", "ds_hec_latency",
          "Probe events POSTed by the collector; the 5 slowest hosts, the rest as \"others\" (max). Dashed: "
          "ingest_doctor_hec_latency_ms.", line_opts("ms"))
    d.add("viz_hec_health", "splunk.table", "HEC health probes by host and code", "ds_hec_health",
          "/services/collector/health: 17 healthy; 18-20 unhealthy (queues full / ack service unavailable).")
    d.add("viz_hec_thread", "splunk.line", "HEC thread busy % of one core per host: top 5", "ds_hec_thread",
          "Top 5 (max). Dashed: raise dedicatedIoThreads. \"%s\": the name both HEC threads share."
          % PROC_HEC_SUFFIX.strip(" ()"),
          dict(line_opts("% of one core", 100), **ANNOTATION_OPTS),
          dataSources={"primary": "ds_hec_thread", "annotation": "ds_hec_findings_ann"},
          eventHandlers=[link("ingest_doctor_thread_activity")])
    d.add("viz_hec_queues", "splunk.line", "Fullest queue on the HEC hosts, per host and set: top 5", "ds_hec_queues",
          "Max per minute over a host and set's queues; the rest as \"others\". Full: HEC answers 503.",
          line_opts("fill %", 100), eventHandlers=[link("ingest_doctor_pipeline_sets")])
    d.add("viz_hec_lag", "splunk.line", "Ingestion lag p95 per receiving indexer (s): top 5", "ds_hec_lag",
          "_indextime - _time of HEC data (ingest_doctor_hec_data), 1 in 100 sampled.",
          line_opts("seconds"))
    d.add("viz_hec_settings", "splunk.table", "Current HEC settings (REST /services/data/inputs/http)", "ds_hec_settings",
          "inputs.conf [http] per instance (0 = automatic); heavy forwarders through the collector.")
    d.add("viz_open_findings", "splunk.table", "Open findings and what to change", "ds_open_findings",
          "From the KV store ingest_doctor_findings. Click a row for the findings dashboard.",
          {"columnFormat": {"severity": {"rowBackgroundColors": "> table | seriesByName(\"severity\") | matchValue(sevColors)"},
                            "summary": {"width": 220}, "advice": {"width": 180}, "settings": {"width": 150}}},
          context={"sevColors": [{"match": "critical", "value": CRIT}, {"match": "warning", "value": WARN},
                                 {"match": "info", "value": GREY}]},
          eventHandlers=[link("ingest_doctor_findings", host="$row.host.value$")])
    d.markdown("viz_hec_help", "Reading this page",
               "The **overview** names each instance's worst stage. HEC at 100% of one core "
               "(`httpinputserverdatathread`): raise `dedicatedIoThreads` in `inputs.conf [http]`, then scale out. "
               "Full queues behind HEC (reply=9 *Server is busy*): a later stage is the bottleneck, see *Pipeline "
               "sets*. *Latency or health empty?* Enable the `ingest_doctor_introspection` input on the HEC hosts.")

    d.row(400, "viz_overview")
    d.row(150, "viz_kpi_eps", "viz_kpi_mbps", "viz_kpi_rps", "viz_kpi_epr", ("viz_hec_help", 3))
    d.row(320, ("viz_hec_errors_time", 2), ("viz_hec_errors_table", 3))
    d.row(320, "viz_hec_thread", "viz_hec_queues")
    d.row(300, "viz_hec_eps", "viz_hec_mbps")
    d.row(300, "viz_hec_latency", "viz_hec_lag")
    d.row(300, "viz_hec_health", "viz_hec_batching")
    d.row(300, "viz_hec_tokens")
    d.row(280, "viz_hec_settings")
    d.row(380, "viz_open_findings")
    return d


# ----------------------------------------------------------------------------- thread activity
def thread_activity() -> Dash:
    d = Dash("ingest_doctor_thread_activity", "Thread activity",
             "Which splunkd thread is pegged, on which host? Busy % of one core per host and thread (metrics.log "
             "dutycycle in both layouts, and the collector's per-thread CPU), threads over the threshold, and a "
             "host x thread heat map of the latest value.")
    std_inputs(d)
    d.tokens.update({"thread": "httpinputserverdatathread", "drill_host": "*"})
    d.search("ds_dc", "Thread busy % of one core (metrics.log dutycycle, both layouts, and the collector)",
             DUTYCYCLE_BASE)
    d.chain("ds_threads_time", "Busy % per host and thread (top 5)", "ds_dc",
            "| " + host_set() + ".\" \".thread.if(thread==\"{}\", \"{}\", \"\")\n| ".format(PROC_HEC_THREAD, PROC_HEC_SUFFIX)
            + top_series("busy_pct") + "\n"
            "| timechart span=1m max(busy_pct) BY series limit=0 useother=false\n"
            "| eval threshold=`ingest_doctor_thread_busy_pct`")
    d.chain("ds_threads_over", "Threads at or over the threshold", "ds_dc",
            "| stats latest(busy_pct) AS latest_pct avg(busy_pct) AS avg_pct max(busy_pct) AS max_pct "
            "count(eval(busy_pct>=`ingest_doctor_thread_busy_pct`)) AS samples_over count AS samples "
            "values(origin) AS origin BY host ingest_pipe thread\n"
            "| where max_pct>=`ingest_doctor_thread_busy_pct`\n"
            "| eval avg_pct=round(avg_pct, 1), over_pct=round(samples_over/samples*100, 0)\n"
            "| sort - latest_pct - avg_pct\n"
            "| table host ingest_pipe thread latest_pct avg_pct max_pct over_pct origin\n"
            + empty_message("No thread reached ingest_doctor_thread_busy_pct in this time range on the selected hosts."))
    d.chain("ds_threads_heat", "Host x thread, latest busy % (the busier pipeline set)", "ds_dc",
            "| stats latest(busy_pct) AS busy_pct BY host ingest_pipe thread\n"
            "| stats max(busy_pct) AS busy_pct BY thread host\n"
            "| eventstats max(busy_pct) AS thread_max BY thread\n"
            "| where thread_max>=1\n"
            "| sort 0 - thread_max thread - busy_pct\n"
            "| table thread host busy_pct")
    d.chain("ds_thread_drill", "Selected thread over time", "ds_dc",
            "| search thread=\"$thread$\" host=\"$drill_host$\"\n"
            "| " + host_set() + "\n| " + top_series("busy_pct") + "\n"
            "| timechart span=1m max(busy_pct) BY series limit=0 useother=false\n"
            "| eval threshold=`ingest_doctor_thread_busy_pct`")
    d.search("ds_cpu_trap", "splunkd CPU against the host's cores (collector, mstats)",
             "| mstats avg(_value) AS value WHERE `ingest_doctor_metrics_index` "
             "(metric_name=\"ingest_doctor.splunkd.cpu_pct\" OR metric_name=\"ingest_doctor.host.cores\") " + HOSTS
             + " BY host metric_name\n"
             "| eval metric=if(metric_name==\"ingest_doctor.host.cores\", \"cores\", \"splunkd_one_core_pct\")\n"
             "| xyseries host metric value\n"
             "| eval splunkd_all_cores_pct=round(splunkd_one_core_pct/cores, 1), one_core_pct=round(100/cores, 1), "
             "splunkd_one_core_pct=round(splunkd_one_core_pct, 0)\n"
             "| sort 0 - splunkd_one_core_pct\n"
             "| table host cores splunkd_one_core_pct splunkd_all_cores_pct one_core_pct\n"
             "| rename splunkd_one_core_pct AS \"splunkd (% of one core)\" splunkd_all_cores_pct AS "
             "\"splunkd (% of all cores)\" one_core_pct AS \"one core (% of all)\"\n"
             + empty_message("Needs the Ingest Doctor collector: enable the input ingest_doctor_introspection."))

    d.add("viz_threads_time", "splunk.line", "Busy % of one core per host and thread: top 5", "ds_threads_time",
          "Max per minute per host, set and thread; top 5 (max). Dashed: ingest_doctor_thread_busy_pct. "
          "\"%s\": HEC data or mgmt thread." % PROC_HEC_SUFFIX.strip(" ()"),
          line_opts("% of one core", 100))
    cf, ctx = table_colors({"latest_pct": busy_bands(), "avg_pct": busy_bands(), "max_pct": busy_bands()})
    d.add("viz_threads_over", "splunk.table", "Threads over the threshold (click one for its time series)",
          "ds_threads_over", "Latest first. All % of one core.", cf, context=ctx,
          eventHandlers=[{"type": "drilldown.setToken", "options": {"tokens": [
              {"token": "thread", "key": "row.thread.value"}, {"token": "drill_host", "key": "row.host.value"}]}}])
    d.add("viz_threads_heat", "splunk.punchcard", "Heat map: host x thread, latest busy % of one core", "ds_threads_heat",
          "Each bubble: the thread's latest minute on that host (the busier pipeline set). Click a bubble for its "
          "time series.",
          {"x": "> primary | seriesByName(\"thread\")", "y": "> primary | seriesByName(\"host\")",
           "size": "> primary | seriesByName(\"busy_pct\")",
           "bubbleColor": "> primary | seriesByName(\"busy_pct\") | rangeValue(heatColors)",
           "legendDisplay": "off", "bubbleLabelDisplay": "all"},
          context={"heatColors": [{"to": 60, "value": OK}, {"from": 60, "to": 90, "value": WARN},
                                  {"from": 90, "value": CRIT}]},
          eventHandlers=[{"type": "drilldown.setToken", "options": {"tokens": [
              {"token": "thread", "key": "row.thread.value"}, {"token": "drill_host", "key": "row.host.value"}]}}])
    d.add("viz_thread_drill", "splunk.line", "Thread $thread$ on host $drill_host$", "ds_thread_drill",
          "Per host and set, the 5 busiest; set by clicking a thread above. The dashed line is the threshold.",
          line_opts("% of one core", 100))
    d.add("viz_cpu_trap", "splunk.table", "splunkd CPU against the host's cores", "ds_cpu_trap",
          "If splunkd's share of all cores is about one core, one thread is the limit: more cores will not help.")
    d.markdown("viz_trap_text", "The \"4% of 24 cores\" trap",
               "A host with **24 cores** shows splunkd at **4% CPU** and looks idle. But 100% / 24 = **4.2%**: that "
               "is exactly **one core pegged**. Most ingestion stages run on one thread per pipeline set (the HEC "
               "server data thread, typing, indexerPipe...), so one saturated thread caps throughput while the host "
               "looks idle.\n\n"
               "Read busy % here as **% of one core per thread**: a thread at 100% is the bottleneck whatever the "
               "host's total says. Fix the stage (HEC: `dedicatedIoThreads`; typing: regex cost; indexing: "
               "`parallelIngestionPipelines` when the cores are free) instead of adding cores.\n\n"
               "*Collector rows empty?* Enable the `ingest_doctor_introspection` input for per-thread CPU from /proc.")

    d.row(340, ("viz_threads_time", 3), ("viz_trap_text", 2))
    d.row(300, ("viz_threads_over", 3), ("viz_cpu_trap", 2))
    d.row(420, "viz_threads_heat")
    d.row(300, "viz_thread_drill")
    return d


# ----------------------------------------------------------------------------- pipeline sets
def pipeline_sets() -> Dash:
    d = Dash("ingest_doctor_pipeline_sets", "Pipeline sets",
             "Which queue of which pipeline set on which host is full, and which stage drains it? The fullest queue "
             "per host and set (worst first), blocked queues on the timeline, the stage chain with the bottleneck, "
             "busiest thread per set.")
    std_inputs(d)
    d.inputs["input_agg"] = {"type": "input.dropdown", "title": "Fill statistic",
                             "options": {"items": [{"label": "Maximum", "value": "max"},
                                                   {"label": "90th percentile", "value": "perc90"},
                                                   {"label": "Median", "value": "median"}],
                                         "token": "agg", "defaultValue": "max"}}
    d.global_inputs.append("input_agg")
    d.search("ds_queues", "Queue fill per 30 s sample (tstats TERM/PREFIX over metrics.log group=queue)", QUEUE_BASE)
    d.search("ds_blocked", "Blocked queues (blocked=true) and findings as annotations", BLOCKED_ANNOTATIONS)
    d.chain("ds_fill_time", "Fullest queue per host and pipeline set (top 5)", "ds_queues",
            "| where isnotnull(stage)\n| " + host_set() + "\n| " + top_series("fill_pct") + "\n"
            "| timechart span=1m $agg$(fill_pct) BY series limit=0 useother=false\n"
            "| eval threshold=`ingest_doctor_queue_fill_pct`")
    d.chain("ds_chain", "Stage chain and bottleneck per pipeline set", "ds_queues",
            "| where isnotnull(stage)\n"
            "| stats $agg$(fill_pct) AS fill max(stage_order) AS stage_order BY host ingest_pipe stage\n"
            "| eval fill=round(fill, 0), full_order=if(fill>=`ingest_doctor_queue_fill_pct`, stage_order, 0)\n"
            "| eventstats max(full_order) AS last_full max(fill) AS fullest BY host ingest_pipe\n"
            "| eval bottleneck_stage=if(last_full>0 AND stage_order==last_full, stage, null()), {stage}=fill\n"
            "| stats values(parsing) AS parsing values(merging) AS merging values(typing) AS typing "
            "values(indexing) AS indexing values(output) AS output values(bottleneck_stage) AS bottleneck "
            "max(fullest) AS fullest BY host ingest_pipe\n"
            "| eval bottleneck=coalesce(bottleneck, \"none\"), order=if(bottleneck==\"none\", 1, 0)\n"
            "| sort 0 order - fullest host ingest_pipe\n"
            "| table host ingest_pipe parsing merging typing indexing output bottleneck")
    d.chain("ds_bands", "Hosts per fill band (deployment view)", "ds_queues",
            "| where isnotnull(stage)\n| bin _time span=5m\n"
            "| stats max(fill_pct) AS fill BY _time host\n"
            "| eval band=case(fill>=`ingest_doctor_queue_fill_pct`, \"3: full (>= threshold)\", fill>=60, \"2: 60% to threshold\", "
            "true(), \"1: below 60%\")\n"
            "| timechart span=5m dc(host) BY band")
    d.search("ds_psets_load", "Busiest thread and share per pipeline set (metrics.log group=pipelineset)",
             "| tstats fillnull_value=\"none\" max(PREFIX(dutycycle_ratio=)) AS ratio avg(PREFIX(share=)) AS share "
             "where `ingest_doctor_metrics_log` TERM(group=pipelineset) TERM(name=load_metrics) " + HOSTS + " "
             "by host PREFIX(ingest_pipe=) PREFIX(busiest_thread_name=) _time span=1m\n"
             "| rename \"ingest_pipe=\" AS ingest_pipe \"busiest_thread_name=\" AS busiest_thread\n"
             "| " + PSET + "\n"
             "| eval busy_pct=round(ratio*100, 1), share_pct=round(share*100, 1)\n"
             "| fields _time host ingest_pipe busiest_thread busy_pct share_pct")
    d.chain("ds_psets_time", "Busiest thread busy % per host and pipeline set (top 5)", "ds_psets_load",
            "| " + host_set() + "\n| " + top_series("busy_pct") + "\n"
            "| timechart span=1m max(busy_pct) BY series limit=0 useother=false\n"
            "| eval threshold=`ingest_doctor_thread_busy_pct`")
    d.chain("ds_psets_table", "Busiest thread and share per pipeline set", "ds_psets_load",
            "| stats count AS minutes max(busy_pct) AS max_busy_pct avg(share_pct) AS share_pct BY host ingest_pipe busiest_thread\n"
            "| sort 0 host ingest_pipe - max_busy_pct\n| dedup host ingest_pipe\n"
            "| eval share_pct=round(share_pct, 1)\n| sort 0 - max_busy_pct host ingest_pipe\n"
            "| table host ingest_pipe busiest_thread minutes max_busy_pct share_pct\n"
            "| rename minutes AS \"minutes busiest\" max_busy_pct AS \"max busy %\" share_pct AS \"assignment share %\"")

    # Headroom: a stage busy B% of one core while its set carries E events/s pegs at about E x 100 / B
    # (bin/ingest_doctor/rules/headroom.py computes the same for the CLI and the findings).
    d.search("ds_headroom", "Headroom per host, pipeline set and stage (dutycycle busy share and group=thruput "
             "events/s)",
             "`ingest_doctor_metrics_log` TERM(group=dutycycle) " + HOSTS + "\n"
             "| `ingest_doctor_dutycycle_rows`\n"
             "| " + PSET + "\n"
             "| lookup ingest_doctor_pipeline member AS thread OUTPUT stage\n"
             "| eval stage=mvindex(stage, 0)\n"
             "| where isnotnull(stage) AND stage!=\"hec_input\" AND stage!=\"output\"\n"
             "| stats avg(busy_pct) AS busy_pct BY host ingest_pipe stage\n"
             "| append [| tstats fillnull_value=\"none\" avg(PREFIX(instantaneous_eps=)) AS eps "
             "where `ingest_doctor_metrics_log` TERM(group=thruput) TERM(name=index_thruput) " + HOSTS + " "
             "by host PREFIX(ingest_pipe=) | rename \"ingest_pipe=\" AS ingest_pipe]\n"
             "| eventstats max(eps) AS eps BY host ingest_pipe\n"
             "| where isnotnull(stage)\n"
             "| eval busy_pct=round(busy_pct, 1), eps=round(eps, 0), "
             "saturates_eps=case(busy_pct<`ingest_doctor_headroom_min_busy_pct` OR isnull(eps), null(), "
             "busy_pct>=`ingest_doctor_thread_busy_pct`, eps, true(), round(eps*100/busy_pct, 0))\n"
             "| sort 0 - busy_pct host ingest_pipe\n"
             "| table host ingest_pipe stage busy_pct eps saturates_eps\n"
             "| rename ingest_pipe AS \"pipeline set\" busy_pct AS \"busy % of one core\" eps AS \"events/s now\" "
             "saturates_eps AS \"events/s before it pegs\"")

    d.add("viz_fill_time", "splunk.line", "Fullest queue per host and pipeline set ($agg$ per minute): top 5",
          "ds_fill_time",
          "Each series: the fullest of a host and set's queues; the 5 worst, the rest as \"others\". Red marks: "
          "blocked=true and findings. Dashed: ingest_doctor_queue_fill_pct.",
          dict(line_opts("fill %", 100), **ANNOTATION_OPTS),
          dataSources={"primary": "ds_fill_time", "annotation": "ds_blocked"})
    bands = [(60, OK), (90, WARN), (None, CRIT)]
    cf, ctx = table_colors({s: bands for s in ("parsing", "merging", "typing", "indexing", "output")})
    cf["columnFormat"]["bottleneck"] = {
        "rowBackgroundColors": "> table | seriesByName(\"bottleneck\") | matchValue(bottleneckColors)"}
    ctx["bottleneckColors"] = [{"match": "none", "value": OK}, {"match": "parsing", "value": CRIT},
                               {"match": "merging", "value": CRIT}, {"match": "typing", "value": CRIT},
                               {"match": "indexing", "value": CRIT}, {"match": "output", "value": CRIT}]
    d.add("viz_chain", "splunk.table",
          "Chain parsing -> merging -> typing -> indexing -> output: queue fill % ($agg$) and the bottleneck", "ds_chain",
          "Per host and set, bottlenecks first, then the fullest. The bottleneck is the stage draining the last full "
          "queue. Click a row for the CPU of its processors.",
          cf, context=ctx,
          eventHandlers=[link("ingest_doctor_cpu_by_processor", host="$row.host.value$", pset="$row.ingest_pipe.value$")])
    d.add("viz_bands", "splunk.column", "Deployment: hosts per fill band (fullest queue, 5 min)", "ds_bands",
          "Each host counted once per 5 minutes, in the band of its fullest queue over all its sets.",
          {"stackMode": "stacked", "xAxisTitleVisibility": "hide", "yAxisTitleText": "hosts",
           "legendTruncation": "ellipsisOff",
           "seriesColorsByField": {"1: below 60%": OK, "2: 60% to threshold": WARN, "3: full (>= threshold)": CRIT}})
    d.add("viz_psets_time", "splunk.line", "Busiest thread busy % per host and set: top 5", "ds_psets_time",
          "metrics.log group=pipelineset name=load_metrics dutycycle_ratio, % of one core; the rest as \"others\" (max).",
          line_opts("% of one core", 100))
    d.add("viz_psets_table", "splunk.table", "Busiest thread and assignment share per pipeline set", "ds_psets_table",
          "Busiest first. One set busy while the others idle: pipelineSetSelectionPolicy (server.conf).")
    d.add("viz_headroom", "splunk.table", "Headroom: events/s each stage of each set carries before it pegs one core",
          "ds_headroom",
          "events/s x 100 / busy %: linear, for the same event mix; not for line merging or disk-bound indexing "
          "(README: Headroom).")
    d.markdown("viz_chain_help", "How to read the chain",
               "Data flows **parsingQueue -> parsing -> aggQueue -> merging -> typingQueue -> typing -> indexQueue "
               "-> indexing -> output**. A stage that cannot keep up fills the queue in front of it, and back-pressure "
               "fills every queue upstream. So the bottleneck is the stage draining the **last** full queue, not the "
               "first.\n\n- **typing**: index-time regex (TRANSFORMS, SEDCMD): see *CPU by processor*.\n"
               "- **merging/parsing**: line merging and timestamp settings in props.conf.\n"
               "- **indexing**: disk or `parallelIngestionPipelines` (server.conf) when cores are free.\n"
               "- **output**: the indexers or the network; `compressed = true` in outputs.conf.")

    d.row(360, ("viz_fill_time", 3), ("viz_chain_help", 1))
    d.row(330, "viz_chain")
    d.row(300, "viz_bands", "viz_psets_time")
    d.row(260, "viz_psets_table")
    d.row(300, "viz_headroom")
    return d


# ----------------------------------------------------------------------------- CPU by processor
CPU_BASE = (
    "| tstats fillnull_value=\"none\" max(PREFIX(cpu_seconds=)) AS cpu_seconds max(PREFIX(executes=)) AS executes "
    "where `ingest_doctor_metrics_log` TERM(group=pipeline) " + HOSTS + " "
    "by host PREFIX(name=) PREFIX(processor=) PREFIX(ingest_pipe=) _time span=1s\n"
    "| `ingest_doctor_pipeline_cpu_rows`\n"
    "| " + PSET + "\n"
    "| fields _time host ingest_pipe stage pipeline processor threads cpu_seconds wall_s pct_one_core unreliable "
    "max_reading interval_s executes"
)


def cpu_by_processor() -> Dash:
    d = Dash("ingest_doctor_cpu_by_processor", "CPU by processor",
             "Where does the ingestion CPU go, on which host and pipeline set? % of one core per processor "
             "(metrics.log group=pipeline cpu_seconds, implausible readings set apart), regex CPU per sourcetype, "
             "indexer CPU, and what to change in props.conf.")
    std_inputs(d)
    d.search("ds_cpu", "Plausible CPU per processor per minute (tstats over metrics.log group=pipeline)", CPU_BASE)
    d.chain("ds_cpu_time", "% of one core per host, set and processor (top 5)", "ds_cpu",
            "| where isnotnull(pct_one_core)\n"
            "| " + host_set() + ".\" \".pipeline.\"/\".processor\n| " + top_series("pct_one_core") + "\n"
            "| timechart span=1m max(pct_one_core) BY series limit=0 useother=false\n"
            "| eval threshold=`ingest_doctor_thread_busy_pct`")
    d.chain("ds_cpu_table", "Top processors", "ds_cpu",
            "| where isnotnull(pct_one_core)\n"
            "| stats avg(pct_one_core) AS avg_pct max(pct_one_core) AS max_pct sum(executes) AS executes BY host ingest_pipe stage pipeline processor\n"
            "| eval avg_pct=round(avg_pct, 1)\n"
            "| sort 0 - avg_pct host ingest_pipe processor\n| head 15\n"
            "| table host ingest_pipe stage pipeline processor avg_pct max_pct executes")
    d.chain("ds_cpu_unreliable", "Readings left out: cpu_seconds above the interval x threads", "ds_cpu",
            "| where unreliable>0\n"
            "| stats sum(unreliable) AS readings max(max_reading) AS max_cpu_seconds max(interval_s) AS interval_s "
            "max(threads) AS threads latest(_time) AS last_seen BY host ingest_pipe pipeline processor\n"
            "| eval last_seen=strftime(last_seen, \"%F %T\")\n| sort 0 - readings host\n"
            "| table host ingest_pipe pipeline processor readings max_cpu_seconds interval_s threads last_seen\n"
            + empty_message("Every cpu_seconds reading is plausible (at most the interval's wall time x the stage's "
                            "threads): nothing left out."))
    d.chain("ds_regex_share", "Is typing regex-bound? regexreplacement share of the typing stage", "ds_cpu",
            "| where pipeline==\"typing\" AND isnotnull(pct_one_core)\n"
            "| eventstats sum(pct_one_core) AS stage_pct BY _time host ingest_pipe\n"
            "| stats sum(cpu_seconds) AS cpu max(stage_pct) AS typing_peak_pct BY host ingest_pipe processor\n"
            "| eventstats sum(cpu) AS stage_cpu BY host ingest_pipe\n"
            "| where processor==\"regexreplacement\"\n"
            "| eval typing_peak_pct=round(typing_peak_pct, 1), regex_share_pct=round(cpu/stage_cpu*100, 1), "
            "verdict=case(regex_share_pct<`ingest_doctor_regex_cpu_share_pct`, \"not regex-bound\", typing_peak_pct<60, "
            "\"typing not busy\", true(), \"regex-bound: review TRANSFORMS/SEDCMD\")\n"
            "| sort 0 - typing_peak_pct - regex_share_pct host ingest_pipe\n| table host ingest_pipe typing_peak_pct regex_share_pct verdict\n"
            "| rename ingest_pipe AS set typing_peak_pct AS \"typing peak %\" regex_share_pct AS \"regex share %\"")
    d.search("ds_regex_st", "Regex CPU per host and sourcetype (metrics.log group=per_sourcetype_regex_cpu)",
             "`ingest_doctor_metrics_log` TERM(group=per_sourcetype_regex_cpu) " + HOSTS + "\n"
             "| eval ingest_pipe=coalesce(ingest_pipe, \"none\")\n| " + PSET + "\n"
             "| bin _time span=1m\n| stats sum(cpu) AS cpu_ms BY _time host series\n"
             "| eval pct_one_core=cpu_ms/60000*100\n"
             "| stats avg(pct_one_core) AS pct_one_core BY host series\n"
             "| eval sourcetype=host.\" \".series, pct_one_core=round(pct_one_core, 2)\n"
             "| sort 0 - pct_one_core sourcetype\n| head 10\n"
             "| table sourcetype pct_one_core\n"
             + empty_message("No index-time regex CPU reported in this time range (metrics.log "
                             "per_sourcetype_regex_cpu lists only the top series: maxseries in limits.conf)."))
    d.search("ds_indexer_cpu", "Indexer raw write + index service CPU per host and set",
             "| tstats fillnull_value=\"none\" sum(PREFIX(write_cpu_seconds=)) AS write_cpu sum(PREFIX(service_cpu_seconds=)) AS service_cpu "
             "where `ingest_doctor_metrics_log` TERM(group=pipeline) TERM(name=indexerpipe) TERM(processor=indexer) " + HOSTS + " "
             "by host PREFIX(ingest_pipe=) _time span=1m\n"
             "| rename \"ingest_pipe=\" AS ingest_pipe\n| " + PSET + "\n"
             "| eval pct_one_core=round((write_cpu+service_cpu)/60*100, 1)\n"
             "| " + host_set() + "\n| " + top_series("pct_one_core") + "\n"
             "| timechart span=1m max(pct_one_core) BY series limit=0 useother=false")
    d.search("ds_props_findings", "Open findings about parsing, merging and typing",
             FINDINGS_BASE + "\n| search status=\"open\" " + HOSTS + " (bottleneck=\"typing\" OR bottleneck=\"merging\" OR bottleneck=\"parsing\")\n"
             "| sort severity_rank - last_seen_epoch\n"
             "| table severity host pipeline_set bottleneck summary advice settings detected first_seen\n"
             + empty_message("No open finding about parsing, merging or typing on the selected hosts."))

    d.add("viz_cpu_time", "splunk.line", "% of one core per host, set and processor: top 5", "ds_cpu_time",
          "Plausible cpu_seconds over the wall time they cover, max per minute; the 5 busiest, the rest as "
          "\"others\" (max). A stage's processors share its thread.",
          line_opts("% of one core", None))
    cf, ctx = table_colors({"avg_pct": busy_bands()})
    cf["count"] = 15
    d.add("viz_cpu_table", "splunk.table", "Top processors by average % of one core", "ds_cpu_table", None, cf, context=ctx)
    d.add("viz_cpu_unreliable", "splunk.table", "Unreliable CPU readings (left out of the charts)", "ds_cpu_unreliable",
          "A processor's cpu_seconds above the interval's wall time x the stage's threads is not CPU time in the "
          "interval (counters from old releases, repeated lines): shown here, never as load.")
    d.add("viz_regex_share", "splunk.table", "Is typing regex-bound?", "ds_regex_share",
          "Typing's peak minute (% of one core) and regexreplacement's share of its CPU; busiest first.")
    d.add("viz_regex_st", "splunk.bar", "Index-time regex CPU per host and sourcetype (% of one core)", "ds_regex_st",
          "Average per minute; the top 10 (limits.conf [metrics] maxseries limits what metrics.log lists).",
          {"x": "> primary | seriesByName(\"sourcetype\")", "y": "> primary | seriesByName(\"pct_one_core\")",
           "legendDisplay": "off", "xAxisTitleVisibility": "hide", "yAxisTitleText": "% of one core"})
    d.add("viz_indexer_cpu", "splunk.line", "Indexer raw write + index service per host and set: top 5",
          "ds_indexer_cpu", "% of one core per minute; the rest as \"others\" (max).",
          line_opts("% of one core", None))
    d.add("viz_props_findings", "splunk.table", "Open findings about parsing, merging and typing", "ds_props_findings",
          "With the sourcetypes and settings read from the instance's props.conf.",
          {"columnFormat": {"summary": {"width": 260}, "advice": {"width": 220}, "settings": {"width": 170}}},
          eventHandlers=[link("ingest_doctor_findings", host="$row.host.value$")])
    d.markdown("viz_props_advice", "props.conf: what to change",
               "**Merging (aggregator) busy?** Events are line-merged and timestamps searched with defaults. Per sourcetype:\n"
               "`SHOULD_LINEMERGE = false` with an explicit `LINE_BREAKER`, `TIME_PREFIX`, `TIME_FORMAT` and a small "
               "`MAX_TIMESTAMP_LOOKAHEAD`.\n\n"
               "**Typing (regexreplacement) busy?** Index-time `TRANSFORMS-*` and `SEDCMD-*` run on every event: drop "
               "what you do not need, anchor regexes, avoid leading `.*`, move field extractions to search time.\n\n"
               "**Indexing (indexer) busy?** Raw write is disk bound; index service is tsidx work. With free cores, "
               "`parallelIngestionPipelines = 2` in server.conf; without, scale the indexers out.")

    d.row(340, ("viz_cpu_time", 3), ("viz_props_advice", 2))
    d.row(360, ("viz_cpu_table", 3), ("viz_regex_share", 2))
    d.row(300, "viz_regex_st", "viz_indexer_cpu")
    d.row(220, "viz_cpu_unreliable")
    d.row(260, "viz_props_findings")
    return d


# ----------------------------------------------------------------------------- findings
def findings() -> Dash:
    d = Dash("ingest_doctor_findings", "Findings",
             "What the Ingest Doctor alerts and collector found, where, with the evidence and the setting to change. "
             "Open and resolved, from the KV store ingest_doctor_findings.")
    std_inputs(d, pset=False)
    d.inputs["input_status"] = {"type": "input.dropdown", "title": "Status",
                                "options": {"items": [{"label": "Open", "value": "open"},
                                                      {"label": "Resolved", "value": "resolved"},
                                                      {"label": "All", "value": "*"}],
                                            "token": "status", "defaultValue": "open"}}
    d.inputs["input_severity"] = {"type": "input.multiselect", "title": "Severity",
                                  "options": {"items": [{"label": "All", "value": "*"},
                                                        {"label": "critical", "value": "critical"},
                                                        {"label": "warning", "value": "warning"},
                                                        {"label": "info", "value": "info"}],
                                              "token": "severity", "defaultValue": ["*"]}}
    d.inputs["input_bottleneck"] = {
        "type": "input.dropdown", "title": "Bottleneck",
        "options": {"items": [{"label": "All", "value": "*"}] + [
            {"label": b, "value": b} for b in ("hec_input", "parsing", "merging", "typing", "indexing", "output",
                                               "indexer_throttled", "host_cpu", "pipeline_set_imbalance")],
            "token": "bottleneck", "defaultValue": "*"}}
    d.global_inputs += ["input_status", "input_severity", "input_bottleneck"]
    d.search("ds_findings", "Findings (KV store ingest_doctor_findings)",
             FINDINGS_BASE + "\n| search status=\"$status$\" severity IN ($severity$) bottleneck=\"$bottleneck$\" " + HOSTS)
    d.chain("ds_findings_table", "Findings with evidence and recommendations", "ds_findings",
            "| sort severity_rank - last_seen_epoch\n"
            "| eval status=if(status==\"resolved\" AND len(resolution)>0, \"resolved: \".resolution, status)\n"
            "| table severity host bottleneck pipeline_set summary evidence_text advice settings "
            "detected first_seen last_seen count status evidence_dashboard\n"
            "| rename evidence_text AS evidence advice AS recommendations settings AS \"setting -> suggested\" "
            "pipeline_set AS \"pipeline set\" first_seen AS \"first seen\" last_seen AS \"last seen\" "
            "evidence_dashboard AS _evidence_dashboard\n"
            + NO_FINDINGS)
    d.chain("ds_findings_kpi", "Findings by severity", "ds_findings",
            "| stats count(eval(severity==\"critical\")) AS critical count(eval(severity==\"warning\")) AS warning "
            "count(eval(severity==\"info\")) AS info dc(host) AS hosts\n| table critical warning info hosts")
    d.search("ds_findings_all", "Every finding stored, open and resolved (KV store ingest_doctor_findings)",
             FINDINGS_BASE + "\n| search bottleneck=\"$bottleneck$\" " + HOSTS)
    d.chain("ds_findings_by", "Findings by bottleneck and status", "ds_findings_all",
            "| chart count OVER bottleneck BY status limit=9 useother=true")

    for vid, (title, field, colour) in {
        "viz_kpi_critical": ("Critical", "critical", CRIT), "viz_kpi_warning": ("Warning", "warning", WARN),
        "viz_kpi_info": ("Info", "info", GREY), "viz_kpi_hosts": ("Hosts affected", "hosts", ACCENT),
    }.items():
        t, _, opts = single(title, field)
        opts["majorColor"] = colour
        d.add(vid, "splunk.singlevalue", t, "ds_findings_kpi", options=opts)
    d.add("viz_findings_by", "splunk.bar", "Every stored finding by bottleneck, open and resolved", "ds_findings_by",
          "All hosts selected, whatever the Status input.",
          {"stackMode": "stacked", "xAxisTitleVisibility": "hide", "yAxisTitleText": "findings"})
    d.add("viz_findings_table", "splunk.table", "Findings: evidence and what to change (click a row for its evidence)",
          "ds_findings_table",
          "Evidence: signal=value unit over its window. Recommendations name the conf file, stanza and setting, "
          "with the current and the suggested value read from the instance.",
          {"columnFormat": {"severity": {"rowBackgroundColors": "> table | seriesByName(\"severity\") | matchValue(sevColors)"},
                            "summary": {"width": 140}, "evidence": {"width": 105},
                            "recommendations": {"width": 130}, "setting -> suggested": {"width": 105}},
           "showInternalFields": False},
          context={"sevColors": [{"match": "critical", "value": CRIT}, {"match": "warning", "value": WARN},
                                 {"match": "info", "value": GREY}]},
          eventHandlers=[{"type": "drilldown.customUrl", "options": {
              "url": "/app/" + APP + "/$row._evidence_dashboard.value$?form.host=$row.host.value|u$",
              "newTab": False}}])
    d.markdown("viz_findings_help", "About findings",
               "One record per **bottleneck** and place; **detected**: collector, alert or both. **Resolved** "
               "when the collector sees it end (status says what changed) or after "
               "`ingest_doctor_resolve_after_min` minutes unseen.\n\n"
               "**Empty?** Enable the Ingest Doctor alerts and *Ingest Doctor - Findings - Collector findings*.")

    d.row(110, "viz_kpi_critical", "viz_kpi_warning", "viz_kpi_info", "viz_kpi_hosts", ("viz_findings_help", 2))
    d.row(480, "viz_findings_table")
    d.row(260, "viz_findings_by")
    return d


DASHBOARDS = (hec_performance, thread_activity, pipeline_sets, cpu_by_processor, findings)


MACROS_CONF = os.path.join(ROOT, "default", "macros.conf")
MACROS_BEGIN = "# Dashboards\n"
MACROS_END = "# END Dashboards\n"


def macros_conf(current: str) -> str:
    """default/macros.conf with its "# Dashboards" block (ours) rewritten; the rest untouched."""
    block = [MACROS_BEGIN,
             "# Generated by tools/dashboards/gen_views.py, do not edit (edit there, then run tools/generate.py):\n"
             "# the pipelines the dashboards' base searches apply to each data family, reusable in your own searches.\n"]
    for name, (definition, description, args) in MACROS.items():
        block += ["\n[{}]\n".format(name)] + (["args = {}\n".format(args)] if args else []) + [
            "definition = {}\n".format(definition), "description = {}\n".format(description), "iseval = 0\n"]
    block.append(MACROS_END)
    text = "".join(block)
    if MACROS_BEGIN in current and MACROS_END in current:
        head, rest = current.split(MACROS_BEGIN, 1)
        return head + text + rest.split(MACROS_END, 1)[1]
    return current.rstrip("\n") + "\n\n" + text


def build() -> dict:
    out = {}
    for make in DASHBOARDS:
        d = make()
        out[os.path.join(VIEWS, d.name + ".xml")] = d.xml()
    with open(MACROS_CONF, encoding="utf-8") as fh:
        out[MACROS_CONF] = macros_conf(fh.read())
    return out


def main(argv) -> int:
    check = "--check" in argv
    stale = []
    for path, text in build().items():
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        if check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8", newline="\n") as f:
                f.write(text)
            print("wrote " + os.path.relpath(path, ROOT))
    if stale:
        print("stale (run python3 tools/dashboards/gen_views.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
