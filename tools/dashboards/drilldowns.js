#!/usr/bin/env node
// Click the drilldowns in headless Chromium (saturated recordings) and check where they lead:
//   - a click in a table sets the tokens of an in-page drilldown chart, which redraws;
//   - a click in a table opens another view of the app with form.<token> parameters;
//   - a view opened with form.host / form.pset shows them in its inputs.
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const R = require('./render');
const { loadViews, formViewNames } = require('./views');

const VIEW_NAMES = new Set(loadViews().map((v) => v.name).concat(formViewNames()));

async function open(page, port, view, extra = '') {
    await page.goto(`http://127.0.0.1:${port}/?view=${view}&state=saturated${extra}`);
    const def = loadViews().find((v) => v.name === view).definition;
    assert.ok(await R.settle(page, Object.keys(def.visualizations).length, R.SETTLE_MS), `${view} did not settle`);
}

async function clickRow(page, viz, row, col) {
    await page.locator(`[data-id="${viz}"] tbody tr`).nth(row).locator('td').nth(col).click();
}

async function waitFor(fn, ms = 5000) {
    const t0 = Date.now();
    while (Date.now() - t0 < ms) {
        const v = await fn();
        if (v) return v;
        await new Promise((r) => setTimeout(r, 100));
    }
    return fn();
}

async function main() {
    const problems = [];
    const unexpected = [];
    await R.buildBundle();
    const server = await R.startServer(loadViews(), problems, unexpected);
    const port = server.address().port;
    const { chromium } = require('playwright-core');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-doctor-chromium-'));
    const browser = await chromium.launchPersistentContext(dir, {
        executablePath: R.CHROMIUM, args: R.CHROMIUM_FLAGS, viewport: { width: 1440, height: 900 },
    });
    const page = await browser.newPage();
    const opened = [];
    // A drilldown to another view leaves the test page: record where it goes, answer with a stub.
    await page.route((url) => VIEW_NAMES.has(url.pathname.split('/').pop()), (route) => {
        opened.push(new URL(route.request().url()));
        route.fulfill({ status: 200, contentType: 'text/html', body: '<html><body>opened</body></html>' });
    });
    // Wait until the page has really arrived at the stub, so the next goto cannot race the drilldown's navigation.
    const lastOpened = async () => {
        const u = await waitFor(() => opened[opened.length - 1]);
        if (u) await page.waitForURL((url) => url.href === u.href, { timeout: 10000, waitUntil: 'load' });
        return u;
    };
    let n = 0;
    const ok = (msg) => { n += 1; console.log(`ok   drilldown: ${msg}`); };
    try {
        // 1. Thread activity: a row of "threads over the threshold" sets thread and drill_host.
        await open(page, port, 'ingest_doctor_thread_activity');
        const title = () => page.locator('[data-id="viz_thread_drill"] [data-test="viz-title"]').textContent();
        assert.strictEqual(await title(), 'Thread httpinputserverdatathread on the 5 busiest hosts and sets');
        await clickRow(page, 'viz_threads_over', 0, 2);
        const t = await waitFor(async () => ((await title()) !== 'Thread httpinputserverdatathread on the 5 busiest hosts and sets' ? title() : null));
        assert.strictEqual(t, 'Thread typing on idx-07');
        const msgs = await page.locator('[data-id="viz_thread_drill"] [data-test="message"]').count();
        assert.strictEqual(msgs, 0, 'the drilldown chart shows a message after the click');
        ok('thread table row -> "Thread typing on idx-07" chart');

        // A click in a table row of `view` must open `target` with these form.* parameters.
        const rowOpens = async (what, view, viz, row, col, target, params) => {
            opened.length = 0;
            await open(page, port, view);
            await clickRow(page, viz, row, col);
            const u = await lastOpened();
            assert.ok(u, `${what} opened nothing`);
            assert.strictEqual(u.pathname, `/app/ingest_doctor/${target}`);
            for (const [k, v] of Object.entries(params)) assert.strictEqual(u.searchParams.get(k), v, `${what}: ${k}`);
            ok(`${what} -> ${u.pathname}?${u.searchParams}`);
        };
        // 2. Pipeline sets: the bottleneck row opens CPU by processor for that host and set.
        // (the Instances choice travels with them: a universal forwarder stays in scope)
        const scope = { 'form.scope': '`ingest_doctor_pipeline_hosts`' };
        await rowOpens('chain row', 'ingest_doctor_pipeline_sets', 'viz_chain', 0, 0, 'ingest_doctor_cpu_by_processor',
            { 'form.host': 'idx-07', 'form.pset': '1', ...scope });
        // 3. Findings: a row opens the view with its evidence, for its host.
        await rowOpens('finding row (typing on idx-07)', 'ingest_doctor_findings', 'viz_findings_table', 0, 1,
            'ingest_doctor_cpu_by_processor', { 'form.host': 'idx-07' });
        // 3b. Findings: a row of the evidence table opens the Acknowledge and snooze form, finding and host filled in.
        await rowOpens('evidence row (typing on idx-07)', 'ingest_doctor_findings', 'viz_findings_evidence', 0, 1,
            'ingest_doctor_hold', { finding: 'idx-07/typing/1', host: 'idx-07' });
        // 4. HEC performance: an open finding opens the findings view for its host.
        await rowOpens('open finding row', 'ingest_doctor_hec_performance', 'viz_open_findings', 0, 1,
            'ingest_doctor_findings', { 'form.host': 'idx-07' });
        // 4b. HEC performance: the deployment overview's first row opens the pipeline-set view of that host and set.
        await rowOpens('overview row (idx-07, worst stage typing)', 'ingest_doctor_hec_performance', 'viz_overview', 0, 3,
            'ingest_doctor_pipeline_sets', { 'form.host': 'idx-07', 'form.pset': '1', ...scope });

        // 5. The target view takes the tokens into its inputs.
        await open(page, port, 'ingest_doctor_cpu_by_processor', '&form.host=idx-07&form.pset=1');
        const hostInput = await page.locator('[data-test="input-item"]').nth(1).textContent();
        const psetInput = await page.locator('[data-test="input-item"]').nth(2).textContent();
        assert.match(hostInput, /idx-07/, `host input shows ${hostInput}`);
        assert.match(psetInput, /Pipeline set\s*1\b/, `pipeline set input shows ${psetInput}`);
        ok('CPU by processor opened with form.host=idx-07&form.pset=1 shows them in its inputs');
    } finally {
        await browser.close();
        server.close();
        fs.rmSync(dir, { recursive: true, force: true });
    }
    assert.deepStrictEqual(problems, []);
    assert.deepStrictEqual(unexpected, [], `unexpected requests: ${unexpected}`);
    console.log(`drilldowns: ${n} checked`);
}

main().then(() => process.exit(0), (e) => { console.error(e.stack || String(e)); process.exit(1); });
