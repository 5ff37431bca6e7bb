"""Exit codes for every entry script, in bands, in one place.

Tests use these names, never the numbers.
"""
OK = 0
# 1-9: the input or configuration is wrong; retrying will not help.
USAGE = 2
BAD_INPUT = 3          # unreadable/malformed input (snapshot folder, payload, results file)
BAD_CONFIG = 4         # a parameter or setting is invalid (bad webhook URL, bad threshold)
# 10-19: something outside us failed; a retry may succeed.
TRANSIENT = 10         # splunkd/KV store/webhook unavailable after bounded retries
AUTH = 11              # 401/403 from splunkd
# 20+: our own bug.
UNEXPECTED = 20
