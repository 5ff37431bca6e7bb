"""Findings: what the alerts and the collector found, where, with the evidence and the setting to change."""
from __future__ import annotations

from spl import FINDINGS_BASE, HOSTS, NO_FINDINGS, empty_message
from studio import ACCENT, APP, CRIT, GREY, WARN, Dash
from widgets import severity_colors, severity_column, single

from ingest_doctor import model  # noqa: E402  (spl puts bin/ on the path)


NAME, LABEL = "ingest_doctor_findings", "Findings"
DESCRIPTION = ("What the Ingest Doctor alerts and collector found, where, with the evidence and the setting to change. "
               "Open and resolved, from the KV store ingest_doctor_findings.")
PSET = False                  # no pipeline-set input: findings name their set
LAYOUT = ((130, "viz_kpi_critical", "viz_kpi_warning", "viz_kpi_info", "viz_kpi_hosts",
           ("viz_findings_help", 2)),
          (480, "viz_findings_table"), (300, "viz_findings_evidence"), (260, "viz_findings_by"),
          (240, ("viz_holds", 3), ("viz_holds_help", 2)))
# Acknowledge and snooze (docs/notifications.md): what holds notifications now, and how to add or lift one.
# An open finding's status says when it is not notified: a running snooze of its host or stage (an alert's
# snooze is not the finding's: several alerts may report it), or who acknowledged it.
HELD = ("| lookup ingest_doctor_acks finding_id AS id OUTPUT user AS ack_user\n"
        "| eval snooze_keys=mvappend(\"host~\".lower(host), \"bottleneck~\".lower(bottleneck))\n"
        "| lookup ingest_doctor_snoozes _key AS snooze_keys OUTPUT until AS snooze_until\n"
        "| eval snooze_until=mvindex(mvfilter(snooze_until > now()), 0)\n"
        "| eval status=case(status==\"open\" AND isnotnull(snooze_until), \"open, snoozed until \"."
        "strftime(snooze_until, \"%F %H:%M\"), status==\"open\" AND isnotnull(ack_user), "
        "\"open, acknowledged by \".ack_user, true(), status)\n")
NO_HOLDS = empty_message("Nothing acknowledged or snoozed: every finding change is notified.")


def _inputs(d: Dash) -> None:
    """Status, severity and bottleneck beside the standard inputs."""
    d.inputs["input_status"] = {"type": "input.dropdown", "title": "Status",
                                "options": {"items": [{"label": "Open", "value": "open"},
                                                      {"label": "Resolved", "value": "resolved"},
                                                      {"label": "All", "value": "*"}],
                                            "token": "status", "defaultValue": "open"}}
    # a dropdown, not a multiselect: no "All (1)" count beside the choice (issue 22)
    d.inputs["input_severity"] = {"type": "input.dropdown", "title": "Severity",
                                  "options": {"items": [{"label": "All", "value": "*"},
                                                        {"label": "critical", "value": "critical"},
                                                        {"label": "warning", "value": "warning"},
                                                        {"label": "info", "value": "info"}],
                                              "token": "severity", "defaultValue": "*"}}
    d.inputs["input_bottleneck"] = {
        "type": "input.dropdown", "title": "Bottleneck",
        "options": {"items": [{"label": "All", "value": "*"}] + [
            {"label": b, "value": b} for b in model.BOTTLENECKS],
            "token": "bottleneck", "defaultValue": "*"}}
    d.global_inputs += ["input_status", "input_severity", "input_bottleneck"]


def _searches(d: Dash) -> None:
    """The findings, their counts by severity, every finding by bottleneck."""
    d.search("ds_findings", "Findings (KV store ingest_doctor_findings)",
             FINDINGS_BASE + "\n| search status=\"$status$\" severity IN ($severity$) bottleneck=\"$bottleneck$\" " + HOSTS)
    # Both tables list the findings in one order (root causes first, their symptoms under them), so a row of
    # the evidence table is the row of the findings table at the same place.
    order = ("| eventstats dc(host) AS held min(severity_rank) AS root_rank BY root\n"
             "| eval symptom=if(caused_by==\"\", 0, 1), cause=if(caused_by==\"\" AND held>1, \"root cause: holds back \""
             ".(held-1).\" instance\".if(held>2, \"s\", \"\"), cause)\n"
             # A symptom's mechanism (how its cause holds it back) beside the cause, not a column of its own:
             # the table stays within the page's width.
             "| eval cause=if(len(mechanism)>0, cause.\": \".mechanism, cause)\n"
             "| sort root_rank root symptom severity_rank - last_seen_epoch\n")
    d.chain("ds_findings_table", "Findings with their recommendations", "ds_findings",
            order + "| table severity cause host bottleneck pipeline_set summary advice settings "
            "evidence_dashboard\n"
            "| rename advice AS \"what to do\" settings AS \"setting -> suggested\" pipeline_set AS set "
            "evidence_dashboard AS _evidence_dashboard\n"
            + NO_FINDINGS)
    d.chain("ds_findings_evidence", "Findings with their evidence and history", "ds_findings",
            order + HELD
            + "| eval status=if(status==\"resolved\" AND len(resolution)>0, \"resolved: \".resolution, status)\n"
            "| table severity host bottleneck pipeline_set evidence_text detected first_seen last_seen count status "
            "evidence_dashboard id\n"
            "| rename evidence_text AS evidence pipeline_set AS set first_seen AS \"first seen\" last_seen AS \"last seen\" "
            "evidence_dashboard AS _evidence_dashboard id AS _finding_id\n"
            + NO_FINDINGS)
    d.chain("ds_findings_kpi", "Findings by severity", "ds_findings",
            "| stats count(eval(severity==\"critical\")) AS critical count(eval(severity==\"warning\")) AS warning "
            "count(eval(severity==\"info\")) AS info dc(host) AS hosts\n| table critical warning info hosts")
    d.search("ds_findings_all", "Every finding stored, open and resolved (KV store ingest_doctor_findings)",
             FINDINGS_BASE + "\n| search bottleneck=\"$bottleneck$\" " + HOSTS)
    d.chain("ds_findings_by", "Findings by bottleneck and status", "ds_findings_all",
            "| chart count OVER bottleneck BY status limit=9 useother=true")
    # Running snoozes (an ended one holds nothing: it expires by itself), then the acknowledgements.
    d.search("ds_holds", "Acknowledged findings and running snoozes (KV store ingest_doctor_acks, ingest_doctor_snoozes)",
             "| inputlookup ingest_doctor_snoozes\n| where until > now()\n"
             "| eval held=\"snoozed\", what=scope.\" \".value, ends=strftime(until, \"%Y-%m-%d %H:%M %Z\"), why=reason\n"
             "| inputlookup append=true ingest_doctor_acks\n"
             "| eval held=coalesce(held, \"acknowledged\"), what=coalesce(what, \"finding \".finding_id.\" (\".severity.\")\"), "
             "ends=coalesce(ends, \"when it escalates or resolves\"), why=coalesce(why, note), "
             "since=strftime(time, \"%Y-%m-%d %H:%M\")\n"
             "| table held what ends user since why\n" + NO_HOLDS)



