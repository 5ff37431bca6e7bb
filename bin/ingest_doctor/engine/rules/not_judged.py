"""What could not be judged, and why, in words an admin understands (the report's `not_judged`)."""
from __future__ import annotations

from ingest_doctor.read import endpoints
from ingest_doctor import model
from ingest_doctor.engine.rules.state import State

# A finding's recommendation shows the current setting only when its configuration was read.
NEEDS_CONFIG = {
    model.HEC_INPUT: (endpoints.HEC_SETTINGS, "HEC settings (dedicatedIoThreads, maxThreads)"),
    "typing": (endpoints.PROPS, "props.conf settings of the sourcetypes"),
    "merging": (endpoints.PROPS, "props.conf settings of the sourcetypes"),
    "parsing": (endpoints.PROPS, "props.conf settings of the sourcetypes"),
    "indexing": (endpoints.SERVER_GENERAL, "parallelIngestionPipelines"),
    "output": (endpoints.TCPOUT, "outputs.conf [tcpout] settings"),
    model.PIPELINE_SET_IMBALANCE: (endpoints.SERVER_GENERAL, "pipelineSetSelectionPolicy"),
}


def run(st: State) -> None:
    ev = st.ev
    seen = set(ev.sources)
    nj = st.not_judged
    for p in ev.problems:
        nj.append("%s; its data was not judged" % p)
    if not seen and not ev.queues and not ev.threads:
        nj.insert(0, "no evidence could be read: nothing was judged")
    if not ev.queues:
        nj.append("no queue data (services/server/introspection/queues, metrics.log group=queue): "
                  "queue-chain localisation not judged")
    if not (ev.threads or ev.pipelinesets or ev.processors):
        nj.append("no thread data (metrics.log group=dutycycle/pipeline, services/server/pipelinesets, "
                  "/proc): thread saturation not judged")
    if ev.indexer is None and "logs/splunkd.log" not in seen:
        nj.append("no services/server/introspection/indexer: index processor throttling not judged")
    if not st.cores() or ev.host_cpu.host_cpu_pct is None:
        nj.append("host CPU or core count unknown (services/server/status/resource-usage/hostwide, "
                  "services/server/info): CPU headroom and host CPU exhaustion not judged")
    if ev.host_cpu.splunkd_cpu_pct is None:
        nj.append("splunkd CPU unknown (services/server/status/resource-usage/splunk-processes): hidden "
                  "single-core saturation not judged")
    if not ev.hec_probes and not ev.hec_errors and "logs/splunkd.log" not in seen:
        nj.append("no HEC health probes (hec/health.json) or splunkd.log: HEC 503 symptoms not judged")
    # In the pipeline's order, not the drafts' (which follows set iteration): the same report every run.
    for (bottleneck, _), d in sorted(st.drafts.items(), key=_pipeline_order):
        need = NEEDS_CONFIG.get(bottleneck)
        if bottleneck == model.HEC_INPUT and d.inputs and not d.hec:
            continue                    # another input (file monitor): no HEC settings to show
        if need and d.severity != "info" and need[0] not in seen:
            st.note("no %s: the %s recommendation cannot show the current %s" % (need[0], bottleneck, need[1]))


def _pipeline_order(item):
    (bottleneck, pset), _ = item
    return model.BOTTLENECK_ORDER.get(bottleneck, 9), bottleneck, -1 if pset is None else pset

