"""The app's two form views: hand-written Simple XML (`<dashboard version="1.1">`), the only views that
are not Dashboard Studio. Studio runs no JavaScript and cannot write storage/passwords, so the
Notifications settings and the Acknowledge and snooze forms are an `<html>` panel driven by one script
in appserver/static (docs/notifications.md). They run no search of their own: the search cost model
(tools/searchspl.py) and the Studio gates (tools/dashboards/*.js) leave them out, and
tests/gates/test_gates_form_views.py holds them to these checks instead.

`problems(root)` names, for the views folder of an app tree:
- a view that is neither Dashboard Studio (version="2") nor one of FORM_VIEWS;
- for each form view: not well-formed XML, a root that is not `<dashboard version="1.1">`, a
  `script` or `stylesheet` missing or naming no file of appserver/static, an inline `<script>`, an
  inline event handler (`on...=`) or a `javascript:` URL, a search of its own, an address off the
  search head (`http(s)://` or `//`) the view loads (src, href, ...) or its script or stylesheet holds;
- in the script: `eval`, `new Function`, a string handed to a timer, or HTML written from text
  (`innerHTML`, `outerHTML`, `insertAdjacentHTML`, `document.write`): it sets `textContent` only.
"""
from __future__ import annotations

import glob
import os
import re
import xml.etree.ElementTree as ET
from typing import List

FORM_VIEWS = ("ingest_doctor_hold", "ingest_doctor_notifications")
VIEWS = os.path.join("default", "data", "ui", "views")
STATIC = os.path.join("appserver", "static")

# A literal address off the search head in code: a quoted or url() string starting http(s): or //.
_EXTERNAL = re.compile(r"""['"`(]\s*(?:https?:)?//[A-Za-z0-9\[$]""", re.I)
_LOADS = ("src", "href", "action", "formaction", "data", "poster", "background")
_JS_FORBIDDEN = (
    (re.compile(r"\beval\s*\("), "eval()"),
    (re.compile(r"\bnew\s+Function\b"), "new Function"),
    (re.compile(r"\bset(?:Timeout|Interval)\s*\(\s*['\"`]"), "a timer given a string"),
    (re.compile(r"\.(?:inner|outer)HTML\b"), "innerHTML/outerHTML"),
    (re.compile(r"\binsertAdjacentHTML\b"), "insertAdjacentHTML"),
    (re.compile(r"\bdocument\.write(?:ln)?\b"), "document.write"),
)


def is_studio(path: str) -> bool:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError:
        return False
    return root.tag == "dashboard" and root.get("version") == "2"


def studio_views(root: str) -> List[str]:
    """The Dashboard Studio views of an app tree (every view but the form views), sorted."""
    return [p for p in sorted(glob.glob(os.path.join(root, VIEWS, "*.xml")))
            if os.path.splitext(os.path.basename(p))[0] not in FORM_VIEWS]


def _code(text: str) -> str:
    """JavaScript or CSS without its comments (what runs)."""
    return re.sub(r"/\*.*?\*/|(?<![:\\'\"])//[^\n]*", "", text, flags=re.S)


def _static_problems(root: str, name: str, attr: str, ext: str, files: str) -> List[str]:
    out = []
    listed = [f.strip() for f in (files or "").split(",") if f.strip()]
    if not listed:
        return ["%s: no %s= (the form view's %s file in appserver/static)" % (name, attr, ext)]
    for f in listed:
        path = os.path.join(root, STATIC, f)
        if "/" in f or not f.endswith(ext) or not os.path.isfile(path):
            out.append("%s: %s=%r names no %s file of appserver/static" % (name, attr, f, ext))
            continue
        with open(path, encoding="utf-8") as fh:
            code = _code(fh.read())
        if _EXTERNAL.search(code):
            out.append("%s: %s %s reaches a URL off the search head: %r" % (name, attr, f, _EXTERNAL.search(code).group(0)))
        if ext == ".js":
            out += ["%s: script %s uses %s (set textContent; never run or parse text as code or HTML)"
                    % (name, f, what) for rx, what in _JS_FORBIDDEN if rx.search(code)]
    return out


def view_problems(root: str, name: str) -> List[str]:
    path = os.path.join(root, VIEWS, name + ".xml")
    if not os.path.isfile(path):
        return ["%s: the form view is missing (%s)" % (name, os.path.relpath(path, root))]
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
        view = ET.fromstring(text)
    except ET.ParseError as e:
        return ["%s: not well-formed XML: %s" % (name, e)]
    out = []
    if view.tag != "dashboard" or view.get("version") != "1.1":
        out.append('%s: the root is not <dashboard version="1.1">' % name)
    if not (view.findtext("label") or "").strip():
        out.append("%s: no <label>" % name)
    out += _static_problems(root, name, "script", ".js", view.get("script", ""))
    out += _static_problems(root, name, "stylesheet", ".css", view.get("stylesheet", ""))
    for el in view.iter():
        if el.tag == "script":
            out.append("%s: an inline <script> (the script= file only)" % name)
        if el.tag in ("search", "query", "searchString", "searchTemplate"):
            out.append("%s: a <%s> (a form view runs no search of its own)" % (name, el.tag))
        for k, v in el.attrib.items():
            if k.lower().startswith("on"):
                out.append("%s: <%s %s=...> is an inline event handler" % (name, el.tag, k))
            if "javascript:" in v.replace(" ", "").lower():
                out.append("%s: <%s %s=...> is a javascript: URL" % (name, el.tag, k))
        for k in _LOADS:
            v = (el.get(k) or "").strip().lower()
            if v.startswith(("http:", "https:", "//")):
                out.append("%s: <%s %s=%r> reaches a URL off the search head" % (name, el.tag, k, el.get(k)))
        if "url(" in (el.get("style") or "") or (el.tag == "style" and "url(" in (el.text or "")):
            out.append("%s: <%s> loads a url() (the stylesheet= file only)" % (name, el.tag))
    if not any(True for _ in view.iter("html")):
        out.append("%s: no <html> panel holding the form" % name)
    return out


def problems(root: str) -> List[str]:
    out = []
    for path in sorted(glob.glob(os.path.join(root, VIEWS, "*.xml"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if name not in FORM_VIEWS and not is_studio(path):
            out.append("%s: neither a Dashboard Studio view (version=\"2\") nor a form view of tools/formviews.py "
                       "FORM_VIEWS" % name)
    for name in FORM_VIEWS:
        out += view_problems(root, name)
    return out
