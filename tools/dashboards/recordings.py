"""The recorded panels of the five views, each beside the aggregation steps of its search.

See panels.py for how the steps are checked against the views. Panel functions take the
simulated deployment (sim.Deployment) and return splunkd's json_rows ({fields, rows}).
"""
from __future__ import annotations

import math

import sim
from spl import FILL_BANDS, HEC_BIN_S, PROC_HEC_LABEL, PROC_HEC_SUFFIX
from views.cpu_by_processor import BUSIEST_SETS
from views.hec_performance import TOP_THREAD_HOSTS
from panels import (BUSY_PCT, END, HEADROOM_MIN_PCT, LATENCY_MS, N, NO_FINDING, QUEUE_PCT, REGEX_SHARE_PCT, START,
                    TH, THREAD_PCT, group,
                    iso, last_minutes, message, open_findings, panel, result, series_host_set, sround, stage_of,
                    step, strftime, timechart, top_series)

HEC, THR, PS, CPU, FND = ("ingest_doctor_hec_performance", "ingest_doctor_thread_activity",
                          "ingest_doctor_pipeline_sets", "ingest_doctor_cpu_by_processor", "ingest_doctor_findings")
TOP = "top(%s,5)"
THRESHOLD = {"threshold": THREAD_PCT}
SUSTAINED_WINDOW_MIN = TH.sustained_window_min   # the headroom's window, as the engine's
RECENT_S = 900              # "now" at the top of a view: the last 15 minutes of the range


def tc(rows, value, step, extra=None, start=START):
    return timechart(top_series(rows, value, N), step, extra, start)


# The landing page's range: its last hour (sim.HEC_START). Its panels see rows from then on; "now" panels the
# last 15 minutes of it.
def hec_range(rows):
    return [r for r in rows if r["_time"] >= sim.HEC_START]


def hec_tc(rows, value, step, extra=None):
    return tc(hec_range(rows), value, step, extra, sim.HEC_START)


# ----------------------------------------------------------------------------- HEC performance
@panel(HEC, "ds_overview",
       "stats avg(fill_pct) AS value BY host ingest_pipe stage stage_order",
       "stats avg(busy_pct) AS value BY host ingest_pipe stage stage_order",
       "sort 0 symptom severity_rank - last_seen_epoch", "dedup host", "sort 0 host - score",
       "stats first(stage) AS worst_stage first(ingest_pipe) AS pipeline_set first(reading) AS reading max(score) AS score "
       "max(eval(if(stage==\"hec_input\", 1, 0))) AS hec max(eval(if(stage==\"output\", 1, 0))) AS fwd first(rest_role) "
       "AS rest_role first(finding) AS finding first(settings) AS settings min(severity_rank) AS severity_rank "
       "max(symptom) AS symptom BY host",
       "sort 0 symptom - score severity_rank host", "stats count")
def overview(dep):
    readings = []
    for (h, p, stage, order), rs in group([r for r in last_minutes(list(dep.queue_rows()))],
                                          "host", "ingest_pipe", "stage", "stage_order").items():
        v = sum(r["fill_pct"] for r in rs) / len(rs)
        readings.append(dict(host=h, ingest_pipe=p, stage=stage, order=order, value=v, limit=QUEUE_PCT,
                             reading="%s queue %d%% full" % (stage, sround(v))))
    for (h, p, thread), rs in group(last_minutes(list(dep.dutycycle_rows())), "host", "ingest_pipe", "thread").items():
        stage, order = stage_of(thread, dep)
        if stage is None:
            continue                      # `where isnotnull(stage)`: e.g. the collector's /proc httpinputserver
        v = sum(r["busy_pct"] for r in rs) / len(rs)
        readings.append(dict(host=h, ingest_pipe=p, stage=stage, order=order, value=v, limit=THREAD_PCT,
                             reading="%s thread %d%% of one core" % (stage, sround(v))))
    for r in readings:
        r["score"] = 1000 + r["order"] * 100 + r["value"] if r["value"] >= r["limit"] else r["value"]
    found = {}
    # `eval symptom=...` then `sort 0 symptom severity_rank - last_seen_epoch | dedup host`: a host's root cause first
    for f in sorted(open_findings(dep), key=lambda f: (1 if f["caused_by"] else 0, f["severity_rank"], -f["last_seen"])):
        found.setdefault(f["host"], f)
    rows = []
    for h, rs in group(readings, "host").items():
        worst = sorted(rs, key=lambda r: -r["score"])[0]
        f = found.get(h[0])
        role = (dep.roles(h[0]) or ("forwarder" if any(r["stage"] == "output" for r in rs) else "instance")) + \
            (" + HEC" if any(r["stage"] == "hec_input" for r in rs) else "")
        state = "saturated" if worst["score"] >= 1000 else "busy" if worst["score"] >= BUSY_PCT else "ok"
        symptom = 1 if f and f["caused_by"] else 0
        rows.append((symptom, -worst["score"], f["severity_rank"] if f else 3, h[0], [
            h[0], role, state, worst["stage"], worst["ingest_pipe"], worst["reading"],
            (f["severity"] + ": " + f["bottleneck"] + ("" if f["pipeline_set"] == "-" else " (set %s)" % f["pipeline_set"])
             + (", " + f["cause"] if f["cause"] else ""))
            if f else "none open",
            (f["settings"] or f["advice"]) if f else ("open the stage's view" if state == "saturated" else "-")]))
    return result(["host", "role", "state", "worst stage", "pipeline_set", "its reading (last 15 min)", "open finding",
                   "what to change"], [r[4] for r in sorted(rows)])


def totals(dep):
    return [r for r in hec_range(dep.hec_rows()) if r["series"] == "http_event_collector"]


def tokens(dep):
    return [r for r in hec_range(dep.hec_rows()) if r["series"] == "http_event_collector_token"]


