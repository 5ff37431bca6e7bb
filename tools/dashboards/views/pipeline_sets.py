"""Pipeline sets: which queue of which set on which host is full, and which stage drains it."""
from __future__ import annotations

from spl import (BLOCKED_ANNOTATIONS, BUSY_PCT, CHAIN, CONFIG_RANGE, FILL_BANDS, HOSTS, NO_PIPELINE, PSET,
                 QUEUE_BASE, RECENT, TH, empty_message, fullest_hosts, host_set, top_chart)
from studio import CRIT, OK, WARN, Dash
from widgets import ANNOTATION_OPTS, busy_bands, line_opts, link, table_colors, text_on


# Indexers and heavy forwarders by default, universal forwarders one choice away (widgets.pipeline_scope).
PIPELINE_SCOPE = True
NAME, LABEL = "ingest_doctor_pipeline_sets", "Pipeline sets"
DESCRIPTION = ("Which queue of which pipeline set on which host is full, and which stage drains it? The fullest queue "
               "per host and set (worst first), blocked queues on the timeline, the stage chain with the bottleneck, "
               "busiest thread per set.")
LAYOUT = ((360, ("viz_fill_time", 3), ("viz_chain_help", 1)), (330, ("viz_chain", 3), ("viz_pset_config", 2)),
          (300, "viz_bands", "viz_psets_time"), (260, "viz_psets_table"), (300, "viz_headroom"))


# Issue 35: per 30 s sample, every pipeline host's queues over 4 hours were 7.2 M rows at 10,000 instances. The fill
# chart reads the TOP_HOSTS hosts whose queues came fullest (ranked in a subsearch); the chain table is aggregated
# inside tstats per host, queue and set (the fill statistic over the range: size over maximum, while a queue keeps its
# maximum); the bands count hosts per hour over the chain's queues.
TOP_HOSTS = 5
BAND_SPAN = "60m"
CHAIN_TABLE = (
    "| tstats fillnull_value=\"none\" $agg$(PREFIX(current_size_kb=)) AS cur_kb max(PREFIX(max_size_kb=)) AS max_kb "
    "$agg$(PREFIX(current_size=)) AS cur_b max(PREFIX(max_size=)) AS max_b "
    "where `ingest_doctor_metrics_log` TERM(group=queue) " + HOSTS + " by host PREFIX(name=) PREFIX(ingest_pipe=)\n"
    "| `ingest_doctor_queue_fill_rows`\n"
    "| " + PSET + "\n"
    "| where isnotnull(stage)\n"
    "| stats max(fill_pct) AS fill max(stage_order) AS stage_order BY host ingest_pipe stage\n"
    "| eval fill=round(fill, 0), full_order=if(fill>=`ingest_doctor_queue_fill_pct`, stage_order, 0)\n"
    "| eventstats max(full_order) AS last_full max(fill) AS fullest BY host ingest_pipe\n"
    "| eval bottleneck_stage=if(last_full>0 AND stage_order==last_full, stage, null()), {stage}=fill\n"
    "| stats " + " ".join("values({0}) AS {0}".format(s) for s in CHAIN) + " values(bottleneck_stage) AS bottleneck "
    "max(fullest) AS fullest BY host ingest_pipe\n"
    "| eval bottleneck=coalesce(bottleneck, \"none\"), order=if(bottleneck==\"none\", 1, 0)\n"
    "| sort 0 order - fullest host ingest_pipe\n"
    "| table host ingest_pipe " + " ".join(CHAIN) + " bottleneck"
)
BANDS = (
    "| tstats fillnull_value=\"none\" max(PREFIX(current_size_kb=)) AS cur_kb max(PREFIX(max_size_kb=)) AS max_kb "
    "max(PREFIX(current_size=)) AS cur_b max(PREFIX(max_size=)) AS max_b "
    "where `ingest_doctor_metrics_log` TERM(group=queue) `ingest_doctor_chain_queue_terms` " + HOSTS + " "
    "by host PREFIX(name=) PREFIX(ingest_pipe=) _time span=" + BAND_SPAN + "\n"
    "| `ingest_doctor_queue_fill_rows`\n"
    "| " + PSET + "\n"
    "| where isnotnull(stage)\n"
    "| stats max(fill_pct) AS fill BY _time host\n"
    + "| eval band=case(fill>=`ingest_doctor_queue_fill_pct`, \"{2}\", fill>={busy}, \"{1}\", "
    "true(), \"{0}\")\n".format(*FILL_BANDS, busy=BUSY_PCT)
    + "| timechart span=" + BAND_SPAN + " dc(host) BY band"
)


