"""Delivery of findings, shared by the collector and the action: Splunk Web messages, resolution
(what changed when a finding ended), the findings store's records, and the webhook's rules
(outbound.py: allowed targets, what an answer means, retry schedule).
"""
