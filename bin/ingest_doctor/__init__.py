"""Ingest Doctor core: pure functions from splunkd evidence to findings.

Nothing in this package imports splunklib or touches the network; the entry
scripts in bin/ read inputs, call it, and write outputs. Its classes of named
values are dataclasses (frozen where they are tables).
"""
__all__ = ["__version__"]
__version__ = "0.1.0"
