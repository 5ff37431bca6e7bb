"""A .conf file of a package as the tests read it: stanzas and settings, names kept as written."""
import configparser
import os


def read_conf(path):
    assert os.path.isfile(path), "%s missing: run `make build`" % path
    cp = configparser.RawConfigParser(strict=False, interpolation=None, delimiters=("=",))
    cp.optionxform = str
    cp.read(path, encoding="utf-8")
    return cp
