"""Issue 35, fixes 6 and 8 on the search side: what the alerts read and say they read.

- 6: "Index processor throttled" says truthfully what it reads (REST and the collector's metric, no
  _internal, so nothing on Splunk Cloud);
- 8: metrics.log and splunkd.log are read from their rotated files too; splunktcpin and
  tcpin_cooked_pqueue are queues of the chain (a receiver whose only full queue is one of them is
  flagged, drained by parsing); `| rest` asks the peers a macro names; each row's samples stay under
  list()'s 100 values by construction (one per time bin of the window).
"""

import fnmatch
import re

import pytest

from ingest_doctor import model, thresholds

from fakes.alert_helpers import MACROS, lookup_rows
from fakes.searches import SAVED, split_top

LIST_MAXSIZE = 100      # limits.conf [stats] list_maxsize


@pytest.mark.parametrize("macro,log", [("ingest_doctor_metrics_log", "metrics.log"),
                                       ("ingest_doctor_splunkd_log", "splunkd.log")], ids=["metrics", "splunkd"])
def test_rotated_log_files_are_read(macro, log):
    glob = re.search(r"source=(\S+)", MACROS[macro]["definition"]).group(1)
    for name in (log, log + ".1", log + ".5"):
        assert fnmatch.fnmatch("/opt/splunk/var/log/splunk/" + name, glob), (macro, name)
    assert not fnmatch.fnmatch("/opt/splunk/var/log/splunk/ingest_doctor_collector.log", glob)


def test_the_input_queues_are_in_the_chain_drained_by_parsing():
    stage_of = {}
    for r in lookup_rows("ingest_doctor_pipeline.csv"):
        if r["metrics_queue"]:
            stage_of.setdefault(r["metrics_queue"], set()).add((r["stage"], r["stage_order"]))
    parsing = model.STAGE_BY_NAME["parsing"]
    for q in ("splunktcpin", "tcpin_cooked_pqueue"):
        assert stage_of[q] == {("parsing", str(parsing.order))}, q
        assert model.stage_draining(model.canonical_queue(q)) is parsing     # the engine agrees
    terms = MACROS["ingest_doctor_chain_queue_terms"]["definition"]
    for q in ("splunktcpin", "tcpin_cooked_pqueue", "parsingqueue", "indexqueue"):
        assert "TERM(name=%s)" % q in terms
    spl = SAVED["Ingest Doctor - Queues - Blocked or saturated pipeline queues"]["search"]
    assert "`ingest_doctor_chain_queue_terms`" in spl
    assert "lookup ingest_doctor_pipeline metrics_queue AS queue OUTPUT stage stage_order" in spl


def test_a_receiver_whose_only_full_queue_is_splunktcpin_is_flagged():
    """The queue search's chain steps over the shipped lookup: splunktcpin full, the rest empty."""
    lookup = {}
    for r in lookup_rows("ingest_doctor_pipeline.csv"):
        if r["metrics_queue"]:
            lookup.setdefault(r["metrics_queue"], (r["stage"], int(r["stage_order"])))
    fills = {"splunktcpin": 100.0, "parsingqueue": 3.0, "aggqueue": 0.0, "typingqueue": 0.0, "indexqueue": 1.0}
    limit = thresholds.defaults().queue_fill_pct
    judged = {q: lookup[q] for q in fills if q in lookup}          # `where isnotnull(stage)`
    assert set(judged) == set(fills)
    full = [judged[q][1] for q, f in fills.items() if f >= limit]
    assert full, "splunktcpin is dropped before it is judged"
    assert {judged[q][0] for q in judged if judged[q][1] == max(full)} == {"parsing"}


def test_the_throttled_alert_says_what_it_reads_and_where_it_cannot():
    st = SAVED["Ingest Doctor - Indexing - Index processor throttled"]
    spl, desc = st["search"], st["description"]
    assert "| rest `ingest_doctor_rest_peers` /services/server/introspection/indexer" in spl
    assert "ingest_doctor_index_internal" not in spl and "ingest_doctor_metrics_log" not in spl
    assert "reads no _internal" in desc and "Splunk Cloud" in desc and "ingest_doctor_rest_peers" in desc
    assert "ingest_doctor.indexer.throttled" in desc and "services/server/introspection/indexer" in desc


def test_rest_asks_the_peers_a_macro_names():
    assert MACROS["ingest_doctor_rest_peers"]["definition"] == "splunk_server=*"
    assert "dmc_group_indexer" in MACROS["ingest_doctor_rest_peers"]["description"]
    for name, st in SAVED.items():
        for m in re.finditer(r"\|\s*rest\s+(\S+)\s+(\S+)", st["search"]):
            # The one exception asks no peer: the search head's own list of its search peers (issue 37: a
            # replication target's guid -> its name), read from the search head alone.
            if m.groups() == ("splunk_server=local", "/services/search/distributed/peers"):
                continue
            assert m.group(1) == "`ingest_doctor_rest_peers`", name


def _list_inputs(spl):
    """(list() field, the time bin in seconds of the rows it reads) per stats ... list() of a search,
    searched in every branch: the span= of the tstats/mstats that starts the branch."""
    out = []
    for branch in [spl] + re.findall(r"\[(\|[^\[\]]*)\]", spl):
        segs = [s.strip() for s in split_top(branch, "|") if s.strip()]
        head = segs[0] if segs else ""
        span = re.search(r"\bspan=(\d+)s\b", head) if re.match(r"^(tstats|mstats)\b", head) else None
        for seg in segs:
            if seg.startswith("stats ") and "list(" in seg:
                out += [(f, int(span.group(1)) if span else None) for f in re.findall(r"list\((\w+)\)", seg)]
    return out


def test_each_row_keeps_every_sample_of_its_window():
    """list() keeps 100 values (limits.conf [stats] list_maxsize): every list of samples reads rows binned by
    time (tstats/mstats span=), so a row holds at most window/span samples, a line repeated in the index
    counted once."""
    window_s = 60 * thresholds.BY_NAME["sustained_window_min"].default
    seen = 0
    for name, st in SAVED.items():
        if "`ingest_doctor_alert_window`" not in st["search"]:
            continue
        for field, span in _list_inputs(st["search"]):
            if field in ("sample", "probe"):
                assert span, "%s: list(%s) over rows not binned by time" % (name, field)
                assert window_s / span <= LIST_MAXSIZE, (name, field, span)
                seen += 1
    assert seen >= 4
