"""Thread activity: which splunkd thread is pegged, on which host."""
from __future__ import annotations

from spl import (BUSIEST_HOSTS, BUSY_PCT, DUTYCYCLE_BASE, HOSTS, PROC_HEC_SUFFIX, PROC_HEC_THREAD, RECENT, RECENT_S, TH,
                 empty_message, host_set,
                 top_chart)
from studio import CRIT, OK, WARN, Dash
from widgets import busy_bands, line_opts, table_colors

from ingest_doctor import model  # noqa: E402  (spl puts bin/ on the path)


# Indexers and heavy forwarders by default, universal forwarders one choice away (widgets.pipeline_scope).
PIPELINE_SCOPE = True
NAME, LABEL = "ingest_doctor_thread_activity", "Thread activity"
DESCRIPTION = ("Which splunkd thread is pegged, on which host? Busy % of one core per host and thread (metrics.log "
               "dutycycle in both layouts, and the collector's per-thread CPU), threads over the threshold, and a "
               "host x thread heat map of the latest value.")
LAYOUT = ((340, ("viz_threads_time", 3), ("viz_trap_text", 2)),
          (300, ("viz_threads_over", 3), ("viz_cpu_trap", 2)), (420, "viz_threads_heat"),
          (300, "viz_thread_drill"))


# Issue 35: the tables are counted per host, set and thread inside the searches (one row each, not one per minute):
# metrics.log's samples in one stats, the collector's in mstats (its samples over the threshold are not counted
# there: "% of range over" is empty on its rows).
THREADS_TABLE = (
    "`ingest_doctor_metrics_log` TERM(group=dutycycle) " + HOSTS + "\n"
    "| `ingest_doctor_dutycycle_samples`\n"
    "| addinfo\n"
    "| stats latest(busy_pct) AS latest_pct avg(eval(if(_time>=info_max_time-" + str(RECENT_S) + ", busy_pct, null()))) "
    "AS recent_pct avg(busy_pct) AS avg_pct max(busy_pct) AS max_pct "
    "count(eval(busy_pct>=`ingest_doctor_thread_busy_pct`)) AS samples_over count AS samples BY host ingest_pipe thread origin\n"
    "| append [| mstats latest(_value) AS latest_pct avg(_value) AS avg_pct max(_value) AS max_pct count(_value) AS samples "
    "WHERE `ingest_doctor_metrics_index` metric_name=\"ingest_doctor.thread.busy_pct\" " + HOSTS + " BY host thread "
    "| append [| mstats avg(_value) AS recent_pct WHERE `ingest_doctor_metrics_index` "
    "metric_name=\"ingest_doctor.thread.busy_pct\" " + HOSTS + " " + RECENT + " BY host thread] "
    "| stats first(latest_pct) AS latest_pct first(recent_pct) AS recent_pct first(avg_pct) AS avg_pct "
    "first(max_pct) AS max_pct first(samples) AS samples BY host thread "
    "| eval thread=lower(thread), ingest_pipe=\"none\", origin=\"collector\"]\n"
    "| search ingest_pipe=\"$pset$\" OR ingest_pipe=\"none\""
)
# The drilldown's thread on its host, or on the BUSIEST_HOSTS hosts where that thread peaked highest (a subsearch).
DRILL = (
    "`ingest_doctor_metrics_log` TERM(group=dutycycle) $thread$ " + HOSTS + " host=\"$drill_host$\" "
    "[| tstats max(PREFIX(ratio=)) AS ratio where `ingest_doctor_metrics_log` TERM(group=dutycycle) TERM(name=ingest) "
    "TERM(thread=$thread$) " + HOSTS + " host=\"$drill_host$\" by host | sort 0 - ratio host "
    "| head " + str(BUSIEST_HOSTS) + " | fields host]\n"
    "| `ingest_doctor_dutycycle_rows`\n"
    "| search thread=\"$thread$\" ingest_pipe=\"$pset$\"\n"
)


