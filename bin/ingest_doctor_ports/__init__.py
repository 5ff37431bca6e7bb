"""The ports: everything that touches splunkd, splunklib, solnlib or the network, outside the pure core.

splunkd.py        the one splunkd port (HTTP(S), bounded time, keep-alive, auth, TLS policy, retries)
http1.py          one HTTP/1.1 exchange on an open socket (what splunkd.py sends and reads, lean)
collector.py      the collector's network side (its Http, HEC TLS context, probe-token reader)
collector_input.py the modular input (splunklib Script) that runs the collector
action.py         the action's calls: KV store, search, event submission, macros, webhook
messages.py       Splunk Web messages through solnlib
webhook.py        the one webhook client (collector and action): allowed targets only, no redirect
                  followed, a wall-clock deadline a request, Retry-After, a capped answer
"""
