"""The search head as the alert action sees it (its tests: tests/gates/test_fakes_kvstore.py).

- KVStore: an in-memory KV store collection served as route handlers on the
  fake splunkd (`GET data/<c>?query=&limit=`, `GET/POST/DELETE data/<c>/<key>`,
  `POST data/<c>` (insert), `POST data/<c>/batch_save`), answering like splunkd
  (JSON lists, 404 with a messages body). `unavailable=N` makes its first N
  calls answer 503 "KV Store is initializing"; `unavailable=-1` is the twin that
  always does. The KV store semantics the action relies on, as real KV store has
  them: every call is atomic (one lock); `query` with the comparison operators, `sort`
  (field:1 or field:-1) and `limit` as the KV store applies them; an insert (`POST data/<c>`) of a `_key`
  that exists fails with 409 and changes nothing (the findings store's lock rests
  on it); batch_save and `POST data/<c>/<key>` replace whole documents.
- Splunkd routes for the rest of the action's needs: conf-macros built from
  the app's own default/macros.conf (read and written), storage/passwords (read,
  created, updated, deleted, with splunkd's capability 403s), a oneshot search
  returning the latest ingest_doctor:config events or running the hold action for
  a `sendalert`, receivers/simple recording events, server/info and a webhook receiver.
- results.csv.gz writer in splunkd's format (plain column + __mv_ column).
"""
from __future__ import annotations

import csv
import functools
import gzip
import io
import json
import os
import re
import shutil
import sys
import tempfile
import threading
from urllib.parse import unquote
from typing import Any, Dict, List, Optional, Sequence, Tuple

from fakes.paths import ROOT, TOOLS
from fakes.splunkd import Messages, Request, Response, envelope, fault, messages

if TOOLS not in sys.path:
    sys.path.insert(0, TOOLS)
from confcheck import read_conf  # noqa: E402
NS = "/servicesNS/nobody/ingest_doctor"
COLL = "ingest_doctor_findings"
LOCKS = "ingest_doctor_locks"
ACKS, SNOOZES, HISTORY = "ingest_doctor_acks", "ingest_doctor_snoozes", "ingest_doctor_hold_history"
ADMIN_CAPS = ["admin_all_objects", "ingest_doctor_acknowledge", "list_storage_passwords"]
KV_BASE = NS + "/storage/collections/data/" + COLL


# ---------------------------------------------------------------------------- KV store
# The comparison operators of the KV store's query language (a field absent from a document never matches).
_OPS = {"$gt": lambda a, b: a > b, "$gte": lambda a, b: a >= b, "$lt": lambda a, b: a < b,
        "$lte": lambda a, b: a <= b}


def _match(rec: Dict[str, Any], query: Dict[str, Any]) -> bool:
    for k, v in query.items():
        if k == "$or":
            if not any(_match(rec, q) for q in v):
                return False
        elif k == "$and":
            if not all(_match(rec, q) for q in v):
                return False
        elif isinstance(v, dict):
            if not v or any(op not in _OPS for op in v):
                raise ValueError("operator %r not supported by the fake" % v)
            if k not in rec or not all(_OPS[op](rec[k], arg) for op, arg in v.items()):
                return False
        elif rec.get(k) != v:
            return False
    return True


def _only_keys(query: Dict[str, Any]) -> Optional[set]:
    """The _keys a query of only `{"$or": [{"_key": k}, ...]}` (or one `{"_key": k}`) selects, else None."""
    if list(query) == ["_key"] and isinstance(query["_key"], str):
        return {query["_key"]}
    if list(query) == ["$or"] and all(isinstance(q, dict) and list(q) == ["_key"] and isinstance(q["_key"], str)
                                      for q in query["$or"]):
        return {q["_key"] for q in query["$or"]}
    return None


