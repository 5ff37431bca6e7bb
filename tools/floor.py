"""The platform floor: the one place that says which Splunk and which Python the packages need.

Splunk Enterprise runs app scripts on Python 3.7 by default up to 9.2 and offers no 3.9 there;
9.3 is the first release with Python 3.9 (its default, and selectable per stanza with
`python.version = python3.9`); 10.x adds 3.13, chosen by `python.required = 3.13`. Our code
needs 3.9 (typing.Protocol, importlib.metadata, ...), so 9.3 is the floor. README, both
packages' app.conf and app.manifest and the Splunkbase text (docs/splunkbase.md) say it in the
words below (tests/install/test_install_floor.py); tools/minpy.py and tools/confcheck.py read it here.
"""

SPLUNK = "9.3"                        # the oldest Splunk Enterprise release supported
CEILING = "11.0"                      # the first release not yet supported
PYTHON = "3.9"                        # the interpreter Splunk runs our scripts on at the floor
PYTHON_VERSION = "python" + PYTHON    # `python.version` of every Python entry point
PYTHON_REQUIRED = "3.13"              # `python.required` (Splunk 10.x; AppInspect accepts only 3.13)
MANIFEST_RANGE = ">=%s,<%s" % (SPLUNK, CEILING)   # app.manifest platformRequirements.splunk.Enterprise
WORDS = "Splunk Enterprise %s or later" % SPLUNK  # in README, app.conf descriptions, Splunkbase text
