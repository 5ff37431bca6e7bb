"""The SPL the views share: the scope of every search, the base search per data family, the
findings and blocked queues as annotations. The macros these searches call are in spl_macros.py.
"""
from __future__ import annotations

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bin"))

from ingest_doctor import model, threadnames, thresholds  # noqa: E402
from ingest_doctor.collector.poll import CONFIG_REFRESH_S  # noqa: E402
from studio import CRIT, GREY, WARN  # noqa: E402

# The thresholds the views draw and colour by, as generated (an admin tunes the SPL through the
# macros; the colours are fixed here): the defaults of bin/ingest_doctor/thresholds.py.
TH = thresholds.defaults()
BUSY_PCT = thresholds.BUSY_PCT
# The stages with a queue in front of them, in chain order (parsing ... output).
CHAIN = tuple(s.name for s in model.STAGES if s.queue)
# The Pipeline sets view's fill bands (hosts per band of their fullest queue).
FILL_BANDS = ("1: below {}%".format(BUSY_PCT), "2: {}% to threshold".format(BUSY_PCT), "3: full (>= threshold)")
# The stages without a processing pipeline (no dutycycle busy share of their own to extrapolate).
NO_PIPELINE = tuple(s.name for s in model.STAGES if s.pipeline is None)
# The stages props.conf settings tune (the CPU by processor view shows their evidence).
PROPS_STAGES = tuple(model.STAGE_BY_NAME[s].name for s in ("typing", "merging", "parsing"))


def any_of(field: str, values) -> str:
    """SPL: `field` equals one of `values` (field==\"a\" OR field==\"b\")."""
    return " OR ".join("{}==\"{}\"".format(field, v) for v in values)

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


def top_chart(value: str, agg: str = "max", span: str = "1m", threshold: str = "") -> str:
    """The tail of every time chart (after `series` is set): the worst series, one timechart column
    each, and the threshold macro `ingest_doctor_<threshold>` as the dashed line where there is one."""
    chart = top_series(value) + "\n| timechart span={} {}({}) BY series limit=0 useother=false".format(span, agg, value)
    return chart + ("\n| eval threshold=`ingest_doctor_{}`".format(threshold) if threshold else "")


# The inputs' choices, cheap at any size (issue 35: a tstats over every metrics.log line of the range cost ~4 M
# raw-eq per open at 10,000 instances). Hosts: every instance sending _internal, from the index's host metadata
# (no event read; bucket grain, so a host just outside the range may be listed). Pipeline sets: the typingQueue
# lines, one per set per interval on the instances that parse (indexers, heavy forwarders; a universal forwarder
# has none and no pipeline set to choose), `none` where metrics.log names no set. `sort 0`: all of them.
HOSTS_SEARCH = "| metadata type=hosts `ingest_doctor_index_internal` | sort 0 host | table host"
PSETS_SEARCH = ("| tstats fillnull_value=\"none\" count where `ingest_doctor_metrics_log` TERM(group=queue) "
                "TERM(name=typingqueue) by PREFIX(ingest_pipe=) | rename \"ingest_pipe=\" AS ingest_pipe "
                "| sort 0 ingest_pipe | table ingest_pipe")

# The pipeline views' default scope (issue 35): the instances that run a pipeline (indexers and heavy forwarders),
# as a subsearch giving one row per host: the macro the scheduled searches use too (default/macros.conf, hand-kept
# with them). Universal forwarders write about 70% of metrics.log lines (search-cost.md) and run no stage worth
# charting: one choice away in the "Instances" input, whose token `scope` the views' metrics.log searches carry.
PIPELINE_HOSTS = "`ingest_doctor_pipeline_hosts`"
ALL_INSTANCES = "host=*"
SCOPED_HOSTS = "(" + HOSTS + " $scope$)"

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

