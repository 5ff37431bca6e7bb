"""CPU by processor: where the ingestion CPU goes, on which host and pipeline set."""
from __future__ import annotations

from spl import (BUSY_PCT, FINDINGS_BASE, HOSTS, PROPS_STAGES, PSET, any_of, empty_message, host_set,
                 top_chart)
from studio import Dash
from widgets import busy_bands, line_opts, link, table_colors

# Ranked before it is read (issue 35): every processor's reading per second of every pipeline host was 16 M rows to
# the search head at 10,000 instances. A subsearch picks the BUSIEST_SETS pipeline sets (host and ingest_pipe) that
# spent the most CPU over the range (tstats sums their cpu_seconds: one row per set inside it); only those are read,
# aggregated inside tstats per minute and processor (sum, highest and number of readings, first and last line):
# 5 sets x 21 processors x 240 minutes at most, whatever the deployment's size. The plausibility rule and the
# count-a-repeated-line-once rule then apply per minute (macro ingest_doctor_pipeline_cpu_rows). A set's sum counts
# an implausible reading too: such a set may rank in, and its readings are then listed as set apart.
BUSIEST_SETS = 5
BUSIEST_SETS_SEARCH = (
    "[| tstats fillnull_value=\"none\" sum(PREFIX(cpu_seconds=)) AS cpu where `ingest_doctor_metrics_log` "
    "TERM(group=pipeline) " + HOSTS + " by host PREFIX(ingest_pipe=) | rename \"ingest_pipe=\" AS ingest_pipe "
    "| " + PSET + " | sort 0 - cpu host ingest_pipe | head " + str(BUSIEST_SETS) + " "
    "| eval search=if(ingest_pipe==\"none\", \"host=\\\"\".host.\"\\\"\", "
    "\"(host=\\\"\".host.\"\\\" TERM(ingest_pipe=\".ingest_pipe.\"))\") | fields search]")
CPU_BASE = (
    "| tstats fillnull_value=\"none\" sum(PREFIX(cpu_seconds=)) AS cpu_sum max(PREFIX(cpu_seconds=)) AS max_reading "
    "count AS lines sum(PREFIX(executes=)) AS executes_sum min(_time) AS first_time max(_time) AS last_time "
    "where `ingest_doctor_metrics_log` TERM(group=pipeline) " + HOSTS + " " + BUSIEST_SETS_SEARCH + " "
    "by host PREFIX(name=) PREFIX(processor=) PREFIX(ingest_pipe=) _time span=1m\n"
    "| `ingest_doctor_pipeline_cpu_rows`\n"
    "| " + PSET + "\n"
    "| fields _time host ingest_pipe stage pipeline processor threads cpu_seconds wall_s pct_one_core unreliable "
    "max_reading interval_s executes"
)


# Fix 4 (issue 35): metrics.log writes group=per_*_regex_cpu only where limits.conf regex_cpu_profiling is true,
# a global ([default]) setting whose default is false (limits.conf.spec 9.0.3: "Enable CPU time metrics for
# RegexProcessor ... Default: false"). So on a default install the panel is empty for that reason, not maxseries.
REGEX_CPU_OFF = (
    "No index-time regex CPU in this time range. metrics.log reports it (group=per_sourcetype_regex_cpu) only where "
    "limits.conf sets regex_cpu_profiling = true (a global setting, in its default stanza); the default is false. To see it: set it "
    "on the indexers and heavy forwarders whose typing stage is busy, restart them, and set it back when done. "
    "Its cost: splunkd times every index-time regex (TRANSFORMS, SEDCMD), and metrics.log gains four "
    "per_host/per_source/per_sourcetype/per_index_regex_cpu groups every interval on each pipeline set.")


# Indexers and heavy forwarders by default, universal forwarders one choice away (widgets.pipeline_scope).
PIPELINE_SCOPE = True
# The indexer's CPU per 10 minutes (issue 35): per minute, a host and set each over 4 hours is 350,000 rows at
# 10,000 instances; per 10 minutes 36,000.
INDEXER_CPU_SPAN, INDEXER_CPU_SPAN_S = "10m", 600
NAME, LABEL = "ingest_doctor_cpu_by_processor", "CPU by processor"
DESCRIPTION = ("Where does the ingestion CPU go, on which host and pipeline set? % of one core per processor "
               "(metrics.log group=pipeline cpu_seconds on the busiest pipeline sets, implausible readings set apart), regex CPU per sourcetype, "
               "indexer CPU, and what to change in props.conf.")
LAYOUT = ((340, ("viz_cpu_time", 3), ("viz_props_advice", 2)),
          (360, ("viz_cpu_table", 3), ("viz_regex_share", 2)), (300, "viz_regex_st", "viz_indexer_cpu"),
          (220, "viz_cpu_unreliable"), (260, "viz_props_findings"))


