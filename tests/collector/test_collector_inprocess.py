"""The modular input's main(argv, stdin, stdout, stderr) driven in-process (splunklib's
run_script with our streams), including a streaming run that ends when its output closes."""
import io
import os
import signal
import threading
import xml.etree.ElementTree as ET

from fakes import instance as fi
from ingest_doctor.collector import params as params_mod
from ingest_doctor import exitcodes


def shell():
    return fi.load_shell("ingest_doctor_introspection_inproc")


def test_scheme_in_process():
    out, err = io.StringIO(), io.StringIO()
    assert shell().main(["x.py", "--scheme"], io.BytesIO(b""), out, err) == exitcodes.OK
    assert [a.get("name") for a in ET.fromstring(out.getvalue()).iter("arg")] == list(params_mod.PARAM_NAMES)


def test_validation_in_process_utf16_sdk_style():
    mod = shell()
    good = fi.utf16(fi.validation_xml({"poll_interval": "60"}))
    out = io.StringIO()
    assert mod.main(["x.py", "--validate-arguments"], io.BytesIO(good), out, io.StringIO()) == exitcodes.OK
    assert out.getvalue() == ""
    bad = fi.utf16(fi.validation_xml({"poll_interval": "0"}))
    out = io.StringIO()
    assert mod.main(["x.py", "--validate-arguments"], io.BytesIO(bad), out, io.StringIO()) == exitcodes.BAD_CONFIG
    assert "poll_interval" in ET.fromstring(out.getvalue()).findtext("message")


def test_unknown_argument_and_unreadable_definition():
    mod = shell()
    err = io.StringIO()
    assert mod.main(["x.py", "--bogus"], io.BytesIO(b""), io.StringIO(), err) == exitcodes.USAGE
    assert "Invalid arguments" in err.getvalue()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        assert mod.main(["x.py"], io.BytesIO(b"<input><not closed"), io.StringIO(), io.StringIO()) \
            == exitcodes.BAD_INPUT
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)


def test_streaming_in_process_stops_when_the_output_closes(fake_splunkd):
    """A real pipe as stdout: once the reader has the first poll's events it closes its end, and
    main() returns OK (the writer's descriptor is pointed at /dev/null, nothing is raised)."""
    fi.Instance(fake_splunkd, host="idx-07", psets=2)
    mod = shell()
    rfd, wfd = os.pipe()
    stdout = os.fdopen(wfd, "w", encoding="utf-8")
    got = bytearray()

    def reader():
        while b"poll.duration_ms" not in got:
            chunk = os.read(rfd, 65536)
            if not chunk:
                break
            got.extend(chunk)
        os.close(rfd)

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    handlers = {s: signal.getsignal(s) for s in (signal.SIGTERM, signal.SIGINT)}
    err = io.StringIO()
    try:
        xml = fi.input_xml(fake_splunkd.url, {"poll_interval": "1", "thread_cpu": "0"}).encode("utf-8")
        rc = mod.main(["x.py"], io.BytesIO(xml), stdout, err)
    finally:
        for s, h in handlers.items():
            signal.signal(s, h)
        stdout.close()
    t.join(5)
    assert rc == exitcodes.OK, err.getvalue()
    assert b"<sourcetype>ingest_doctor:config</sourcetype>" in got
    assert "category=stop" in err.getvalue() and "Traceback" not in err.getvalue()
