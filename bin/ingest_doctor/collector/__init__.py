"""The collector's core (the modular input on indexers and heavy forwarders): one poll, the rolling
window it judges, the gate that picks which findings leave, its parameters, /proc threads, metrics events.
"""
