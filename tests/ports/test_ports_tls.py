"""HEC TLS out of the box: Splunk's default CA and certificate name, verified (bin/ingest_doctor/tls.py).

A test CA and an HEC certificate signed by it, named SplunkServerDefaultCert with no subject
alternative name (as Splunk's default server.pem), are made here with the openssl CLI. The
loopback fake HEC presents that certificate; $SPLUNK_HOME/etc/auth/cacert.pem holds the CA.
"""
import os
import ssl
import subprocess
from contextlib import closing

import pytest

from fakes import collector_run, instance as fi
from fakes.splunkd import FakeSplunkd
from ingest_doctor_ports import collector as port
from ingest_doctor.collector import params as params_mod, tls
from ingest_doctor import exitcodes


def _openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True, capture_output=True)


def _signed(d, ca, ca_key, name, cn, ext=None):
    key, csr, cert = (os.path.join(d, name + s) for s in (".key", ".csr", ".pem"))
    _openssl("req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", csr, "-subj", "/CN=" + cn)
    args = ["x509", "-req", "-in", csr, "-CA", ca, "-CAkey", ca_key, "-CAcreateserial", "-out", cert, "-days", "2"]
    if ext:
        extfile = os.path.join(d, name + ".ext")
        with open(extfile, "w") as fh:
            fh.write(ext + "\n")
        args += ["-extfile", extfile]
    _openssl(*args)
    return cert, key


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    """A SPLUNK_HOME with the test CA as etc/auth/cacert.pem, the default-like HEC certificate,
    one issued for another name, and one from an untrusted CA."""
    d = str(tmp_path_factory.mktemp("pki"))
    home = os.path.join(d, "splunk")
    os.makedirs(os.path.join(home, "etc", "auth"))
    ca, ca_key = os.path.join(home, "etc", "auth", "cacert.pem"), os.path.join(d, "ca.key")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", ca_key, "-out", ca, "-days", "2",
             "-subj", "/CN=Test Splunk Root CA")
    other_ca, other_key = os.path.join(d, "other_ca.pem"), os.path.join(d, "other_ca.key")
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", other_key, "-out", other_ca, "-days", "2",
             "-subj", "/CN=Someone Else CA")
    return {
        "home": home, "ca": ca,
        "default": _signed(d, ca, ca_key, "server", tls.SPLUNK_DEFAULT_CN),
        "named": _signed(d, ca, ca_key, "named", "hec.example.com", "subjectAltName=DNS:hec.example.com"),
        "untrusted": _signed(d, other_ca, other_key, "untrusted", tls.SPLUNK_DEFAULT_CN),
    }


def _health(pki, cert, params, monkeypatch):
    """One HEC health GET through the collector's port, as the probe does."""
    monkeypatch.setenv("SPLUNK_HOME", pki["home"])
    with FakeSplunkd(pki[cert]) as hec:
        hec.route("GET", "/services/collector/health", lambda req: fi.Response(200, {"text": "HEC is healthy",
                                                                                      "code": 17}))
        with closing(port.Http(3.0, port.hec_context(params))) as http:
            return http("GET", hec.url + "/services/collector/health", {}, None, "hec")


def test_default_install_verifies_splunks_default_certificate(pki, monkeypatch):
    got = _health(pki, "default", params_mod.Params(), monkeypatch)
    assert (got.status, got.error) == (200, None), got.detail


def test_name_mismatch_without_override_fails_closed_with_a_clear_error(pki, monkeypatch):
    got = _health(pki, "default", params_mod.parse_params({"hec_sslCommonNameToCheck": "hec.example.com"}),
                  monkeypatch)
    assert got.status is None and got.error == "tls"
    assert "issued for 'SplunkServerDefaultCert', not for the URL's host '127.0.0.1'" in got.detail
    assert "hec_sslCommonNameToCheck" in got.detail
    no_override = _health(pki, "default", params_mod.Params(hec_common_names=()), monkeypatch)
    assert no_override.error == "tls" and "not for the URL's host '127.0.0.1'" in no_override.detail


def test_untrusted_ca_fails_even_with_the_right_name(pki, monkeypatch):
    got = _health(pki, "untrusted", params_mod.Params(), monkeypatch)
    assert got.error == "tls" and "certificate verify failed" in got.detail


def test_own_certificate_with_its_name_and_ca_file(pki, monkeypatch):
    params = params_mod.parse_params({"hec_ca_file": pki["ca"], "hec_sslCommonNameToCheck": "hec.example.com"})
    assert _health(pki, "named", params, monkeypatch).status == 200