@panel(HEC, "ds_hec_kpi", "eventstats max(_time) AS last_time",
       "stats sum(events) AS events sum(requests) AS requests sum(bytes_in) AS bytes_in dc(_time) AS bins")
def hec_kpi(dep):
    """Now: the last 15 minutes of the range (`where _time>last_time-900`: 3 bins of 5 minutes), not the range."""
    rs = totals(dep)
    last = max(r["_time"] for r in rs)
    rs = [r for r in rs if r["_time"] > last - RECENT_S]
    ev, req, b = (sum(r[k] for r in rs) for k in ("events", "requests", "bytes_in"))
    secs = len({r["_time"] for r in rs}) * HEC_BIN_S
    return result(["eps", "mbps", "rps", "epr"], [[sround(ev / secs), sround(b / secs / 1048576, 2),
                                                  sround(req / secs, 1), sround(ev / req, 1)]])


@panel(HEC, "ds_hec_eps", TOP % "eps", "timechart span=5m sum(eps) BY series limit=0 useother=false")
def hec_eps(dep):
    rows = [dict(r, eps=sround(r["events"] / HEC_BIN_S, 1), series=r["host"]) for r in totals(dep)]
    return tc(rows, "eps", step(HEC, "ds_hec_eps"), start=sim.HEC_START)


@panel(HEC, "ds_hec_mbps", TOP % "mbps", "timechart span=5m sum(mbps) BY series limit=0 useother=false")
def hec_mbps(dep):
    rows = [dict(r, mbps=sround(r["bytes_in"] / HEC_BIN_S / 1048576, 3), series=r["host"]) for r in totals(dep)]
    return tc(rows, "mbps", step(HEC, "ds_hec_mbps"), start=sim.HEC_START)


@panel(HEC, "ds_hec_tokens",
       "stats sum(events) AS events sum(requests) AS requests sum(bytes_in) AS bytes_in max(waiting_ack) AS waiting_ack "
       "dc(_time) AS bins BY host token", "sort - eps")
def hec_tokens(dep):
    rows = []
    for (h, tok), rs in group(tokens(dep), "host", "token").items():
        ev, req, b = (sum(r[k] for r in rs) for k in ("events", "requests", "bytes_in"))
        secs = len({r["_time"] for r in rs}) * HEC_BIN_S
        rows.append([h, tok, sround(ev / secs, 1), sround(b / secs / 1048576, 3), sround(req / secs, 2),
                     sround(ev / req, 1), max(r["waiting_ack"] for r in rs)])
    rows.sort(key=lambda r: -r[2])
    return result(["host", "token", "events/s", "MB/s", "requests/s", "events/request", "max requests waiting ack"], rows)


CLASSES = ("auth_failures", "parser_errors", "disabled_token", "incorrect_url")


@panel(HEC, "ds_hec_error_classes",
       "stats " + " ".join("sum({0}) AS {0}".format(f) for f in CLASSES) + " BY host", "sort 0 - refused host",
       "stats count")
def hec_error_classes(dep):
    rows = []
    for (h,), rs in group(totals(dep), "host").items():
        counts = [sum(r[f] for r in rs) for f in CLASSES]
        if sum(counts):
            rows.append([h] + counts)
    rows.sort(key=lambda r: (-sum(r[1:]), r[0]))
    if not rows:
        return message("No HEC request refused for a failed authentication, a parser error, a disabled token or a "
                       "wrong URL in this time range (_introspection HttpEventCollector).")
    return result(["host", "auth failures", "parser errors", "disabled token", "incorrect URL"], rows)


@panel(HEC, "ds_hec_batching", "stats sum(events) AS events sum(requests) AS requests BY token", "sort events_per_request")
def hec_batching(dep):
    rows = [[tok[0], sround(sum(r["events"] for r in rs) / sum(r["requests"] for r in rs), 1)]
            for tok, rs in group(tokens(dep), "token").items()]
    return result(["token", "events_per_request"], sorted(rows, key=lambda r: r[1]))


@panel(HEC, "ds_hec_errors_time", "bin _time span=5m", "stats count AS errors BY _time series", TOP % "errors",
       "timechart span=5m sum(errors) BY series limit=0 useother=false")
def hec_errors_time(dep):
    rows = [dict(_time=t - (t - START) % 300, series=s) for t, s in
            ((r["_time"], r["host"] + " " + r["reply_label"]) for r in hec_range(dep.hec_reply_rows()))]
    counted = [dict(_time=k[0], series=k[1], errors=len(v)) for k, v in group(rows, "_time", "series").items()]
    return hec_tc(counted, "errors", step(HEC, "ds_hec_errors_time"))


@panel(HEC, "ds_hec_errors_table",
       "stats count AS errors latest(_time) AS last_seen values(hec_token) AS tokens BY host reply http_status meaning action",
       "sort 0 - errors host reply", "stats count")
def hec_errors_table(dep):
    rows = []
    for (h, reply, status, meaning, action), rs in group(hec_range(dep.hec_reply_rows()), "host", "reply", "http_status",
                                                         "meaning", "action").items():
        rows.append([h, "%s (HTTP %s)" % (reply, status), meaning, len(rs),
                     ", ".join(sorted({r["hec_token"] for r in rs})), action, strftime(max(r["_time"] for r in rs))])
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    if not rows:
        return message("No HEC request was rejected in this time range (splunkd.log HttpInputDataHandler).")
    return result(["host", "reply", "meaning", "errors", "tokens", "action", "last_seen"], rows)


@panel(HEC, "ds_hec_latency", TOP % "p95", "timechart span=1m max(p95) BY series limit=0 useother=false")
def hec_latency(dep):
    rows = [dict(r, series=r["host"]) for r in dep.latency_rows()]
    return hec_tc(rows, "p95", step(HEC, "ds_hec_latency"), {"threshold": LATENCY_MS})


