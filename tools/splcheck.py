#!/usr/bin/env python3
"""Static checks of every search the app ships. There is no public SPL grammar: this is ours.

Searches checked:
- default/savedsearches.conf: `search` of every stanza;
- default/macros.conf: `definition` of every stanza (`name(N)` takes N arguments, named in `args`);
- Dashboard Studio views (default/data/ui/views/*.xml, `<dashboard version="2">` with a JSON
  `<definition>`): `options.query` of every data source (ds.search, ds.chain post-process);
  Simple XML views: every `<query>`.

Checks (each problem names file, object and problem):
- balance: quotes (double, single, backticks), parentheses and brackets, outside quoted strings;
- commands: the word after each pipe and at the start of each `[` subsearch is a known SPL
  command (tools/spl_commands.txt); no empty command between pipes;
- macros: every backtick call is defined in macros.conf with that many arguments
  (`name(a,b)` -> stanza `name(2)`); a macro's `args` match its stanza name and its `$arg$`s;
- lookups: every lookup named by lookup/inputlookup/outputlookup is a transforms.conf stanza
  or a lookups/*.csv file; every `sendalert` action is in alert_actions.conf;
- index: no `index=`, `index!=` or `index IN` outside macros.conf definitions;
- dashboards: every `$token$` is defined in that dashboard (inputs, defaults.tokens,
  drilldown.setToken; `<input>`/`<set>`/`<eval>` in Simple XML), `$$` is a literal dollar,
  `$row.x.value$`/`$click.value$`-style tokens only inside event handlers/drilldowns; every
  ds.chain extends an existing data source; every ds.savedsearch names a saved search.
- cost (issue 35; macros expanded first):
  - an `append`, `appendcols` or `join` subsearch over raw events or over `mstats ... span=` aggregates
    inside (stats, chart, timechart, top, rare): Splunk cuts such a subsearch at 50,000 rows and 60 s
    without an error, and per-event or per-bin rows of many instances pass that. A binned mstats whose
    WHERE holds a `[ ... | head N | fields host]` subsearch (N <= 10: the top N hosts) passes: its rows
    do not grow with the number of instances (they still grow with the range: hosts x series x bins);
  - a scheduled search that runs more often than every 15 minutes reads no raw
    `group=tcpin_connections`, `group=tcpout_connections` or `group=dutycycle` line (one line per
    connection or thread per 30 s on every instance: tstats over the indexed terms, or a lookup kept
    by a short tstats run, instead).

Usage: splcheck.py APP_DIR      prints every problem and the number of searches checked;
exit 1 on any problem or when no search was found. Importable: tests call the check_* functions.
"""
from __future__ import annotations

import glob
import json
import os
import re
import sys
import xml.etree.ElementTree as ET
from typing import Dict, Iterable, Iterator, List, NamedTuple, Optional, Set, Tuple

from confcheck import read_conf

HERE = os.path.dirname(os.path.abspath(__file__))
COMMANDS_FILE = os.path.join(HERE, "spl_commands.txt")
LOOKUP_COMMANDS = ("lookup", "inputlookup", "outputlookup")
# Commands whose [ ... ] holds a pipeline of commands rather than a search.
PIPELINE_BRACKETS = ("appendpipe", "foreach")
# Issue 35's cost rules: commands that aggregate, subsearches Splunk cuts at 50,000 rows, the metrics.log
# groups a frequent scheduled search must not read raw, and how often is too often for them.
AGGREGATING = ("stats", "chart", "timechart", "top", "rare", "sistats", "geostats")
CUT_SUBSEARCHES = ("append", "appendcols", "join")
HEAVY_RAW_GROUPS = ("tcpin_connections", "tcpout_connections", "dutycycle")
RAW_MIN_PERIOD_MIN = 15
# A binned mstats appended is bounded when a subsearch restricts it to this many hosts at most (top_hosts_filter).
TOP_HOSTS_MAX = 10
MULTIVALUE_RX = re.compile(r"\b(?:values|list|mvappend|split)\s*\(|\bmakemv\b", re.I)


