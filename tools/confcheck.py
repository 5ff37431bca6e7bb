#!/usr/bin/env python3
"""Check every setting in an app's default/*.conf against Splunk's specs and our README/*.spec.

Specs: the .spec files Splunk ships (as bundled by splunk-packaging-toolkit, `slim`, in the
tools venv) plus the app's own README/<name>.conf.spec, which extend them. A spec stanza or
setting name may hold placeholders (`[<custom_alert_action>]`, `action.<action_name>.<parameter>`)
that match any text. For a conf stanza, the known settings are those of every spec stanza
whose name matches it, of the spec's [default] stanza and of its global settings; a scheme
stanza `[x]` of a modular input also matches the spec stanza `[x://<name>]`.

Checks, each reported as `file:line: [stanza] problem`:
- syntax: stanza headers `[name]`, `key = value` lines, continuation lines, no setting
  before the first stanza in files whose spec has no global settings, no duplicate stanza,
  no duplicate setting in a stanza;
- every setting is known (or in the allow-list tools/confcheck_allow.txt, each entry with
  the reason Splunk's bundled specs lack it);
- savedsearches.conf `action.<our alert action>.param.<name>` names a parameter that action
  has (Splunk's spec takes any `action.<action_name>.<parameter>`);
- Python entry points declare `python.version = python3.9` and `python.required = 3.13` (tools/floor.py)
  (AppInspect's future_failure): modular input scheme and instance stanzas of every scheme in
  README/inputs.conf.spec, and every custom alert action (`is_custom = 1`).

Why not `slim validate` itself: it checks the same specs but reports by warning, and its
release table (slim/config/splunk-releases.json) stops at Splunk 8.0.0, so it rejects any
9.x/10.x platform requirement in app.manifest. We read its spec files and gate on them here.

Usage: confcheck.py APP_DIR [--specs DIR]      exit 1 on any problem
"""
from __future__ import annotations

import argparse
import fnmatch
import glob
import os
import re
import sys
from typing import Dict, Iterator, List, NamedTuple, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALLOW_FILE = os.path.join(ROOT, "tools", "confcheck_allow.txt")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import floor  # noqa: E402

PY_SETTINGS = (("python.version", floor.PYTHON_VERSION), ("python.required", floor.PYTHON_REQUIRED))


class Setting(NamedTuple):
    line: int
    key: str
    value: str


class Stanza(NamedTuple):
    line: int
    name: str
    settings: List[Setting]


# ---------------------------------------------------------------- conf parsing
HEADER = re.compile(r"^\[(?P<name>.*)\]\s*$")
KEYVAL = re.compile(r"^(?P<key>[^=\s][^=]*?)\s*=\s?(?P<value>.*)$")


def parse_conf(path: str) -> Tuple[List[Stanza], List[Tuple[int, str]]]:
    """Stanzas (a leading pseudo-stanza "" holds settings before any header) and syntax errors."""
    stanzas = [Stanza(0, "", [])]
    errors = []
    with open(path, encoding="utf-8-sig") as fh:
        lines = fh.read().split("\n")
    i = 0
    while i < len(lines):
        n = i + 1
        raw = lines[i].rstrip("\r")
        i += 1
        text = raw.strip()
        if not text or text.startswith("#") or text.startswith(";"):
            continue
        if raw[0].isspace():
            errors.append((n, "indented line %r: Splunk reads settings only from the start of a line" % text[:60]))
            continue
        if text.startswith("["):
            m = HEADER.match(text)
            if not m or not m.group("name").strip():
                errors.append((n, "malformed stanza header %r" % text[:80]))
                continue
            stanzas.append(Stanza(n, m.group("name"), []))
            continue
        m = KEYVAL.match(raw)
        if not m:
            errors.append((n, "not a stanza header nor `key = value`: %r" % text[:80]))
            continue
        value = m.group("value")
        while value.endswith("\\") and i < len(lines):  # continuation line
            value = value[:-1] + "\n" + lines[i].rstrip("\r")
            i += 1
        key = m.group("key").strip()
        if " " in key or "\t" in key:
            errors.append((n, "setting name %r contains whitespace" % key))
        stanzas[-1].settings.append(Setting(n, key, value))
    return stanzas, errors