@panel(HEC, "ds_hec_health", "sort 0 healthy - probes host", "stats count")
def hec_health(dep):
    rows = [[r["host"], r["code"], dep.replies[r["code"]]["meaning"], r["probes"], sround(r["avg_rtt_ms"], 1),
             sround(r["max_rtt_ms"], 1)] for r in dep.health_rows()]
    rows.sort(key=lambda r: (r[1] == "17", -r[3], r[0]))
    return result(["host", "code", "meaning", "probes", "avg_rtt_ms", "max_rtt_ms"], rows)


def top_collectors(rows, n=TOP_THREAD_HOSTS):
    """The ranking subsearch of ds_hec_thread's collector part: `mstats max(_value) ... BY host span=2m | stats
    max(busy_pct) AS peak avg(busy_pct) AS mean BY host | sort 0 - peak - mean host | head n`, over the collector's
    rows (each a reading of the /proc thread: its max per 2 minutes is the max of the readings in them)."""
    bins = {}
    for r in rows:
        k = (r["host"], r["_time"] - r["_time"] % 120)
        bins[k] = max(bins.get(k, r["busy_pct"]), r["busy_pct"])
    stats = {}
    for (h, _), v in bins.items():
        stats.setdefault(h, []).append(v)
    order = sorted(stats, key=lambda h: (-max(stats[h]), -sum(stats[h]) / len(stats[h]), h))
    return set(order[:n])


@panel(HEC, "ds_hec_thread", "stats max(busy_pct) AS peak avg(busy_pct) AS mean BY host", "sort 0 - peak - mean host",
       "head %d" % TOP_THREAD_HOSTS, TOP % "busy_pct",
       "timechart span=2m max(busy_pct) BY series limit=0 useother=false")
def hec_thread(dep):
    # the data thread by its full name, and the collector's /proc name labelled as data or management thread, on the
    # collectors the subsearch ranks first; each source's max per 2 minutes (tstats/mstats span=2m) is the max of the
    # minutes the simulation gives
    rows = hec_range([r for r in dep.dutycycle_rows() if r["thread"] in (sim.HEC_THREAD, sim.PROC_HEC_THREAD)])
    proc = top_collectors([r for r in rows if r["thread"] == sim.PROC_HEC_THREAD])
    rows = [dict(r, series=series_host_set(r) + (PROC_HEC_LABEL if r["thread"] == sim.PROC_HEC_THREAD else ""))
            for r in rows if r["thread"] != sim.PROC_HEC_THREAD or r["host"] in proc]
    return hec_tc(rows, "busy_pct", step(HEC, "ds_hec_thread"), THRESHOLD)


def annotations(dep, keep, start=START):
    rows = [f for f in dep.findings() if keep(f) and start <= f["first_seen"] <= END]
    return [[f["first_seen"], "finding (%s): %s %s%s" % (f["severity"], f["host"], f["bottleneck"],
                                                        "" if f["pipeline_set"] in ("", "-") else " set " + f["pipeline_set"]),
             {"critical": "#D41F1F", "warning": "#CBA700"}.get(f["severity"], "#3C444D")] for f in rows]


@panel(HEC, "ds_hec_findings_ann")
def hec_findings_ann(dep):
    return result(["_time", "label", "color"],
                  [[iso(r[0])] + r[1:] for r in annotations(dep, lambda f: f["bottleneck"] == "hec_input",
                                                            sim.HEC_START)])


@panel(HEC, "ds_hec_queues", "stats max(peak) AS peak BY host", "sort 0 - peak host", "head 5", TOP % "fill_pct",
       "timechart span=1m max(fill_pct) BY series limit=0 useother=false")
def hec_queues(dep):
    """The 5 HEC hosts whose staged queues came fullest over the range (every simulated host runs HEC), then
    their sets' fullest queue per minute."""
    rows = hec_range(dep.queue_rows())
    top = fullest_hosts(rows)
    rows = [dict(r, series=series_host_set(r)) for r in rows if r["host"] in top]
    return hec_tc(rows, "fill_pct", step(HEC, "ds_hec_queues"), {"threshold": QUEUE_PCT})


@panel(HEC, "ds_hec_lag", "bin _time span=1m", "stats perc95(lag_s) AS p95 BY _time splunk_server", TOP % "p95",
       "timechart span=1m max(p95) BY series limit=0 useother=false")
def hec_lag(dep):
    """The last 15 minutes of the range only: the search's own window, so its timechart's buckets too."""
    rows = [dict(r, series=r["splunk_server"]) for r in last_minutes(list(dep.lag_rows()))]
    return tc(rows, "p95", step(HEC, "ds_hec_lag"), start=END - RECENT_S)


@panel(HEC, "ds_hec_settings",
       "stats max(eval(if(title==\"http\", dedicatedIoThreads, null()))) AS dedicatedIoThreads max(eval(if(title==\"http\", "
       "maxThreads, null()))) AS maxThreads max(eval(if(title==\"http\", maxSockets, null()))) AS maxSockets "
       "max(eval(if(title==\"http\", port, null()))) AS port max(eval(if(title==\"http\", enableSSL, null()))) AS enableSSL "
       "dc(token) AS tokens values(ack_token) AS useACK_tokens BY splunk_server",
       "stats latest(dedicatedIoThreads) AS dedicatedIoThreads latest(maxThreads) AS maxThreads latest(maxSockets) AS "
       "maxSockets latest(port) AS port latest(enableSSL) AS enableSSL latest(tokens) AS tokens BY host",
       "sort splunk_server source")
def hec_settings(dep):
    return result(["splunk_server", "source", "dedicatedIoThreads", "maxThreads", "maxSockets", "port", "enableSSL",
                   "tokens", "useACK_tokens"], dep.hec_settings())


