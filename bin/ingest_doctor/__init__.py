"""Ingest Doctor core: pure functions from splunkd evidence to findings.

Nothing in this package imports splunklib or touches the network; the entry
scripts in bin/ read inputs, call it, and write outputs.

What `diagnose` of a REST capture imports starts cheap (issue 21; tests/cli pins it): its classes are
records (record.py), not dataclasses, and its modules import typing for the type checker only,

    TYPE_CHECKING = False       # type checkers read it as True
    if TYPE_CHECKING:
        from typing import Dict, List, Optional

with `from __future__ import annotations`, so no annotation is evaluated when the code runs.
"""
__all__ = ["__version__"]
__version__ = "0.1.0"
