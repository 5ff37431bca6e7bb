"""What the views share besides SPL: the global inputs (time range, hosts, pipeline set), the
drilldown links between views, and the chart, single-value and table options.
"""
from __future__ import annotations

from spl import ALL_INSTANCES, BUSY_PCT, HOSTS, HOSTS_SEARCH, PIPELINE_HOSTS, PSETS_SEARCH, SCOPED_HOSTS, TH
from studio import APP, CRIT, GREY, OK, THRESHOLD_STYLE, WARN, Dash


def severity_column() -> dict:
    """A findings table's severity column format (a fresh one: the grid sets each table's widths),
    coloured by the context severity_colors()."""
    return {"rowBackgroundColors": "> table | seriesByName(\"severity\") | matchValue(sevColors)",
            "rowColors": "> table | seriesByName(\"severity\") | matchValue(sevText)"}


def severity_colors() -> dict:
    colors = [{"match": "critical", "value": CRIT}, {"match": "warning", "value": WARN},
              {"match": "info", "value": GREY}]
    return {"sevColors": colors, "sevText": text_on(colors)}


DEFAULT_RANGE = "-4h@m,now"


def std_inputs(d: Dash, pset: bool = True, default_range: str = DEFAULT_RANGE) -> None:
    d.search("ds_hosts", "Hosts sending _internal (index host metadata)", HOSTS_SEARCH)
    d.inputs["input_time"] = {"type": "input.timerange", "title": "Time range",
                              "options": {"token": "global_time", "defaultValue": default_range}}
    # A dropdown: "All hosts" or one host. Studio's multiselect always draws a count beside its first choice
    # ("All hosts (1)"), which reads as one host (issue 22); `host IN ($host$)` takes either.
    d.inputs["input_host"] = _listed("input.dropdown", "Hosts", "host", "*", "ds_hosts", "host", "All hosts")
    d.global_inputs += ["input_time", "input_host"]
    if pset:
        d.search("ds_psets", "Pipeline sets (ingest_pipe) in metrics.log", PSETS_SEARCH)
        d.inputs["input_pset"] = _listed("input.dropdown", "Pipeline set", "pset", "*", "ds_psets", "ingest_pipe",
                                         "All pipeline sets")
        d.global_inputs.append("input_pset")


def pipeline_scope(d: Dash) -> None:
    """The "Instances" input of the pipeline views (issue 35), and its token beside every host filter of the
    view's metrics.log searches (universal forwarders write metrics.log; the collector and HEC run only on
    indexers and heavy forwarders): indexers and heavy forwarders by default, universal forwarders one choice
    away. In parentheses: SPL's OR binds tighter than the implicit AND. Runs after the view's searches are added
    (gen_views.build_view)."""
    d.inputs["input_scope"] = {"type": "input.dropdown", "title": "Instances",
                               "options": {"items": [{"label": "Indexers and heavy forwarders", "value": PIPELINE_HOSTS},
                                                     {"label": "All, with universal forwarders",
                                                      "value": ALL_INSTANCES}],
                                           "token": "scope", "defaultValue": PIPELINE_HOSTS}}
    d.global_inputs.append("input_scope")
    for ds in d.ds.values():
        if ds["type"] == "ds.search" and "`ingest_doctor_metrics_log`" in ds["options"]["query"]:
            ds["options"]["query"] = ds["options"]["query"].replace(HOSTS, SCOPED_HOSTS)


def _listed(kind: str, title: str, token: str, default, ds: str, field: str, all_label: str) -> dict:
    """An input whose choices are the values of `field` in data source `ds`, after "all" (*)."""
    series = ">primary | seriesByName(\"%s\") | renameSeries(\"%%s\") | formatByType(formattedConfig)" % field
    return {
        "type": kind, "title": title,
        "options": {"items": ">frame(label, value) | prepend(formattedStatics) | objects()",
                    "token": token, "defaultValue": default},
        "dataSources": {"primary": ds},
        "context": {
            "formattedConfig": {"number": {"prefix": ""}},
            "formattedStatics": ">statics | formatByType(formattedConfig)",
            "statics": [[all_label], ["*"]],
            "label": series % "label",
            "value": series % "value",
        },
    }


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
        ctx[key + "Text"] = [dict(band, value=CELL_TEXT) for band in cfg]
        fmt[col] = {"rowBackgroundColors": "> table | seriesByName(\"{}\") | rangeValue({})".format(col, key),
                    "rowColors": "> table | seriesByName(\"{}\") | rangeValue({}Text)".format(col, key)}
    return {"columnFormat": fmt}, ctx


def busy_bands(limit: float = TH.thread_busy_pct) -> list:
    """Green below BUSY_PCT, amber up to the threshold `limit`, red from it."""
    return [(BUSY_PCT, OK), (limit, WARN), (None, CRIT)]


# Text on a coloured cell is plain white, never the link blue of a clickable table (render.js checks).
CELL_TEXT = "#FFFFFF"


def text_on(colors):
    """A matchValue context giving every value of `colors` (a list of {match, value}) white text."""
    return [{"match": c["match"], "value": CELL_TEXT} for c in colors]