def findings_table(dep, fields, rows, empty):
    if not rows:
        return message(empty)
    out = []
    for f in rows:
        f = dict(f, first_seen=strftime(f["first_seen"]), last_seen=strftime(f["last_seen"]))
        out.append([f[k] for k in fields])
    return out


@panel(HEC, "ds_open_findings", "sort severity_rank - last_seen_epoch", "stats count")
def hec_open_findings(dep):
    fields = ["severity", "host", "bottleneck", "pipeline_set", "summary", "advice", "settings", "detected", "last_seen"]
    rows = findings_table(dep, fields, open_findings(dep), NO_FINDING)
    return rows if isinstance(rows, dict) else result(["set" if f == "pipeline_set" else f for f in fields], rows)


@panel(HEC, "ds_flow", "stats avg(kbps) AS kbps BY host ingest_pipe", "stats avg(kbps) AS kbps BY sender host",
       "stats sum(bytes_in) AS bytes BY host",
       "eventstats values(pair) AS blocked_pairs values(held) AS held_hosts values(cause_host) AS cause_hosts",
       "sort 0 - blocked - kbps", "stats count")
def flow(dep):
    """Who sends to whom over the last 15 minutes: tcpin_connections per heavy forwarder and receiver (the
    simulation's senders are its two heavy forwarders: no universal forwarder edge), HEC clients per HEC host;
    blocked edges and the hosts open findings point to (caused_by) labelled."""
    edges = [(r["hostname"], r["host"], r["kbps"]) for r in dep.tcpin_rows()]
    for (h,), rs in group(last_minutes(totals(dep)), "host").items():
        edges.append(("HEC clients", h, sum(r["bytes_in"] for r in rs) / RECENT_S / 1024))
    linked = [f for f in open_findings(dep) if f["caused_by"]]
    pairs = {(f["host"], f["caused_by"].split("/")[0]) for f in linked}
    held, causes = {f["host"] for f in linked}, {f["caused_by"].split("/")[0] for f in linked}

    def label(h):
        return h + (" (held back)" if h in held else " (ROOT CAUSE)" if h in causes else "")
    rows = [(1 if (s, r) in pairs else 0, sround(k), label(s), label(r)) for s, r, k in edges]
    rows.sort(key=lambda x: (-x[0], -x[1]))
    return result(["source", "target", "kbps", "state"],
                  [[src, dst, k, "blocked" if b else "flowing"] for b, k, src, dst in rows])


@panel(HEC, "ds_next", "stats avg(busy_pct) AS busy_pct BY host ingest_pipe stage",
       "sort 0 at_load_x host ingest_pipe stage", "head 8")
def next_bottlenecks(dep):
    """Stages not pegged yet by the load multiple at which they would peg (last 15 minutes)."""
    rows = []
    for (h, p, stage), rs in group([dict(r, stage=stage_of(r["thread"], dep)[0])
                                    for r in last_minutes(list(dep.dutycycle_rows()))], "host", "ingest_pipe", "stage").items():
        if stage is None:
            continue
        busy = sum(r["busy_pct"] for r in rs) / len(rs)
        if busy < HEADROOM_MIN_PCT or busy >= THREAD_PCT:
            continue
        rows.append([h, p, stage, sround(busy, 1), sround(100.0 / busy, 1)])
    rows.sort(key=lambda r: (r[4], r[0], r[1], r[2]))
    return result(["host", "pipeline set", "stage", "busy % of one core", "pegs at x load"], rows[:8])


# ----------------------------------------------------------------------------- thread activity
@panel(THR, "ds_threads_time", TOP % "busy_pct", "timechart span=1m max(busy_pct) BY series limit=0 useother=false")
def threads_time(dep):
    """The 5 hosts whose busiest thread peaked highest (metrics.log or the collector), then their series."""
    every = list(dep.dutycycle_rows())
    peak = {h[0]: max(r["busy_pct"] for r in rs) for h, rs in group(every, "host").items()}
    top = set(sorted(peak, key=lambda h: (-peak[h], h))[:5])
    rows = [dict(r, series=series_host_set(r) + " " + r["thread"]
                 + (PROC_HEC_SUFFIX if r["thread"] == sim.PROC_HEC_THREAD else "")) for r in every if r["host"] in top]
    return tc(rows, "busy_pct", step(THR, "ds_threads_time"), THRESHOLD)


@panel(THR, "ds_threads_over", "sort - recent_pct - latest_pct", "stats count")
def threads_over(dep):
    """Its base counts each host, set and thread's samples (a simulated minute is one) over the range, the last
    15 minutes of it (`_time>=info_max_time-900`) apart."""
    every = list(dep.dutycycle_rows())
    last = max(r["_time"] for r in every)
    rows = []
    for (h, p, th), rs in group(every, "host", "ingest_pipe", "thread").items():
        rs = sorted(rs, key=lambda r: r["_time"])
        vals = [r["busy_pct"] for r in rs]
        if max(vals) < THREAD_PCT:
            continue
        recent = [r["busy_pct"] for r in rs if r["_time"] > last - RECENT_S]
        over = sum(1 for v in vals if v >= THREAD_PCT)
        (origin,) = {r["origin"] for r in rs}          # one source per host, set and thread in sim.py
        rows.append([h, p, th, vals[-1], sround(sum(recent) / len(recent), 1) if recent else None, max(vals),
                     sround(sum(vals) / len(vals), 1), sround(over / len(vals) * 100), origin])
    if not rows:
        return message("No thread reached ingest_doctor_thread_busy_pct in this time range on the selected hosts.")
    rows.sort(key=lambda r: (-(r[4] if r[4] is not None else -1e18), -r[3]))
    return result(["host", "ingest_pipe", "thread", "latest %", "last 15 min %", "max %", "range avg %",
                   "% of range over", "origin"], rows)


