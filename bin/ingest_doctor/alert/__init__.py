"""The alert action's core (ingest_doctor_flag): payload, results file, rows -> evidence, the run.
"""