def load_commands(path: str = COMMANDS_FILE) -> Set[str]:
    with open(path, encoding="utf-8") as fh:
        return {line.strip().lower() for line in fh if line.strip() and not line.startswith("#")}


COMMANDS = load_commands()


class Context(NamedTuple):
    """What the searches may refer to."""
    macros: Dict[str, List[str]]        # stanza name ("name" or "name(N)") -> arg names
    lookups: Set[str]                   # transforms.conf stanzas and lookups/*.csv file names
    alert_actions: Set[str]
    saved_searches: Set[str]
    commands: Set[str] = COMMANDS


def context(macros=None, lookups=(), alert_actions=(), saved_searches=(), commands=None) -> Context:
    return Context(dict(macros or {}), set(lookups), set(alert_actions), set(saved_searches),
                   commands if commands is not None else COMMANDS)


# ---------------------------------------------------------------- the scanner
class Scan(NamedTuple):
    errors: List[str]                           # balance/syntax problems
    commands: List[Tuple[str, int, str]]        # (command word, offset, segment text after it)
    macros: List[Tuple[str, int, int]]          # (name, arity, offset)
    index_refs: List[int]                       # offsets of index= / index IN
    plain: str                                  # the search with quoted strings blanked
    empty_pipes: List[str]                      # pipes with no command after them


def split_top(text: str, sep: str = ",", quotes: str = "\"'", opens: str = "(", closes: str = ")") -> List[str]:
    """`text` split at each `sep` outside quotes (with backslash escapes) and outside brackets.
    The defaults split macro arguments; tests/alert/test_alert_searches.py splits SPL with its own."""
    args, depth, cur, q = [], 0, [], None
    i = 0
    while i < len(text):
        c = text[i]
        if q:
            cur.append(c)
            if c == "\\" and i + 1 < len(text):
                cur.append(text[i + 1])
                i += 1
            elif c == q:
                q = None
        elif c in quotes:
            q = c
            cur.append(c)
        elif c in opens:
            depth += 1
            cur.append(c)
        elif c in closes:
            depth -= 1
            cur.append(c)
        elif c == sep and depth == 0:
            args.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    args.append("".join(cur))
    return args


def _blank_quotes(spl: str) -> Tuple[str, List[str]]:
    """Blank the inside of quoted strings and the whole of ```comments``` (same offsets)."""
    out = list(spl)
    errors = []
    i, n = 0, len(spl)
    while i < n:
        c = spl[i]
        if spl.startswith("```", i):  # an SPL comment: ```like this```
            j = spl.find("```", i + 3)
            if j < 0:
                errors.append("unclosed ``` comment at offset %d: %s" % (i, _snip(spl, i)))
                j = n
            for k in range(i, min(n, j + 3)):
                out[k] = " "
            i = j + 3
            continue
        if c in "\"'":
            j = i + 1
            while j < n and spl[j] != c:
                j += 2 if spl[j] == "\\" else 1
            if j >= n:
                kind = "double" if c == '"' else "single"
                errors.append("unbalanced %s quote at offset %d: %s" % (kind, i, _snip(spl, i)))
                for k in range(i + 1, n):
                    out[k] = " "
                break
            for k in range(i + 1, j):
                out[k] = " "
            i = j + 1
        elif c == "`":
            j = spl.find("`", i + 1)
            if j < 0:
                errors.append("unbalanced backtick (macro call) at offset %d: %s" % (i, _snip(spl, i)))
                for k in range(i + 1, n):
                    out[k] = " "
                break
            i = j + 1
        else:
            i += 1
    return "".join(out), errors


def _snip(spl: str, at: int, width: int = 30) -> str:
    return repr(spl[max(0, at - 10):at + width].replace("\n", " "))