@panel(THR, "ds_threads_heat", "stats max(latest_pct) AS busy_pct BY thread host",
       "eventstats max(busy_pct) AS thread_max BY thread", "sort 0 - thread_max thread - busy_pct")
def threads_heat(dep):
    latest = {}
    for r in dep.dutycycle_rows():
        k = (r["host"], r["ingest_pipe"], r["thread"])
        if k not in latest or r["_time"] >= latest[k]["_time"]:
            latest[k] = r
    cells = {}
    for (h, _, th), r in latest.items():
        cells[(th, h)] = max(cells.get((th, h), 0.0), r["busy_pct"])
    tmax = {}
    for (th, _), v in cells.items():
        tmax[th] = max(tmax.get(th, 0.0), v)
    rows = [[th, h, v] for (th, h), v in cells.items() if tmax[th] >= 1]
    rows.sort(key=lambda r: (-tmax[r[0]], r[0], -r[2]))
    return result(["thread", "host", "busy_pct"], rows)


@panel(THR, "ds_thread_drill", "sort 0 - ratio host", "head 5", TOP % "busy_pct",
       "timechart span=1m max(busy_pct) BY series limit=0 useother=false")
def thread_drill(dep):
    """The default thread (HEC's) on the 5 hosts where its dutycycle peaked highest."""
    mine = [r for r in dep.dutycycle_rows() if r["thread"] == sim.HEC_THREAD]
    peak = {h[0]: max(r["busy_pct"] for r in rs) for h, rs in group(mine, "host").items()}
    top = set(sorted(peak, key=lambda h: (-peak[h], h))[:5])
    rows = [dict(r, series=series_host_set(r)) for r in mine if r["host"] in top]
    return tc(rows, "busy_pct", step(THR, "ds_thread_drill"), THRESHOLD)


@panel(THR, "ds_cpu_trap", "sort 0 - splunkd_one_core_pct", "stats count")
def cpu_trap(dep):
    rows = []
    for h in sim.HOSTS:
        one, cores = dep.splunkd_cpu(h), dep.cores(h)
        rows.append([h, cores, sround(one), sround(one / cores, 1), sround(100.0 / cores, 1)])
    rows.sort(key=lambda r: -r[2])
    return result(["host", "cores", "splunkd (% of one core)", "splunkd (% of all cores)", "one core (% of all)"], rows)


# ----------------------------------------------------------------------------- pipeline sets
def fullest_hosts(rows, n=5):
    """The subsearch ranking hosts by the peak fill of their staged queues (every simulated queue has a stage)."""
    peak = {h[0]: max(r["fill_pct"] for r in rs) for h, rs in group(rows, "host").items()}
    return set(sorted(peak, key=lambda h: (-peak[h], h))[:n])


@panel(PS, "ds_fill_time", TOP % "fill_pct", "timechart span=1m max(fill_pct) BY series limit=0 useother=false")
def fill_time(dep):
    top = fullest_hosts(dep.queue_rows())
    rows = [dict(r, series=series_host_set(r)) for r in dep.queue_rows() if r["host"] in top]
    return tc(rows, "fill_pct", step(PS, "ds_fill_time"), {"threshold": QUEUE_PCT})


@panel(PS, "ds_blocked", "stats values(queue) AS queues BY _time host ingest_pipe", "sort _time")
def blocked(dep):
    marks = {}
    for r in dep.queue_rows():
        if r["fill_pct"] >= 99.0:   # metrics.log says blocked=true when a queue cannot take the next event
            b = r["_time"] - (r["_time"] - START) % 300
            marks.setdefault((b, r["host"], r["ingest_pipe"]), set()).add(r["queue"])
    rows = [[t, "%s set %s: %s blocked" % (h, p, ", ".join(sorted(qs))), "#D41F1F"] for (t, h, p), qs in marks.items()]
    rows += annotations(dep, lambda f: f["bottleneck"] != "hec_input")
    rows.sort(key=lambda r: r[0])
    return result(["_time", "label", "color"], [[iso(r[0])] + r[1:] for r in rows])


@panel(PS, "ds_chain", "stats max(fill_pct) AS fill max(stage_order) AS stage_order BY host ingest_pipe stage",
       "eventstats max(full_order) AS last_full max(fill) AS fullest BY host ingest_pipe",
       "stats values(parsing) AS parsing values(merging) AS merging values(typing) AS typing values(indexing) AS "
       "indexing values(output) AS output values(bottleneck_stage) AS bottleneck max(fullest) AS fullest BY host ingest_pipe",
       "sort 0 order - fullest host ingest_pipe")
def chain(dep):
    rows = []
    for (h, p), rs in group(list(dep.queue_rows()), "host", "ingest_pipe").items():
        fill = {}
        order = {}
        for (stage,), qs in group(rs, "stage").items():
            fill[stage] = sround(max(r["fill_pct"] for r in qs))
            order[stage] = max(r["stage_order"] for r in qs)
        full = [order[s] for s in fill if fill[s] >= QUEUE_PCT]
        last = max(full) if full else 0
        bn = next((s for s in fill if order[s] == last), "none") if last else "none"
        rows.append((0 if bn != "none" else 1, -max(fill.values()), h, p,
                     [h, p] + [fill.get(s) for s in ("parsing", "merging", "typing", "indexing", "output")] + [bn]))
    return result(["host", "ingest_pipe", "parsing", "merging", "typing", "indexing", "output", "bottleneck"],
                  [r[4] for r in sorted(rows, key=lambda r: r[:4])])




@panel(PS, "ds_pset_config", "stats latest(pipelines) AS pipelines latest(policy) AS policy BY host",
       "stats latest(status) AS status BY host", "stats first(pipelines) AS pipelines first(policy) AS policy first(status) AS indexer BY host",
       "sort 0 order host", "stats count")
