"""HEC performance: which instance is the bottleneck, and what to change. The deployment overview
first (worst stage per instance), then HEC throughput, batching, errors, latency, the HEC thread,
the queues behind it, lag, settings and open findings."""
from __future__ import annotations

from spl import (BUSY_PCT, CONFIG_RANGE, FINDINGS_BASE, HEC_BASE, HEC_BIN_S, HEC_ERRORS_BASE, HOSTS, NO_FINDINGS,
                 PROC_HEC_LABEL, PROC_HEC_SUFFIX, PROC_HEC_THREAD, QUEUE_BASE, QUEUE_NOW, RECENT, RECENT_S,
                 THREADS_NOW, TOP_N, empty_message, findings_annotations, fullest_hosts, host_set, one_line, top_chart)
from studio import CRIT, GREY, OK, WARN, Dash
from widgets import (ANNOTATION_OPTS, line_opts, link, severity_colors, severity_column, single,
                     table_colors, text_on)

from ingest_doctor import model  # noqa: E402  (spl puts bin/ on the path)
from ingest_doctor.thresholds import BATCHED_EVENTS_PER_REQUEST as BATCHED  # noqa: E402
from ingest_doctor.thresholds import CHATTY_EVENTS_PER_REQUEST as CHATTY  # noqa: E402


# One row per instance: its worst stage (the last full queue's stage, or the busiest thread or
# queue when nothing is full) over the last 15 minutes of the range, the open finding, the
# setting to change. Queue fill and thread busy share one score: any reading at or above its
# threshold ranks above every reading below, and among those the later stage wins (back-pressure
# fills everything upstream of the bottleneck).
# Issue 35: both families read the last 15 minutes only and are averaged inside their searches (spl.QUEUE_NOW,
# spl.THREADS_NOW): one row per host, set and queue or thread reaches the search head, not one per 30 s sample.
OVERVIEW = (
    QUEUE_NOW + "\n| where isnotnull(stage)\n"
    "| stats avg(fill_pct) AS value BY host ingest_pipe stage stage_order\n"
    "| eval reading=stage.\" queue \".round(value, 0).\"% full\", limit=`ingest_doctor_queue_fill_pct`\n"
    "| append [" + one_line(THREADS_NOW) + " "
    "| stats avg(busy_pct) AS value BY host ingest_pipe stage stage_order "
    "| eval reading=stage.\" thread \".round(value, 0).\"% of one core\", limit=`ingest_doctor_thread_busy_pct`]\n"
    "| eval score=if(value>=limit, 1000+stage_order*100+value, value)\n"
    "| append [| rest splunk_server=* /services/server/info count=0 | eval host=splunk_server "
    "| search " + HOSTS + " | eval rest_role=if(isnotnull(mvfind(server_roles, \"^indexer$\")), \"indexer\", null()) "
    "| table host rest_role]\n"
    "| append [| inputlookup ingest_doctor_findings | search status=\"open\" " + HOSTS + " | `ingest_doctor_findings_rows` "
    "| eval symptom=if(caused_by==\"\", 0, 1) | sort 0 symptom severity_rank - last_seen_epoch | dedup host "
    "| eval finding=severity.\": \".bottleneck.if(pipeline_set==\"-\", \"\", \" (set \".pipeline_set.\")\")"
    ".if(cause==\"\", \"\", \", \".cause), settings=if(settings==\"\", advice, settings) "
    "| table host finding settings severity_rank symptom]\n"
    "| sort 0 host - score\n"
    "| stats first(stage) AS worst_stage first(ingest_pipe) AS pipeline_set first(reading) AS reading max(score) AS score "
    "max(eval(if(stage==\"hec_input\", 1, 0))) AS hec max(eval(if(stage==\"output\", 1, 0))) AS fwd "
    "first(rest_role) AS rest_role first(finding) AS finding first(settings) AS settings min(severity_rank) AS severity_rank "
    "max(symptom) AS symptom BY host\n"
    "| where isnotnull(worst_stage)\n"
    "| eval role=coalesce(rest_role, if(fwd==1, \"forwarder\", \"instance\")).if(hec==1, \" + HEC\", \"\"), "
    "state=case(score>=1000, \"saturated\", score>=" + str(BUSY_PCT) + ", \"busy\", true(), \"ok\"), "
    "severity_rank=coalesce(severity_rank, 3), symptom=coalesce(symptom, 0)\n"
    "| sort 0 symptom - score severity_rank host\n"
    "| eval finding=coalesce(finding, \"none open\"), settings=if(isnull(settings) OR settings==\"\", "
    "if(state==\"saturated\", \"open the stage's view\", \"-\"), settings)\n"
    "| table host role state worst_stage pipeline_set reading finding settings\n"
    "| rename worst_stage AS \"worst stage\" reading AS \"its reading (last 15 min)\" finding AS \"open finding\" "
    "settings AS \"what to change\"\n"
    + empty_message("No metrics.log queue or thread data from the selected hosts: they must forward _internal "
                    "to the indexers this search head searches.")
)

