"""The diagnosis rules, one module each, run in the order of RULES: the engine groups, a rule judges.

Each rule is `run(st: State) -> None`: it reads the evidence (`st.ev`), the
series the engine groups from it (`engine/grouping.py`: `grouping.queues`,
`grouping.threads`) and what the rules before it left in the State
(`st.queues`, `st.chain`, `st.threads`, `st.drafts`), judges each series with
`engine/series.judge` against a threshold of `st.th`, and adds findings
(`st.draft(bottleneck, pipeline_set)`) or `not_judged` lines (`st.note`).

To add a rule:
1. Write `engine/rules/<name>.py` with a module docstring saying what it judges
   and from which evidence, and a `run(st)`; at most 150 lines. A rule does not
   group or cache: a new way to group samples goes into `engine/grouping.py`,
   a new threshold into `thresholds.py` (which generates its macro).
2. Put its `run` in RULES where the facts it needs exist: after queue_chain for
   `st.chain`, after thread_saturation for `st.threads`, before stage_advice
   when its findings need advice, before not_judged when they need their
   configuration named.
3. Test it in tests/engine/ on evidence that fires it and on evidence that
   must not, and add a scenario (tests/scenarios/build.py) when a whole
   snapshot shows it; its golden report is written with INGEST_DOCTOR_GOLDEN=write.
"""
from __future__ import annotations

from typing import Callable, Tuple

from ingest_doctor import model
from ingest_doctor import thresholds as thresholds_mod
from ingest_doctor.evidence import Evidence
from ingest_doctor.findings import Finding, Report, severity_rank
from ingest_doctor.engine.rules import (file_monitor, headroom, hec_latency, hec_symptoms, hidden_saturation, host_cpu, imbalance,
               indexer_throttled, log_symptoms, near_miss, not_judged, output_cause, queue_chain, stage_advice,
               sticky_sender, thread_saturation, thruput_cap, upstream)
from ingest_doctor.engine.rules.state import State, start

Rule = Callable[[State], None]


RULES: Tuple[Rule, ...] = (
    queue_chain.run,          # st.queues, st.chain: the stage behind the last full queue
    thread_saturation.run,    # st.threads: pegged threads and stage CPU
    near_miss.run,            # a thread just under its threshold: info with the numbers
    file_monitor.run,         # a pegged `tail` thread: the file monitor input is the ceiling
    hec_symptoms.run,         # reply=9, health 18-20 / 503 / 429: downstream when queues are full
    hec_latency.run,
    log_symptoms.run,         # tcpout paused, receiving ports closed
    output_cause.run,         # a full tcpout queue: the receivers (named) or the bandwidth
    thruput_cap.run,          # limits.conf maxKBps reached: absorbs the idle stages it backs up
    sticky_sender.run,        # autoLB never leaving one receiver: EVENT_BREAKER / forceTimebasedAutoLB
    indexer_throttled.run,    # absorbs the indexing finding it causes
    host_cpu.run,
    imbalance.run,            # needs every per-set finding above
    hidden_saturation.run,    # needs the pegged findings above
    upstream.run,             # late data with every stage idle: the sender; needs every finding above
    headroom.run,             # st.capacity; into the evidence of the findings above
    stage_advice.run,         # recommendations for every finding still without one
    not_judged.run,           # what was missing, including configuration the advice needed
)


def report(st: State) -> Report:
    findings = [Finding(d.bottleneck, d.severity, st.ev.host, d.pipeline_set, d.component, d.summary(),
                        d.evidence, d.recommendations) for d in st.drafts.values()]
    findings.sort(key=lambda f: (-severity_rank(f.severity), model.BOTTLENECK_ORDER.get(f.bottleneck, 9),
                                 -1 if f.pipeline_set is None else f.pipeline_set))
    nj = list(st.ev.not_judged)
    for n in st.not_judged:
        if n not in nj:
            nj.append(n)
    return Report(st.ev.host, findings, nj, st.capacity)


def run(ev: Evidence, th: thresholds_mod.Thresholds, rules: Tuple[Rule, ...] = RULES,
        finite: bool = False) -> Report:
    st = start(ev, th, finite)
    for rule in rules:
        rule(st)
    return report(st)
