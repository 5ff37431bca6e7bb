"""introspection/resource_usage.log lines -> Evidence (host CPU, cores, load, splunkd's CPU), one line at a time.

splunkd writes one JSON object a line every 10 s (introspection_generator_addon), its `data` holding the same
keys, as strings, as the REST resource-usage endpoints' entries (real 9.0.4.1 lines:
`{"datetime":"05-02-2023 10:00:48.392 +0000","log_level":"INFO","component":"Hostwide","data":{"cpu_count":"2",
"virtual_cpu_count":"4","cpu_user_pct":"34.49",...}}`, `"component":"PerProcess","data":{"pct_cpu":"42.40",
"process":"splunkd","args":"-p 8089 start","process_type":"splunkd_server",...}`). So each line goes through the
REST parsers (rest.hostwide, rest.splunk_processes), the one reading of these keys: the PerProcess lines of one
batch (one datetime) are one splunk-processes answer. Lines outside the window are skipped by their datetime
before their JSON is parsed. Read in snapshots (logs/resource_usage.log) and diags alike.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

from ingest_doctor.evidence import Evidence
from ingest_doctor.read import rest
from ingest_doctor.read.logtime import JSON_HEAD, WindowedParser, parse_prefix

SOURCE = "introspection/resource_usage.log"
_HEAD = JSON_HEAD


@dataclass
class Stats:
    lines: int = 0
    used: int = 0
    garbage: int = 0
    outside_window: int = 0


class ResourceUsageParser(WindowedParser):
    SOURCE = SOURCE
    STATS = Stats

    def __init__(self, evidence: Evidence, since: Optional[float] = None, until: Optional[float] = None,
                 source: str = SOURCE):
        super().__init__(evidence, since, until, source)
        self._batch: List[rest.Entry] = []
        self._batch_t: Optional[float] = None

    def feed(self, line: str) -> None:
        st = self.stats
        st.lines += 1
        if not line.startswith(_HEAD):
            if line.strip():
                st.garbage += 1
            return
        t, _ = parse_prefix(line[len(_HEAD):])
        if t is None:
            st.garbage += 1
            return
        if self.outside(t):
            return
        try:
            obj = rest.loads(line)
        except ValueError:
            st.garbage += 1
            return
        data = obj.get("data") if isinstance(obj, dict) else None
        component = obj.get("component") if isinstance(obj, dict) else None
        if not isinstance(data, dict):
            st.garbage += 1
            return
        if t != self._batch_t:
            self._flush()
            self._batch_t = t
        if component == "Hostwide":
            rest.hostwide(self.ev, [rest.Entry("host", data)], t, self.source)
        elif component == "PerProcess":
            self._batch.append(rest.Entry(str(data.get("pid", "")), data))
        else:
            return      # IOStats, Fishbucket, ...: not judged
        st.used += 1

    def _flush(self) -> None:
        if self._batch:
            rest.splunk_processes(self.ev, self._batch, self._batch_t, self.source)
            self._batch = []

    def finish(self) -> Stats:
        self._flush()
        if self.stats.used:
            self.ev.saw(self.source)
        return self.stats