def pset_config(dep):
    conf = dep.pipeline_config()
    return result(["host", "pipeline sets", "selection policy", "indexer status"],
                  [[h] + list(conf[h]) for h in sorted(conf, key=lambda h: (conf[h][2] == "normal", h))])


@panel(PS, "ds_bands", "stats max(fill_pct) AS fill BY _time host", "timechart span=60m dc(host) BY band")
def bands(dep):
    fullest = {}
    for r in dep.queue_rows():
        k = (r["_time"] - (r["_time"] - START) % 3600, r["host"])
        fullest[k] = max(fullest.get(k, 0.0), r["fill_pct"])
    rows = [dict(_time=t, host=h,
                 band=FILL_BANDS[2] if v >= QUEUE_PCT else FILL_BANDS[1] if v >= BUSY_PCT else FILL_BANDS[0])
            for (t, h), v in fullest.items()]
    return timechart(rows, step(PS, "ds_bands"))


@panel(PS, "ds_psets_time", TOP % "busy_pct", "timechart span=10m max(busy_pct) BY series limit=0 useother=false")
def psets_time(dep):
    rows = [dict(r, series=series_host_set(r)) for r in dep.load_rows()]
    return tc(rows, "busy_pct", step(PS, "ds_psets_time"), THRESHOLD)


@panel(PS, "ds_psets_table", "sort 0 host ingest_pipe - max_busy_pct", "dedup host ingest_pipe",
       "sort 0 - max_busy_pct host ingest_pipe")
def psets_table(dep):
    """tstats counts the lines per host, set and busiest thread (each simulated minute: two 30 s lines alike),
    their max ratio and average share."""
    best = {}
    for (h, p, th), rs in group(list(dep.load_rows()), "host", "ingest_pipe", "busiest_thread").items():
        cand = (len(rs), max(r["busy_pct"] for r in rs), sround(sum(r["share_pct"] for r in rs) / len(rs), 1), th)
        if (h, p) not in best or cand[1] > best[(h, p)][1]:
            best[(h, p)] = cand
    rows = [[h, p, c[3], c[0], c[1], c[2]] for (h, p), c in best.items()]
    rows.sort(key=lambda r: (-r[4], r[0], r[1]))
    return result(["host", "ingest_pipe", "busiest_thread", "minutes busiest", "max busy %", "assignment share %"], rows)


@panel(PS, "ds_headroom", "stats avg(busy_pct) AS busy_pct BY host ingest_pipe stage",
       "eventstats max(eps) AS eps BY host ingest_pipe", "sort 0 - busy_pct host ingest_pipe")
def headroom(dep):
    """Now, as the engine judges: busy share and events/s averaged over the last sustained_window_min
    minutes of the range (the searches' own window), a stage at its threshold has none left."""
    window = SUSTAINED_WINDOW_MIN * 60
    eps = {}
    for (h, p), rs in group(list(dep.eps_rows()), "host", "ingest_pipe").items():
        vals = [r["eps"] for r in rs if r["_time"] >= END - window]
        eps[(h, p)] = math.fsum(vals) / len(vals)   # fsum: the same float on every Python (3.12 changed sum())
    rows = []
    for (h, p, stage), rs in group([dict(r, stage=stage_of(r["thread"], dep)[0]) for r in dep.dutycycle_rows()],
                                   "host", "ingest_pipe", "stage").items():
        if stage is None or stage in ("hec_input", "output"):
            continue
        recent = [r["busy_pct"] for r in rs if r["_time"] >= END - window]
        busy = sround(math.fsum(recent) / len(recent), 1)
        e = eps.get((h, p))
        e = sround(e) if e is not None else None
        sat = None if busy < HEADROOM_MIN_PCT or e is None else e if busy >= THREAD_PCT else sround(e * 100 / busy)
        left = "-" if sat is None else "none left" if busy >= THREAD_PCT else "{:,}".format(sat - e)
        rows.append([h, p, stage, busy, e, sat, left])
    rows.sort(key=lambda r: (-r[3], r[0], r[1]))
    return result(["host", "pipeline set", "stage", "busy % of one core (now)", "events/s now", "events/s when it pegs",
                   "events/s left"], rows)


# ----------------------------------------------------------------------------- CPU by processor
def cpu_rows(dep):
    if "_cpu_rows" not in dep.__dict__:
        dep.__dict__["_cpu_rows"] = _cpu_rows(dep)
    return dep.__dict__["_cpu_rows"]


def busiest_sets(dep):
    """The ranking subsearch of ds_cpu: the BUSIEST_SETS (host, set) whose lines' cpu_seconds sum highest over
    the range (tstats sums every line: a repeat and an implausible reading count too)."""
    total = {}
    for ln in dep.cpu_lines():
        k = (ln["host"], ln["ingest_pipe"])
        total[k] = total.get(k, 0.0) + ln["cpu_seconds"]
    return sorted(total, key=lambda k: (-total[k], k))[:BUSIEST_SETS]