# Issue 19: the deployment as a flow, senders -> heavy forwarders -> indexers. Edges from the receivers'
# metrics.log group=tcpin_connections (hostname= the sender) and HEC clients per HEC host; width = KB/s over
# the range (the pipeline set input applies where a line carries ingest_pipe). A sender whose open finding is caused by its receiver's (caused_by) has that edge "blocked" and
# is labelled "held back"; the host its findings point to is labelled "ROOT CAUSE".
def _label(field: str) -> str:
    return (field + ".case(isnotnull(mvfind(held_hosts, \"^\"." + field + ".\"$\")), \" (held back)\", "
            "isnotnull(mvfind(cause_hosts, \"^\"." + field + ".\"$\")), \" (ROOT CAUSE)\", true(), \"\")")


# Issue 35: the receivers' tcpin_connections lines over the last 15 minutes, counted inside tstats (a raw read of
# every line of the range cost ~5 M raw-eq at 10,000 instances). A heavy forwarder (fwdType=full) is drawn as a
# sender of its own; universal forwarders (fwdType=uf), 90% of the senders, as one "universal forwarders" edge per
# receiver, their KB/s summed per 30 s interval (autoLB moves each to another receiver about every 30 s, so one edge
# per sender and receiver would be hundreds of thousands of rows).
UF_SENDERS = "universal forwarders"
FLOW = (
    "| tstats fillnull_value=\"none\" avg(PREFIX(_tcp_kbps=)) AS kbps where `ingest_doctor_metrics_log` "
    "TERM(group=tcpin_connections) TERM(fwdType=full) " + RECENT + " by host PREFIX(hostname=) PREFIX(ingest_pipe=)\n"
    "| rename \"hostname=\" AS sender \"ingest_pipe=\" AS ingest_pipe\n"
    "| append [| tstats fillnull_value=\"none\" sum(PREFIX(_tcp_kbps=)) AS kbps where `ingest_doctor_metrics_log` "
    "TERM(group=tcpin_connections) TERM(fwdType=uf) " + RECENT + " by host PREFIX(ingest_pipe=) _time span=30s "
    "| rename \"ingest_pipe=\" AS ingest_pipe | stats avg(kbps) AS kbps BY host ingest_pipe "
    "| eval sender=\"" + UF_SENDERS + "\"]\n"
    "| search (" + HOSTS + " OR sender IN ($host$)) (ingest_pipe=\"$pset$\" OR ingest_pipe=\"none\")\n"
    "| stats avg(kbps) AS kbps BY sender host\n"
    "| rename host AS receiver\n"
    "| append [search `ingest_doctor_index_introspection` component=HttpEventCollector " + HOSTS + " " + RECENT + " "
    "| `ingest_doctor_hec_counters` | where series==\"http_event_collector\" "
    "| stats sum(bytes_in) AS bytes BY host "
    "| eval sender=\"HEC clients\", receiver=host, kbps=bytes/" + str(RECENT_S) + "/1024 | fields sender receiver kbps]\n"
    "| append [| inputlookup ingest_doctor_findings | search status=\"open\" | `ingest_doctor_findings_rows` "
    "| where caused_by!=\"\" | eval held=host, cause_host=mvindex(split(caused_by, \"/\"), 0), pair=host.\">\".cause_host "
    "| table held cause_host pair]\n"
    "| eventstats values(pair) AS blocked_pairs values(held) AS held_hosts values(cause_host) AS cause_hosts\n"
    "| where isnotnull(kbps)\n"
    "| eval blocked=if(isnotnull(mvfind(blocked_pairs, \"^\".sender.\">\".receiver.\"$\")), 1, 0)\n"
    "| eval source=" + _label("sender") + ", target=" + _label("receiver") + "\n"
    "| eval kbps=round(kbps, 0), state=if(blocked==1, \"blocked\", \"flowing\")\n"
    "| sort 0 - blocked - kbps\n"
    "| table source target kbps state\n"
    + empty_message("No metrics.log group=tcpin_connections from the selected hosts: the receivers must forward _internal "
                    "to the indexers this search head searches.")
)

