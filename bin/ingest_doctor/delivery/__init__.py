"""Delivery of findings, shared by the collector and the action: Splunk Web messages, resolution
(what changed when a finding ended), and the findings store's records.
"""