def _searches(d: Dash) -> None:
    """Busy % per thread: the busiest hosts' series, the per-thread table, the drilldown; splunkd CPU against the
    cores."""
    d.search("ds_dc", "Thread busy %% of one core on the %d hosts whose busiest thread peaked highest (metrics.log "
             "dutycycle, both layouts, and the collector)" % BUSIEST_HOSTS, DUTYCYCLE_BASE)
    d.chain("ds_threads_time", "Busy % per host and thread (top 5)", "ds_dc",
            "| " + host_set() + ".\" \".thread.if(thread==\"{}\", \"{}\", \"\")\n| ".format(PROC_HEC_THREAD, PROC_HEC_SUFFIX)
            + top_chart("busy_pct", threshold="thread_busy_pct"))
    d.search("ds_threads", "Busy % per host, set and thread over the range (metrics.log dutycycle samples, the "
             "collector)", THREADS_TABLE)
    d.chain("ds_threads_over", "Threads at or over the threshold", "ds_threads",
            "| where max_pct>=`ingest_doctor_thread_busy_pct`\n"
            "| eval recent_pct=round(recent_pct, 1), avg_pct=round(avg_pct, 1), "
            "over_pct=round(samples_over/samples*100, 0)\n"
            "| sort - recent_pct - latest_pct\n"
            "| table host ingest_pipe thread latest_pct recent_pct max_pct avg_pct over_pct origin\n"
            "| rename latest_pct AS \"latest %\" recent_pct AS \"last 15 min %\" max_pct AS \"max %\" "
            "avg_pct AS \"range avg %\" over_pct AS \"% of range over\"\n"
            + empty_message("No thread reached ingest_doctor_thread_busy_pct in this time range on the selected hosts."))
    d.chain("ds_threads_heat", "Host x thread, latest busy % (the busier pipeline set)", "ds_threads",
            "| stats max(latest_pct) AS busy_pct BY thread host\n"
            "| eventstats max(busy_pct) AS thread_max BY thread\n"
            "| where thread_max>=1\n"
            "| sort 0 - thread_max thread - busy_pct\n"
            "| table thread host busy_pct")
    d.search("ds_thread_drill", "Selected thread over time (its host, or the hosts where it peaked highest)",
             DRILL + "| " + host_set() + "\n| " + top_chart("busy_pct", threshold="thread_busy_pct"))
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


def _panels(d: Dash) -> None:
    """The charts, the table of threads over the threshold, the heat map, the trap."""
    # the drilldown's, until a click; drill_label names the hosts it shows: the busiest 5 until a row or
    # bubble names one
    d.tokens.update({"thread": model.HEC_THREAD, "drill_host": "*", "drill_label": "the 5 busiest hosts and sets"})
    d.add("viz_threads_time", "splunk.line", "Busy % of one core per host and thread: top 5", "ds_threads_time",
          "Max per minute per host, set and thread; top 5 (max). Dashed: ingest_doctor_thread_busy_pct. "
          "\"%s\": HEC data or mgmt thread." % PROC_HEC_SUFFIX.strip(" ()"),
          line_opts("% of one core", 100))
    # Coloured by what is true now (the last minute, the last 15 minutes) and the worst: never by the range's
    # average, which paints a thread pegged for the last hour of a day green.
    cf, ctx = table_colors({"latest %": busy_bands(), "last 15 min %": busy_bands(), "max %": busy_bands()})
    d.add("viz_threads_over", "splunk.table", "Threads over the threshold (click one for its time series)",
          "ds_threads_over", "Busiest in the last 15 minutes first. All % of one core; the range's average is "
          "shown, not coloured.", cf, context=ctx,
          eventHandlers=[{"type": "drilldown.setToken", "options": {"tokens": [
              {"token": "thread", "key": "row.thread.value"}, {"token": "drill_host", "key": "row.host.value"},
              {"token": "drill_label", "key": "row.host.value"}]}}])
    d.add("viz_threads_heat", "splunk.punchcard", "Heat map: host x thread, latest busy % of one core", "ds_threads_heat",
          "Each bubble: the thread's latest minute on that host (the busier pipeline set). Click a bubble for its "
          "time series.",
          {"x": "> primary | seriesByName(\"thread\")", "y": "> primary | seriesByName(\"host\")",
           "size": "> primary | seriesByName(\"busy_pct\")",
           "bubbleColor": "> primary | seriesByName(\"busy_pct\") | rangeValue(heatColors)",
           "legendDisplay": "off", "bubbleLabelDisplay": "all"},
          context={"heatColors": [{"to": BUSY_PCT, "value": OK},
                                  {"from": BUSY_PCT, "to": TH.thread_busy_pct, "value": WARN},
                                  {"from": TH.thread_busy_pct, "value": CRIT}]},
          eventHandlers=[{"type": "drilldown.setToken", "options": {"tokens": [
              {"token": "thread", "key": "row.thread.value"}, {"token": "drill_host", "key": "row.host.value"},
              {"token": "drill_label", "key": "row.host.value"}]}}])
    d.add("viz_thread_drill", "splunk.line", "Thread $thread$ on $drill_label$", "ds_thread_drill",
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


PARTS = (_searches, _panels)   # build_view (gen_views.py) runs these in order