INDEX_RX = re.compile(r"(?<![\w.])index\s*(?:!?=|::|\s+in\s*\()", re.I)
WORD_RX = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def scan(spl: str, post_process: bool = False) -> Scan:
    """One pass over a search: balance errors, commands, macro calls, index references.

    `post_process`: a Dashboard Studio ds.chain query, whose first word is a command even
    without a leading pipe.
    """
    plain, errors = _blank_quotes(spl)
    # macro calls (their text is kept in `plain` but blanked for the structure below)
    macros = []
    structural = list(plain)
    for m in re.finditer(r"`([^`]*)`", plain):
        body = spl[m.start(1):m.end(1)]
        for k in range(m.start() + 1, m.end()):
            structural[k] = " "   # keep the opening backtick: it marks where a macro stands
        mm = re.match(r"^\s*([\w:.\-]+)\s*(?:\((.*)\))?\s*$", body, re.S)
        if not mm:
            errors.append("malformed macro call `%s`" % body[:60])
            continue
        name, args = mm.group(1), mm.group(2)
        arity = 0 if args is None or not args.strip() else len(split_top(args))
        macros.append((name, arity, m.start()))
    text = "".join(structural)
    # brackets
    stack: List[Tuple[str, int]] = []
    pairs = {")": "(", "]": "["}
    for i, c in enumerate(text):
        if c in "([":
            stack.append((c, i))
        elif c in ")]":
            if not stack or stack[-1][0] != pairs[c]:
                errors.append("unbalanced %r at offset %d: %s" % (c, i, _snip(spl, i)))
            else:
                stack.pop()
    for c, i in stack:
        errors.append("unclosed %r at offset %d: %s" % (c, i, _snip(spl, i)))
    # commands: after each pipe, at the start of each subsearch, and first in a post-process
    commands = []
    empty_pipes = []
    starts = [(m.end(), True) for m in re.finditer(r"\|", text)]
    starts += [(m.end(), False) for m in re.finditer(r"\[", text)]
    lead = text.lstrip()
    if post_process and lead and not lead.startswith("|"):
        starts.append((len(text) - len(lead), True))
    for pos, required in sorted(starts):
        if not required and commands and commands[-1][0].lstrip("?").lower() in PIPELINE_BRACKETS:
            required = True  # `appendpipe [stats ...]`, `foreach * [eval ...]`: a command comes first
        rest = text[pos:]
        stripped = rest.lstrip()
        at = pos + len(rest) - len(stripped)
        if not stripped or stripped[0] in "|]":
            if required:
                empty_pipes.append("pipe with no command at offset %d: %s" % (pos - 1, _snip(spl, pos - 1)))
            continue
        if stripped[0] in "`[":
            continue  # a macro or a subsearch stands where the command would be
        m = WORD_RX.match(stripped)
        word = m.group(0) if m else stripped.split()[0]
        seg_end = len(text)
        for k in range(at, len(text)):
            if text[k] in "|]":
                seg_end = k
                break
        commands.append((word if required else "?" + word, at, spl[at + len(word):seg_end]))
    index_refs = [m.start() for m in INDEX_RX.finditer(text)]
    return Scan(errors, commands, macros, index_refs, plain, empty_pipes)


# ---------------------------------------------------------------- the checks
def check_balance(spl: str) -> List[str]:
    return scan(spl).errors


def check_commands(spl: str, ctx: Optional[Context] = None, post_process: bool = False) -> List[str]:
    known = (ctx or context()).commands
    out = []
    s = scan(spl, post_process)
    out += s.empty_pipes
    for word, at, _ in s.commands:
        optional = word.startswith("?")
        word = word.lstrip("?")
        if word.lower() in known:
            continue
        if optional:
            continue  # `[ index=... ]`-style implicit search at the start of a subsearch
        out.append("unknown command %r at offset %d: %s" % (word, at, _snip(spl, at)))
    return out


def check_macros(spl: str, ctx: Context) -> List[str]:
    out = []
    for name, arity, at in scan(spl).macros:
        stanza = name if arity == 0 else "%s(%d)" % (name, arity)
        if stanza in ctx.macros:
            continue
        others = sorted(k for k in ctx.macros if k == name or k.startswith(name + "("))
        if others:
            out.append("macro `%s` called with %d argument%s but macros.conf defines only %s" % (
                name, arity, "" if arity == 1 else "s", ", ".join("[%s]" % o for o in others)))
        else:
            out.append("macro `%s` is not defined in macros.conf (stanza [%s])" % (name, stanza))
    return out