def _queue_searches(d: Dash) -> None:
    """Queue fill, blocked queues, the stage chain and the fill bands."""
    d.search("ds_queues", "Queue fill per 30 s sample on the %d hosts whose queues came fullest (tstats TERM/PREFIX "
             "over metrics.log group=queue)" % TOP_HOSTS,
             QUEUE_BASE.replace(HOSTS + " ", HOSTS + " " + fullest_hosts(TOP_HOSTS) + " ", 1))
    d.search("ds_blocked", "Blocked queues (blocked=true) and findings as annotations", BLOCKED_ANNOTATIONS)
    d.chain("ds_fill_time", "Fullest queue per host and pipeline set (top 5)", "ds_queues",
            "| where isnotnull(stage)\n| " + host_set() + "\n| " + top_chart("fill_pct", "$agg$", threshold="queue_fill_pct"))
    d.search("ds_chain", "Stage chain and bottleneck per pipeline set (tstats over metrics.log group=queue)", CHAIN_TABLE)
    d.search("ds_bands", "Hosts per fill band per hour (deployment view; the chain's queues)", BANDS)


# Beside the chain (issue 22): how many pipeline sets each instance runs, how it assigns data to them, and whether
# its indexer processor is throttled, now. The collector's latest ingest_doctor:config event (re-sent at least
# daily, hence two days) and the status dimension of its ingest_doctor.indexer.throttled metric. A throttled or
# stopped indexer (or one not read) first. The status is read over the last 15 minutes only (the collector polls
# every few seconds): per minute over two days it was 2,880 rows per host (issue 35). The appended mstats keeps one
# row per host inside (its latest minute's status): per minute, 15 rows per host pass append's 50,000-row cut at
# about 3,300 collectors.
PSET_CONFIG = (
    "`ingest_doctor_events_index` sourcetype=\"ingest_doctor:config\" " + HOSTS + "\n"
    "| spath path=config.parallel_ingestion_pipelines output=pipelines "
    "| spath path=config.pipeline_set_selection_policy output=policy\n"
    "| stats latest(pipelines) AS pipelines latest(policy) AS policy BY host\n"
    "| append [| mstats latest(_value) AS throttled WHERE `ingest_doctor_metrics_index` "
    "metric_name=\"ingest_doctor.indexer.throttled\" " + HOSTS + " " + RECENT + " BY host status span=1m "
    "| stats latest(status) AS status BY host]\n"
    "| stats first(pipelines) AS pipelines first(policy) AS policy first(status) AS indexer BY host\n"
    "| fillnull value=\"not read\" pipelines policy indexer\n"
    "| eval order=if(indexer==\"normal\", 1, 0)\n"
    "| sort 0 order host\n"
    "| table host pipelines policy indexer\n"
    "| rename pipelines AS \"pipeline sets\" policy AS \"selection policy\" indexer AS \"indexer status\"\n"
    + empty_message("No ingest_doctor:config event from the selected hosts in two days: the collector "
                    "(TA-ingest_doctor) writes one on start and daily.")
)


def _config_search(d: Dash) -> None:
    """The pipeline-set settings and indexer status per host."""
    d.search("ds_pset_config", "Pipeline-set settings and indexer status per host (the collector's config events "
             "and metrics, last two days)", PSET_CONFIG, **CONFIG_RANGE)


