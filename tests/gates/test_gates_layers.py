"""The wings' import direction, held by a test (it held by discipline only).

Every module of bin/ingest_doctor and bin/ingest_doctor_ports is parsed and each import it makes
(at module level, in a function or under TYPE_CHECKING alike) is checked against LAYERS, defined
from the code as it is, bottom first:

- the shared vocabulary: record, logfmt, exitcodes, textsafe; model, thresholds; threadnames, evidence,
  findings;
- read (splunkd's answers and logs -> evidence); engine (evidence -> findings); diagnose.py (its
  front door);
- delivery (findings -> KV store, messages, webhooks) and deployment (several instances judged
  together); collector (the modular input's core) and alert (the alert action's core);
- cli at the top.

A module imports its own wing or a lower layer, never a higher one nor another wing of its own
layer. Nothing in bin/ingest_doctor imports bin/ingest_doctor_ports (the network code: the entry
scripts wire the two together); the ports may import any wing. No module imports another wing's
private name (`_x`, or a private module), nor reaches one through a module it imported.
"""
from __future__ import annotations

import ast
import os

from fakes.paths import BIN

PACKAGE, PORTS = "ingest_doctor", "ingest_doctor_ports"
LAYERS = (
    ("", "logfmt", "exitcodes", "textsafe"),      # "": the package itself (its __init__)
    ("model", "thresholds"),
    ("threadnames", "evidence", "findings"),
    ("read",),
    ("engine",),
    ("diagnose",),
    ("delivery", "deployment"),
    ("collector", "alert"),
    ("cli",),
)
LAYER = {wing: n for n, wings in enumerate(LAYERS) for wing in wings}
# Private cross-wing imports waived, each with its reason; a waiver no import needs any more fails.
WAIVED: dict = {}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def wing(module: str) -> str:
    """'ingest_doctor.engine.rules.state' -> 'engine'; 'ingest_doctor' -> ''; the ports are one wing."""
    parts = module.split(".")
    if parts[0] == PORTS:
        return "ports"
    return parts[1] if len(parts) > 1 else ""


def modules(root: str = BIN) -> dict:
    """Every module of the two packages: dotted name -> source."""
    out = {}
    for pkg in (PACKAGE, PORTS):
        for folder, _, files in os.walk(os.path.join(root, pkg)):
            for f in sorted(files):
                if f.endswith(".py"):
                    path = os.path.join(folder, f)
                    name = os.path.relpath(path, root)[:-3].replace(os.sep, ".")
                    with open(path, encoding="utf-8") as fh:
                        out[name[:-len(".__init__")] if name.endswith(".__init__") else name] = fh.read()
    return out


def imports(name: str, source: str, known: set) -> list:
    """(target module, imported name or None, line) of each import of the two packages `name` makes, and
    (module, attribute, line) of each private attribute read through a module bound by an import."""
    found, bound = [], {}
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] in (PACKAGE, PORTS):
                    found.append((a.name, None, node.lineno))
                    bound[a.asname or a.name] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in (PACKAGE, PORTS):
            assert node.level == 0, "%s:%d: a relative import" % (name, node.lineno)
            for a in node.names:
                sub = "%s.%s" % (node.module, a.name)
                if sub in known:        # `from pkg import module`
                    found.append((sub, None, node.lineno))
                    bound[a.asname or a.name] = sub
                else:
                    found.append((node.module, a.name, node.lineno))
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                and _private(node.attr):
            found.append((bound[node.value.id], node.attr, node.lineno))
    return found


def violations(mods: dict) -> list:
    """What runs against the wings' order in `mods` (dotted name -> source), one line each; and the
    waivers used."""
    known = set(mods)
    bad, used = [], set()
    for name, source in sorted(mods.items()):
        mine = wing(name)
        for target, what, line in imports(name, source, known):
            theirs = wing(target)
            where = "%s:%d imports %s%s" % (name, line, target, "" if what is None else "." + what)
            if name.startswith(PACKAGE + ".") or name == PACKAGE:
                if target.split(".")[0] == PORTS:
                    bad.append("%s: the core never imports the ports (the shells wire them)" % where)
                    continue
                for w in (mine, theirs):
                    if w not in LAYER:
                        bad.append("%s: wing %r is in no layer: place it in LAYERS" % (where, w))
                if mine in LAYER and theirs in LAYER and mine != theirs and LAYER[theirs] >= LAYER[mine]:
                    bad.append("%s: %s (layer %d) may import only lower layers than its own, not %s (layer %d)"
                               % (where, mine or PACKAGE, LAYER[mine], theirs or PACKAGE, LAYER[theirs]))
            if mine != theirs:
                private = [p for p in target.split(".")[1:] + ([what] if what else []) if _private(p)]
                if private and (name, target, what) in WAIVED:
                    used.add((name, target, what))
                elif private:
                    bad.append("%s: %s is private to the %s wing" % (where, private[0], theirs or PACKAGE))
    return bad, used


