"""The Dashboard Studio definition one view is built into: data sources, visualizations, inputs
and a grid of rows, written as the Simple XML envelope Splunk loads (version="2").

The views themselves are in views/ (one module each); shared SPL in spl.py, the inputs and
option helpers in widgets.py.
"""
from __future__ import annotations

import json
import re
from xml.sax.saxutils import escape

APP = "ingest_doctor"
WIDTH = 1440

# Colours (Splunk's dark palette): ok, warn, critical, accent.
OK, WARN, CRIT, ACCENT, GREY = "#118832", "#CBA700", "#D41F1F", "#7B56DB", "#3C444D"
THRESHOLD_STYLE = {"seriesColorsByField": {"threshold": CRIT}, "lineDashStylesByField": {"threshold": "dash"}}


class Dash:
    def __init__(self, name: str, label: str, description: str):
        self.name, self.label, self.description = name, label, description
        self.ds: dict = {}
        self.viz: dict = {}
        self.inputs: dict = {}
        self.rows: list = []          # [(height, [(viz_id, weight), ...])]
        self.global_inputs: list = []
        self.tokens: dict = {}

    # data sources
    def search(self, ds_id: str, name: str, query: str, **params) -> str:
        ds = {"type": "ds.search", "name": name, "options": {"query": query}}
        if params:
            ds["options"]["queryParameters"] = params
        self.ds[ds_id] = ds
        return ds_id

    def chain(self, ds_id: str, name: str, extend: str, query: str) -> str:
        self.ds[ds_id] = {"type": "ds.chain", "name": name, "options": {"extend": extend, "query": query}}
        return ds_id

    # visualizations
    def add(self, viz_id: str, vtype: str, title: str, ds: str = None, description: str = None,
            options: dict = None, **extra) -> str:
        v = {"type": vtype, "title": title}
        if description:
            v["description"] = description
        if ds:
            v["dataSources"] = {"primary": ds}
        v["options"] = options or {}
        v.update(extra)
        self.viz[viz_id] = v
        return viz_id

    def markdown(self, viz_id: str, title: str, text: str) -> str:
        # Studio draws no title bar for markdown: the title is the text's heading.
        return self.add(viz_id, "splunk.markdown", title,
                        options={"markdown": "#### " + title + "\n\n" + text, "fontSize": "small"})

    def row(self, height: int, *items) -> None:
        self.rows.append((height, [(i, 1) if isinstance(i, str) else i for i in items]))

    def fit_headers(self, panel_width: dict) -> None:
        """Set every table column's width: at least its header's (a one-word header wraps at any
        character when its column is narrow), the panel's remaining width shared among the
        columns without a width of their own, so the table fills its panel and no more."""
        for vid, v in self.viz.items():
            if v["type"] != "splunk.table":
                continue
            fmt = v["options"].setdefault("columnFormat", {})
            cols = [c for c in table_fields(self.query_of(v["dataSources"]["primary"])) if not c.startswith("_")]
            need = {c: HEADER_PX_PER_CHAR * max(len(w) for w in c.split()) + HEADER_PX_EXTRA for c in cols}
            fixed = {c: max(fmt[c]["width"], need[c]) for c in cols if "width" in fmt.get(c, {})}
            flexible = [c for c in cols if c not in fixed]
            spare = panel_width[vid] - TABLE_PADDING_PX - sum(fixed.values()) - sum(need[c] for c in flexible)
            for c in cols:
                width = fixed.get(c) or need[c] + max(0, spare) // len(flexible)
                fmt.setdefault(c, {})["width"] = width

    def query_of(self, ds_id: str) -> str:
        ds = self.ds[ds_id]
        return ds["options"]["query"]

    def definition(self) -> dict:
        structure, y = [], 0
        for height, items in self.rows:
            total = sum(w for _, w in items)
            x = 0
            for n, (item, weight) in enumerate(items):
                w = WIDTH - x if n == len(items) - 1 else int(round(WIDTH * weight / total))
                structure.append({"item": item, "type": "block", "position": {"x": x, "y": y, "w": w, "h": height}})
                x += w
            y += height
        self.fit_headers({b["item"]: b["position"]["w"] for b in structure})
        d = {
            "title": self.label,
            "description": self.description,
            "inputs": self.inputs,
            "defaults": {
                "dataSources": {"ds.search": {"options": {"queryParameters": {
                    "earliest": "$global_time.earliest$", "latest": "$global_time.latest$"}}}},
            },
            "visualizations": self.viz,
            "dataSources": self.ds,
            "layout": {"type": "grid", "options": {"width": WIDTH}, "structure": structure,
                       "globalInputs": self.global_inputs},
        }
        if self.tokens:
            d["defaults"]["tokens"] = {"default": {k: {"value": v} for k, v in self.tokens.items()}}
        return d

    def xml(self) -> str:
        body = json.dumps(self.definition(), indent=2, ensure_ascii=False)
        assert "]]>" not in body
        return ('<dashboard version="2" theme="dark">\n'
                "  <!-- generated by tools/dashboards/gen_views.py, do not edit (edit there, then run tools/generate.py) -->\n"
                "  <label>{}</label>\n  <description>{}</description>\n"
                "  <definition><![CDATA[\n{}\n]]></definition>\n"
                "</dashboard>\n").format(escape(self.label), escape(self.description), body)


# A table header in Splunk's dark theme takes about this many pixels per character, plus the
# sort icon and the padding.
HEADER_PX_PER_CHAR, HEADER_PX_EXTRA = 8, 44
TABLE_PADDING_PX = 40   # the panel's padding and the table's scroll bar


def table_fields(query: str) -> list:
    """The columns a search ends with: its last `table` command, after the renames that follow."""
    parts = [p.strip() for p in re.split(r"\n\|\s*", query)]
    at = max((i for i, p in enumerate(parts) if p.startswith("table ")), default=None)
    if at is None:
        return []
    fields = [f.strip('"') for f in re.findall(r'"[^"]+"|\S+', parts[at][len("table "):])]
    for p in parts[at + 1:]:
        fields = renamed(fields, p)
    return fields


def renamed(fields: list, command: str) -> list:
    """`fields` after one SPL command: a `rename a AS b "c d" AS e` renames, any other leaves them."""
    if command.startswith("rename "):
        for old, new in re.findall(r'("[^"]+"|\S+) AS ("[^"]+"|\S+)', command):
            fields = [new.strip('"') if f == old.strip('"') else f for f in fields]
    return fields