class KVStore:
    def __init__(self, unavailable: int = 0, collection: str = COLL):
        self.records: Dict[str, Dict[str, Any]] = {}
        self.unavailable = unavailable
        self.calls: List[str] = []
        self.saves: List[List[Dict[str, Any]]] = []
        self.inserts = 0
        self.conflicts = 0
        self.base = NS + "/storage/collections/data/" + collection
        self._lock = threading.Lock()

    def install(self, fake) -> "KVStore":
        fake.route_prefix("GET", self.base, self.handle)
        fake.route_prefix("POST", self.base, self.handle)
        fake.route_prefix("DELETE", self.base, self.handle)
        return self

    def handle(self, req: Request) -> Response:
        with self._lock:
            rest = req.path[len(self.base):]
            if rest and not rest.startswith("/"):      # another collection whose name starts like ours
                return messages(404, "Collection not found")
            self.calls.append("%s %s" % (req.method, rest or "/"))
            if self.unavailable:
                if self.unavailable > 0:
                    self.unavailable -= 1
                return fault("503")
            rest = rest.lstrip("/")
            if req.method == "GET" and not rest:
                q = json.loads(req.query.get("query", ["{}"])[0])
                keys = _only_keys(q)
                if keys is not None:
                    # The action's read by _key: the KV store answers it from its _key index (in _key order), never
                    # by a scan of the collection (a run stored a chunk at a time reads while the store fills).
                    hits = [dict(self.records[k]) for k in sorted(keys) if k in self.records]
                else:
                    hits = [dict(r) for r in self.records.values() if _match(r, q)]
                # sort=<field>[:1|:-1][,...] as the KV store takes it: the last key first, each stable
                for part in reversed([p for p in req.query.get("sort", [""])[0].split(",") if p]):
                    field, _, way = part.partition(":")
                    hits.sort(key=lambda r, f=field: (f in r, r.get(f) if f in r else 0), reverse=way == "-1")
                limit = int(req.query.get("limit", ["0"])[0] or 0)
                return Response(200, hits[:limit] if limit else hits)
            if req.method == "POST" and not rest:
                doc = req.json()
                if not isinstance(doc, dict):
                    return messages(400, "Request body must be a JSON object")
                key = doc.get("_key") or "k%d" % (len(self.records) + 1)
                if key in self.records:
                    self.conflicts += 1
                    return messages(409, "A document with the same key and user already exists.")
                self.inserts += 1
                self.records[key] = dict(doc, _key=key, _user="nobody")
                return Response(201, {"_key": key})
            if req.method == "POST" and rest == "batch_save":
                docs = req.json()
                if not isinstance(docs, list):
                    return messages(400, "Request body must be a JSON array")
                self.saves.append([dict(d) for d in docs])
                keys = []
                for d in docs:
                    key = d.get("_key") or "k%d" % (len(self.records) + 1)
                    self.records[key] = dict(d, _key=key, _user="nobody")
                    keys.append(key)
                return Response(200, keys)
            if rest and "/" not in rest:
                if req.method == "GET":
                    rec = self.records.get(rest)
                    return Response(200, dict(rec)) if rec else messages(404, "Could not find object id=%s" % rest)
                if req.method == "POST":
                    if rest not in self.records:
                        return messages(404, "Could not find object id=%s" % rest)
                    self.records[rest] = dict(req.json(), _key=rest, _user="nobody")
                    return Response(200, {"_key": rest})
                if req.method == "DELETE":
                    self.records.pop(rest, None)
                    return Response(200, b"")
            return messages(400, "unsupported by the fake KV store")


# ---------------------------------------------------------------------------- the rest of splunkd
def parse_macros(path: str) -> Dict[str, str]:
    return {name: st.get("definition", "") for name, st in read_conf(path).items()}