def _load_searches(d: Dash) -> None:
    """The busiest thread per set (group=pipelineset) and the headroom per stage."""
    # Issue 35: per minute, every pipeline host's sets over 4 hours were 361,000 rows at 10,000 instances. The chart
    # reads them per 10 minutes (36,000); the table is counted inside tstats per host, set and busiest thread (a
    # line per 30 s: two a minute).
    load = ("where `ingest_doctor_metrics_log` TERM(group=pipelineset) TERM(name=load_metrics) " + HOSTS + " "
            "by host PREFIX(ingest_pipe=) ")
    d.search("ds_psets_load", "Busiest thread's busy % per pipeline set per 10 minutes (metrics.log group=pipelineset)",
             "| tstats fillnull_value=\"none\" max(PREFIX(dutycycle_ratio=)) AS ratio " + load + "_time span=10m\n"
             "| rename \"ingest_pipe=\" AS ingest_pipe\n"
             "| " + PSET + "\n"
             "| eval busy_pct=round(ratio*100, 1)\n"
             "| fields _time host ingest_pipe busy_pct")
    d.chain("ds_psets_time", "Busiest thread busy % per host and pipeline set (top 5)", "ds_psets_load",
            "| " + host_set() + "\n| " + top_chart("busy_pct", span="10m", threshold="thread_busy_pct"))
    d.search("ds_psets_table", "Busiest thread and share per pipeline set (metrics.log group=pipelineset)",
             "| tstats fillnull_value=\"none\" count max(PREFIX(dutycycle_ratio=)) AS ratio avg(PREFIX(share=)) AS share "
             + load + "PREFIX(busiest_thread_name=)\n"
             "| rename \"ingest_pipe=\" AS ingest_pipe \"busiest_thread_name=\" AS busiest_thread\n"
             "| " + PSET + "\n"
             "| eval minutes=round(count/2, 0), max_busy_pct=round(ratio*100, 1), share_pct=share*100\n"
             "| sort 0 host ingest_pipe - max_busy_pct\n| dedup host ingest_pipe\n"
            "| eval share_pct=round(share_pct, 1)\n| sort 0 - max_busy_pct host ingest_pipe\n"
            "| table host ingest_pipe busiest_thread minutes max_busy_pct share_pct\n"
            "| rename minutes AS \"minutes busiest\" max_busy_pct AS \"max busy %\" share_pct AS \"assignment share %\"")

    # Headroom: a stage busy B% of one core while its set carries E events/s pegs at about E x 100 / B
    # (bin/ingest_doctor/engine/rules/headroom.py computes the same for the CLI and the findings). Like the
    # engine, both are averaged over the last ingest_doctor_sustained_window_min minutes of the range, never
    # the whole range: a stage pegged now has none left, however idle it was before. Issue 35: that window is the
    # searches' own (macro ingest_doctor_sustained_window), averaged inside tstats per host, set and thread; the
    # range per minute then `where` was 3.4 M raw-eq and 3.8 M rows at 10,000 instances.
    window = "`ingest_doctor_sustained_window`"
    d.search("ds_headroom", "Headroom per host, pipeline set and stage, now (the last sustained_window_min "
             "minutes: dutycycle busy share and group=thruput events/s)",
             "| tstats fillnull_value=\"none\" avg(PREFIX(ratio=)) AS ratio where `ingest_doctor_metrics_log` "
             "TERM(group=dutycycle) TERM(name=ingest) " + HOSTS + " " + window + " by host PREFIX(ingest_pipe=) PREFIX(thread=)\n"
             "| rename \"ingest_pipe=\" AS ingest_pipe \"thread=\" AS thread\n"
             "| eval thread=lower(thread), busy_pct=ratio*100\n"
             "| " + PSET + "\n"
             "| lookup ingest_doctor_pipeline member AS thread OUTPUT stage\n"
             "| eval stage=mvindex(stage, 0)\n"
             "| where isnotnull(stage) AND " + " AND ".join("stage!=\"%s\"" % s for s in NO_PIPELINE) + "\n"
             "| stats avg(busy_pct) AS busy_pct BY host ingest_pipe stage\n"
             "| append [| tstats fillnull_value=\"none\" avg(PREFIX(instantaneous_eps=)) AS eps "
             "where `ingest_doctor_metrics_log` TERM(group=thruput) TERM(name=index_thruput) " + HOSTS + " " + window + " "
             "by host PREFIX(ingest_pipe=) | rename \"ingest_pipe=\" AS ingest_pipe]\n"
             "| eventstats max(eps) AS eps BY host ingest_pipe\n"
             "| where isnotnull(stage)\n"
             "| eval busy_pct=round(busy_pct, 1), eps=round(eps, 0), "
             "saturates_eps=case(busy_pct<`ingest_doctor_headroom_min_busy_pct` OR isnull(eps), null(), "
             "busy_pct>=`ingest_doctor_thread_busy_pct`, eps, true(), round(eps*100/busy_pct, 0)), "
             "headroom=case(isnull(saturates_eps), \"-\", busy_pct>=`ingest_doctor_thread_busy_pct`, \"none left\", "
             "true(), tostring(saturates_eps-eps, \"commas\"))\n"
             "| sort 0 - busy_pct host ingest_pipe\n"
             "| table host ingest_pipe stage busy_pct eps saturates_eps headroom\n"
             "| rename ingest_pipe AS \"pipeline set\" busy_pct AS \"busy % of one core (now)\" eps AS \"events/s now\" "
             "saturates_eps AS \"events/s when it pegs\" headroom AS \"events/s left\"")