# The HEC thread over the range, on the HEC hosts only: its dutycycle reading (the name=ingest layout, thread= and
# ratio=, where the stage threads are, as the Thread alert reads them) and the collector's /proc thread
# `httpinputserver`, per 2 minutes: at 10,000 instances 500 HEC hosts x 30 bins, 15,000 rows (the per-minute series
# of every thread of every host, appended raw, was cut silently at 50,000 rows from about 14 collectors: issue 35).
# The collector's part is appended, so it is read for the TOP_THREAD_HOSTS collectors only (per 2 minutes: 150 rows
# at any size, where every collector's would pass 50,000 at about 417 collectors). A subsearch ranks them by the
# key `ingest_doctor_top_series` ranks the chart's series by: the peak of the 2-minute maxima, then their average,
# then the name (a series is its host and a fixed label, so the host orders it). A collector series the chart shows
# among its top 5 has at most 4 collector series ranked before it, so it is among these: the 5 ranked series are
# those of every collector. What the ranking leaves out is only in the "others: N more" line (N and its maxima
# count the collectors ranked 6th and below no more).
HEC_THREAD_SPAN = "2m"
TOP_THREAD_HOSTS = TOP_N
PROC_HEC_BUSY = ("`ingest_doctor_metrics_index` metric_name=\"ingest_doctor.thread.busy_pct\" thread=\"{proc}\" "
                 + HOSTS)
HEC_THREAD = (
    "| tstats fillnull_value=\"none\" max(PREFIX(ratio=)) AS ratio "
    "where `ingest_doctor_metrics_log` TERM(group=dutycycle) TERM(name=ingest) TERM(thread={t}) " + HOSTS + " "
    "by host PREFIX(ingest_pipe=) _time span={span}\n"
    "| rename \"ingest_pipe=\" AS ingest_pipe\n"
    "| eval thread=\"{t}\", busy_pct=ratio*100\n"
    "| append [| mstats max(_value) AS busy_pct WHERE " + PROC_HEC_BUSY + " "
    "[| mstats max(_value) AS busy_pct WHERE " + PROC_HEC_BUSY + " BY host span={span} "
    "| stats max(busy_pct) AS peak avg(busy_pct) AS mean BY host | sort 0 - peak - mean host "
    "| head {n} | fields host] BY host span={span} "
    "| eval thread=\"{proc}\", ingest_pipe=\"none\"]\n"
    "| search ingest_pipe=\"$pset$\" OR ingest_pipe=\"none\"\n"
    "| " + host_set() + ".if(thread==\"{proc}\", \"{label}\", \"\")\n"
).format(t=model.HEC_THREAD, proc=PROC_HEC_THREAD, label=PROC_HEC_LABEL, span=HEC_THREAD_SPAN, n=TOP_THREAD_HOSTS) + "| " + top_chart(
    "busy_pct", span=HEC_THREAD_SPAN, threshold="thread_busy_pct")