class Splunkd:
    """Everything the action calls, on one FakeSplunkd."""

    def __init__(self, fake, kv: Optional[KVStore] = None, configs: Optional[Dict[str, Dict[str, Any]]] = None,
                 macro_overrides: Optional[Dict[str, str]] = None, server_name: str = "sh-01",
                 user: str = "admin", capabilities: Optional[Sequence[str]] = None,
                 roles: Optional[Sequence[str]] = None, sendalert_env: Optional[Dict[str, str]] = None):
        self.fake = fake
        self.kv = (kv or KVStore()).install(fake)
        self.locks = KVStore(collection=LOCKS).install(fake)
        # the app's other collections (default/collections.conf): empty until a test fills them
        self.acks = KVStore(collection=ACKS).install(fake)
        self.snoozes = KVStore(collection=SNOOZES).install(fake)
        self.history = KVStore(collection=HISTORY).install(fake)
        # the session's user, as authentication/current-context answers for it
        self.user = user
        self.capabilities = list(ADMIN_CAPS if capabilities is None else capabilities)
        fake.route("GET", "/services/authentication/current-context", self._context)
        self.roles = list(roles if roles is not None else ["admin"])
        # storage/passwords in the app (realm:name: -> clear text), as splunkd answers a user who may list them;
        # created, updated and deleted as splunkd does (`passwords_written` keeps every write's request)
        self.passwords: Dict[str, str] = {}
        self.passwords_written: List[str] = []
        fake.route_prefix("GET", NS + "/storage/passwords/", self._password)
        fake.route("POST", NS + "/storage/passwords", self._password_create)
        fake.route_prefix("POST", NS + "/storage/passwords/", self._password_update)
        fake.route_prefix("DELETE", NS + "/storage/passwords/", self._password_delete)
        self.configs = configs or {}
        self._received: List[Any] = []          # (query, body) a request, parsed when `events` is read
        self._events: List[Dict[str, Any]] = []
        self._events_lock = threading.Lock()
        self.posts = 0
        self.hooks: List[Dict[str, Any]] = []
        self.searches: List[str] = []
        self.messages = Messages(fake, server_name)
        # the app's macros (default/macros.conf, then what a test or a write through configs/conf-macros set)
        self.macros = parse_macros(os.path.join(ROOT, "default", "macros.conf"))
        self.macros.update(macro_overrides or {})
        fake.route("GET", NS + "/configs/conf-macros", self._macro_list)
        fake.route_prefix("GET", NS + "/configs/conf-macros/", self._macro_get)
        fake.route_prefix("POST", NS + "/configs/conf-macros/", self._macro_set)
        # `| makeresults | sendalert ingest_doctor_hold param.<k>=<v> ...` runs the action as splunkd does
        self.sendalert_env = dict(sendalert_env or {})
        self.sendalerts: List[Any] = []         # (configuration, completed process) a run
        fake.route("POST", NS + "/search/jobs", self._oneshot)
        fake.route("POST", NS + "/receivers/simple", self._receive)
        fake.route("POST", "/hook", self._hook)
        fake.route("GET", "/services/server/info",
                   envelope("/services/server/info", [("server-info", {"serverName": server_name,
                                                                      "host": server_name,
                                                                      "numberOfCores": 8})]))

    # -- who may do what: splunkd answers 403 naming the capability an operation requires
    def _denied(self, needs: Sequence[str]) -> Optional[Response]:
        if any(c in self.capabilities for c in needs):
            return None
        return messages(403, "You (user=%s) do not have permission to perform this operation (requires "
                             "capability: %s)." % (self.user, " or ".join(needs)))

    # -- storage/passwords: the entity is named realm:username: (both escaped `:` free here). Reading needs
    # list_storage_passwords; creating, updating and deleting need admin_all_objects or, since Splunk 9.3,
    # edit_storage_passwords (docs: "Manage credentials used by apps and data inputs", capability table).
    # `f=<key>` (repeatable) keeps only those content keys, as splunkd's filtering parameter does.
    def _password(self, req: Request) -> Response:
        name, refused = self._password_named(req, self._denied(("list_storage_passwords", "admin_all_objects")))
        return refused or self._password_entry(name, req.query.get("f"))

    def _password_named(self, req: Request, denied: Optional[Response]) -> Tuple[str, Optional[Response]]:
        """The entity a request names, and splunkd's refusal if any: the capability's 403 first, then a 404."""
        name = unquote(req.path[len(NS + "/storage/passwords/"):])
        if denied is None and name not in self.passwords:
            denied = messages(404, "Could not find object id=%s" % name)
        return name, denied

    def _password_entry(self, name: str, keep: Optional[Sequence[str]] = None, status: int = 200) -> Response:
        realm, user = name.split(":")[:2]
        content = {"realm": realm, "username": user, "clear_password": self.passwords[name],
                   "encr_password": "$7$" + "x" * 40, "password": "********"}
        if keep:
            content = {k: v for k, v in content.items() if k in keep}
        resp = envelope(NS + "/storage/passwords", [(name, content)])
        resp.status = status
        return resp

    def _password_write(self, req: Request) -> Optional[Response]:
        self.passwords_written.append("%s %s" % (req.method, req.path))
        return self._denied(("admin_all_objects", "edit_storage_passwords"))

    def _password_create(self, req: Request) -> Response:
        denied = self._password_write(req)
        if denied:
            return denied
        form = {k: v[0] for k, v in req.form().items()}
        if not form.get("name") or "password" not in form:
            return messages(400, "Missing argument: %s" % ("name" if not form.get("name") else "password"))
        name = "%s:%s:" % (form.get("realm", ""), form["name"])
        if name in self.passwords:
            return messages(409, "An object with name=%s already exists" % name)
        self.passwords[name] = form["password"]
        return self._password_entry(name, ("realm", "username"), 201)

    def _password_update(self, req: Request) -> Response:
        name, refused = self._password_named(req, self._password_write(req))
        if refused:
            return refused
        form = {k: v[0] for k, v in req.form().items()}
        if "password" not in form:
            return messages(400, "Missing argument: password")
        self.passwords[name] = form["password"]
        return self._password_entry(name, ("realm", "username"))

    def _password_delete(self, req: Request) -> Response:
        name, refused = self._password_named(req, self._password_write(req))
        if refused:
            return refused
        del self.passwords[name]
        return envelope(NS + "/storage/passwords", [])

    # -- configs/conf-macros: the list, one stanza, and a write of `definition` (local/macros.conf). Writing
    # needs write access to the macro: the app's metadata gives it to admin and sc_admin (admin_all_objects
    # writes anything).
    MACRO_WRITERS = ("admin", "sc_admin")

    def _macro_entries(self, names: Sequence[str]) -> Response:
        return envelope(NS + "/configs/conf-macros", [(k, {"definition": self.macros[k], "iseval": "0"})
                                                      for k in names])

    def _macro_list(self, req: Request) -> Response:
        return self._macro_entries(sorted(self.macros))

    def _macro_get(self, req: Request) -> Response:
        name = unquote(req.path[len(NS + "/configs/conf-macros/"):])
        if name not in self.macros:
            return messages(404, "Could not find object id=%s" % name)
        return self._macro_entries([name])

    def _macro_set(self, req: Request) -> Response:
        name = unquote(req.path[len(NS + "/configs/conf-macros/"):])
        if name not in self.macros:
            return messages(404, "Could not find object id=%s" % name)
        if "admin_all_objects" not in self.capabilities and not set(self.roles) & set(self.MACRO_WRITERS):
            return messages(403, "You (user=%s) do not have permission to perform this operation (requires "
                                 "write access to macros/%s)." % (self.user, name))
        form = {k: v[0] for k, v in req.form(keep_blank_values=True).items()}
        if "definition" not in form:
            return messages(400, "Missing argument: definition")
        self.macros[name] = form["definition"]
        return self._macro_entries([name])

    def _context(self, req: Request) -> Response:
        return envelope("/services/authentication/current-context",
                        [("context", {"username": self.user, "realname": "", "roles": list(self.roles),
                                      "capabilities": list(self.capabilities)})])

    def _oneshot(self, req: Request) -> Response:
        form = req.form()
        assert form.get("exec_mode") == ["oneshot"], form
        spl = form["search"][0]
        self.searches.append(spl)
        if SENDALERT.match(spl):
            return self._sendalert(req, spl)
        results = [{"host": h, "_raw": json.dumps({"host": h, "time": 1763805000.0, "config": self.configs[h]})}
                   for h in re.findall(r'host="([^"]+)"', spl) if h in self.configs]
        return Response(200, {"preview": False, "init_offset": 0, "messages": [],
                              "fields": [{"name": "host"}, {"name": "_raw"}], "results": results,
                              "highlighted": {}})

    def _sendalert(self, req: Request, spl: str) -> Response:
        """`| makeresults | sendalert <action> param.<k>=<v> ...`: splunkd runs the action's script with the
        payload of the user who ran the search (their session key) and sendalert's params over the
        action's param.* defaults; a script that exits non-zero fails the search with "Error in
        'sendalert' command: Alert script returned error code N." (the wording users report, e.g.
        github.com/LetMeR00t/TA-thehive-cortex/issues/12 and /issues/101)."""
        m = SENDALERT.match(spl)
        name, args = m.group(1), spl_args(m.group(2))
        if isinstance(args, str):
            return messages(400, "Error in 'sendalert' command: %s" % args, "FATAL")
        stanza = read_conf(os.path.join(ROOT, "default", "alert_actions.conf")).get(name)
        if name != "ingest_doctor_hold" or stanza is None:
            return messages(400, "Error in 'sendalert' command: no alert action %s in this test's splunkd" % name,
                            "FATAL")
        conf = {k[len("param."):]: v for k, v in stanza.items() if k.startswith("param.")}
        for k, v in args:
            if not k.startswith("param."):
                return messages(400, "Error in 'sendalert' command: Invalid argument: '%s'" % k, "FATAL")
            conf[k[len("param."):]] = v
        from fakes.action_run import HOLD_SCRIPT, run_action
        tmp = tempfile.mkdtemp(prefix="sendalert-")
        try:
            results = write_results(os.path.join(tmp, "results.csv.gz"), [{"_time": "1763805600"}])
            key = (req.headers.get("Authorization") or "").split(" ", 1)[-1]
            data = {"app": "ingest_doctor", "owner": self.user, "results_file": results, "results_link": "",
                    "search_name": "", "server_host": "sh-01", "server_uri": self.fake.url, "session_key": key,
                    "sid": "1763805600.%d" % len(self.sendalerts), "configuration": conf, "result": {}}
            p = run_action(data, self.fake.tls, self.sendalert_env, script=HOLD_SCRIPT)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        self.sendalerts.append((conf, p))
        if p.returncode != 0:
            return messages(400, "Error in 'sendalert' command: Alert script returned error code %d."
                            % p.returncode, "FATAL")
        return Response(200, {"preview": False, "init_offset": 0, "messages": [], "fields": [{"name": "_time"}],
                              "results": [{"_time": "1763805600"}], "highlighted": {}})

    def _receive(self, req: Request) -> Response:
        # As splunkd, answered once the data is taken: it is parsed later, in the pipeline (here: when
        # `events` is read), so the sender's wait is not the parsing's.
        q = {k: v[0] for k, v in req.query.items()}
        with self._events_lock:
            self.posts += 1
            self._received.append((q, req.body))
        return Response(200, {"bytes": len(req.body), "host": q.get("host"), "index": q.get("index"),
                              "source": q.get("source"), "sourcetype": q.get("sourcetype")})

    @property
    def events(self) -> List[Dict[str, Any]]:
        """Every event received, in order, as the search head indexes it: the app's props.conf
        [ingest_doctor:finding] breaks a request's body into lines (LINE_BREAKER = ([\r\n]+), one event
        a line), then its index-time host transform sets each event's host."""
        with self._events_lock:
            received, self._received = self._received, []
            for q, body in received:
                for line in body.decode("utf-8").splitlines():
                    if line.strip():
                        host = index_time_host(q.get("sourcetype") or "", line) or q.get("host")
                        self._events.append({"index": q.get("index"), "sourcetype": q.get("sourcetype"),
                                             "host": host, "source": q.get("source"), "event": json.loads(line)})
            return self._events

    def _hook(self, req: Request) -> Response:
        self.hooks.append(req.json())
        return Response(200, {"ok": True})


