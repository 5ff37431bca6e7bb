"""What the search cost model (tools/searchcost.py) must know to count the dashboards' searches as
Splunk runs them: host metadata reads no event, and a TERM() only some roles write selects nothing on
the others (a universal forwarder has no typing queue)."""
import searchcost
import searchspl
from searchcost import Read


def _item(spl):
    return searchspl.Item("t/ds", "ds.search", spl, 4 * 3600, 0, 1, searchspl.segments(spl))


def test_host_metadata_reads_no_event_and_lists_every_host():
    item = _item("| metadata type=hosts index=_internal | sort 0 host | table host")
    (seg,) = item.segments
    assert seg.kind == "metadata" and searchspl.source_of(seg) == "hostmeta"
    cost = searchcost.segment_cost(Read("metadata", "hostmeta", rows=("hosts", 1)), seg, item, 10000)
    assert cost.raw == 0 and cost.index_only == 0 and cost.rows == 10000


def test_a_term_only_some_roles_write_selects_nothing_on_the_others():
    spl = ("| tstats count where index=_internal source=*metrics.log sourcetype=splunkd TERM(group=queue) "
           "TERM(name=typingqueue) by host")
    item = _item(spl)
    (seg,) = item.segments
    typing = searchcost.segment_cost(Read("tstats", "metrics.log", ("queue",), ("group=queue", "name=typingqueue"),
                                          rows=("hosts", 1)), seg, item, 10000)
    # 500 indexers x 2 sets + 500 heavy forwarders x 1 set, a line each per 30 s, 4 hours; no universal forwarder
    assert typing.index_only == (500 * 2 + 500 * 1) * 480
    assert typing.rows == 1000


def test_a_subsearch_giving_the_range_end_is_its_parents_window():
    """"Now" panels read the last N seconds of the view's range through a subsearch returning
    earliest=info_max_time-N: the model counts the parent over N seconds, not the whole range."""
    end = ("[| makeresults | addinfo | eval earliest=floor(info_max_time-900), latest=ceil(info_max_time) "
           "| return earliest latest]")
    spl = ("| tstats count where index=_internal source=*metrics.log sourcetype=splunkd TERM(group=queue) " + end
           + " by host | append [| mstats avg(_value) WHERE index=m metric_name=x " + end + " BY host]")
    top, window, inner, inner_window = searchspl.segments(spl)
    assert searchspl.window_s(searchspl.clause(top.text)) == 900 and window.kind == "makeresults"
    assert searchspl.window_s(searchspl.clause(inner.text)) == 900 and inner_window.kind == "makeresults"
    plain = searchspl.segments(spl.replace(end, ""))
    assert searchspl.window_s(searchspl.clause(plain[0].text)) is None


def _view_budgets(view):
    bs = searchcost.budgets(searchcost.rows())
    return [b for b in bs if view in b.name]


def test_the_landing_page_meets_its_budgets():
    """Issue 35: HEC performance at most 1 M raw-eq per open at 10,000 instances, every data source at most
    50,000 rows to the search head, every subsearch below its limit."""
    bs = _view_budgets("ingest_doctor_hec_performance")
    assert any(b.name.startswith("landing page ingest_doctor_hec_performance") for b in bs)
    assert len(bs) > 20
    assert [b for b in bs if not b.met] == []


def test_cpu_by_processor_meets_its_budgets():
    """Issue 35: CPU by processor's base read every processor's line of every pipeline host per second (16 M
    rows to the search head at 10,000 instances); it reads the 5 busiest pipeline sets per minute."""
    bs = _view_budgets("ingest_doctor_cpu_by_processor")
    assert any(b.name.endswith("ingest_doctor_cpu_by_processor/ds_cpu (any size)") for b in bs)
    assert [b for b in bs if not b.met] == []


def test_every_budget_is_met():
    """Issue 35's done-when: every budget at 10,000 instances (what `searchcost.py --check` exits 0 on)."""
    bs = searchcost.budgets(searchcost.rows())
    assert [(b.name, searchcost.fmt(b.value)) for b in bs if not b.met] == []


def test_the_setup_views_instance_list_reads_the_heartbeat_line_only():
    """Issue 35: listing the instances read every metrics.log line of 24 hours (26 M raw-eq at 10,000
    instances); one thruput line per instance and interval says as much."""
    (item,) = [i for i in searchcost.items() if i.key == "ingest_doctor_setup/ds_instances"]
    top = item.segments[0]
    assert top.kind == "tstats" and searchspl.terms(searchspl.clause(top.text)) == ("group=thruput", "name=thruput")
    (row,) = [r for r in searchcost.rows(sizes=(10000,)) if r.key == "ingest_doctor_setup/ds_instances"]
    assert row.per_run.raw_eq < 2e6


def test_the_sustained_window_in_minutes_is_its_parents_window():
    """Headroom reads the last ingest_doctor_sustained_window_min minutes (a macro, N*60 once expanded)."""
    end = ("[| makeresults | addinfo | eval earliest=floor(info_max_time-10*60), latest=ceil(info_max_time) "
           "| return earliest latest]")
    top = searchspl.segments("| tstats count where index=_internal source=*metrics.log TERM(group=thruput) "
                             + end + " by host")[0]
    assert searchspl.window_s(searchspl.clause(top.text)) == 600