# The queues behind HEC, ranked before charting (issue 35): a subsearch picks the HEC hosts (they write
# _introspection's HEC metrics), then the TOP_HOSTS of them whose staged queues came fullest over the range (the
# peak of each queue's size over its maximum); only those are read per 30 s. The chart's legend: their sets.
TOP_HOSTS = 5
HEC_HOSTS = ("[| tstats count where `ingest_doctor_index_introspection` source=*http_event_collector_metrics.log "
             + HOSTS + " by host | fields host]")
HEC_QUEUES = (QUEUE_BASE.replace(HOSTS + " ", HOSTS + " " + fullest_hosts(TOP_HOSTS, HEC_HOSTS) + " ", 1)
              + "\n| where isnotnull(stage)\n| " + host_set() + "\n| " + top_chart("fill_pct", threshold="queue_fill_pct"))

# HEC data's ingestion lag: raw HEC events, so the last 15 minutes only and 1 in LAG_SAMPLE of them (at 10,000
# instances about 100,000 events/s arrive by HEC: 90,000 read per open).
LAG_SAMPLE = 1000


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
    # one vocabulary for every source: REST says 1/0, the collector's JSON true/false
    "| eval enableSSL=case(lower(enableSSL)==\"1\" OR lower(enableSSL)==\"true\", \"yes\", "
    "lower(enableSSL)==\"0\" OR lower(enableSSL)==\"false\", \"no\")\n"
    "| table splunk_server source dedicatedIoThreads maxThreads maxSockets port enableSSL tokens useACK_tokens\n"
    "| sort splunk_server source"
)


# Issue 35: the landing page opens on the last hour (its 1 M raw-eq budget at 10,000 instances: 500 HEC hosts'
# _introspection counters alone are 480,000 events over 4 hours), and on the instances that run a pipeline like the
# pipeline views (its overview, queue and thread searches); universal forwarders one choice away.
DEFAULT_RANGE = "-60m@m,now"
PIPELINE_SCOPE = True
NAME, LABEL = "ingest_doctor_hec_performance", "HEC performance"
DESCRIPTION = ("Which instance is the bottleneck, and what do I change? The deployment overview first (worst stage per "
               "instance), then HEC throughput, batching, errors, latency, the HEC thread, the queues behind it, lag, "
               "settings and open findings.")
LAYOUT = ((400, "viz_overview"), (420, ("viz_flow", 2), "viz_next"),
          (150, "viz_kpi_eps", "viz_kpi_mbps", "viz_kpi_rps", "viz_kpi_epr", ("viz_hec_help", 3)),
          (320, ("viz_hec_errors_time", 2), ("viz_hec_errors_table", 3)),
          (320, "viz_hec_thread", "viz_hec_queues"), (300, "viz_hec_eps", "viz_hec_mbps"),
          (300, "viz_hec_latency", "viz_hec_lag"), (300, "viz_hec_health", "viz_hec_batching"),
          (300, ("viz_hec_tokens", 3), ("viz_hec_error_classes", 2)), (280, "viz_hec_settings"),
          (380, "viz_open_findings"))