def _lookup_name(segment: str) -> Optional[str]:
    for tok in segment.split():
        if "=" in tok:
            continue
        return tok.strip("\"'")
    return None


def check_lookups(spl: str, ctx: Context) -> List[str]:
    out = []
    for word, at, segment in scan(spl).commands:
        word = word.lstrip("?").lower()
        if word in LOOKUP_COMMANDS:
            name = _lookup_name(segment)
            if not name:
                out.append("%s without a lookup name at offset %d" % (word, at))
            elif name not in ctx.lookups:
                out.append("lookup %r (%s) is neither a transforms.conf stanza nor lookups/%s" % (
                    name, word, name if name.endswith(".csv") else name + ".csv"))
        elif word == "sendalert":
            name = _lookup_name(segment)
            if name and name not in ctx.alert_actions:
                out.append("sendalert %r: no such alert action in alert_actions.conf" % name)
    return out


def check_index(spl: str) -> List[str]:
    return ["`index` referenced outside a macro at offset %d: %s (use the ingest_doctor_* index macros)"
            % (at, _snip(spl, at)) for at in scan(spl).index_refs]


def check_search(spl: str, ctx: Context, in_macro: bool = False, post_process: bool = False) -> List[str]:
    """Every check that applies to one search string."""
    if not spl.strip():
        return ["empty search"]
    out = check_balance(spl)
    out += check_commands(spl, ctx, post_process)
    out += check_macros(spl, ctx)
    out += check_lookups(spl, ctx)
    if not in_macro:
        out += check_index(spl)
    return out


def check_macro_definition(stanza: str, args: List[str], definition: str) -> List[str]:
    """A macros.conf stanza: arity in its name equals its args; $arg$ tokens are its args."""
    out = []
    m = re.match(r"^(.*)\((\d+)\)$", stanza)
    want = int(m.group(2)) if m else 0
    if len(args) != want:
        out.append("stanza [%s] takes %d argument%s but args = %r names %d" % (
            stanza, want, "" if want == 1 else "s", ",".join(args), len(args)))
    if len(set(args)) != len(args):
        out.append("args %r repeats a name" % ",".join(args))
    for tok in set(re.findall(r"\$([A-Za-z0-9_]+)\$", definition)):
        if tok not in args:
            out.append("definition uses $%s$ but args does not name it" % tok)
    for a in args:
        if not re.match(r"^[A-Za-z0-9_\-]+$", a):
            out.append("argument name %r: only letters, digits, '_' and '-'" % a)
    return out


# ---------------------------------------------------------------- cost rules (issue 35)
def check_subsearch_aggregation(expanded: str) -> List[str]:
    """An append/appendcols/join subsearch over raw events or a binned mstats that does not aggregate
    inside. `expanded`: the search with its macros written out (searchspl.expand)."""
    from searchspl import segments   # searchspl reads SPL with this module's scanner
    out = []
    for seg in segments(expanded):
        if seg.via not in CUT_SUBSEARCHES:
            continue
        binned = seg.kind == "mstats" and re.search(r"(?<![\w.])span\s*=", seg.text.split("|", 2)[1])
        if seg.kind != "raw" and not binned:
            continue
        if binned and top_hosts_filter(seg.full) is not None:
            continue
        words = {w.lstrip("?").lower() for w, _, _ in scan(seg.text).commands}
        if not words & set(AGGREGATING):
            what = "raw events" if seg.kind == "raw" else "mstats ... span="
            out.append("%s subsearch over %s without aggregation inside (%s): Splunk cuts it at 50,000 rows "
                       "without an error; aggregate to the grain the outer search needs: %s" % (
                           seg.via, what, " | ".join(sorted(AGGREGATING)), _snip(seg.text, 0, 60)))
    return out


