"""Deployments (contract section 5): several instances judged together, above `diagnose`.

topology.py (who sends to whom, from the data), judge.py (each instance diagnosed with its receivers'
state, `caused_by`, `root_causes`, `next_bottlenecks`), folder.py (a deployment folder of snapshots),
text.py (the text report: root causes first, their symptoms under them).
"""