# The collector sends its ingest_doctor:config event on start, on a change and at least every CONFIG_REFRESH_S
# (daily): a search for an instance's latest config reads twice that, whatever the view's time range, so one late
# or skipped send still leaves the previous one (fix 3 of issue 35: a 4-hour range missed most heavy forwarders).
# Cheap: about one event per collector per day.
CONFIG_DAYS = int(2 * CONFIG_REFRESH_S // 86400)
CONFIG_RANGE = {"earliest": "-{}d".format(CONFIG_DAYS), "latest": "now"}


# "Now" on a view: the last RECENT_S seconds of its time range, pushed into the search that reads them (issue 35:
# read 15 minutes, not the range then `where _time>=...`). A subsearch gives the search its own earliest/latest
# from the range's end (addinfo's info_max_time), so a past range shows its own last 15 minutes.
RECENT_S = 900
RECENT = "`ingest_doctor_range_end({})`".format(RECENT_S)

# The queues of each host and set over the last RECENT_S, aggregated inside tstats (one row per host, queue and
# set, never per 30 s sample): fill % is the sums' ratio, the samples' average fill while a queue keeps its size.
QUEUE_NOW = (
    "| tstats fillnull_value=\"none\" sum(PREFIX(current_size_kb=)) AS cur_kb sum(PREFIX(max_size_kb=)) AS max_kb "
    "sum(PREFIX(current_size=)) AS cur_b sum(PREFIX(max_size=)) AS max_b "
    "where `ingest_doctor_metrics_log` TERM(group=queue) " + HOSTS + " " + RECENT + " "
    "by host PREFIX(name=) PREFIX(ingest_pipe=)\n"
    "| `ingest_doctor_queue_fill_rows`\n"
    "| " + PSET
)

# The pipeline threads of each host and set over the last RECENT_S, averaged inside the searches: metrics.log
# group=dutycycle name=ingest (thread=, ratio=: the stage threads; the wide name=misc line carries the other
# threads, search-cost.md), and the collector's per-thread CPU from /proc where it runs (ingest_pipe none). One row
# per host, set and thread: bounded by the hosts in scope, never by the range.
THREADS_NOW = (
    "| tstats fillnull_value=\"none\" avg(PREFIX(ratio=)) AS ratio where `ingest_doctor_metrics_log` TERM(group=dutycycle) "
    "TERM(name=ingest) " + HOSTS + " " + RECENT + " by host PREFIX(ingest_pipe=) PREFIX(thread=)\n"
    "| rename \"ingest_pipe=\" AS ingest_pipe \"thread=\" AS thread\n"
    "| eval thread=lower(thread), busy_pct=ratio*100, origin=\"metrics.log\"\n"
    "| append [| mstats avg(_value) AS busy_pct WHERE `ingest_doctor_metrics_index` "
    "metric_name=\"ingest_doctor.thread.busy_pct\" " + HOSTS + " " + RECENT + " BY host thread "
    "| eval thread=lower(thread), ingest_pipe=\"none\", origin=\"collector\"]\n"
    "| search ingest_pipe=\"$pset$\" OR ingest_pipe=\"none\"\n"
    "| lookup ingest_doctor_pipeline member AS thread OUTPUT stage stage_order\n"
    "| eval stage=mvindex(stage, 0), stage_order=tonumber(mvindex(stage_order, 0))\n"
    "| where isnotnull(stage)\n"
    "| fields host ingest_pipe thread origin stage stage_order busy_pct"
)


# Rank before charting (issue 35): a subsearch giving the n hosts whose staged queues came fullest over the range
# (each queue's peak size over its maximum), as a host filter; `within` narrows the hosts it ranks. One row per host
# and queue inside it, at most n out: a chart then reads only those hosts per 30 s.
def fullest_hosts(n: int, within: str = "") -> str:
    return (
        "[| tstats fillnull_value=\"none\" max(PREFIX(current_size_kb=)) AS cur_kb max(PREFIX(max_size_kb=)) AS max_kb "
        "max(PREFIX(current_size=)) AS cur_b max(PREFIX(max_size=)) AS max_b where `ingest_doctor_metrics_log` "
        "TERM(group=queue) " + HOSTS + " " + (within + " " if within else "") + "by host PREFIX(name=) "
        "| rename \"name=\" AS queue | eval queue_key=if(like(queue, \"tcpout%\"), \"tcpout\", queue) "
        "| lookup ingest_doctor_pipeline metrics_queue AS queue_key OUTPUT stage | where isnotnull(stage) "
        "| eval peak=coalesce(cur_kb/max_kb, cur_b/max_b) | stats max(peak) AS peak BY host | sort 0 - peak host "
        "| head " + str(n) + " | fields host]")


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
# Ranked before it is read (issue 35): every thread of every host per minute over 4 hours is millions of rows at
# 10,000 instances, and the collector's part, appended, was cut silently at 50,000 rows from about 14 collectors. A
# subsearch picks the BUSIEST_HOSTS hosts whose busiest thread peaked highest over the range (dutycycle's stage
# threads, the collector's threads); both sources are read per minute for those only: 5 x 15 threads x 240 each.
BUSIEST_HOSTS = 5
BUSIEST = (
    "[| tstats max(PREFIX(ratio=)) AS ratio where `ingest_doctor_metrics_log` TERM(group=dutycycle) TERM(name=ingest) "
    + HOSTS + " by host | eval peak=ratio*100 "
    "| append [| mstats max(_value) AS peak WHERE `ingest_doctor_metrics_index` "
    "metric_name=\"ingest_doctor.thread.busy_pct\" " + HOSTS + " BY host] "
    "| stats max(peak) AS peak BY host | sort 0 - peak host | head " + str(BUSIEST_HOSTS) + " | fields host]")
DUTYCYCLE_BASE = (
    "`ingest_doctor_metrics_log` TERM(group=dutycycle) " + HOSTS + " " + BUSIEST + "\n"
    "| `ingest_doctor_dutycycle_rows`\n"
    "| append [| mstats max(_value) AS busy_pct WHERE `ingest_doctor_metrics_index` "
    "metric_name=\"ingest_doctor.thread.busy_pct\" " + HOSTS + " " + BUSIEST + " BY host thread span=1m "
    "| eval thread=lower(thread), ingest_pipe=\"none\", origin=\"collector\"]\n"
    "| search ingest_pipe=\"$pset$\" OR ingest_pipe=\"none\"\n"
    "| fields _time host ingest_pipe thread origin busy_pct"
)

# _introspection HttpEventCollector counters, per HEC_BIN_S, per host and token (per 5 minutes: per minute, 500 HEC
# hosts' 4 series over an hour are 120,000 rows; issue 35).
HEC_BIN_S = 300
HEC_BASE = (
    "`ingest_doctor_index_introspection` component=HttpEventCollector " + HOSTS + "\n"
    "| `ingest_doctor_hec_counters`"
)

# splunkd.log HEC rejections: "ERROR HttpInputDataHandler ... token name=t, ..., reply=9, ... parsing_err=..."
HEC_ERRORS_BASE = (
    "`ingest_doctor_splunkd_log` " + HOSTS + " TERM(HttpInputDataHandler) reply\n"
    "| `ingest_doctor_hec_reply_rows`"
)

FINDINGS_BASE = "| inputlookup ingest_doctor_findings\n| `ingest_doctor_findings_rows`"

NO_FINDINGS = empty_message(
    "No finding matches these inputs. The Ingest Doctor alerts and the collector (through the search "
    "Ingest Doctor - Findings - Collector findings) write findings: if there are none at all, check that they "
    "are enabled (Settings > Searches, reports, and alerts, app Ingest Doctor).")


def one_line(spl: str) -> str:
    return " ".join(line.strip() for line in spl.splitlines())


def host_set(prefix: str = "") -> str:
    """`series` = host, plus ` set N` where metrics.log names a pipeline set."""
    return (prefix + "eval series=host.if(ingest_pipe==\"none\", \"\", \" set \".ingest_pipe)")


# The collector names threads as /proc does: HEC's data thread and its management thread share
# their first 15 characters, so the collector's `httpinputserver` may be either (issue 12). The HEC
# chart shows it beside the data thread, labelled so, never as the data thread.
(PROC_HEC_THREAD,) = [k for k, names in threadnames.AMBIGUOUS.items() if model.HEC_THREAD in names]
PROC_HEC_SUFFIX = " (/proc: data or mgmt)"
PROC_HEC_LABEL = " " + PROC_HEC_THREAD + PROC_HEC_SUFFIX