def _panels(d: Dash) -> None:
    """The fill chart, the chain table, bands, busiest threads, headroom, help."""
    d.add("viz_fill_time", "splunk.line", "Fullest queue per host and pipeline set ($agg$ per minute): top 5",
          "ds_fill_time",
          "The 5 hosts whose queues came fullest; each series the fullest of a set's queues, the 5 worst, the rest as "
          "\"others\". Red marks: blocked=true and findings. Dashed: ingest_doctor_queue_fill_pct.",
          dict(line_opts("fill %", 100), **ANNOTATION_OPTS),
          dataSources={"primary": "ds_fill_time", "annotation": "ds_blocked"})
    cf, ctx = table_colors({s: busy_bands(TH.queue_fill_pct) for s in CHAIN})
    cf["columnFormat"]["bottleneck"] = {
        "rowBackgroundColors": "> table | seriesByName(\"bottleneck\") | matchValue(bottleneckColors)",
        "rowColors": "> table | seriesByName(\"bottleneck\") | matchValue(bottleneckText)"}
    ctx["bottleneckColors"] = [{"match": "none", "value": OK}] + [{"match": s, "value": CRIT} for s in CHAIN]
    ctx["bottleneckText"] = text_on(ctx["bottleneckColors"])
    d.add("viz_chain", "splunk.table",
          "Chain " + " -> ".join(CHAIN) + ": queue fill % ($agg$) and the bottleneck", "ds_chain",
          "Per host and set, bottlenecks first, then the fullest. The bottleneck is the stage draining the last full "
          "queue. Click a row for the CPU of its processors.",
          cf, context=ctx,
          eventHandlers=[link("ingest_doctor_cpu_by_processor", host="$row.host.value$", pset="$row.ingest_pipe.value$",
                              scope="$scope$")])
    d.add("viz_pset_config", "splunk.table", "Pipeline sets, selection policy, indexer status", "ds_pset_config",
          "server.conf parallelIngestionPipelines, pipelineSetSelectionPolicy; the indexer now")
    d.add("viz_bands", "splunk.column", "Deployment: hosts per fill band (fullest queue, per hour)", "ds_bands",
          "Each host counted once per hour, in the band of its fullest queue over all its sets.",
          {"stackMode": "stacked", "xAxisTitleVisibility": "hide", "yAxisTitleText": "hosts",
           "legendTruncation": "ellipsisOff",
           "seriesColorsByField": dict(zip(FILL_BANDS, (OK, WARN, CRIT)))})
    d.add("viz_psets_time", "splunk.line", "Busiest thread busy % per host and set: top 5", "ds_psets_time",
          "metrics.log group=pipelineset name=load_metrics dutycycle_ratio, % of one core, max per 10 minutes; the "
          "rest as \"others\" (max).",
          line_opts("% of one core", 100))
    d.add("viz_psets_table", "splunk.table", "Busiest thread and assignment share per pipeline set", "ds_psets_table",
          "Busiest first. One set busy while the others idle: pipelineSetSelectionPolicy (server.conf).")
    hcf, hctx = table_colors({"busy % of one core (now)": busy_bands()})
    d.add("viz_headroom", "splunk.table", "Headroom now: events/s each stage of each set carries before it pegs one core",
          "ds_headroom",
          "Both averaged over the last 10 minutes of the range, as the engine judges: a stage at its threshold has "
          "none left. events/s x 100 / busy %: linear, same event mix (README: Headroom).", hcf, context=hctx)
    d.markdown("viz_chain_help", "How to read the chain",
               "Data flows **parsingQueue -> parsing -> aggQueue -> merging -> typingQueue -> typing -> indexQueue "
               "-> indexing -> output**. A stage that cannot keep up fills the queue in front of it, and back-pressure "
               "fills every queue upstream. So the bottleneck is the stage draining the **last** full queue, not the "
               "first.\n\n- **typing**: index-time regex (TRANSFORMS, SEDCMD): see *CPU by processor*.\n"
               "- **merging/parsing**: line merging and timestamp settings in props.conf.\n"
               "- **indexing**: disk or `parallelIngestionPipelines` (server.conf) when cores are free.\n"
               "- **output**: the indexers or the network; `compressed = true` in outputs.conf.")


def _agg_input(d: Dash) -> None:
    """The statistic the fill chart and the chain table use (a global input)."""
    d.inputs["input_agg"] = {"type": "input.dropdown", "title": "Fill statistic",
                             "options": {"items": [{"label": "Maximum", "value": "max"},
                                                   {"label": "90th percentile", "value": "perc90"},
                                                   {"label": "Median", "value": "median"}],
                                         "token": "agg", "defaultValue": "max"}}
    d.global_inputs.append("input_agg")


PARTS = (_agg_input, _queue_searches, _config_search, _load_searches, _panels)   # build_view (gen_views.py) runs these in order