def _throughput_searches(d: Dash) -> None:
    """The overview, HEC counters and batching."""
    d.search("ds_overview", "Deployment overview: worst stage per instance (last 15 minutes of the range)", OVERVIEW)
    d.search("ds_flow", "Deployment flow: who sends to whom (tcpin_connections, HEC), blocked edges and root causes", FLOW)
    d.search("ds_hec", "HEC counters per 5 minutes (_introspection HttpEventCollector)", HEC_BASE)
    bin_s = str(HEC_BIN_S)
    d.chain("ds_hec_kpi", "HEC totals now (the last 15 minutes of the range)", "ds_hec",
            "| where series==\"http_event_collector\"\n"
            "| eventstats max(_time) AS last_time\n| where _time>last_time-" + str(RECENT_S) + "\n"
            "| stats sum(events) AS events sum(requests) AS requests sum(bytes_in) AS bytes_in dc(_time) AS bins\n"
            "| eval eps=round(events/(bins*" + bin_s + "), 0), mbps=round(bytes_in/(bins*" + bin_s + ")/1048576, 2), "
            "rps=round(requests/(bins*" + bin_s + "), 1), epr=round(events/requests, 1)\n"
            "| table eps mbps rps epr")
    for ds_id, name, field, rate in (("ds_hec_eps", "Events/s", "eps", "round(events/" + bin_s + ", 1)"),
                                     ("ds_hec_mbps", "MB/s", "mbps", "round(bytes_in/" + bin_s + "/1048576, 3)")):
        d.chain(ds_id, name + " per host (top 5)", "ds_hec",
                "| where series==\"http_event_collector\"\n| eval " + field + "=" + rate + ", series=host\n"
                "| " + top_chart(field, "sum", span="5m"))
    d.chain("ds_hec_tokens", "Throughput and batching by host and token", "ds_hec",
            "| where series==\"http_event_collector_token\"\n"
            "| stats sum(events) AS events sum(requests) AS requests sum(bytes_in) AS bytes_in max(waiting_ack) AS waiting_ack dc(_time) AS bins BY host token\n"
            "| eval eps=round(events/(bins*" + bin_s + "), 1), mbps=round(bytes_in/(bins*" + bin_s + ")/1048576, 3), "
            "rps=round(requests/(bins*" + bin_s + "), 2), epr=round(events/requests, 1)\n"
            "| sort - eps\n"
            "| table host token eps mbps rps epr waiting_ack\n"
            "| rename eps AS \"events/s\" mbps AS \"MB/s\" rps AS \"requests/s\" epr AS \"events/request\" waiting_ack AS \"max requests waiting ack\"")
    # The Monitoring Console's classes of refused requests (its HEC dashboards read the same counters).
    classes = (("auth_failures", "auth failures"), ("parser_errors", "parser errors"),
               ("disabled_token", "disabled token"), ("incorrect_url", "incorrect URL"))
    d.chain("ds_hec_error_classes", "HEC requests refused per host by class (_introspection HttpEventCollector)", "ds_hec",
            "| where series==\"http_event_collector\"\n"
            "| stats " + " ".join("sum({0}) AS {0}".format(f) for f, _ in classes) + " BY host\n"
            "| fillnull value=0 " + " ".join(f for f, _ in classes) + "\n"
            "| eval refused=" + "+".join(f for f, _ in classes) + "\n"
            "| where refused>0\n| sort 0 - refused host\n"
            "| table host " + " ".join(f for f, _ in classes) + "\n"
            "| rename " + " ".join("{} AS \"{}\"".format(f, label) for f, label in classes) + "\n"
            + empty_message("No HEC request refused for a failed authentication, a parser error, a disabled token "
                            "or a wrong URL in this time range (_introspection HttpEventCollector)."))
    d.chain("ds_hec_batching", "Events per request by token", "ds_hec",
            "| where series==\"http_event_collector_token\"\n"
            "| stats sum(events) AS events sum(requests) AS requests BY token\n"
            "| eval events_per_request=round(events/requests, 1)\n| sort events_per_request\n"
            "| table token events_per_request")


