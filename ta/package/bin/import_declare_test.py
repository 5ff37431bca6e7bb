"""Put the add-on's libraries first on sys.path for the REST handlers ucc-gen generates.

Replaces ucc-gen's own import_declare_test.py: this add-on keeps its libraries in bin/lib
(one folder for the collector and the handlers, filled by `make build`), not in lib/.
"""
import os
import re
import sys

ta_name = "TA-ingest_doctor"
pattern = re.compile(r"[\\/]etc[\\/]apps[\\/][^\\/]+[\\/]bin[\\/]?$")
new_paths = [path for path in sys.path if not pattern.search(path) or ta_name in path]
new_paths.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
sys.path = new_paths
