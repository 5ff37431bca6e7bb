"""Judging: the rules over one Evidence, the advice from the instance's settings, the text report.

The front door is `ingest_doctor.diagnose.diagnose`.
"""