def _error_searches(d: Dash) -> None:
    """Rejections, latency and health probes."""
    d.search("ds_hec_errors", "HEC rejections in splunkd.log (HttpInputDataHandler reply=)", HEC_ERRORS_BASE)
    d.chain("ds_hec_errors_time", "HEC errors per host and reply code (top 5)", "ds_hec_errors",
            "| eval series=host.\" \".reply_label\n| bin _time span=5m\n| stats count AS errors BY _time series\n"
            "| " + top_chart("errors", "sum", span="5m"))
    d.chain("ds_hec_errors_table", "HEC errors by host and reply code", "ds_hec_errors",
            "| stats count AS errors latest(_time) AS last_seen values(hec_token) AS tokens BY host reply http_status meaning action\n"
            "| eval reply=reply.\" (HTTP \".coalesce(http_status, \"?\").\")\", last_seen=strftime(last_seen, \"%F %T\"), tokens=mvjoin(tokens, \", \")\n"
            "| sort 0 - errors host reply\n"
            "| table host reply meaning errors tokens action last_seen\n"
            + empty_message("No HEC request was rejected in this time range (splunkd.log HttpInputDataHandler)."))
    d.search("ds_hec_latency", "HEC request latency p95 per host (collector probe, mstats)",
             "| mstats perc95(_value) AS p95 WHERE `ingest_doctor_metrics_index` "
             "metric_name=\"ingest_doctor.hec.latency_ms\" " + HOSTS + " BY host span=1m\n"
             "| eval series=host\n| " + top_chart("p95", threshold="hec_latency_ms"))
    d.search("ds_hec_health", "HEC health probes (collector, mstats)",
             "| mstats count(_value) AS probes avg(_value) AS avg_rtt_ms max(_value) AS max_rtt_ms "
             "WHERE `ingest_doctor_metrics_index` metric_name=\"ingest_doctor.hec.health_rtt_ms\" " + HOSTS + " BY host code\n"
             "| lookup ingest_doctor_hec_reply_codes reply AS code OUTPUT meaning\n"
             "| eval avg_rtt_ms=round(avg_rtt_ms, 1), max_rtt_ms=round(max_rtt_ms, 1), healthy=if(code==\"17\", 1, 0)\n"
             "| sort 0 healthy - probes host\n"
             "| table host code meaning probes avg_rtt_ms max_rtt_ms\n"
             + empty_message("No HEC health probe found: enable the ingest_doctor_introspection input on the HEC "
                             "hosts (README, Collector)."))


def _thread_and_queue_searches(d: Dash) -> None:
    """The HEC thread, the queues behind it, lag, settings, open findings."""
    # What saturates next (issue 19): every stage of every instance not pegged yet, in the order it would peg as
    # the load grows: busy B% of one core pegs at about 100 / B times today's load (the headroom estimate).
    d.search("ds_next", "What saturates next: stages by the load at which they peg (last 15 minutes)",
             THREADS_NOW + "\n"
             "| stats avg(busy_pct) AS busy_pct BY host ingest_pipe stage\n"
             "| where busy_pct>=`ingest_doctor_headroom_min_busy_pct` AND busy_pct<`ingest_doctor_thread_busy_pct`\n"
             "| eval at_load_x=round(100/busy_pct, 1), busy_pct=round(busy_pct, 1)\n"
             "| sort 0 at_load_x host ingest_pipe stage\n"
             "| head 8\n"
             "| table host ingest_pipe stage busy_pct at_load_x\n"
             "| rename ingest_pipe AS \"pipeline set\" busy_pct AS \"busy % of one core\" at_load_x AS \"pegs at x load\"")
    d.search("ds_hec_thread", "HEC thread busy % per host (top 5): dutycycle and the collector's /proc name", HEC_THREAD)
    d.search("ds_hec_findings_ann", "HEC findings as annotations (KV store ingest_doctor_findings)",
             findings_annotations("bottleneck=\"hec_input\""))
    d.search("ds_hec_queues", "Fullest queue per host and pipeline set on the 5 HEC hosts with the fullest queues "
             "(tstats over metrics.log)", HEC_QUEUES)
    d.search("ds_hec_lag", "Ingestion lag of HEC data per receiving indexer (_indextime - _time), last 15 minutes, "
             "1 in " + str(LAG_SAMPLE) + " events sampled",
             "`ingest_doctor_hec_data` " + RECENT + "\n| eval lag_s=_indextime-_time\n| bin _time span=1m\n"
             "| stats perc95(lag_s) AS p95 BY _time splunk_server\n"
             "| eval series=splunk_server\n| " + top_chart("p95", span="1m"),
             earliest="$global_time.earliest$", latest="$global_time.latest$", sampleRatio=LAG_SAMPLE)
    d.search("ds_hec_settings", "HEC settings per instance (REST data/inputs/http, and the collector's latest config "
             "event, last two days: it is sent daily)", HEC_SETTINGS, **CONFIG_RANGE)
    d.search("ds_open_findings", "Open findings (KV store ingest_doctor_findings)",
             FINDINGS_BASE + "\n| search status=\"open\" " + HOSTS + "\n| sort severity_rank - last_seen_epoch\n"
             "| table severity host bottleneck pipeline_set summary advice settings detected last_seen\n"
             "| rename pipeline_set AS set\n"
             + NO_FINDINGS)


