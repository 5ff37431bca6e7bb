"""What each shipped search selects: the one table the search cost model (tools/searchcost.py)
counts from, keyed by scheduled search (its stanza) or data source ("<view>/<data source id>").

One Read per generating segment of the SPL, in the SPL's order: the search itself first, then each
`[ ... ]` subsearch as it opens, then each generating command in append mode inside a pipeline
(`| inputlookup append=true`, `| tstats ... append=t`) as it comes (tools/searchspl.py segments()). kind, source, select and terms are
what the SPL says (tests/gates/test_gates_searchcost.py compares them); hosts and rows are what the
SPL cannot say by itself: which instances' data it reaches and the grain of what it sends to the
search head (see Read in tools/searchcost.py). A ds.chain post-process is CHAIN.

Change a search, then change its entry here: the gate fails until both agree.
"""
from searchcost import CHAIN, Read

ML = "metrics.log"
FINDINGS = Read("inputlookup", "kv", ("ingest_doctor_findings",), rows=("findings", 1))
HOSTS = (Read("metadata", "hostmeta", rows=("hosts", 1)),)
PSETS = (Read("tstats", ML, ("queue",), ("group=queue", "name=typingqueue"), rows=("const", 3)),)
# The last 15 minutes of the range (macro ingest_doctor_range_end): a subsearch giving its parent earliest/latest.
NOW = Read("makeresults", "none", rows=("const", 1))
# dutycycle's stage threads (long layout), averaged inside tstats per host, set and thread.
DC_NOW = Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "name=ingest"), hosts="pipeline",
              rows=("hosts", "set_threads"))
DC_ROWS = Read("raw", ML, ("dutycycle",), ("group=dutycycle",), rows=("hosts", "threads", 60))
# Thread activity's ranking subsearch: the hosts whose stage threads (dutycycle) or collector threads peaked highest.
BUSIEST_T = Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "name=ingest"), hosts="pipeline", rows=("hosts", 1),
                 out=("const", 5))
BUSIEST_M = Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="pipeline", rows=("hosts", 1))
THREADS_1M = Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), rows=("hosts", "threads", 60))
HEC_COUNTERS = Read("raw", "introspection", rows=("hosts", 4, 300))
# The chain's queue names (default/macros.conf ingest_doctor_chain_queue_terms, generated from model.py).
CHAIN_QUEUES = tuple("name=%s" % q for q in ("parsingqueue", "aggqueue", "typingqueue", "indexqueue", "splunktcpin",
                                             "tcpin_queue", "tcpin_cooked_pqueue", "tcpout*"))
# default/macros.conf ingest_doctor_pipeline_hosts: a subsearch of the hosts with group=pipelineset lines.
PIPELINE_HOSTS = Read("tstats", ML, ("pipelineset",), ("group=pipelineset",), rows=("hosts", 1))
# The views' Instances input defaults to that macro (token $scope$): beside every host filter of their metrics.log
# searches.
PIPE = PIPELINE_HOSTS

