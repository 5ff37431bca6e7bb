"""Reading splunkd: the endpoint table, REST and log parsers, the read step, HEC probes, snapshots.

Everything here turns bytes into `evidence.Evidence`; nothing judges.
"""