def read_conf(path: str) -> Dict[str, Dict[str, str]]:
    """A .conf file as {stanza: {key: value}} (later settings win, continuation lines joined, a
    missing file is empty): the one conf reader of tools and tests."""
    out: Dict[str, Dict[str, str]] = {}
    if not os.path.exists(path):
        return out
    for stanza in parse_conf(path)[0]:
        if stanza.name:
            out.setdefault(stanza.name, {}).update((s.key, s.value) for s in stanza.settings)
    return out


# ---------------------------------------------------------------- spec parsing
SPEC_HEADER = re.compile(r"^\[(?P<name>.+)\]\s*$")
SPEC_SETTING = re.compile(r"^(?P<key>[A-Za-z0-9_<>$.:\-\[\]/|()*]+?)\s*=")


def _pattern(text: str) -> "re.Pattern[str]":
    """Spec name with <placeholders> (or a bare *) -> anchored regex."""
    parts = re.split(r"(<[^<>]*>|\*)", text)
    rx = "".join(".+" if (p.startswith("<") and p.endswith(">")) or p == "*" else re.escape(p) for p in parts)
    return re.compile("^" + rx + "$", re.S)


class Spec:
    """One conf file's spec: global settings and (stanza pattern, settings) pairs."""

    def __init__(self) -> None:
        self.globals: List["re.Pattern[str]"] = []
        self.stanzas: List[Tuple[str, "re.Pattern[str]", List["re.Pattern[str]"]]] = []
        self.sources: List[str] = []

    def load(self, path: str) -> None:
        self.sources.append(path)
        current: Optional[List["re.Pattern[str]"]] = None
        with open(path, encoding="utf-8", errors="replace") as fh:
            for raw in fh:
                line = raw.rstrip("\n")
                if not line or line[0] in " \t*#@":
                    continue
                m = SPEC_HEADER.match(line)
                if m:
                    current = []
                    self.stanzas.append((m.group("name"), _pattern(m.group("name")), current))
                    continue
                m = SPEC_SETTING.match(line)
                if m:
                    (self.globals if current is None else current).append(_pattern(m.group("key")))

    def matching(self, stanza: str) -> List[List["re.Pattern[str]"]]:
        out = []
        for name, rx, settings in self.stanzas:
            if rx.match(stanza) or name == "default" or (
                    "://" not in stanza and name.startswith(stanza + "://")):
                out.append(settings)
        return out

    def has_stanza_for(self, stanza: str) -> bool:
        return any(rx.match(stanza) or ("://" not in stanza and name.startswith(stanza + "://"))
                   for name, rx, _ in self.stanzas)

    def knows(self, stanza: str, key: str) -> bool:
        pats = self.globals + [p for group in self.matching(stanza) for p in group]
        return any(p.match(key) for p in pats)


def default_spec_dir() -> Optional[str]:
    try:
        import slim  # noqa: F401  (splunk-packaging-toolkit, tools venv)
    except ImportError:
        return None
    path = os.path.join(os.path.dirname(slim.__file__), "config", "conf-specs")
    return path if os.path.isdir(path) else None


def load_specs(spec_dir: str, app: str) -> Dict[str, Spec]:
    specs: Dict[str, Spec] = {}
    for path in sorted(glob.glob(os.path.join(spec_dir, "*.conf.spec"))) + \
            sorted(glob.glob(os.path.join(app, "README", "*.conf.spec"))):
        name = os.path.basename(path)[:-len(".spec")]
        specs.setdefault(name, Spec()).load(path)
    return specs


