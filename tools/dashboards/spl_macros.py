"""The pipelines each base search applies after selecting its events, as macros: an admin (or an
alert) reuses exactly what the dashboards compute. gen_views.py writes them to the "# Dashboards"
block of default/macros.conf (one line each).
"""
from __future__ import annotations

import os

from spl import HEC_BIN_S, PROPS_STAGES, ROOT, any_of

from ingest_doctor import model  # noqa: E402  (spl puts bin/ on the path)

FINDINGS_EVAL = (
    "eval pipeline_set=if(isnull(pipeline_set) OR pipeline_set==\"\", \"-\", pipeline_set)\n"
    "| eval advice=mvjoin(spath(recommendations, \"{}.action\"), \" | \"), "
    "evidence_text=mvjoin(mvzip(spath(evidence, \"{}.signal\"), mvzip(spath(evidence, \"{}.value\"), spath(evidence, \"{}.unit\"), \" \"), \"=\"), \"; \")\n"
    "| eval settings=mvjoin(mvzip(spath(recommendations, \"{}.setting\"), spath(recommendations, \"{}.suggested\"), \" -> \"), \"; \")\n"
    "| eval first_seen=strftime(first_seen, \"%F %T\"), last_seen_epoch=last_seen, last_seen=strftime(last_seen, \"%F %T\")\n"
    "| eval severity_rank=case(severity==\"critical\", 0, severity==\"warning\", 1, true(), 2)\n"
    "| eval detected=case(like(detected_by, \"%collector%\") AND like(detected_by, \"%alert_action%\"), \"both\", "
    "like(detected_by, \"%collector%\"), \"collector\", true(), \"alert\")\n"
    "| eval evidence_dashboard=case(bottleneck==\"" + model.HEC_INPUT + "\", \"ingest_doctor_hec_performance\", "
    + any_of("bottleneck", PROPS_STAGES) + ", \"ingest_doctor_cpu_by_processor\", "
    "bottleneck==\"" + model.HOST_CPU + "\", \"ingest_doctor_thread_activity\", true(), \"ingest_doctor_pipeline_sets\")\n"
    "| eval caused_by=if(isnull(caused_by), \"\", caused_by), cause_parts=split(caused_by, \"/\")\n"
    "| eval cause=if(caused_by==\"\", \"\", \"caused by \".mvindex(cause_parts, 0).\" \".mvindex(cause_parts, 1)"
    ".if(mvindex(cause_parts, 2)==\"-\", \"\", \", set \".mvindex(cause_parts, 2))), root=if(caused_by==\"\", id, caused_by)\n"
    # how the cause produces the symptom (contract section 5: a finding with a caused_by carries its mechanism)
    "| eval mechanism=if(caused_by==\"\" OR isnull(mechanism), \"\", mechanism)\n"
    "| fields id host bottleneck pipeline_set component severity severity_rank status summary evidence_text advice settings "
    "first_seen last_seen last_seen_epoch count detected resolution evidence_dashboard caused_by cause mechanism root"
)


MACROS = {}


def macro(name: str, description: str, *parts: str, args: str = "") -> None:
    MACROS[name] = (" ".join(p.strip().replace("\n", " ") for p in parts), description, args)


macro("ingest_doctor_hec_data",
      "HEC data for the ingestion-lag panel: events whose source is http:<token name> (HEC's default source), in "
      "the indexes the enabled HEC tokens of the search peers write to (never every index). HEC on heavy "
      "forwarders (not search peers): set it to your HEC indexes, e.g. index=web source=http:* (the Setup view says "
      "when).",
      "[| rest splunk_server=* count=0 /services/data/inputs/http | search disabled=0",
      "| eval index=mvappend(index, indexes) | mvexpand index | eval index=if(index==\"default\", \"main\", index)",
      "| where index!=\"\" | stats count BY index | fields index",
      "| append [| makeresults | eval index=\"ingest_doctor_no_hec_token\" | fields index] | format]",
      "source=http:*")
macro("ingest_doctor_range_end(1)",
      "The last $seconds$ seconds of the search's time range, as earliest= and latest= for the search it is in "
      "(a subsearch: addinfo's info_max_time is the range's end, now for a range ending now; whole epoch seconds): "
      "the views' \"now\" panels read those seconds only.",
      "[| makeresults | addinfo | eval earliest=floor(info_max_time-$seconds$), latest=ceil(info_max_time) "
      "| return earliest latest]",
      args="seconds")
macro("ingest_doctor_sustained_window",
      "The last ingest_doctor_sustained_window_min minutes of the search's time range, as earliest= and latest= for "
      "the search it is in (a subsearch, as ingest_doctor_range_end): the window the engine judges \"now\" over.",
      "[| makeresults | addinfo | eval earliest=floor(info_max_time-`ingest_doctor_sustained_window_min`*60), "
      "latest=ceil(info_max_time) | return earliest latest]")
