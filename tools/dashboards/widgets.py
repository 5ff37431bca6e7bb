"""What the views share besides SPL: the global inputs (time range, hosts, pipeline set), the
drilldown links between views, and the chart, single-value and table options.
"""
from __future__ import annotations

from spl import HOSTS_SEARCH, PSETS_SEARCH
from studio import APP, CRIT, OK, THRESHOLD_STYLE, WARN, Dash


def std_inputs(d: Dash, pset: bool = True) -> None:
    d.search("ds_hosts", "Hosts reporting metrics.log", HOSTS_SEARCH)
    d.inputs["input_time"] = {"type": "input.timerange", "title": "Time range",
                              "options": {"token": "global_time", "defaultValue": "-4h@m,now"}}
    d.inputs["input_host"] = {
        "type": "input.multiselect", "title": "Hosts",
        "options": {"items": ">frame(label, value) | prepend(formattedStatics) | objects()",
                    "token": "host", "defaultValue": ["*"]},
        "dataSources": {"primary": "ds_hosts"},
        "context": {
            "formattedConfig": {"number": {"prefix": ""}},
            "formattedStatics": ">statics | formatByType(formattedConfig)",
            "statics": [["All hosts"], ["*"]],
            "label": ">primary | seriesByName(\"host\") | renameSeries(\"label\") | formatByType(formattedConfig)",
            "value": ">primary | seriesByName(\"host\") | renameSeries(\"value\") | formatByType(formattedConfig)",
        },
    }
    d.global_inputs += ["input_time", "input_host"]
    if pset:
        d.search("ds_psets", "Pipeline sets (ingest_pipe) in metrics.log", PSETS_SEARCH)
        d.inputs["input_pset"] = {
            "type": "input.dropdown", "title": "Pipeline set",
            "options": {"items": ">frame(label, value) | prepend(formattedStatics) | objects()",
                        "token": "pset", "defaultValue": "*"},
            "dataSources": {"primary": "ds_psets"},
            "context": {
                "formattedConfig": {"number": {"prefix": ""}},
                "formattedStatics": ">statics | formatByType(formattedConfig)",
                "statics": [["All pipeline sets"], ["*"]],
                "label": ">primary | seriesByName(\"ingest_pipe\") | renameSeries(\"label\") | formatByType(formattedConfig)",
                "value": ">primary | seriesByName(\"ingest_pipe\") | renameSeries(\"value\") | formatByType(formattedConfig)",
            },
        }
        d.global_inputs.append("input_pset")


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
        fmt[col] = {"rowBackgroundColors": "> table | seriesByName(\"{}\") | rangeValue({})".format(col, key)}
    return {"columnFormat": fmt}, ctx


def busy_bands():
    return [(60, OK), (90, WARN), (None, CRIT)]