def _cpu_rows(dep):
    """The tstats on the busiest sets (per minute: sum, highest and number of the lines' cpu_seconds, sum of
    executes, first and last line) and ingest_doctor_pipeline_cpu_rows (interval from the previous minute's last
    line, readings, plausibility per minute)."""
    top = set(busiest_sets(dep))
    buckets = {}
    for ln in dep.cpu_lines():
        if (ln["host"], ln["ingest_pipe"]) not in top:
            continue
        minute = ln["_time"] - ln["_time"] % 60
        b = buckets.setdefault((ln["host"], ln["ingest_pipe"], ln["pipeline"], ln["processor"], minute), dict(
            cpu_sum=0.0, max_reading=0.0, lines=0, executes_sum=0, first_time=ln["_time"], last_time=ln["_time"]))
        b["cpu_sum"] += ln["cpu_seconds"]
        b["max_reading"] = max(b["max_reading"], ln["cpu_seconds"])
        b["lines"] += 1
        b["executes_sum"] += ln["executes"]
        b["first_time"], b["last_time"] = min(b["first_time"], ln["_time"]), max(b["last_time"], ln["_time"])
    threads = {r["pipeline"]: int(r["threads_per_set"]) for r in dep.pipeline if r["pipeline"]}
    limit_pct = {r["pipeline"]: float(r["max_cpu_pct"]) for r in dep.pipeline if r["pipeline"]}
    stages = {}
    for r in dep.pipeline:
        stages.setdefault(r["pipeline"], r["stage"])
    out = []
    prev = {}
    for (h, p, pl, pr, minute), b in sorted(buckets.items()):
        last = prev.get((h, p, pl, pr))
        prev[(h, p, pl, pr)] = b["last_time"]
        interval = 30 if last is None or b["first_time"] - last > 300 else b["first_time"] - last
        readings = sround((b["last_time"] - b["first_time"]) / interval) + 1
        th = threads.get(pl, 1)
        ok = b["max_reading"] <= interval * limit_pct.get(pl, 100.0 * th) / 100
        cpu = b["cpu_sum"] / b["lines"] * readings if ok else 0
        wall = interval * readings if ok else 0
        out.append(dict(_time=minute, host=h, ingest_pipe=p, pipeline=pl, processor=pr, stage=stages.get(pl, "other"),
                        threads=th, cpu_seconds=cpu, wall_s=wall, unreliable=0 if ok else readings,
                        max_reading=b["max_reading"], interval_s=interval,
                        executes=sround(b["executes_sum"] / b["lines"] * readings),
                        pct_one_core=sround(cpu / wall * 100, 1) if wall > 0 else None))
    return out


@panel(CPU, "ds_cpu_time", TOP % "pct_one_core", "timechart span=1m max(pct_one_core) BY series limit=0 useother=false")
def cpu_time(dep):
    rows = [dict(r, series=series_host_set(r) + " " + r["pipeline"] + "/" + r["processor"])
            for r in cpu_rows(dep) if r["pct_one_core"] is not None]
    return tc(rows, "pct_one_core", step(CPU, "ds_cpu_time"), THRESHOLD)


@panel(CPU, "ds_cpu_table",
       "stats avg(pct_one_core) AS avg_pct max(pct_one_core) AS max_pct sum(executes) AS executes BY host ingest_pipe "
       "stage pipeline processor", "sort 0 - avg_pct host ingest_pipe processor", "head 15")
def cpu_table(dep):
    rows = []
    for (h, p, st, pl, pr), rs in group([r for r in cpu_rows(dep) if r["pct_one_core"] is not None],
                                        "host", "ingest_pipe", "stage", "pipeline", "processor").items():
        vals = [r["pct_one_core"] for r in rs]
        rows.append([h, p, st, pl, pr, sround(sum(vals) / len(vals), 1), max(vals), sum(r["executes"] for r in rs)])
    rows.sort(key=lambda r: (-r[5], r[0], r[1], r[4]))
    return result(["host", "set", "stage", "pipeline", "processor", "avg_pct", "max_pct", "executes"], rows[:15])


@panel(CPU, "ds_cpu_unreliable",
       "stats sum(unreliable) AS readings max(max_reading) AS max_cpu_seconds max(interval_s) AS interval_s "
       "max(threads) AS threads latest(_time) AS last_seen BY host ingest_pipe pipeline processor",
       "sort 0 - readings host", "stats count")
def cpu_unreliable(dep):
    rows = []
    for (h, p, pl, pr), rs in group([r for r in cpu_rows(dep) if r["unreliable"] > 0],
                                    "host", "ingest_pipe", "pipeline", "processor").items():
        rows.append([h, p, pl, pr, sum(r["unreliable"] for r in rs), max(r["max_reading"] for r in rs),
                     max(r["interval_s"] for r in rs), max(r["threads"] for r in rs),
                     strftime(max(r["_time"] for r in rs))])
    if not rows:
        return message("Every cpu_seconds reading is plausible (at most the interval's wall time x the stage's "
                       "threads): nothing left out.")
    rows.sort(key=lambda r: (-r[4], r[0]))
    return result(["host", "ingest_pipe", "pipeline", "processor", "readings", "max_cpu_seconds", "interval_s",
                   "threads", "last_seen"], rows)


@panel(CPU, "ds_regex_share", "eventstats sum(pct_one_core) AS stage_pct BY _time host ingest_pipe",
       "stats sum(cpu_seconds) AS cpu max(stage_pct) AS typing_peak_pct BY host ingest_pipe processor",
       "eventstats sum(cpu) AS stage_cpu BY host ingest_pipe", "sort 0 - typing_peak_pct - regex_share_pct host ingest_pipe")
def regex_share(dep):
    rows = []
    typing = [r for r in cpu_rows(dep) if r["pipeline"] == "typing" and r["pct_one_core"] is not None]
    for (h, p), rs in group(typing, "host", "ingest_pipe").items():
        peak = max(sum(r["pct_one_core"] for r in m) for m in group(rs, "_time").values())
        total = sum(r["cpu_seconds"] for r in rs)
        rx = sum(r["cpu_seconds"] for r in rs if r["processor"] == "regexreplacement")
        peak, share = sround(peak, 1), sround(rx / total * 100, 1)
        verdict = ("not regex-bound" if share < REGEX_SHARE_PCT else "typing not busy" if peak < BUSY_PCT
                   else "regex-bound: review TRANSFORMS/SEDCMD")
        rows.append([h, p, peak, share, verdict])
    rows.sort(key=lambda r: (-r[2], -r[3], r[0], r[1]))
    return result(["host", "set", "typing peak %", "regex share %", "verdict"], rows)