# ---------------------------------------------------------------------------- SPL, as sendalert reads it
SENDALERT = re.compile(r"^\s*\|\s*makeresults\s*\|\s*sendalert\s+(\w+)((?:\s+.*)?)$", re.S)


def spl_args(text: str):
    """`k=v k2="quoted \\"text\\"" ...` as SPL reads a command's arguments: a double-quoted value ends at
    the first `"` not escaped by a backslash, `\\"` is a quote and `\\\\` a backslash in it; an unquoted
    value ends at white space. [(k, v)], or the error (a str) for what splunkd would not parse."""
    out, i, n = [], 0, len(text)
    while True:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            return out
        m = re.compile(r"([\w.]+)=").match(text, i)
        if not m:
            return "Invalid argument: '%s'" % text[i:].split()[0]
        i = m.end()
        if i < n and text[i] == '"':
            i += 1
            value = []
            while i < n and text[i] != '"':
                if text[i] == "\\" and i + 1 < n and text[i + 1] in '"\\':
                    i += 1
                value.append(text[i])
                i += 1
            if i >= n:
                return "Unbalanced quotes."
            i += 1
            if i < n and not text[i].isspace():
                return "Invalid argument: '%s'" % text[m.start():].split()[0]
            out.append((m.group(1), "".join(value)))
        else:
            j = i
            while j < n and not text[j].isspace():
                if text[j] == '"':
                    return "Unbalanced quotes."
                j += 1
            out.append((m.group(1), text[i:j]))
            i = j