macro("ingest_doctor_dutycycle_samples",
      "metrics.log group=dutycycle in both layouts (thread=/ratio=, and name=misc with thread names as keys) as one "
      "row per line and thread; busy_pct is % of one core.",
      "rex max_match=0 \"[\\s,](?<dc_pair>[a-z][a-z0-9_]*=\\d+\\.\\d+)\"",
      "| eval dc_pairs=if(isnotnull(thread) AND isnotnull(ratio), thread.\"=\".ratio, if(name==\"misc\", dc_pair, null()))",
      "| fields _time host ingest_pipe dc_pairs | mvexpand dc_pairs",
      "| rex field=dc_pairs \"^(?<dc_thread>[^=]+)=(?<dc_ratio>[0-9.]+)\"",
      "| eval thread=lower(dc_thread), busy_pct=round(dc_ratio*100, 1), ingest_pipe=coalesce(ingest_pipe, \"none\"), origin=\"metrics.log\"")
macro("ingest_doctor_dutycycle_rows",
      "metrics.log group=dutycycle in both layouts (ingest_doctor_dutycycle_samples) as one row per minute, host, "
      "ingest_pipe and thread: the minute's highest busy_pct.",
      "`ingest_doctor_dutycycle_samples`",
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
      "_introspection component=HttpEventCollector counters summed per 5 minutes, host, series and token "
      "(series http_event_collector: instance totals; http_event_collector_token: per token), with the refused "
      "requests the Monitoring Console counts: auth failures, parser errors, requests to a disabled token or a wrong URL.",
      "eval series='data.series', token=if(series==\"http_event_collector_token\", 'data.token_name', \"(all tokens)\")",
      "| bin _time span={}m".format(HEC_BIN_S // 60),
      "| stats sum(data.num_of_events) AS events sum(data.num_of_requests) AS requests",
      "sum(data.total_bytes_received) AS bytes_in sum(data.num_of_parser_errors) AS parser_errors",
      "sum(data.num_of_auth_failures) AS auth_failures sum(data.num_of_requests_to_disabled_token) AS disabled_token",
      "sum(data.num_of_requests_to_incorrect_url) AS incorrect_url max(data.num_of_requests_waiting_ack) AS waiting_ack",
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
      "_time span=1m giving per minute the sum (cpu_sum), highest (max_reading) and number (lines) of the "
      "cpu_seconds readings, sum(executes) (executes_sum) and the first and last line's time (first_time, "
      "last_time): one row per minute, host, set, pipeline and processor. The interval is the gap from the previous "
      "minute's last line (30 s when unknown or over 300 s); the minute holds (last_time-first_time)/interval_s+1 "
      "readings, and a line repeated in the index counts once (the minute's average reading times its readings; "
      "the highest reading is the same). A minute counts as CPU time only when plausible, its highest reading at "
      "most the interval's wall time x the stage's threads (lookup ingest_doctor_pipeline: max_cpu_pct is "
      "threads_per_set x 100% plus the engine's slack for interval jitter); otherwise its readings are set apart "
      "(unreliable). pct_one_core is the plausible CPU over the wall time it covers.",
      "rename \"name=\" AS pipeline \"processor=\" AS processor \"ingest_pipe=\" AS ingest_pipe",
      "| sort 0 host ingest_pipe pipeline processor _time",
      "| streamstats current=f window=1 last(last_time) AS prev_time BY host ingest_pipe pipeline processor",
      "| eval interval_s=if(isnull(prev_time) OR first_time-prev_time>300, 30, first_time-prev_time)",
      "| eval readings=round((last_time-first_time)/interval_s)+1",
      "| lookup ingest_doctor_pipeline pipeline OUTPUT stage threads_per_set max_cpu_pct",
      "| eval stage=coalesce(mvindex(stage, 0), \"other\"), threads=coalesce(tonumber(mvindex(threads_per_set, 0)), 1),",
      "max_cpu_pct=coalesce(tonumber(mvindex(max_cpu_pct, 0)), 100*threads)",
      "| eval plausible=if(max_reading<=interval_s*max_cpu_pct/100, 1, 0)",
      "| eval cpu_seconds=if(plausible==1, cpu_sum/lines*readings, 0), wall_s=if(plausible==1, interval_s*readings, 0),",
      "unreliable=if(plausible==1, 0, readings), executes=round(executes_sum/lines*readings)",
      "| eval pct_one_core=if(wall_s>0, round(cpu_seconds/wall_s*100, 1), null())",
      "| fields - prev_time threads_per_set plausible")
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
      "rank, the dashboard that shows the finding's evidence, and for a finding another instance's finding causes: "
      "cause (caused by <host> <stage>, set N) and root (the id of the finding at the root; its own id otherwise).",
      FINDINGS_EVAL)

# HEC settings: REST on this search head and its search peers (tokens and the global [http]

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