@panel(CPU, "ds_regex_st", "bin _time span=1m", "stats sum(cpu) AS cpu_ms BY _time host series",
       "stats avg(pct_one_core) AS pct_one_core BY host series", "sort 0 - pct_one_core sourcetype", "head 10",
       "stats count")
def regex_st(dep):
    rows = []
    for (h, st), rs in group(list(dep.regex_rows()), "host", "series").items():
        pct = [r["cpu_ms"] / 60000 * 100 for r in rs]
        rows.append([h + " " + st, sround(sum(pct) / len(pct), 2)])
    rows.sort(key=lambda r: (-r[1], r[0]))
    return result(["sourcetype", "pct_one_core"], rows[:10])


@panel(CPU, "ds_indexer_cpu", TOP % "pct_one_core", "timechart span=10m max(pct_one_core) BY series limit=0 useother=false")
def indexer_cpu(dep):
    """tstats sums the CPU seconds per 10 minutes: the minutes' average % of one core."""
    rows = []
    for (h, p, b), rs in group([dict(r, b=r["_time"] - (r["_time"] - START) % 600) for r in dep.indexer_cpu_rows()],
                               "host", "ingest_pipe", "b").items():
        rows.append(dict(_time=b, host=h, ingest_pipe=p, series=series_host_set(rs[0]),
                         pct_one_core=sround(math.fsum(r["pct_one_core"] for r in rs) / len(rs), 1)))
    return tc(rows, "pct_one_core", step(CPU, "ds_indexer_cpu"))


@panel(CPU, "ds_props_findings", "sort severity_rank - last_seen_epoch", "stats count")
def props_findings(dep):
    fields = ["severity", "host", "pipeline_set", "bottleneck", "summary", "advice", "settings", "detected", "first_seen"]
    rows = findings_table(dep, fields, [f for f in open_findings(dep) if f["bottleneck"] in ("typing", "merging", "parsing")],
                          "No open finding about parsing, merging or typing on the selected hosts.")
    return rows if isinstance(rows, dict) else result(fields, rows)


# ----------------------------------------------------------------------------- findings
ORDER = ("eventstats dc(host) AS held min(severity_rank) AS root_rank BY root",
         "sort root_rank root symptom severity_rank - last_seen_epoch", "stats count")


def findings_in_order(dep):
    """The open findings as both findings tables order them: root causes first, their symptoms under them."""
    rows = open_findings(dep)
    groups = group(rows, "root")
    out = []
    for f in rows:
        g = groups[(f["root"],)]
        held = len({x["host"] for x in g})
        cause = f["cause"] if f["caused_by"] or held <= 1 else \
            "root cause: holds back %d instance%s" % (held - 1, "s" if held > 2 else "")
        if f.get("mechanism"):
            cause = "%s: %s" % (cause, f["mechanism"])
        out.append(dict(f, cause=cause, status=resolved_status(f), symptom=1 if f["caused_by"] else 0,
                        root_rank=min(x["severity_rank"] for x in g)))
    out.sort(key=lambda f: (f["root_rank"], f["root"], f["symptom"], f["severity_rank"], -f["last_seen"]))
    return out


@panel(FND, "ds_findings_table", *ORDER)
def findings_records(dep):
    fields = ["severity", "cause", "host", "bottleneck", "pipeline_set", "summary", "advice", "settings",
              "evidence_dashboard"]
    rows = findings_table(dep, fields, findings_in_order(dep), NO_FINDING)
    if isinstance(rows, dict):
        return rows
    return result(["severity", "cause", "host", "bottleneck", "set", "summary", "what to do",
                   "setting -> suggested", "_evidence_dashboard"], rows)


@panel(FND, "ds_findings_evidence", *ORDER)
def findings_evidence(dep):
    fields = ["severity", "host", "bottleneck", "pipeline_set", "evidence_text", "detected", "first_seen", "last_seen",
              "count", "status", "evidence_dashboard", "id"]
    rows = findings_table(dep, fields, findings_in_order(dep), NO_FINDING)
    if isinstance(rows, dict):
        return rows
    return result(["severity", "host", "bottleneck", "set", "evidence", "detected", "first seen", "last seen", "count",
                   "status", "_evidence_dashboard", "_finding_id"], rows)


def resolved_status(f):
    """The table's status: a resolved finding says why (the search's eval of status and resolution)."""
    if f["status"] == "resolved" and f.get("resolution"):
        return "resolved: " + f["resolution"]
    return f["status"]


@panel(FND, "ds_findings_kpi",
       "stats count(eval(severity==\"critical\")) AS critical count(eval(severity==\"warning\")) AS warning "
       "count(eval(severity==\"info\")) AS info dc(host) AS hosts")
def findings_kpi(dep):
    fs = open_findings(dep)
    return result(["critical", "warning", "info", "hosts"], [[sum(1 for f in fs if f["severity"] == s)
                                                            for s in ("critical", "warning", "info")] +
                                                           [len({f["host"] for f in fs})]])


@panel(FND, "ds_holds", "stats count")
def holds(dep):
    """The simulated deployment has nothing acknowledged or snoozed: the search's empty message."""
    return message("Nothing acknowledged or snoozed: every finding change is notified.")


@panel(FND, "ds_findings_by", "chart count OVER bottleneck BY status limit=9 useother=true")
def findings_by(dep):
    fs = dep.findings()
    statuses = sorted({f["status"] for f in fs})
    rows = [[b[0]] + [sum(1 for f in rs if f["status"] == s) for s in statuses]
            for b, rs in sorted(group(fs, "bottleneck").items())]
    return result(["bottleneck"] + statuses, rows)