# ---------------------------------------------------------------------------- index time
def index_time_host(sourcetype: str, raw: str) -> Optional[str]:
    """The host the app's TRANSFORMS-* of `sourcetype` (DEST_KEY = MetaData:Host, FORMAT = host::$1) give
    the event `raw`, as the typing pipeline applies them on the search head; None when none matches."""
    host = None
    for t in _host_transforms(sourcetype):
        m = re.search(t["REGEX"], raw[:int(t.get("LOOKAHEAD", "4096"))])
        if m:
            assert t["FORMAT"].startswith("host::"), t
            host = m.expand(t["FORMAT"][len("host::"):].replace("$1", r"\1"))
    return host


@functools.lru_cache(maxsize=None)      # the app's default confs, read once (not once an event)
def _host_transforms(sourcetype: str) -> List[Dict[str, str]]:
    """The transforms of `sourcetype` that set the host, in the order splunkd applies them."""
    props = read_conf(os.path.join(ROOT, "default", "props.conf")).get(sourcetype, {})
    transforms = read_conf(os.path.join(ROOT, "default", "transforms.conf"))
    return [t for key in sorted(k for k in props if k.startswith("TRANSFORMS-"))
            for t in (transforms[name.strip()] for name in props[key].split(","))
            if t.get("DEST_KEY") == "MetaData:Host"]


