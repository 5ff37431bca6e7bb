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


def category(code: int) -> str:
    """The log category of an exit code (the `category=` of an entry script's last line)."""
    if code in (BAD_INPUT, USAGE):
        return "bad_input"
    if code == BAD_CONFIG:
        return "bad_config"
    if code == TRANSIENT:
        return "transient"
    if code == AUTH:
        return "auth"
    return "unexpected"