def _panels(d: Dash) -> None:
    """Counts, the table with its drilldown to the evidence, help."""
    for vid, (title, field, colour) in {
        "viz_kpi_critical": ("Critical", "critical", CRIT), "viz_kpi_warning": ("Warning", "warning", WARN),
        "viz_kpi_info": ("Info", "info", GREY), "viz_kpi_hosts": ("Hosts affected", "hosts", ACCENT),
    }.items():
        t, _, opts = single(title, field)
        opts["majorColor"] = colour
        d.add(vid, "splunk.singlevalue", t, "ds_findings_kpi", options=opts)
    d.add("viz_findings_by", "splunk.bar", "Every stored finding by bottleneck, open and resolved", "ds_findings_by",
          "All hosts selected, whatever the Status input.",
          {"stackMode": "stacked", "xAxisTitleVisibility": "hide", "yAxisTitleText": "findings"})
    # Widths: each column's longest word on one line (pipeline_set_imbalance, pipelineSetSelectionPolicy,
    # regex_cpu_share_pct=86); the evidence and history of a finding in a second table under the first, so
    # neither needs more columns than the page is wide (issue 22).
    drill = [{"type": "drilldown.customUrl", "options": {
        "url": "/app/" + APP + "/$row._evidence_dashboard.value$?form.host=$row.host.value|u$", "newTab": False}}]
    d.add("viz_findings_table", "splunk.table", "Findings: root causes first, their symptoms under them",
          "ds_findings_table",
          "A forwarder held back by a saturated indexer is listed under it (cause: caused by <host> <stage>). "
          "Recommendations name the conf file, stanza, setting, current and suggested value. Click a row for its "
          "evidence.",
          {"columnFormat": {"severity": severity_column(), "cause": {"width": 200}, "bottleneck": {"width": 180},
                            "summary": {"width": 260}, "what to do": {"width": 260},
                            "setting -> suggested": {"width": 200}},
           "showInternalFields": False},
          context=severity_colors(), eventHandlers=drill)
    # A row of the second table opens the Acknowledge and snooze form (a Simple XML view: Studio cannot run its
    # sendalert search) with the finding and its host filled in.
    hold = [{"type": "drilldown.customUrl", "options": {
        "url": "/app/" + APP + "/ingest_doctor_hold?finding=$row._finding_id.value|u$&host=$row.host.value|u$",
        "newTab": False}}]
    d.add("viz_findings_evidence", "splunk.table", "Evidence and history of each finding, in the same order",
          "ds_findings_evidence",
          "Evidence: signal=value unit. Detected by the collector, an alert or both; count: times seen. Click a row "
          "to acknowledge the finding or snooze its host.",
          {"columnFormat": {"severity": severity_column(), "bottleneck": {"width": 180}, "evidence": {"width": 360},
                            "first seen": {"width": 100}, "last seen": {"width": 100}, "status": {"width": 140}},
           "showInternalFields": False},
          context=severity_colors(), eventHandlers=hold)
    d.add("viz_holds", "splunk.table", "Acknowledged and snoozed: stored, not notified", "ds_holds",
          "No Splunk Web message or webhook for these; the findings above still show them.",
          {"columnFormat": {"what": {"width": 260}, "why": {"width": 300}}})
    d.markdown("viz_holds_help", "Acknowledge or snooze",
               "Click a row of *Evidence and history* above: the **Acknowledge and snooze** page opens with the "
               "finding and its host filled in (role **ingest_doctor_admin**). Acknowledge the finding, or snooze "
               "its host, stage or an alert for at most 7 days with a reason; lift a snooze there too.\n\n"
               "History: `| inputlookup ingest_doctor_hold_history`. The searches the page runs: "
               "docs/notifications.md.")
    d.markdown("viz_findings_help", "About findings",
               "One record per **bottleneck** and place; **detected**: collector, alert or both. **Resolved** "
               "when the collector sees it end (status says what changed) or after "
               "`ingest_doctor_resolve_after_min` minutes unseen.\n\n"
               "**Empty?** Enable the Ingest Doctor alerts and *Ingest Doctor - Findings - Collector findings*.")


PARTS = (_inputs, _searches, _panels)   # build_view (gen_views.py) runs these in order
