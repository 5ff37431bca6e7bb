#!/usr/bin/env python3
"""Write the conf and lookup files that mirror the Python single sources of truth.

- default/macros.conf, block between the GENERATED markers: one macro per threshold
  (bin/ingest_doctor/thresholds.py).
- lookups/ingest_doctor_thresholds.csv: the same table, for dashboards.
- lookups/ingest_doctor_pipeline.csv: the pipeline model (bin/ingest_doctor/model.py).
- lookups/ingest_doctor_hec_reply_codes.csv: HEC reply codes, meaning and action (model.HEC_CODES).

`--check` writes nothing and exits 1 naming every file that is out of date.
"""
import argparse
import csv
import io
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bin"))

from ingest_doctor import model, thresholds  # noqa: E402

BEGIN = "# BEGIN GENERATED thresholds: edit bin/ingest_doctor/thresholds.py, then run tools/gen_conf.py\n"
END = "# END GENERATED thresholds\n"


def _num(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


def threshold_block():
    out = [BEGIN]
    for s in thresholds.SETTINGS:
        out.append("\n[%s]\n" % s.macro)
        out.append("definition = %s\n" % _num(s.default))
        out.append("description = %s (%s)\n" % (s.description, s.unit))
        out.append("iseval = 0\n")
    out.append("\n" + END)
    return "".join(out)


def macros_text(current):
    block = threshold_block()
    if BEGIN in current and END in current:
        head, rest = current.split(BEGIN, 1)
        _, tail = rest.split(END, 1)
        return head + block + tail
    return current.rstrip("\n") + "\n\n" + block


def csv_text(header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def outputs():
    macros_path = os.path.join(ROOT, "default", "macros.conf")
    current = open(macros_path, encoding="utf-8").read() if os.path.exists(macros_path) else ""
    yield macros_path, macros_text(current)
    yield (os.path.join(ROOT, "lookups", "ingest_doctor_thresholds.csv"),
           csv_text(("name", "macro", "default", "unit", "description"),
                    ((s.name, s.macro, _num(s.default), s.unit, s.description) for s in thresholds.SETTINGS)))
    yield (os.path.join(ROOT, "lookups", "ingest_doctor_pipeline.csv"),
           csv_text(model.PIPELINE_FIELDS, model.pipeline_rows()))
    yield (os.path.join(ROOT, "lookups", "ingest_doctor_hec_reply_codes.csv"),
           csv_text(model.HEC_CODE_FIELDS, model.hec_code_rows()))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    stale = []
    for path, text in outputs():
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        if args.check:
            stale.append(os.path.relpath(path, ROOT))
        else:
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
    if stale:
        print("out of date (run tools/gen_conf.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
