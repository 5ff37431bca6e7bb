"""Snapshot redaction (issue 23): generic secret names, whatever their value's type."""
from __future__ import annotations

import json

from ingest_doctor.read.snapwriter import SnapshotWriter, is_secret, redact


def test_generic_secret_names_are_secrets():
    for key in ("secret", "accessKey", "access_key", "remote.s3.secret_key", "hecToken", "token_value",
                "x_TOKEN_y", "adminPassword", "password_hash", "pass4SymmKey", "sslPassword", "apiKey",
                "privateKey", "credentials"):
        assert is_secret(key), key
    for key in ("parallelIngestionPipelines", "maxSize", "dedicatedIoThreads", "useACK", "name", "disabled"):
        assert not is_secret(key), key


def test_values_in_lists_and_objects_are_dropped_with_their_key():
    body = {"entry": [{"name": "s3", "content": {
        "secret": "s3cr3t-1", "accessKey": "AKIA-2", "tokens": ["tok-3", "tok-4"],
        "passwords": {"a": "pw-5"}, "nested": [{"auth_token": "tok-6"}, {"keep": "visible"}],
        "maxSize": "10MB"}}]}
    out, dropped = redact(body)
    blob = json.dumps(out)
    for secret in ("s3cr3t-1", "AKIA-2", "tok-3", "tok-4", "pw-5", "tok-6"):
        assert secret not in blob
    assert dropped == 5 and "visible" in blob and "10MB" in blob


def test_the_writer_writes_none_of_them(tmp_path):
    w = SnapshotWriter(str(tmp_path))
    body = json.dumps({"entry": [{"name": "general", "content": {"pass4SymmKey": "k-1", "mySecret": ["k-2"],
                                                                 "parallelIngestionPipelines": "2"}}]})
    assert w.write_rest("services/configs/conf-server/general", body.encode())
    text = (tmp_path / "rest" / "services" / "configs" / "conf-server" / "general.json").read_text()
    assert "k-1" not in text and "k-2" not in text and '"parallelIngestionPipelines":"2"' in text
    assert any("2 secret values removed" in n for n in w.notes)
