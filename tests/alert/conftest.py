"""Fixtures of the form views' browser tests (test_alert_hold_page.py, test_alert_settings_page.py)."""
from __future__ import annotations

import pytest

from fakes.browser import Browser
from fakes.splunkweb import FakeSplunkWeb


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module's pages (tests/fakes/browser.py drives it)."""
    b = Browser()
    yield b
    b.close()


@pytest.fixture
def splunk_web():
    """Start a fake Splunk Web in front of a fake splunkd: `splunk_web(fake)`; each is stopped after the test."""
    made = []

    def start(fake):
        web = FakeSplunkWeb(fake).start()
        made.append(web)
        return web
    yield start
    for web in made:
        web.stop()
