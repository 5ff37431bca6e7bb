"""What the tests (and the benches in tools/) share: fakes of what the code talks to, builders of
its inputs, and where things are. Test modules import from here, never from one another.

- paths: the repository's folders, the built packages, the venvs
- splunkd: the loopback HTTPS fake splunkd with named faults (and Splunk Web messages)
- instance: a whole splunkd instance (management port, optionally HEC) served on the fake splunkd
- collector_http: the collector's splunkd as a plain function (routes, FakeHttp, collector_for)
- collector_run: the modular input run as splunkd runs it (a subprocess, input XML on stdin)
- kvstore: the search head for the alert action: an in-memory KV store (and its 503 twin), macros,
  config events, receivers, a webhook; the results.csv.gz writer
- action_run: the alert action run as splunkd runs it (--execute, payload, result rows)
- dispatch: splunkd's dispatch of a shipped alert to the action (digest or per result, trigger
  condition, throttling, Triggered Alerts), and the dispatch gate's rule
- searches: the shipped saved searches (the relay, the housekeeping search, a search's final columns)
- findings: findings as the engine makes them, for the delivery tests
- snapbuilder: snapshot folders in the real shapes; rules: single rules on plain Evidence
- memory_port: the alert action's port in memory (the benches)
- splunkweb: a loopback Splunk Web in front of the fake splunkd (the form views' page, their script, the
  splunkd proxy with its CSRF check); browser (+ browser.js): headless Chromium driven from a test
"""