def top_hosts_filter(mstats_search: str) -> Optional[int]:
    """N when the mstats command that opens `mstats_search` (a subsearch's whole text, its own subsearches
    written out) is restricted by a `[ ... | head N | fields host]` subsearch with N <= TOP_HOSTS_MAX: it then
    reads at most N hosts, so its rows (hosts x its other BY values x bins) do not grow with the deployment.
    None otherwise. Only a subsearch whose last two commands are exactly those counts: `head N` then one
    `fields host` (or `table host`), anything after head could add hosts back; and none that can make `host`
    multivalued (values(), list(), makemv, mvappend(), split()): one row of many hosts filters on all of them."""
    parts = split_top(mstats_search.strip(), sep="|", opens="([", closes=")]")
    if len(parts) < 2 or parts[0].strip() or not re.match(r"\s*mstats\b", parts[1], re.I):
        return None
    plain, _ = _blank_quotes(parts[1])
    depth, start, found = 0, 0, []
    for i, c in enumerate(plain):
        if c == "[":
            depth += 1
            if depth == 1:
                start = i + 1
        elif c == "]":
            depth -= 1
            if depth == 0:
                found.append(parts[1][start:i])
    for sub in found:
        cmds = [" ".join(c.split()) for c in split_top(sub, sep="|", opens="([", closes=")]")]
        if len(cmds) < 3 or MULTIVALUE_RX.search(sub):
            continue
        head = re.match(r"^head (?:limit=)?(\d+)$", cmds[-2], re.I)
        if head and re.match(r"^(?:fields \+? ?|table )host$", cmds[-1], re.I) and int(head.group(1)) <= TOP_HOSTS_MAX:
            return int(head.group(1))
    return None


def check_scheduled_raw_reads(expanded: str, cron: str) -> List[str]:
    """A scheduled search running more often than every RAW_MIN_PERIOD_MIN minutes that reads raw
    tcpin_connections, tcpout_connections or dutycycle lines."""
    from searchspl import clause, cron_runs_per_day, groups, segments
    runs = cron_runs_per_day(cron)
    if runs * RAW_MIN_PERIOD_MIN <= 24 * 60:
        return []
    out = []
    for seg in segments(expanded):
        if seg.kind != "raw":
            continue
        for g in groups(clause(seg.text)):
            if g in HEAVY_RAW_GROUPS:
                out.append("raw search over metrics.log group=%s in a search that runs %d times a day (more often "
                           "than every %d minutes): read it with tstats, or from a lookup a short tstats run keeps"
                           % (g, runs, RAW_MIN_PERIOD_MIN))
    return out


# ---------------------------------------------------------------- dashboard tokens
TOKEN_RX = re.compile(r"\$\$|\$([^$\s]+?)\$")
PREDEFINED_IN_HANDLERS = re.compile(r"^(?:(?:row|click|trellis|result|job)\.|(?:value|name|value2|name2)$)")


def tokens_used(text: str) -> List[str]:
    """$name$ uses in a string ($$ is a literal dollar); filters (|s, |h, ...) stripped."""
    return [m.group(1).split("|", 1)[0] for m in TOKEN_RX.finditer(text) if m.group(1)]


def _walk_strings(node, path=()) -> Iterator[Tuple[Tuple[str, ...], str]]:
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk_strings(v, path + (str(k),))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk_strings(v, path + (str(i),))
    elif isinstance(node, str):
        yield path, node


def studio_tokens_defined(defn: dict) -> Set[str]:
    defined: Set[str] = set()
    for item in (defn.get("inputs") or {}).values():
        opts = item.get("options") or {}
        tok = opts.get("token")
        if not tok:
            continue
        if item.get("type") == "input.timerange":
            defined.update({tok + ".earliest", tok + ".latest"})
        defined.add(tok)
    tokens = ((defn.get("defaults") or {}).get("tokens") or {})
    for scope in tokens.values():
        if isinstance(scope, dict):
            defined.update(scope.keys())
    for path, value in _walk_strings(defn):
        # {"type": "drilldown.setToken", "options": {"tokens": [{"token": "x", "key": ...}]}}
        if len(path) >= 2 and path[-1] == "token" and "eventHandlers" in path and "tokens" in path:
            defined.add(value)
    return defined