def test_verification_off_accepts_anything_and_says_so(pki, monkeypatch):
    params = params_mod.parse_params({"hec_tls_verify": "0"})
    assert _health(pki, "untrusted", params, monkeypatch).status == 200
    assert "hec_tls_verify is off" in tls.warning(params.tls())
    assert tls.warning(params_mod.Params().tls()) is None


# --------------------------------------------------------------------------- pure parts

def test_names_of_a_certificate_alt_names_first_then_common_name():
    cn_only = {"subject": ((("commonName", "SplunkServerDefaultCert"),),)}
    with_alt = dict(cn_only, subjectAltName=(("DNS", "hec.example.com"), ("IP Address", "10.0.0.5")))
    assert tls.cert_names(cn_only) == ["SplunkServerDefaultCert"]
    assert tls.cert_names(with_alt) == ["hec.example.com", "10.0.0.5"]
    assert tls.name_error(with_alt, "10.0.0.5", ()) is None
    assert tls.name_error(with_alt, "127.0.0.1", ("SplunkServerDefaultCert",)) is not None
    wild = {"subjectAltName": (("DNS", "*.example.com"),)}
    assert tls.name_error(wild, "127.0.0.1", ("hec.example.com",)) is None
    assert tls.name_error(wild, "127.0.0.1", ("a.b.example.com",)) is not None


def test_names_parse_as_splunk_reads_sslcommonnametocheck():
    assert tls.parse_names(" a, b ,,c ") == ("a", "b", "c")
    assert params_mod.parse_params({}).hec_common_names == (tls.SPLUNK_DEFAULT_CN,)
    assert params_mod.parse_params({"hec_sslCommonNameToCheck": "x,y"}).hec_common_names == ("x", "y")


def test_ca_files_system_store_plus_splunks_ca_unless_one_is_named(pki):
    assert tls.ca_files(tls.Settings(), pki["home"]) == [pki["ca"]]
    assert tls.ca_files(tls.Settings(), "/nonexistent") == []
    assert tls.ca_files(tls.Settings(ca_file="/x.pem"), pki["home"]) == ["/x.pem"]
    assert tls.context(tls.Settings(verify=False), None).verify_mode == ssl.CERT_NONE


# --------------------------------------------------------------------------- the modular input, as built

def _modular_input_health(pki, fake_splunkd, monkeypatch, runs, cert, params):
    """The built add-on's script, SPLUNK_HOME set as splunkd sets it, probing a fake HEC presenting `cert`
    for two polls; the run and its HEC health metric events."""
    env = dict(collector_run.script_env(), SPLUNK_HOME=pki["home"])
    monkeypatch.setattr(collector_run, "script_env", lambda: env)
    with FakeSplunkd(pki[cert]) as hec:
        fi.Instance(fake_splunkd, host="hf-01", psets=1, roles=["heavyweight_forwarder"], hec=hec)
        xml = fi.input_xml(fake_splunkd.url, dict({"poll_interval": "1", "thread_cpu": "0",
                                                   "hec_health_url": hec.url}, **params), "hf-01")
        r = collector_run.start(runs, xml)
        r.wait_polls(2)
        assert r.terminate() == exitcodes.OK
        assert hec.requests_to("/services/collector/health", "GET")
    return r, [e["data"] for e in r.of("ingest_doctor:metrics") if "ingest_doctor.hec.health_rtt_ms" in e["data"]]


def test_modular_input_probes_default_hec_verified(pki, fake_splunkd, monkeypatch, runs):
    """Default parameters: the HEC health probe succeeds against the default-like certificate,
    verification on."""
    r, health = _modular_input_health(pki, fake_splunkd, monkeypatch, runs, "default", {})
    assert health and {(d["code"], d["status"]) for d in health} == {("17", "200")}, r.stderr()
    assert "kind=tls" not in r.stderr()


def test_modular_input_with_verification_off_probes_and_logs_it(pki, fake_splunkd, monkeypatch, runs):
    r, health = _modular_input_health(pki, fake_splunkd, monkeypatch, runs, "untrusted", {"hec_tls_verify": "0"})
    assert health and {d["status"] for d in health} == {"200"}
    warned = [line for line in r.stderr().splitlines() if "category=hec_tls_unverified" in line]
    assert len(warned) == 1 and warned[0].startswith("WARN") and "hec_tls_verify is off" in warned[0], r.stderr()