# ---------------------------------------------------------------- allow-list
def load_allow(path: str = ALLOW_FILE) -> List[Tuple[str, str, str]]:
    """(file glob, stanza glob, setting glob) entries; each line must carry a `# reason`."""
    out = []
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8") as fh:
        for n, raw in enumerate(fh, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            body, _, reason = line.partition("#")
            fields = body.split()
            if len(fields) != 3 or not reason.strip():
                raise SystemExit("%s:%d: want `FILE STANZA SETTING  # reason`" % (path, n))
            out.append((fields[0], fields[1], fields[2]))
    return out


def allowed(allow, conf: str, stanza: str, key: str) -> bool:
    return any(fnmatch.fnmatchcase(conf, f) and fnmatch.fnmatchcase(stanza, s) and fnmatch.fnmatchcase(key, k)
               for f, s, k in allow)


# ---------------------------------------------------------------- checks
def check_syntax(rel: str, stanzas: List[Stanza], errors, spec: Optional[Spec]) -> Iterator[str]:
    for line, msg in errors:
        yield "%s:%d: %s" % (rel, line, msg)
    head = stanzas[0]
    if head.settings and (spec is None or not spec.globals):
        for s in head.settings:
            yield "%s:%d: setting %r before the first stanza header" % (rel, s.line, s.key)
    seen: Dict[str, int] = {}
    for st in stanzas[1:]:
        if st.name in seen:
            yield "%s:%d: [%s] duplicate stanza (first at line %d); Splunk merges them silently" % (
                rel, st.line, st.name, seen[st.name])
        seen.setdefault(st.name, st.line)
        keys: Dict[str, int] = {}
        for s in st.settings:
            if s.key in keys:
                yield "%s:%d: [%s] duplicate setting %r (first at line %d); the last one wins" % (
                    rel, s.line, st.name, s.key, keys[s.key])
            keys.setdefault(s.key, s.line)


def check_known(rel: str, conf: str, stanzas: List[Stanza], spec: Optional[Spec], allow) -> Iterator[str]:
    if spec is None:
        yield "%s: no spec for %s in Splunk's specs or README/%s.spec" % (rel, conf, conf)
        return
    for st in stanzas:
        label = st.name if st.line else "(global)"
        # indexes.conf.spec documents the per-index settings without a stanza: any stanza is an index.
        if st.line and st.name != "default" and not spec.has_stanza_for(st.name) and \
                conf != "indexes.conf" and not allowed(allow, conf, st.name, "*"):
            yield "%s:%d: [%s] stanza matches no stanza of %s.spec" % (rel, st.line, st.name, conf)
            continue
        for s in st.settings:
            if not spec.knows(st.name, s.key) and not allowed(allow, conf, st.name, s.key):
                yield "%s:%d: [%s] unknown setting %r (not in Splunk's %s.spec nor README/%s.spec)" % (
                    rel, s.line, label, s.key, conf, conf)


def _our_schemes(app: str) -> List[str]:
    path = os.path.join(app, "README", "inputs.conf.spec")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as fh:
        return sorted(set(re.findall(r"^\[([A-Za-z0-9_\-]+)://", fh.read(), re.M)))


def check_python(rel: str, conf: str, stanzas: List[Stanza], app: str) -> Iterator[str]:
    targets = []
    if conf == "inputs.conf":
        schemes = _our_schemes(app)
        targets = [st for st in stanzas[1:] if st.name.split("://", 1)[0] in schemes]
    elif conf == "alert_actions.conf":
        targets = [st for st in stanzas[1:]
                   if any(s.key == "is_custom" and s.value.strip().lower() in ("1", "true") for s in st.settings)]
    for st in targets:
        have = {s.key: s.value.strip() for s in st.settings}
        for key, want in PY_SETTINGS:
            if have.get(key) != want:
                got = "missing" if key not in have else "is %r" % have[key]
                yield "%s:%d: [%s] %s %s; Python entry points need `%s = %s` (AppInspect future_failure, " \
                      "see docs/appinspect.md)" % (rel, st.line, st.name, key, got, key, want)


def _action_params(app: str) -> Dict[str, set]:
    """{custom alert action of this app: its param names} from alert_actions.conf and its spec."""
    out: Dict[str, set] = {}
    conf = os.path.join(app, "default", "alert_actions.conf")
    if os.path.exists(conf):
        for st in parse_conf(conf)[0][1:]:
            if any(s.key == "is_custom" and s.value.strip().lower() in ("1", "true") for s in st.settings):
                out[st.name] = {s.key[len("param."):] for s in st.settings if s.key.startswith("param.")}
    spec = os.path.join(app, "README", "alert_actions.conf.spec")
    if os.path.exists(spec):
        current = None
        with open(spec, encoding="utf-8") as fh:
            for line in fh:
                m = SPEC_HEADER.match(line.rstrip("\n"))
                if m:
                    current = m.group("name")
                    continue
                m = re.match(r"^param\.([A-Za-z0-9_.\-]+)\s*=", line)
                if m and current in out:
                    out[current].add(m.group(1))
    return out


def check_action_params(rel: str, conf: str, stanzas: List[Stanza], params: Dict[str, set]) -> Iterator[str]:
    """savedsearches.conf `action.<our action>.param.<name>`: <name> is a parameter of that action.

    Splunk's spec accepts any `action.<action_name>.<parameter>`, so a misspelled parameter
    would otherwise pass and be silently ignored by the action."""
    if conf != "savedsearches.conf":
        return
    for st in stanzas:
        for s in st.settings:
            m = re.match(r"^action\.([^.]+)\.param\.(.+)$", s.key)
            if m and m.group(1) in params and m.group(2) not in params[m.group(1)]:
                yield "%s:%d: [%s] %r: alert action %s has no parameter %r (alert_actions.conf, " \
                      "README/alert_actions.conf.spec): %s" % (
                          rel, s.line, st.name, s.key, m.group(1), m.group(2),
                          ", ".join(sorted(params[m.group(1)])) or "none")


def check_app(app: str, spec_dir: Optional[str] = None, allow=None) -> Tuple[int, List[str]]:
    """(settings checked, problems) for APP_DIR/default/*.conf."""
    spec_dir = spec_dir or default_spec_dir()
    if not spec_dir:
        raise SystemExit("confcheck: Splunk spec files not found: install requirements-tools.txt "
                         "(splunk-packaging-toolkit) and run from .venv/tools")
    specs = load_specs(spec_dir, app)
    allow = load_allow() if allow is None else allow
    problems: List[str] = []
    params = _action_params(app)
    count = 0
    for path in sorted(glob.glob(os.path.join(app, "default", "*.conf"))):
        conf = os.path.basename(path)
        rel = os.path.relpath(path, app)
        stanzas, errors = parse_conf(path)
        spec = specs.get(conf)
        count += sum(len(st.settings) for st in stanzas)
        problems += check_syntax(rel, stanzas, errors, spec)
        problems += check_known(rel, conf, stanzas, spec, allow)
        problems += check_python(rel, conf, stanzas, app)
        problems += check_action_params(rel, conf, stanzas, params)
    return count, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("app")
    ap.add_argument("--specs", help="folder of Splunk *.conf.spec files (default: slim's bundled specs)")
    args = ap.parse_args(argv)
    count, problems = check_app(args.app, args.specs)
    for p in problems:
        print("confcheck: " + p)
    files = len(glob.glob(os.path.join(args.app, "default", "*.conf")))
    if problems:
        print("confcheck: FAILED, %d problem%s in %d files (%d settings)" % (
            len(problems), "" if len(problems) == 1 else "s", files, count))
        return 1
    if files == 0:
        print("confcheck: FAILED, no default/*.conf under %s" % args.app)
        return 1
    print("confcheck: %d settings in %d files, all known" % (count, files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
