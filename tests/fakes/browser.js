#!/usr/bin/env node
// Headless Chromium for the tests (tests/fakes/browser.py drives it): one JSON command a line on stdin,
// one JSON answer a line on stdout. Commands: goto {url}, fill {selector, value}, select {selector, value},
// click {selector}, text {selector}, value {selector}, html, wait_text {selector, pattern, timeout_ms},
// report (console lines, page errors, requests that left the loopback origin), close.
// A request to any other origin than the page's is answered with an error and reported: the forms
// must work with Splunk Web alone.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const readline = require('readline');

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic'];

async function main() {
    const { chromium } = require('playwright-core');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-doctor-forms-'));
    const context = await chromium.launchPersistentContext(dir, { executablePath: CHROMIUM, args: FLAGS });
    const page = context.pages()[0] || await context.newPage();
    const report = { console: [], errors: [], external: [] };
    let origin = null;
    page.on('console', (m) => report.console.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => report.errors.push(String(e)));
    await context.route('**/*', (route) => {
        const url = new URL(route.request().url());
        if (origin && url.origin !== origin) { report.external.push(url.href); return route.abort(); }
        return route.continue();
    });
    const out = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
    const rl = readline.createInterface({ input: process.stdin });
    for await (const line of rl) {
        if (!line.trim()) continue;
        const cmd = JSON.parse(line);
        try {
            let value = null;
            if (cmd.op === 'goto') {
                origin = new URL(cmd.url).origin;
                await page.goto(cmd.url, { waitUntil: 'load' });
            } else if (cmd.op === 'fill') {
                await page.fill(cmd.selector, cmd.value);
            } else if (cmd.op === 'select') {
                await page.selectOption(cmd.selector, cmd.value);
            } else if (cmd.op === 'click') {
                await page.click(cmd.selector);
            } else if (cmd.op === 'text') {
                value = await page.textContent(cmd.selector);
            } else if (cmd.op === 'value') {
                value = await page.inputValue(cmd.selector);
            } else if (cmd.op === 'html') {
                value = await page.content();
            } else if (cmd.op === 'wait_text') {
                const re = new RegExp(cmd.pattern);
                const t0 = Date.now();
                for (;;) {
                    value = await page.textContent(cmd.selector);
                    if (re.test(value || '')) break;
                    if (Date.now() - t0 > (cmd.timeout_ms || 15000)) throw new Error(`${cmd.selector} shows ${JSON.stringify(value)}, not /${cmd.pattern}/`);
                    await new Promise((r) => setTimeout(r, 50));
                }
            } else if (cmd.op === 'report') {
                value = report;
            } else if (cmd.op === 'close') {
                out({ ok: true });
                break;
            } else {
                throw new Error(`unknown command ${cmd.op}`);
            }
            out({ ok: true, value });
        } catch (e) {
            out({ ok: false, error: String(e && e.message || e) });
        }
    }
    await context.close();
    fs.rmSync(dir, { recursive: true, force: true });
}

main().then(() => process.exit(0), (e) => { process.stderr.write(String(e && e.stack || e) + '\n'); process.exit(1); });
