"""Fixtures of the form views' browser tests (test_alert_hold_page.py, test_alert_settings_page.py)."""
from __future__ import annotations

import pytest

from fakes.browser import Browser


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium for a test module's pages (tests/fakes/browser.py drives it)."""
    b = Browser()
    yield b
    b.close()