def check_studio_tokens(defn: dict) -> List[str]:
    """Every $token$ used in a Studio definition is defined in it."""
    defined = studio_tokens_defined(defn)
    smart = set()
    for ds_id, ds in (defn.get("dataSources") or {}).items():
        smart.add(ds_id)
        if ds.get("name"):
            smart.add(ds["name"])
    out = []
    for path, value in _walk_strings(defn):
        in_handler = "eventHandlers" in path
        for tok in tokens_used(value):
            if tok in defined or tok.startswith("env:"):
                continue
            if ":" in tok and tok.split(":", 1)[0] in smart:
                continue  # smart source result token $ds_name:result.field$
            if PREDEFINED_IN_HANDLERS.match(tok):
                if in_handler:
                    continue
                out.append("%s: $%s$ is only defined inside an event handler (drilldown)" % (".".join(path), tok))
                continue
            out.append("%s: token $%s$ is not defined in this dashboard" % (".".join(path), tok))
    return out


# ---------------------------------------------------------------- app loading
def load_context(app: str) -> Context:
    macros = {name: [a.strip() for a in st.get("args", "").split(",") if a.strip()]
              for name, st in read_conf(os.path.join(app, "default", "macros.conf")).items()}
    lookups = set(read_conf(os.path.join(app, "default", "transforms.conf")))
    lookups |= {os.path.basename(p) for p in glob.glob(os.path.join(app, "lookups", "*.csv"))}
    actions = set(read_conf(os.path.join(app, "default", "alert_actions.conf")))
    saved = set(read_conf(os.path.join(app, "default", "savedsearches.conf")))
    return context(macros, lookups, actions, saved)


class Search(NamedTuple):
    file: str
    obj: str
    spl: str
    in_macro: bool = False
    post_process: bool = False


def _studio(rel: str, root: ET.Element, ctx: Context) -> Tuple[List[Search], List[str]]:
    node = root.find("definition")
    if node is None or not (node.text or "").strip():
        return [], ["%s: <dashboard version=\"2\"> without a <definition>" % rel]
    try:
        defn = json.loads(node.text)
    except ValueError as exc:
        return [], ["%s: <definition> is not valid JSON: %s" % (rel, exc)]
    searches, problems = [], []
    sources = defn.get("dataSources") or {}
    for ds_id, ds in sorted(sources.items()):
        opts = ds.get("options") or {}
        kind = ds.get("type")
        obj = "dataSources.%s" % ds_id
        if kind == "ds.chain":
            parent = opts.get("extend")
            if parent not in sources:
                problems.append("%s: %s: ds.chain extends %r, which is not a data source here" % (rel, obj, parent))
        if kind == "ds.savedsearch":
            ref = opts.get("ref")
            if ref not in ctx.saved_searches:
                problems.append("%s: %s: ds.savedsearch ref %r is not in savedsearches.conf" % (rel, obj, ref))
        if kind in ("ds.search", "ds.chain"):
            q = opts.get("query")
            if not isinstance(q, str):
                problems.append("%s: %s: %s without options.query" % (rel, obj, kind))
                continue
            searches.append(Search(rel, obj, q, post_process=(kind == "ds.chain")))
    problems += ["%s: %s" % (rel, p) for p in check_studio_tokens(defn)]
    return searches, problems


def _simplexml(rel: str, root: ET.Element) -> Tuple[List[Search], List[str]]:
    searches, problems = [], []
    defined: Set[str] = set()
    for el in root.iter():
        tok = el.get("token")
        if tok and el.tag in ("input", "set", "eval", "unset", "link"):
            defined.add(tok)
            if el.tag == "input" and el.get("type") == "time":
                defined.update({tok + ".earliest", tok + ".latest"})
    for el in root.iter("input"):
        if el.get("type") == "time" and not el.get("token"):
            defined.update({"earliest", "latest"})
    parents = {c: p for p in root.iter() for c in p}

    def in_handler(el) -> bool:
        while el is not None:
            if el.tag in ("drilldown", "done", "progress", "finalized", "change", "condition"):
                return True
            el = parents.get(el)
        return False

    for i, q in enumerate(root.iter("query")):
        searches.append(Search(rel, "query[%d]" % (i + 1), q.text or ""))
    for el in root.iter():
        texts = [el.text or ""] + list(el.attrib.values())
        for t in texts:
            for tok in tokens_used(t):
                if tok in defined or tok.startswith("env:") or tok.startswith("form."):
                    continue
                if PREDEFINED_IN_HANDLERS.match(tok) and in_handler(el):
                    continue
                problems.append("%s: <%s>: token $%s$ is not defined in this dashboard" % (rel, el.tag, tok))
    return searches, problems