# ---------------------------------------------------------------------------- results file
def _mv_encode(values: Sequence[str]) -> str:
    return ";".join("$%s$" % v.replace("$", "$$") for v in values)


def columns_of(rows: Sequence[Dict[str, Any]]) -> List[str]:
    """The results' columns, in the order they first appear (a search with appends: its own, then theirs)."""
    cols: List[str] = []
    for r in rows:
        cols.extend(k for k in r if k not in cols)
    return cols


def write_results(path: str, rows: Sequence[Dict[str, Any]], columns: Optional[Sequence[str]] = None) -> str:
    """A results.csv.gz as splunkd writes it (`columns` default: columns_of(rows)); multivalue fields get a
    __mv_ twin column."""
    cols = list(columns or columns_of(rows))
    mv_cols = [c for c in cols if any(isinstance(r.get(c), (list, tuple)) for r in rows)]
    header = cols + ["__mv_" + c for c in mv_cols]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        line = []
        for c in cols:
            v = r.get(c, "")
            line.append("\n".join(str(x) for x in v) if isinstance(v, (list, tuple)) else str(v))
        for c in mv_cols:
            v = r.get(c)
            line.append(_mv_encode([str(x) for x in v]) if isinstance(v, (list, tuple)) and len(v) > 1 else "")
        w.writerow(line)
    with gzip.open(path, "wb") as f:
        f.write(buf.getvalue().encode("utf-8"))
    return path