SELECTS = {
    # ---------------------------------------------------------------- scheduled searches
    "Ingest Doctor - Thread - Saturated splunkd thread": (
        Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "name=ingest"), rows=("span", 30)),
        Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "name=misc"), rows=("span", 30), out=("hosts", 1)),
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), rows=("hosts", "threads", 10),
             out=("hosts", "threads")),
    ),
    "Ingest Doctor - Queues - Blocked or saturated pipeline queues": (
        Read("tstats", ML, ("queue",), ("group=queue",) + CHAIN_QUEUES, hosts="pipeline", rows=("span", 30)),
        PIPELINE_HOSTS,
        # issue 37: cluster peers' replication-queue lines, one row per peer and target; the search head's own
        # list of its search peers (guid -> server name), local; the replication receiver thread; maxKBps lines
        Read("tstats", "splunkd.log", (), ("replication", "queue", "full"), rows=("hosts", 1)),
        Read("rest", "rest", ("/services/search/distributed/peers",), rows=("peers", 1)),
        Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "thread=replicationdatareceiverthread"),
             rows=("span", 30), out=("hosts", 1)),
        Read("raw", "splunkd.log", (), ("ThruputProcessor", "maxKBps"), rows=("hosts", 1)),
        # the HEC back-pressure replies of the flagged hosts (the HEC busy alert's count): an autoLB sender's 503s
        # meet its output's bursts and its receivers in one run
        Read("tstats", "splunkd.log", (), ("HttpInputDataHandler", "reply=9", "reply=18", "reply=19", "reply=20",
                                           "reply=26", "reply=27"), rows=("hosts", 1)),
    ),
    "Ingest Doctor - HEC - Server busy": (
        Read("tstats", "splunkd.log", (), ("HttpInputDataHandler", "reply=9", "reply=18", "reply=19", "reply=20",
                                           "reply=26", "reply=27"), rows=("hosts", 1)),
        Read("mstats", "metrics", ("ingest_doctor.hec.health_rtt_ms",), rows=("hosts", 1, 10), out=("hosts", 1)),
    ),
    "Ingest Doctor - HEC - Request latency high": (
        Read("mstats", "metrics", ("ingest_doctor.hec.latency_ms",), rows=("hosts", 1, 10)),
    ),
    "Ingest Doctor - HEC - Listener limits reached": (
        Read("raw", "splunkd.log", (), ("HttpListener",), rows=("hosts", 1)),
    ),
    "Ingest Doctor - Indexing - Index processor throttled": (
        Read("rest", "rest", ("/services/server/introspection/indexer",), rows=("peers", 1)),
        Read("mstats", "metrics", ("ingest_doctor.indexer.throttled",), rows=("hosts", 1, 10), out=("hosts", 1)),
    ),
    "Ingest Doctor - Findings - Resolve findings no longer seen": (
        Read("inputlookup", "kv", ("ingest_doctor_findings",), rows=("findings", 0.5)),
    ),
    "Ingest Doctor - Findings - Collector findings": (
        Read("raw", "events", ("ingest_doctor:finding",)),
    ),
    "Ingest Doctor - Lookups - Known hosts": (
        Read("tstats", ML, ("thruput",), ("group=thruput", "name=thruput"), rows=("hosts", 1)),
        Read("inputlookup", "kv", ("ingest_doctor_known_hosts",), rows=("instances", 1)),
    ),
    "Ingest Doctor - Lookups - Topology": (
        Read("tstats", ML, ("tcpin_connections",), ("group=tcpin_connections",), rows=("pairs",)),
    ),
    "Ingest Doctor - Silence - Instance stopped reporting": (
        Read("inputlookup", "kv", ("ingest_doctor_known_hosts",), rows=("instances", 1)),
    ),

    # ---------------------------------------------------------------- CPU by processor
    "ingest_doctor_cpu_by_processor/ds_hosts": HOSTS,
    "ingest_doctor_cpu_by_processor/ds_psets": PSETS,
    "ingest_doctor_cpu_by_processor/ds_cpu": (
        # per minute and processor on the 5 pipeline sets a subsearch ranks by their summed cpu_seconds (a set of an
        # indexer and a heavy forwarder's only set both carry 21 processors: counted as 5 heavy forwarders)
        Read("tstats", ML, ("pipeline",), ("group=pipeline",), hosts="top5", rows=("hosts", "processors", 60)), PIPE,
        Read("tstats", ML, ("pipeline",), ("group=pipeline",), hosts="pipeline", rows=("hosts", "psets"),
             out=("const", 5)), PIPE,
    ),
    "ingest_doctor_cpu_by_processor/ds_cpu_time": CHAIN,
    "ingest_doctor_cpu_by_processor/ds_cpu_table": CHAIN,
    "ingest_doctor_cpu_by_processor/ds_cpu_unreliable": CHAIN,
    "ingest_doctor_cpu_by_processor/ds_regex_share": CHAIN,
    "ingest_doctor_cpu_by_processor/ds_regex_st": (
        Read("raw", ML, ("per_sourcetype_regex_cpu",), ("group=per_sourcetype_regex_cpu",), hosts="pipeline",
             rows=("hosts", "series", 60)), PIPE,
    ),
    "ingest_doctor_cpu_by_processor/ds_indexer_cpu": (
        Read("tstats", ML, ("pipeline",), ("group=pipeline", "name=indexerpipe", "processor=indexer"),
             hosts="pipeline", rows=("span", 600)), PIPE,
    ),
    "ingest_doctor_cpu_by_processor/ds_props_findings": (FINDINGS,),

    # ---------------------------------------------------------------- Findings
    "ingest_doctor_findings/ds_hosts": HOSTS,
    "ingest_doctor_findings/ds_findings": (FINDINGS,),
    "ingest_doctor_findings/ds_findings_table": CHAIN,
    "ingest_doctor_findings/ds_findings_evidence": CHAIN,
    "ingest_doctor_findings/ds_findings_kpi": CHAIN,
    "ingest_doctor_findings/ds_findings_all": (FINDINGS,),
    "ingest_doctor_findings/ds_findings_by": CHAIN,
    # a few documents each: what admins acknowledged or snoozed
    "ingest_doctor_findings/ds_holds": (Read("inputlookup", "kv", ("ingest_doctor_snoozes",), rows=("const", 20)),
                                        Read("inputlookup", "kv", ("ingest_doctor_acks",), rows=("const", 20))),

    # ---------------------------------------------------------------- HEC performance (the landing page)
    "ingest_doctor_hec_performance/ds_hosts": HOSTS,
    "ingest_doctor_hec_performance/ds_psets": PSETS,
    "ingest_doctor_hec_performance/ds_overview": (
        Read("tstats", ML, ("queue",), ("group=queue",), hosts="pipeline", rows=("hosts", "queues")), PIPE, NOW,
        DC_NOW, PIPE, NOW,
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="pipeline", rows=("hosts", "threads")),
        PIPE, NOW,
        Read("rest", "rest", ("/services/server/info",), rows=("peers", 1)), PIPE,
        FINDINGS, PIPE,
    ),
    "ingest_doctor_hec_performance/ds_flow": (
        Read("tstats", ML, ("tcpin_connections",), ("group=tcpin_connections", "fwdType=full"), rows=("events", 1)),
        NOW,
        Read("tstats", ML, ("tcpin_connections",), ("group=tcpin_connections", "fwdType=uf"), rows=("hosts", 1, 30),
             out=("hosts", 1)), NOW,
        PIPE,
        Read("raw", "introspection", hosts="hec", rows=("hosts", 4, 300), out=("hosts", 1)), PIPE, NOW,
        FINDINGS,
    ),
    "ingest_doctor_hec_performance/ds_hec": (HEC_COUNTERS,),
    "ingest_doctor_hec_performance/ds_hec_kpi": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_eps": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_mbps": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_tokens": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_error_classes": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_batching": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_errors": (
        Read("raw", "splunkd.log", (), ("HttpInputDataHandler",)),
    ),
    "ingest_doctor_hec_performance/ds_hec_errors_time": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_errors_table": CHAIN,
    "ingest_doctor_hec_performance/ds_hec_latency": (
        Read("mstats", "metrics", ("ingest_doctor.hec.latency_ms",), rows=("hosts", 1, 60)),
    ),
    "ingest_doctor_hec_performance/ds_hec_health": (
        Read("mstats", "metrics", ("ingest_doctor.hec.health_rtt_ms",), rows=("hosts", "codes")),
    ),
    "ingest_doctor_hec_performance/ds_next": (
        DC_NOW, PIPE, NOW,
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="pipeline", rows=("hosts", "threads")),
        PIPE, NOW,
    ),
    "ingest_doctor_hec_performance/ds_hec_thread": (
        Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "name=ingest", "thread=httpinputserverdatathread"),
             hosts="hec", rows=("hosts", 1, 120)), PIPE,
        # the collector's /proc thread on the 5 collectors a subsearch ranks first (by the chart's own key)
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="top5", rows=("hosts", 1, 120)), PIPE,
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="hec", rows=("hosts", 1, 120),
             out=("const", 5)), PIPE,
    ),
    "ingest_doctor_hec_performance/ds_hec_findings_ann": (FINDINGS,),
    "ingest_doctor_hec_performance/ds_hec_queues": (
        Read("tstats", ML, ("queue",), ("group=queue",), hosts="top5", rows=("span", 30)), PIPE,
        Read("tstats", ML, ("queue",), ("group=queue",), hosts="hec", rows=("hosts", "queues"), out=("const", 5)),
        PIPE,
        Read("tstats", "introspection", hosts="hec", rows=("hosts", 1)), PIPE,
    ),
    "ingest_doctor_hec_performance/ds_hec_lag": (
        Read("raw", "hecdata", rows=("peers", 1, 60)),
        Read("rest", "rest", ("/services/data/inputs/http",), rows=("peers", 3), out=("const", 5)),
        Read("makeresults", "none", rows=("const", 1)), NOW,
    ),
    "ingest_doctor_hec_performance/ds_hec_settings": (
        Read("rest", "rest", ("/services/data/inputs/http",), rows=("peers", 3)),
        Read("rest", "rest", ("/services/data/inputs/http/http",), rows=("peers", 1)),
        Read("raw", "events", ("ingest_doctor:config",), rows=("hosts", 1)),
    ),
    "ingest_doctor_hec_performance/ds_open_findings": (FINDINGS,),

    # ---------------------------------------------------------------- Pipeline sets
    "ingest_doctor_pipeline_sets/ds_hosts": HOSTS,
    "ingest_doctor_pipeline_sets/ds_psets": PSETS,
    "ingest_doctor_pipeline_sets/ds_queues": (
        # per 30 s on the 5 hosts a subsearch ranks fullest
        Read("tstats", ML, ("queue",), ("group=queue",), hosts="top5", rows=("span", 30)), PIPE,
        Read("tstats", ML, ("queue",), ("group=queue",), hosts="pipeline", rows=("hosts", "queues"), out=("const", 5)),
        PIPE,
    ),
    "ingest_doctor_pipeline_sets/ds_blocked": (
        Read("tstats", ML, ("queue",), ("group=queue", "blocked=true"), hosts="pipeline", rows=("span", 300)), PIPE,
        FINDINGS, PIPE,
    ),
    "ingest_doctor_pipeline_sets/ds_fill_time": CHAIN,
    "ingest_doctor_pipeline_sets/ds_chain": (
        Read("tstats", ML, ("queue",), ("group=queue",), hosts="pipeline", rows=("hosts", "queues")), PIPE,
    ),
    "ingest_doctor_pipeline_sets/ds_bands": (
        Read("tstats", ML, ("queue",), ("group=queue",) + CHAIN_QUEUES, hosts="pipeline", rows=("span", 3600)), PIPE,
    ),
    "ingest_doctor_pipeline_sets/ds_pset_config": (
        Read("raw", "events", ("ingest_doctor:config",), rows=("hosts", 1)),
        Read("mstats", "metrics", ("ingest_doctor.indexer.throttled",), rows=("hosts", 1, 60), out=("hosts", 1)), NOW,
    ),
    "ingest_doctor_pipeline_sets/ds_psets_load": (
        Read("tstats", ML, ("pipelineset",), ("group=pipelineset", "name=load_metrics"), hosts="pipeline",
             rows=("span", 600)), PIPE,
    ),
    "ingest_doctor_pipeline_sets/ds_psets_time": CHAIN,
    "ingest_doctor_pipeline_sets/ds_psets_table": (
        # per host, set and busiest thread (at most a set's stage threads)
        Read("tstats", ML, ("pipelineset",), ("group=pipelineset", "name=load_metrics"), hosts="pipeline",
             rows=("hosts", "stages")), PIPE,
    ),
    "ingest_doctor_pipeline_sets/ds_headroom": (
        # the last ingest_doctor_sustained_window_min minutes (macro ingest_doctor_sustained_window), averaged inside
        DC_NOW, PIPE, NOW,
        Read("tstats", ML, ("thruput",), ("group=thruput", "name=index_thruput"), hosts="pipeline",
             rows=("hosts", "psets")), PIPE, NOW,
    ),

    # ---------------------------------------------------------------- Setup
    "ingest_doctor_setup/ds_instances": (
        # the heartbeat line (group=thruput name=thruput: one per instance and interval), not every line
        Read("tstats", ML, ("thruput",), ("group=thruput", "name=thruput"), rows=("hosts", 1)),
        Read("mstats", "metrics", ("ingest_doctor.host.cores",), rows=("hosts", 1)),
        Read("mstats", "metrics", ("ingest_doctor.hec.latency_ms",), rows=("hosts", 1)),
        Read("rest", "rest", ("/services/server/info",), rows=("peers", 1)),
        # the search head's view of the tiers (tools/dashboards/setup_checks.py TIER_ENDPOINTS): one entry each,
        # the search head cluster's members one each
        Read("rest", "rest", ("/services/shcluster/member/members",), rows=("const", 3)),
        Read("rest", "rest", ("/services/cluster/config",), rows=("const", 1)),
        Read("rest", "rest", ("/services/shcluster/config",), rows=("const", 1)),
        Read("rest", "rest", ("/services/licenser/localslave",), rows=("const", 1)),
        Read("rest", "rest", ("/services/deployment/client/config",), rows=("peers", 1)),
        # the instances that run HEC: its metrics in _introspection, one row per host
        Read("tstats", "introspection", rows=("hosts", 1)),
        Read("tstats", ML, ("tcpin_connections",), ("group=tcpin_connections", "fwdType=uf"), rows=("senders",)),
    ),
    "ingest_doctor_setup/ds_metrics_index": (
        Read("rest", "rest", ("/services/server/info",), rows=("peers", 1)),
        Read("rest", "rest", ("/services/data/indexes",), rows=("peers", 40)),
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/configs/conf-macros/ingest_doctor_metrics_index",),
             rows=("const", 1)),
    ),
    "ingest_doctor_setup/ds_events_index": (
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/configs/conf-macros/ingest_doctor_events_index",),
             rows=("const", 1)),
        # the indexers among the search peers (server_roles), then the index on each peer: splunkd filters the
        # list by the macro's index (the endpoint's search parameter, from a subsearch): one row per peer
        Read("rest", "rest", ("/services/server/info",), rows=("peers", 1)),
        Read("rest", "rest", ("/services/data/indexes",), rows=("peers", 1)),
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/configs/conf-macros/ingest_doctor_events_index",),
             rows=("const", 1)),
    ),
    "ingest_doctor_setup/ds_hec_data": (
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/configs/conf-macros/ingest_doctor_hec_data",),
             rows=("const", 1)),
        Read("rest", "rest", ("/services/data/inputs/http",), rows=("peers", 3), out=("const", 1)),
    ),
    "ingest_doctor_setup/ds_notifications": (
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/configs/conf-macros",), rows=("const", 2)),
        Read("rest", "rest", ("/servicesNS/nobody/ingest_doctor/storage/passwords",), rows=("const", 1)),
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/configs/conf-alert_actions/ingest_doctor_flag",),
             rows=("const", 1)),
        Read("rest", "rest", ("/servicesNS/-/ingest_doctor/saved/searches",), rows=("const", 10), out=("const", 1)),
    ),
    "ingest_doctor_setup/ds_logs": (
        Read("makeresults", "none", rows=("const", 2)),
        Read("raw", "applogs", rows=("const", 2)),
    ),

    # ---------------------------------------------------------------- Thread activity
    "ingest_doctor_thread_activity/ds_hosts": HOSTS,
    "ingest_doctor_thread_activity/ds_psets": PSETS,
    "ingest_doctor_thread_activity/ds_dc": (
        # per minute on the 5 hosts a subsearch ranks busiest (dutycycle's stage threads and the collector's peak)
        DC_ROWS._replace(hosts="top5"), PIPE, BUSIEST_T, PIPE, BUSIEST_M, PIPE,
        THREADS_1M._replace(hosts="top5"), PIPE, BUSIEST_T, PIPE, BUSIEST_M, PIPE,
    ),
    "ingest_doctor_thread_activity/ds_threads_time": CHAIN,
    "ingest_doctor_thread_activity/ds_threads": (
        # counted per host, set and thread inside the searches
        DC_ROWS._replace(hosts="pipeline", rows=("hosts", "threads")), PIPE,
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="pipeline", rows=("hosts", "threads")),
        PIPE,
        Read("mstats", "metrics", ("ingest_doctor.thread.busy_pct",), hosts="pipeline", rows=("hosts", "threads")),
        PIPE, NOW,
    ),
    "ingest_doctor_thread_activity/ds_threads_over": CHAIN,
    "ingest_doctor_thread_activity/ds_threads_heat": CHAIN,
    "ingest_doctor_thread_activity/ds_thread_drill": (
        # the drilldown's thread on its host, or on the 5 where it peaked highest
        Read("raw", ML, ("dutycycle",), ("group=dutycycle",), hosts="top5", rows=("hosts", 1, 60)), PIPE,
        Read("tstats", ML, ("dutycycle",), ("group=dutycycle", "name=ingest", "thread=httpinputserverdatathread"),
             hosts="pipeline", rows=("hosts", 1), out=("const", 5)), PIPE,
    ),
    "ingest_doctor_thread_activity/ds_cpu_trap": (
        Read("mstats", "metrics", ("ingest_doctor.splunkd.cpu_pct", "ingest_doctor.host.cores"), rows=("hosts", 2)),
    ),
}

# The Setup view's verdict runs every check's own search once more (tools/dashboards/setup_checks.py
# spl_verdict: a makeresults, then each check appended, in the view's order).
# Each check is counted inside its subsearch: the subsearch returns one row (`out`).
SELECTS["ingest_doctor_setup/ds_verdict"] = (NOW,) + tuple(
    r._replace(out=("const", 1)) if i == 0 else r
    for key in ("ds_instances", "ds_metrics_index", "ds_events_index", "ds_hec_data", "ds_notifications", "ds_logs")
    for i, r in enumerate(SELECTS["ingest_doctor_setup/" + key]))