def _throughput_panels(d: Dash) -> None:
    """The overview, the totals and the throughput charts."""
    states = [{"match": "saturated", "value": CRIT}, {"match": "busy", "value": WARN}, {"match": "ok", "value": OK}]
    d.add("viz_overview", "splunk.table", "Deployment overview: the worst stage of each instance and what to change",
          "ds_overview",
          "Last 15 minutes of the range, worst first. A stage at its threshold (queue fill or thread busy % of one core) "
          "ranks first, the later stage of a full chain before the earlier. Click a row for its pipeline set.",
          {"columnFormat": {"state": {"rowBackgroundColors": "> table | seriesByName(\"state\") | matchValue(stateColors)",
                                      "rowColors": "> table | seriesByName(\"state\") | matchValue(stateText)",
                                      "width": 95},
                            "host": {"width": 75}, "role": {"width": 125}, "worst stage": {"width": 105},
                            "pipeline_set": {"width": 105}, "its reading (last 15 min)": {"width": 230},
                            "open finding": {"width": 170}, "what to change": {"width": 440}},
           "count": 8},
          context={"stateColors": states, "stateText": text_on(states)},
          eventHandlers=[link("ingest_doctor_pipeline_sets", host="$row.host.value$", pset="$row.pipeline_set.value$",
                              scope="$scope$")])
    d.add("viz_flow", "splunk.sankey", "Deployment flow: senders, heavy forwarders, indexers (red: blocked by a root cause)",
          "ds_flow",
          "Last 15 minutes. Width: KB/s (receivers' tcpin_connections; universal forwarders as one sender per "
          "receiver; HEC clients per host). Red: held back by the ROOT CAUSE.",
          {"colorMode": "dynamic", "linkValues": "> primary | seriesByName(\"kbps\")",
           "linkColors": "> primary | seriesByName(\"state\") | matchValue(flowColors)", "linkOpacity": 0.6,
           "labelDisplay": "off"},
          context={"flowColors": [{"match": "blocked", "value": CRIT}, {"match": "flowing", "value": GREY}]})
    d.add("viz_next", "splunk.table", "What saturates next as the load grows", "ds_next",
          "Busy B% of one core pegs at about 100/B x today's load (linear).")
    for vid, (title, field, unit, under) in {
        "viz_kpi_eps": ("Events per second", "eps", "", "events/s, last 15 min"),
        "viz_kpi_mbps": ("MB per second", "mbps", "MB/s", "received, last 15 min"),
        "viz_kpi_rps": ("Requests per second", "rps", "", "requests/s, last 15 min"),
        "viz_kpi_epr": ("Events per request", "epr", "", "last 15 min; < %d: chatty" % CHATTY),
    }.items():
        t, _, opts = single(title, field, unit, under=under)
        d.add(vid, "splunk.singlevalue", t, "ds_hec_kpi", options=opts)
    d.add("viz_hec_eps", "splunk.line", "Events/s per host: top 5", "ds_hec_eps",
          "_introspection HttpEventCollector instance totals per 5 minutes; the 5 busiest hosts, the rest summed as "
          "\"others\".",
          line_opts("events/s"))
    d.add("viz_hec_mbps", "splunk.line", "MB/s received per host: top 5", "ds_hec_mbps",
          "The 5 hosts receiving most, the rest summed as \"others\".", line_opts("MB/s"))
    cf, ctx = table_colors({"events/request": [(CHATTY, CRIT), (BATCHED, WARN), (None, OK)]})
    d.add("viz_hec_tokens", "splunk.table", "Throughput and batching by host and token", "ds_hec_tokens",
          "Tokens sending fewer than %d events per request cost a request per handful of events: batch them in "
          "the client." % CHATTY,
          cf, context=ctx)
    d.add("viz_hec_error_classes", "splunk.table", "HEC requests refused: auth, parser, disabled token, URL",
          "ds_hec_error_classes",
          "As the Monitoring Console counts them, over the range; hosts with none left out.")
    d.add("viz_hec_batching", "splunk.bar", "Events per request by token (fewest first)", "ds_hec_batching",
          "All HEC hosts together, per token.",
          {"legendDisplay": "off", "xAxisTitleVisibility": "hide", "yAxisTitleText": "events/request"})


