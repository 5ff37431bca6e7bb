"""The ports: everything that touches splunkd, splunklib, solnlib or the network, outside the pure core.

splunkd.py         the one splunkd port on http.client: keep-alive, TLS policy and session
                   resumption, auth, retries, a capped body (and why not splunklib's client)
watchdog.py        the one wall-clock deadline of a call (the splunkd port and the webhook)
webhook.py         the one webhook client (collector and action): allowed targets only, no redirect
                   followed, the watchdog's deadline a request, Retry-After, a capped answer
messages.py        Splunk Web messages over the caller's splunkd port (why not solnlib's client)
logs.py            the entry points' log files (logging's RotatingFileHandler; the add-on's through
                   solnlib.log) and the `LEVEL category=... key=value` line
action.py          the alert actions' calls: KV store, search, event submission, macros, webhook
alert_shell.py     what both alert actions' scripts do around their work: usage, log file, exit codes
collector.py       the collector's network side (its Http, HEC TLS context)
bounded.py         solnlib in the add-on (credentials, the Logging tab's level) over the splunkd port
collector_input.py the modular input (splunklib Script) that runs the collector
notifier.py        the collector's webhook notifier, off the poll loop
"""