def collect(app: str, ctx: Context) -> Tuple[List[Search], List[str]]:
    """Every search the app ships, and the problems found while collecting them."""
    searches: List[Search] = []
    problems: List[str] = []
    for name, st in sorted(read_conf(os.path.join(app, "default", "savedsearches.conf")).items()):
        if name == "default":
            continue
        if "search" not in st:
            problems.append("default/savedsearches.conf: [%s]: no `search`" % name)
            continue
        searches.append(Search("default/savedsearches.conf", "[%s]" % name, st["search"]))
    for name, st in sorted(read_conf(os.path.join(app, "default", "macros.conf")).items()):
        args = [a.strip() for a in st.get("args", "").split(",") if a.strip()]
        problems += ["default/macros.conf: [%s]: %s" % (name, p)
                     for p in check_macro_definition(name, args, st.get("definition", ""))]
        if "definition" not in st:
            problems.append("default/macros.conf: [%s]: no `definition`" % name)
            continue
        if st.get("iseval", "0").strip().lower() in ("1", "true"):
            continue  # an eval expression, not SPL
        searches.append(Search("default/macros.conf", "[%s]" % name, st["definition"], in_macro=True))
    for path in sorted(glob.glob(os.path.join(app, "default", "data", "ui", "views", "*.xml"))):
        rel = os.path.relpath(path, app)
        try:
            root = ET.parse(path).getroot()
        except ET.ParseError as exc:
            problems.append("%s: not well-formed XML: %s" % (rel, exc))
            continue
        if root.tag == "dashboard" and root.get("version") == "2":
            s, p = _studio(rel, root, ctx)
        else:
            s, p = _simplexml(rel, root)
        searches += s
        problems += p
    return searches, problems


def check_app(app: str) -> Tuple[int, List[str]]:
    """(number of searches checked, problems) for an app folder."""
    ctx = load_context(app)
    searches, problems = collect(app, ctx)
    for s in searches:
        found = check_search(s.spl, ctx, in_macro=s.in_macro, post_process=s.post_process)
        if not found and not s.in_macro and not s.post_process:
            found = check_cost(app, s)
        problems += ["%s: %s: %s" % (s.file, s.obj, p) for p in found]
    return len(searches), problems


def check_cost(app: str, s: "Search") -> List[str]:
    """Issue 35's cost rules for one search that passed the other checks."""
    from searchspl import expand, load_macros
    try:
        expanded = expand(s.spl, load_macros(app))
    except ValueError as exc:
        return ["cannot expand its macros: %s" % exc]
    out = check_subsearch_aggregation(expanded)
    if s.file == "default/savedsearches.conf":
        st = read_conf(os.path.join(app, "default", "savedsearches.conf")).get(s.obj[1:-1], {})
        if st.get("enableSched", "0").strip().lower() in ("1", "true") and st.get("cron_schedule"):
            out += check_scheduled_raw_reads(expanded, st["cron_schedule"])
    return out


def main(argv: Optional[Iterable[str]] = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv in (["--help"], ["-h"]):
        sys.stdout.write(__doc__)
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        sys.stderr.write("usage: splcheck.py APP_DIR (splcheck.py --help: what it checks)\n")
        return 2
    count, problems = check_app(argv[0])
    for p in problems:
        print("splcheck: " + p)
    if count == 0:
        print("splcheck: FAILED, no search found under %s" % argv[0])
        return 1
    if problems:
        print("splcheck: FAILED, %d problem%s in %d searches" % (len(problems), "" if len(problems) == 1 else "s", count))
        return 1
    print("splcheck: %d searches checked, no problem" % count)
    return 0


if __name__ == "__main__":
    sys.exit(main())