def _diagnosis_panels(d: Dash) -> None:
    """Errors, latency, the thread and queues, settings, findings, help."""
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
          "Max per 2 minutes, top 5. Dashed: raise dedicatedIoThreads. \"%s\": the name both HEC threads share."
          % PROC_HEC_SUFFIX.strip(" ()"),
          dict(line_opts("% of one core", 100), **ANNOTATION_OPTS),
          dataSources={"primary": "ds_hec_thread", "annotation": "ds_hec_findings_ann"},
          eventHandlers=[link("ingest_doctor_thread_activity", scope="$scope$")])
    d.add("viz_hec_queues", "splunk.line", "Fullest queue on the HEC hosts, per host and set: top 5", "ds_hec_queues",
          "The %d HEC hosts whose queues came fullest; max per minute over a set's queues, the rest as \"others\". "
          "Full: HEC answers 503." % TOP_HOSTS,
          line_opts("fill %", 100), eventHandlers=[link("ingest_doctor_pipeline_sets", scope="$scope$")])
    d.add("viz_hec_lag", "splunk.line", "Ingestion lag p95 per receiving indexer (s), last 15 minutes: top 5",
          "ds_hec_lag",
          "_indextime - _time of HEC data (ingest_doctor_hec_data), 1 in %d events sampled." % LAG_SAMPLE,
          line_opts("seconds"))
    d.add("viz_hec_settings", "splunk.table", "Current HEC settings (REST /services/data/inputs/http)", "ds_hec_settings",
          "inputs.conf [http] per instance (0 = automatic); heavy forwarders through the collector's latest config "
          "(last two days, whatever the time range: it is sent daily).")
    d.add("viz_open_findings", "splunk.table", "Open findings and what to change", "ds_open_findings",
          "From the KV store ingest_doctor_findings; since when and the evidence on the findings dashboard: click a row.",
          # each column's longest word on one line (pipeline_set_imbalance, pipelineSetSelectionPolicy)
          {"columnFormat": {"severity": severity_column(), "bottleneck": {"width": 180},
                            "summary": {"width": 280}, "advice": {"width": 260}, "settings": {"width": 200}}},
          context=severity_colors(),
          eventHandlers=[link("ingest_doctor_findings", host="$row.host.value$")])
    d.markdown("viz_hec_help", "Reading this page",
               "The **overview** names each instance's worst stage. HEC at 100% of one core "
               "(`httpinputserverdatathread`): raise `dedicatedIoThreads` in `inputs.conf [http]`, then scale out. "
               "Full queues behind HEC (reply=9 *Server is busy*): a later stage is the bottleneck, see *Pipeline "
               "sets*. *Latency or health empty?* Enable the `ingest_doctor_introspection` input on the HEC hosts.")


# build_view (gen_views.py) runs these in order
PARTS = (_throughput_searches, _error_searches, _thread_and_queue_searches, _throughput_panels, _diagnosis_panels)