def _searches(d: Dash) -> None:
    """Plausible CPU per processor, regex CPU, indexer CPU, open findings."""
    d.search("ds_cpu", "Plausible CPU per processor per minute on the %d pipeline sets that spent the most CPU (tstats "
             "over metrics.log group=pipeline, aggregated per minute inside)" % BUSIEST_SETS, CPU_BASE)
    d.chain("ds_cpu_time", "% of one core per host, set and processor (top 5)", "ds_cpu",
            "| where isnotnull(pct_one_core)\n"
            "| " + host_set() + ".\" \".pipeline.\"/\".processor\n| "
            + top_chart("pct_one_core", threshold="thread_busy_pct"))
    d.chain("ds_cpu_table", "Top processors", "ds_cpu",
            "| where isnotnull(pct_one_core)\n"
            "| stats avg(pct_one_core) AS avg_pct max(pct_one_core) AS max_pct sum(executes) AS executes BY host ingest_pipe stage pipeline processor\n"
            "| eval avg_pct=round(avg_pct, 1)\n"
            "| sort 0 - avg_pct host ingest_pipe processor\n| head 15\n"
            "| table host ingest_pipe stage pipeline processor avg_pct max_pct executes\n"
            "| rename ingest_pipe AS set")
    d.chain("ds_cpu_unreliable", "Readings left out: minutes with a cpu_seconds above the interval x threads", "ds_cpu",
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
            "verdict=case(regex_share_pct<`ingest_doctor_regex_cpu_share_pct`, \"not regex-bound\", typing_peak_pct<"
            + str(BUSY_PCT) + ", "
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
             + empty_message(REGEX_CPU_OFF))
    d.search("ds_indexer_cpu", "Indexer raw write + index service CPU per host and set",
             "| tstats fillnull_value=\"none\" sum(PREFIX(write_cpu_seconds=)) AS write_cpu sum(PREFIX(service_cpu_seconds=)) AS service_cpu "
             "where `ingest_doctor_metrics_log` TERM(group=pipeline) TERM(name=indexerpipe) TERM(processor=indexer) " + HOSTS + " "
             "by host PREFIX(ingest_pipe=) _time span=" + INDEXER_CPU_SPAN + "\n"
             "| rename \"ingest_pipe=\" AS ingest_pipe\n| " + PSET + "\n"
             "| eval pct_one_core=round((write_cpu+service_cpu)/" + str(INDEXER_CPU_SPAN_S) + "*100, 1)\n"
             "| " + host_set() + "\n| " + top_chart("pct_one_core", span=INDEXER_CPU_SPAN))
    d.search("ds_props_findings", "Open findings about parsing, merging and typing",
             FINDINGS_BASE + "\n| search status=\"open\" " + HOSTS + " ("
             + any_of("bottleneck", PROPS_STAGES).replace("==", "=") + ")\n"
             "| sort severity_rank - last_seen_epoch\n"
             "| table severity host pipeline_set bottleneck summary advice settings detected first_seen\n"
             + empty_message("No open finding about parsing, merging or typing on the selected hosts."))


def _panels(d: Dash) -> None:
    """The charts and tables, and what to change in props.conf."""
    d.add("viz_cpu_time", "splunk.line", "% of one core per host, set and processor: top 5", "ds_cpu_time",
          "Plausible cpu_seconds over wall time, per minute, on the %d sets that spent the most CPU; the 5 busiest, "
          "the rest as \"others\" (max)." % BUSIEST_SETS,
          line_opts("% of one core", None))
    cf, ctx = table_colors({"avg_pct": busy_bands()})
    cf["count"] = 15
    # the longest processor name (regexreplacement) on one line; the set's short header leaves it the room
    cf["columnFormat"]["processor"] = {"width": 140}
    d.add("viz_cpu_table", "splunk.table", "Top processors by average % of one core", "ds_cpu_table",
          "On the %d pipeline sets that spent the most CPU in the range." % BUSIEST_SETS, cf, context=ctx)
    d.add("viz_cpu_unreliable", "splunk.table", "Unreliable CPU readings (left out of the charts)", "ds_cpu_unreliable",
          "A processor's cpu_seconds above the interval's wall time x the stage's threads is not CPU time in the "
          "interval (counters from old releases): the minute holding it is shown here with its readings, never as "
          "load. On the %d pipeline sets the charts read." % BUSIEST_SETS)
    d.add("viz_regex_share", "splunk.table", "Is typing regex-bound?", "ds_regex_share",
          "Typing's peak minute (% of one core) and regexreplacement's share of its CPU; busiest first.")
    d.add("viz_regex_st", "splunk.bar", "Index-time regex CPU per host and sourcetype (% of one core)", "ds_regex_st",
          "Average per minute, top 10. Needs limits.conf regex_cpu_profiling = true (default false).",
          {"x": "> primary | seriesByName(\"sourcetype\")", "y": "> primary | seriesByName(\"pct_one_core\")",
           "legendDisplay": "off", "xAxisTitleVisibility": "hide", "yAxisTitleText": "% of one core"})
    d.add("viz_indexer_cpu", "splunk.line", "Indexer raw write + index service per host and set: top 5",
          "ds_indexer_cpu", "% of one core per 10 minutes; the rest as \"others\" (max).",
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


PARTS = (_searches, _panels)   # build_view (gen_views.py) runs these in order
