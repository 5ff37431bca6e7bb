"""Headless Chromium driven from a test (tests/fakes/browser.js over playwright-core, the dashboards
gates' own tools: node_modules and /usr/bin/chromium, which `make test` installs)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from typing import Any, Dict

from fakes.paths import ROOT, TESTS

SCRIPT = os.path.join(TESTS, "fakes", "browser.js")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def missing() -> str:
    """Why the browser cannot run here ("" when it can)."""
    if not shutil.which("node"):
        return "node is not installed"
    if not os.path.isdir(os.path.join(ROOT, "node_modules", "playwright-core")):
        return "node_modules/playwright-core is missing (npm ci)"
    if not os.path.exists(CHROMIUM):
        return "%s is missing (apt-get install chromium)" % CHROMIUM
    return ""


class BrowserError(AssertionError):
    pass


class Browser:
    def __init__(self) -> None:
        self.proc = subprocess.Popen(["node", SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, cwd=ROOT)

    def _do(self, **cmd: Any) -> Any:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(cmd) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise BrowserError("the browser ended: %s" % (self.proc.stderr.read() if self.proc.stderr else ""))
        answer = json.loads(line)
        if not answer.get("ok"):
            raise BrowserError("%s: %s" % (cmd, answer.get("error")))
        return answer.get("value")

    def goto(self, url: str) -> None:
        self._do(op="goto", url=url)

    def fill(self, selector: str, value: str) -> None:
        self._do(op="fill", selector=selector, value=value)

    def select(self, selector: str, value: str) -> None:
        self._do(op="select", selector=selector, value=value)

    def click(self, selector: str) -> None:
        self._do(op="click", selector=selector)

    def text(self, selector: str) -> str:
        return self._do(op="text", selector=selector) or ""

    def value(self, selector: str) -> str:
        return self._do(op="value", selector=selector) or ""

    def html(self) -> str:
        return self._do(op="html") or ""

    def wait_text(self, selector: str, pattern: str, timeout_ms: int = 15000) -> str:
        return self._do(op="wait_text", selector=selector, pattern=pattern, timeout_ms=timeout_ms) or ""

    def report(self) -> Dict[str, Any]:
        return self._do(op="report")

    def close(self) -> None:
        try:
            self._do(op="close")
        finally:
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