def test_every_import_runs_down_the_wings_and_takes_no_private_name():
    bad, used = violations(modules())
    assert not bad, "\n".join(bad)
    assert used == set(WAIVED), "waivers no import needs any more: %s" % sorted(set(WAIVED) - used)


def test_every_wing_and_top_level_module_is_in_a_layer():
    present = {wing(m) for m in modules() if not m.startswith(PORTS)}
    assert present <= set(LAYER), sorted(present - set(LAYER))


GOOD = {
    "ingest_doctor": "",
    "ingest_doctor.model": "",
    "ingest_doctor.evidence": "from ingest_doctor import model\n",
    "ingest_doctor.read": "",
    "ingest_doctor.read.rest": "from ingest_doctor.evidence import Evidence\n",
    "ingest_doctor.engine": "",
    "ingest_doctor.engine.textreport": "def _wrap(x):\n    return x\n\n\ndef wrap(x):\n    return x\n",
    "ingest_doctor.engine.series": "from ingest_doctor.read.rest import Evidence\nfrom ingest_doctor import model\n",
    "ingest_doctor.collector": "",
    "ingest_doctor.collector.poll": "from ingest_doctor.engine import textreport\nfrom ingest_doctor.read import rest\n"
                                    "textreport.wrap(1)\n",
    "ingest_doctor_ports.splunkd": "from ingest_doctor.collector.poll import x\n",
}


def test_the_gate_passes_imports_that_run_down():
    assert violations(GOOD) == ([], set())


def test_the_gate_bites_on_an_import_against_the_order():
    for name, source, says in [
            ("ingest_doctor.read.rest", "from ingest_doctor.engine.series import judge\n",
             "read (layer 3) may import only lower layers than its own, not engine (layer 4)"),
            ("ingest_doctor.engine.series", "def f():\n    from ingest_doctor.collector import poll\n",
             "engine (layer 4) may import only lower layers than its own, not collector (layer 7)"),
            ("ingest_doctor.collector.poll", "import ingest_doctor.alert.action\n",
             "collector (layer 7) may import only lower layers than its own, not alert (layer 7)"),
            ("ingest_doctor.model", "TYPE_CHECKING = False\nif TYPE_CHECKING:\n"
                                    "    from ingest_doctor.evidence import Evidence\n",
             "model (layer 1) may import only lower layers than its own, not evidence (layer 2)"),
            ("ingest_doctor.engine.series", "from ingest_doctor_ports.splunkd import Splunkd\n",
             "the core never imports the ports"),
            ("ingest_doctor.collector.poll", "from ingest_doctor.engine.textreport import _wrap\n",
             "_wrap is private to the engine wing"),
            ("ingest_doctor.collector.poll", "from ingest_doctor.engine import textreport\ntextreport._wrap(1)\n",
             "_wrap is private to the engine wing"),
            ("ingest_doctor.collector.poll", "import ingest_doctor.engine.textreport as t\nt._wrap(1)\n",
             "_wrap is private to the engine wing"),
            ("ingest_doctor_ports.splunkd", "from ingest_doctor.engine.textreport import _wrap\n",
             "_wrap is private to the engine wing"),
            ("ingest_doctor.newwing.x", "from ingest_doctor import model\n", "wing 'newwing' is in no layer")]:
        bad, _ = violations(dict(GOOD, **{name: source}))
        assert len(bad) == 1 and says in bad[0], (name, source, bad)


def test_a_private_name_within_its_own_wing_is_fine():
    mods = dict(GOOD, **{"ingest_doctor.engine.series": "from ingest_doctor.engine.textreport import _wrap\n"})
    assert violations(mods) == ([], set())
