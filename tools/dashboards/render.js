#!/usr/bin/env node
// Render every dashboard in headless Chromium with recorded search results and check that each
// visualization draws without an error.
//
// Data injection: the test server rewrites each data source of the definition to `ds.test`
// carrying the recorded results of that data source (tests/fixtures/dashboards/<state>/<view>/<ds>.json,
// in splunkd's json_rows shape). Why not mock splunkd's search API: a mock would have to
// re-implement job dispatch, polling, post-process (ds.chain) semantics and the results
// paging Studio uses, and every mistake there would be ours, not Splunk's; ds.test feeds the
// same DataSource contract the real search uses, so the visualizations, their options and the
// DSL expressions run exactly as in Splunk Web. The committed views keep ds.search/ds.chain.
// Only splunkweb's UI helpers the time picker needs (current-context, timeparser, ui/times)
// are answered with canned values; any other request fails the run.
//
// Usage: node tools/dashboards/render.js [--docs] [--state S] [--fixtures DIR] [--views DIR] [--out DIR] [view ...]
//   screenshots -> build/dashboards/<state>/<view>.png (test artifacts), report -> build/dashboards/report.json
//   --docs also copies them to docs/screenshots/<view>--<state>.png
'use strict';
const fs = require('fs');
const http = require('http');
const path = require('path');
const { loadViews, ROOT } = require('./views');

let OUT = path.join(ROOT, 'build', 'dashboards');
const BUNDLE = path.join(ROOT, 'build', 'dashboards', 'bundle');
const WORKERS = 2;   // pages rendered at once (the machines have 2 cores)
let FIXTURES = path.join(ROOT, 'tests', 'fixtures', 'dashboards');
const DOCS = path.join(ROOT, 'docs', 'screenshots');
const STATES = ['healthy', 'saturated'];
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const NOW = '2026-11-22T04:00:00.000+00:00';
// A hang guard, not a speed check: the landing page settles in about 7 s on an idle 2-core machine and in
// over 20 s when the machine is shared (load 8), the same before and after issue 22's panels.
const SETTLE_MS = 60000;
// Text that means a visualization failed, in any of Studio's message styles.
const BAD_TEXT = /No data|No results|Failed to|Search failed|Error in '|Cannot access|Waiting for (input|data)|Invalid configuration|\bError\b|\bFailed\b/;

// ---------------------------------------------------------------- bundle
async function buildBundle() {
    const entry = path.join(__dirname, 'main.jsx');
    const js = path.join(BUNDLE, 'bundle.js');
    const lock = path.join(ROOT, 'package-lock.json');
    const newest = Math.max(fs.statSync(entry).mtimeMs, fs.statSync(lock).mtimeMs);
    if (fs.existsSync(js) && fs.statSync(js).mtimeMs > newest) return;
    fs.mkdirSync(BUNDLE, { recursive: true });
    await require('esbuild').build({
        entryPoints: [entry], bundle: true, outfile: js, minify: true, logLevel: 'error',
        loader: { '.js': 'jsx', '.css': 'css', '.svg': 'dataurl', '.png': 'dataurl', '.woff': 'dataurl', '.woff2': 'dataurl' },
        define: { 'process.env.NODE_ENV': '"production"', global: 'window' },
    });
}

// What the saturated recording (idx-07's pipeline set 1 full, the rest idle) must show first:
// the first table row, or the first legend entry of a chart.
const FIRST = {
    saturated: {
        ingest_doctor_hec_performance: { viz_overview: /^idx-07.*saturated.*typing.*1/, viz_hec_errors_table: /^idx-07.*9 \(HTTP 503\)/,
            viz_hec_errors_time: /^1\. idx-07 9 /, viz_hec_queues: /^1\. idx-07 set 1$/, viz_hec_latency: /^1\. idx-07$/,
            viz_hec_health: /^idx-07.*18/, viz_hec_lag: /^1\. idx-07$/, viz_open_findings: /^critical.*idx-07.*typing.*1/ },
        ingest_doctor_thread_activity: { viz_threads_time: /^1\. idx-07 set 1 typing$/, viz_threads_over: /^idx-07.*1.*typing/,
            viz_cpu_trap: /^idx-07/ },
        ingest_doctor_pipeline_sets: { viz_fill_time: /^1\. idx-07 set 1$/, viz_chain: /^idx-07.*1.*typing$/,
            viz_psets_time: /^1\. idx-07 set 1$/, viz_psets_table: /^idx-07.*1.*typing/,
            // pegged for the last 100 minutes of 4 hours: judged on the recent window, none left
            viz_headroom: /^idx-07 \| 1 \| typing \| 9\d\.\d \|.*\| none left$/ },
        ingest_doctor_cpu_by_processor: { viz_cpu_time: /^1\. idx-07 set 1 typing\/regexreplacement$/,
            viz_cpu_table: /^idx-07.*1.*typing.*regexreplacement/, viz_regex_share: /^idx-07.*1.*regex-bound/,
            viz_props_findings: /^critical.*idx-07.*1.*typing/ },
        ingest_doctor_findings: { viz_findings_table: /^critical.*idx-07.*typing.*1/ },
    },
};
// "Now" where the admin reads "now" (issue 18). The single values at the top of a view show the last
// 15 minutes: the major value drawn is the recording's (computed over those minutes) and the label says so.
const NOW_SINGLES = {
    ingest_doctor_hec_performance: { viz_kpi_eps: 'eps', viz_kpi_mbps: 'mbps', viz_kpi_rps: 'rps', viz_kpi_epr: 'epr' },
};
const NOW_LABEL = /last 15 min/;
// Table cells coloured by the recent window or the maximum: the first row's cell of each named column must
// be painted this colour (a thread pegged for the last hour is red whatever the range's average says).
const CELL_COLOURS = {
    saturated: { ingest_doctor_thread_activity: { viz_threads_over: { 'last 15 min %': '#D41F1F', 'max %': '#D41F1F', 'latest %': '#D41F1F' } },
        ingest_doctor_pipeline_sets: { viz_headroom: { 'busy % of one core (now)': '#D41F1F' } } },
};
function rgb(hex) {
    const n = parseInt(hex.slice(1), 16);
    return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
// A chart draws at most this many series (the views show a top 5 and "others").
const MAX_SERIES = 10;
// The landing page's "what to change" must be on the first 1080p screen: below the browser and
// Splunk Web's bars (about 200 px), the overview's bottom edge within 1080 - 200 px of the page top.
const FIRST_SCREEN = { ingest_doctor_hec_performance: { viz_overview: 880 } };

function seriesCount(def, vizId) {
    const v = def.visualizations[vizId];
    if (!/^splunk\.(line|area|column|bar)$/.test(v.type)) return 0;
    const ds = def.dataSources[(v.dataSources || {}).primary];
    const fields = ds && ds.options && ds.options.data ? ds.options.data.fields.map((f) => f.name) : [];
    return fields.filter((f) => !f.startsWith('_') && f !== 'threshold').length - (v.type === 'splunk.bar' || v.type === 'splunk.column' && !fields.includes('_time') ? 1 : 0);
}

// ---------------------------------------------------------------- data
function consumers(def) {
    const used = new Set();
    for (const x of [...Object.values(def.visualizations || {}), ...Object.values(def.inputs || {})]) {
        Object.values(x.dataSources || {}).forEach((id) => used.add(id));
    }
    return used;
}

function loadFixture(state, view, dsId) {
    const file = path.join(FIXTURES, state, view, `${dsId}.json`);
    if (!fs.existsSync(file)) return { file, missing: true };
    const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
    if (!Array.isArray(rec.fields) || !Array.isArray(rec.rows)) throw new Error(`${file}: not a json_rows result ({fields, rows})`);
    const names = rec.fields.map((f) => (typeof f === 'string' ? f : f.name));
    const columns = names.map((_, i) => rec.rows.map((r) => (r[i] === undefined ? null : r[i])));
    return { file, names, data: { fields: names.map((name) => ({ name })), columns } };
}

// The definition as the browser gets it: every data source replaced by ds.test with its recording.
function testDefinition(view, state, problems) {
    const def = JSON.parse(JSON.stringify(view.definition));
    const used = consumers(def);
    for (const [id, ds] of Object.entries(def.dataSources)) {
        const fx = loadFixture(state, view.name, id);
        if (fx.missing) {
            if (used.has(id)) problems.push(`${view.name}/${state}: no recorded results for data source ${id} (${path.relative(ROOT, fx.file)})`);
            def.dataSources[id] = { type: 'ds.test', name: ds.name, options: { data: { fields: [], columns: [] } } };
        } else {
            def.dataSources[id] = { type: 'ds.test', name: ds.name, options: { data: fx.data } };
        }
    }
    return def;
}

// ---------------------------------------------------------------- server
function isoFor(time) {
    const now = Date.parse(NOW);
    if (!time || time === 'now') return NOW;
    const m = /^-(\d+)([smhd])/.exec(time);
    if (!m) return NOW;
    const sec = { s: 1, m: 60, h: 3600, d: 86400 }[m[2]] * Number(m[1]);
    return new Date(now - sec * 1000).toISOString().replace('Z', '+00:00');
}

function startServer(views, problems, unexpected) {
    const defs = new Map();
    const index = `<!doctype html><html><head><meta charset="utf-8"><title>ingest_doctor</title>
<link rel="stylesheet" href="/bundle.css">
<style>html,body{margin:0;background:#0b0c0e}#root{width:1440px}</style>
<script>window.$C={SPLUNKD_PATH:"/splunkd/__raw",MRSPARKLE_ROOT_PATH:"",LOCALE:"en-US",APP:"ingest_doctor",SERVER_ZONEINFO:"",USERNAME:"admin"};</script>
</head><body><div id="root"></div><script src="/bundle.js"></script></body></html>`;
    const json = (res, body) => { res.setHeader('content-type', 'application/json'); res.end(JSON.stringify(body)); };
    const server = http.createServer((req, res) => {
        const url = new URL(req.url, 'http://127.0.0.1');
        const p = url.pathname;
        if (p === '/' || p === '/index.html') { res.setHeader('content-type', 'text/html'); return res.end(index); }
        if (p === '/bundle.js' || p === '/bundle.css') {
            res.setHeader('content-type', p.endsWith('.js') ? 'text/javascript' : 'text/css');
            return res.end(fs.readFileSync(path.join(BUNDLE, p.slice(1))));
        }
        if (p === '/definition.json') {
            const key = `${url.searchParams.get('view')}/${url.searchParams.get('state')}`;
            if (!defs.has(key)) {
                const view = views.find((v) => v.name === url.searchParams.get('view'));
                defs.set(key, testDefinition(view, url.searchParams.get('state'), problems));
            }
            return json(res, defs.get(key));
        }
        // splunkweb helpers of the time-range input (not search data)
        if (p.endsWith('/services/authentication/current-context')) {
            return json(res, { entry: [{ name: 'admin', content: { username: 'admin', roles: ['admin'], capabilities: [] } }] });
        }
        if (p.endsWith('/services/search/timeparser')) {
            const t = url.searchParams.get('time');
            return json(res, { [t]: isoFor(t) });
        }
        if (p.endsWith('/data/ui/times')) {
            const preset = (label, earliest, order) => ({ name: label, content: { label, earliest_time: earliest, latest_time: 'now', order } });
            return json(res, { entry: [preset('Last 60 minutes', '-60m@m', 10), preset('Last 4 hours', '-4h@m', 20), preset('Last 24 hours', '-24h@h', 30)] });
        }
        if (p === '/favicon.ico') { res.statusCode = 404; return res.end(); }
        unexpected.push(`${req.method} ${req.url}`);
        res.statusCode = 404;
        res.end();
    });
    return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---------------------------------------------------------------- DOM checks (run in the page)
function inspectPage(badSource) {
    const bad = new RegExp(badSource);
    const out = { vizzes: {}, inputs: [] };
    for (const el of document.querySelectorAll('[data-test="viz-item"]')) {
        const id = el.getAttribute('data-id');
        const type = el.getAttribute('data-viz-type');
        const body = el.querySelector('[data-test="viz-size-wrapper"]') || el;
        const messages = [...el.querySelectorAll('[data-test="message"]')].map((m) => `${m.getAttribute('data-test-type')}: ${m.textContent.trim()}`);
        const text = body.textContent || '';
        const placeholder = !!el.querySelector('[data-test="icon-placeholder"]');
        let drawn = false;
        let detail = '';
        const sized = (n) => n && n.getBoundingClientRect().width > 10 && n.getBoundingClientRect().height > 10;
        if (type === 'splunk.markdown') {
            const md = el.querySelector('[data-test="markdown"]');
            drawn = !!md && md.textContent.trim().length > 20;
        } else if (type === 'splunk.singlevalue') {
            const mv = el.querySelector('[data-test="majorValue"]');
            detail = mv ? mv.textContent.trim() : '';
            drawn = !!mv && detail.length > 0 && detail !== 'N/A';
        } else if (type === 'splunk.table') {
            const rows = el.querySelectorAll('[data-test="table"] tbody tr, [data-test="row"]');
            detail = `${rows.length} rows`;
            drawn = rows.length > 0;
        } else {
            const canvas = [...el.querySelectorAll('canvas, svg')].filter(sized);
            const summary = [...el.querySelectorAll('[data-test="screen-reader-content"], [aria-label]')]
                .map((n) => n.textContent || n.getAttribute('aria-label') || '').join(' ');
            detail = `${canvas.length} canvas/svg`;
            drawn = canvas.length > 0 && !/no data/i.test(summary);
        }
        // Text cut short: a title or description wider than its box (CSS ellipsis), a table header
        // label wider than its cell, a chart legend entry shortened with "…" or paged.
        const truncated = [];
        const cut = (n) => n && n.scrollWidth > n.clientWidth + 1;
        for (const n of el.querySelectorAll('[data-test="viz-title"], [data-test="viz-description"]')) {
            if (cut(n)) truncated.push(`${n.getAttribute('data-test').slice(4)} "${n.textContent.trim()}"`);
        }
        for (const th of el.querySelectorAll('[data-test="head-cell"]')) {
            const label = [...th.querySelectorAll('span')].find((s) => s.children.length === 0 && s.textContent.trim());
            const cell = th.getBoundingClientRect();
            if (label && (cut(label) || label.getBoundingClientRect().right > cell.right + 1)) truncated.push(`header "${label.textContent.trim()}"`);
            // a header broken inside a word ("ingest_pi | pe") reads as two words: count its lines
            // against its words
            if (label) {
                const range = document.createRange();
                range.selectNodeContents(label);
                const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
                const words = label.textContent.trim().split(/\s+/).length;
                if (lines > words) truncated.push(`header "${label.textContent.trim()}" broken inside a word`);
            }
        }
        // A word broken inside itself in a table cell, a title, a description or a markdown block
        // ("ingest_doctor_in | dex_internal" reads as two words): each word's box must sit on one line.
        const textRoots = [...el.querySelectorAll('td, [data-test="viz-title"], [data-test="viz-description"], [data-test="markdown"]')];
        const broken = new Set();
        for (const root of textRoots) {
            const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
            for (let node = walker.nextNode(); node; node = walker.nextNode()) {
                const re = /\S{4,}/g;
                let m;
                while ((m = re.exec(node.data)) !== null) {
                    const range = document.createRange();
                    range.setStart(node, m.index);
                    range.setEnd(node, m.index + m[0].length);
                    const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
                    // a break after a hyphen or a slash is a line break between parts, not inside a word
                    const parts = m[0].split(/(?<=[-\/])/);
                    if (lines.size > parts.length) broken.add(m[0]);
                }
            }
        }
        [...broken].slice(0, 5).forEach((w) => truncated.push(`word "${w}" broken inside itself`));
        // Link-coloured text over a coloured cell: blue link text on a red or green background is
        // unreadable; a coloured cell carries plain (white or dark) text.
        const rgb = (c) => (c.match(/[\d.]+/g) || []).map(Number);
        const painted = (c) => { const [r, g, b, a] = rgb(c); return a !== 0 && c !== 'transparent' && Math.max(r, g, b) - Math.min(r, g, b) > 60; };
        const linkBlue = (c) => { const [r, g, b] = rgb(c); return b > 150 && b > r + 60 && b > g + 10; };
        const clash = new Set();
        for (const td of el.querySelectorAll('td')) {
            for (const leaf of [td, ...td.querySelectorAll('*')]) {
                if (![...leaf.childNodes].some((n) => n.nodeType === 3 && n.data.trim())) continue;
                let bg = null;
                for (let n = leaf; n && n !== td.parentElement; n = n.parentElement) {
                    const c = getComputedStyle(n).backgroundColor;
                    if (c && c !== 'transparent' && rgb(c)[3] !== 0) { bg = c; break; }
                }
                if (bg && painted(bg) && linkBlue(getComputedStyle(leaf).color)) clash.add(leaf.textContent.trim());
            }
        }
        [...clash].slice(0, 5).forEach((t) => truncated.push(`link-coloured text "${t}" on a coloured cell`));
        // the entry as drawn: Highcharts keeps the full name in a <title> beside the shortened text
        const shown = (n) => { const c = n.cloneNode(true); c.querySelectorAll('title').forEach((t) => t.remove()); return c.textContent.trim(); };
        const legend = [...el.querySelectorAll('.highcharts-legend-item')].map(shown);
        // a table wider than its panel hides its last columns behind a scroll bar
        const heads = [...el.querySelectorAll('[data-test="head-cell"]')];
        if (heads.length) {
            const right = el.getBoundingClientRect().right;
            const hidden = heads.filter((h) => h.getBoundingClientRect().right > right + 1).map((h) => h.textContent.trim());
            if (hidden.length) truncated.push(`table columns past the panel's edge: ${hidden.join(', ')}`);
        }
        legend.filter((t) => t.includes('\u2026') || t.endsWith('...')).forEach((t) => truncated.push(`legend "${t}"`));
        const nav = el.querySelector('.highcharts-legend-navigation');
        if (nav && nav.getBoundingClientRect().height > 0 && getComputedStyle(nav).visibility !== 'hidden') truncated.push('legend paged (entries hidden)');
        const firstRow = el.querySelector('[data-test="table"] tbody tr, tbody tr');
        // the first row's cells: the header above each and the background painted in it (the cell or a child)
        const headers = [...el.querySelectorAll('[data-test="head-cell"]')].map((h) => h.textContent.trim());
        const paint = (td) => [td, ...td.querySelectorAll('*')].map((n) => getComputedStyle(n).backgroundColor)
            .find((c) => c && c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') || '';
        const cells = firstRow ? [...firstRow.querySelectorAll('td')].map((td, i) => ({ header: headers[i] || '', text: td.textContent.trim(), bg: paint(td) })) : [];
        const status = [...el.querySelectorAll('[data-test="status-icon-container"] button, [data-test="status-icon-container"] [role="button"]')]
            .map((b) => b.getAttribute('aria-label') || b.getAttribute('title') || 'status icon');
        const errors = [];
        if (messages.length) errors.push(`message shown: ${messages.join(' | ')}`);
        if (bad.test(text)) errors.push(`error text: "${text.match(bad)[0]}"`);
        if (placeholder) errors.push('still a loading placeholder');
        if (!drawn) errors.push(`nothing drawn (${detail || type})`);
        if (status.length) errors.push(`status icon: ${status.join(', ')}`);
        truncated.forEach((t) => errors.push(`truncated ${t}`));
        const rect = el.getBoundingClientRect();
        out.vizzes[id] = { type, drawn, detail, errors, legend, cells, text: text.replace(/\s+/g, ' '), firstRow: firstRow ? [...firstRow.querySelectorAll('td')].map((td) => td.textContent.trim()).join(' | ') : null,
            top: rect.top + window.scrollY, bottom: rect.bottom + window.scrollY };
    }
    for (const el of document.querySelectorAll('[data-test="input-container"], [data-test="input-item"]')) {
        const msg = [...el.querySelectorAll('[data-test="message"]')].map((m) => m.textContent.trim());
        if (msg.length) out.inputs.push(msg.join(' | '));
        // a multiselect draws its first choice and a count of the chosen ("All hosts (1)"): the count reads
        // as one host; an input shows "All hosts" or the hosts themselves (issue 22)
        for (const c of el.querySelectorAll('[data-role="count"]')) {
            out.inputs.push(`a count beside its choice: "${(el.querySelector('button') || el).textContent.trim()}" (${c.textContent.trim()})`);
        }
    }
    return out;
}

async function settle(page, expected, timeoutMs) {
    const t0 = Date.now();
    let last = -1;
    let stableSince = Date.now();
    while (Date.now() - t0 < timeoutMs) {
        const state = await page.evaluate(() => {
            const items = [...document.querySelectorAll('[data-test="viz-item"]')];
            const loading = items.filter((el) => el.querySelector('[data-test="icon-placeholder"]')).length;
            const html = document.body.innerHTML;
            let hash = 5381;
            for (let i = 0; i < html.length; i += 1) hash = ((hash * 33) ^ html.charCodeAt(i)) | 0;
            return { count: items.length, loading, html: hash };
        });
        if (state.count >= expected && state.loading === 0) {
            if (state.html !== last) { last = state.html; stableSince = Date.now(); } else if (Date.now() - stableSince > 700) return true;
        }
        await page.waitForTimeout(150);
    }
    return false;
}

// ---------------------------------------------------------------- main
function option(args, name) {
    const i = args.indexOf(name);
    if (i < 0) return null;
    const v = args[i + 1];
    args.splice(i, 2);
    return v;
}

async function renderOne(browser, port, view, state, docs) {
    const page = await browser.newPage();
    const pageErrors = [];
    const offHost = [];
    page.on('pageerror', (e) => pageErrors.push(String(e.message || e).slice(0, 300)));
    page.on('request', (r) => { if (!/^(http:\/\/127\.0\.0\.1:\d+\/|blob:|data:)/.test(r.url())) offHost.push(r.url()); });
    const expected = Object.keys(view.definition.visualizations).length;
    await page.goto(`http://127.0.0.1:${port}/?view=${view.name}&state=${state}`);
    const tGo = Date.now();
    const settled = await settle(page, expected, SETTLE_MS);
    if (process.env.RENDER_TIMING) console.log(`settle ${view.name} ${Date.now() - tGo} ms`);
    const shot = path.join(OUT, state, `${view.name}.png`);
    await page.screenshot({ path: shot, fullPage: true });
    const dom = await page.evaluate(inspectPage, BAD_TEXT.source);
    await page.close();
    const errs = [];
    if (!settled) errs.push(`page did not settle within ${SETTLE_MS / 1000} s`);
    for (const id of Object.keys(view.definition.visualizations)) {
        const v = dom.vizzes[id];
        if (!v) errs.push(`${id}: not rendered`);
        else v.errors.forEach((e) => errs.push(`${id} (${v.type}): ${e}`));
    }
    const def = testDefinition(view, state, []);
    for (const id of Object.keys(view.definition.visualizations)) {
        const n = seriesCount(def, id);
        if (n > MAX_SERIES) errs.push(`${id}: ${n} series in one chart (more than ${MAX_SERIES}: show a top N)`);
    }
    for (const [id, re] of Object.entries((FIRST[state] || {})[view.name] || {})) {
        const v = dom.vizzes[id] || {};
        const first = v.type === 'splunk.table' ? v.firstRow : (v.legend || [])[0];
        if (!re.test((first || '').replace(/\s+/g, ' '))) errs.push(`${id}: shows first "${first}", expected ${re}`);
    }
    for (const [id, field] of Object.entries(NOW_SINGLES[view.name] || {})) {
        const v = dom.vizzes[id] || {};
        const ds = def.dataSources[def.visualizations[id].dataSources.primary];
        const col = ds.options.data.fields.findIndex((f) => f.name === field);
        const values = col < 0 ? [] : ds.options.data.columns[col];
        const want = values.length ? Number(values[values.length - 1]) : NaN;
        const digits = String(v.detail || '').replace(/[^\d.-]/g, '');
        const shown = Number(digits);
        // drawn with the precision Studio chose: equal to the recording within that precision
        const places = digits.includes('.') ? digits.split('.')[1].length : 0;
        if (!(digits && Math.abs(shown - want) <= 0.5 * 10 ** -places + 1e-9)) errs.push(`${id}: shows ${v.detail}, the last 15 minutes' ${field} is ${want}`);
        if (!NOW_LABEL.test(v.text || '')) errs.push(`${id}: its label does not say it is the last 15 minutes ("${v.text}")`);
    }
    for (const [id, cols] of Object.entries((CELL_COLOURS[state] || {})[view.name] || {})) {
        const cells = (dom.vizzes[id] || {}).cells || [];
        for (const [header, hex] of Object.entries(cols)) {
            const cell = cells.find((c) => c.header === header);
            if (!cell) errs.push(`${id}: no column "${header}" in its first row`);
            else if (cell.bg !== rgb(hex)) errs.push(`${id}: first row's "${header}" (${cell.text}) painted ${cell.bg || 'nothing'}, expected ${hex}`);
        }
    }
    for (const [id, limit] of Object.entries(FIRST_SCREEN[view.name] || {})) {
        const v = dom.vizzes[id];
        if (v && v.bottom > limit) errs.push(`${id}: ends ${Math.round(v.bottom)} px down the page, past the first 1080p screen (${limit} px)`);
    }
    dom.inputs.forEach((m) => errs.push(`input shows: ${m}`));
    pageErrors.forEach((m) => errs.push(`page error: ${m}`));
    offHost.forEach((u) => errs.push(`off-host request: ${u}`));
    console.log(`${errs.length ? 'FAIL' : 'ok  '} ${state.padEnd(9)} ${view.name} (${Object.keys(dom.vizzes).length} visualizations) -> ${path.relative(ROOT, shot)}`);
    errs.forEach((e) => console.error(`     ${view.name}/${state}: ${e}`));
    if (docs) {
        fs.mkdirSync(DOCS, { recursive: true });
        fs.copyFileSync(shot, path.join(DOCS, `${view.name}--${state}.png`));
    }
    return { view: view.name, state, screenshot: path.relative(ROOT, shot), errors: errs, vizzes: dom.vizzes };
}

async function main(argv) {
    const args = argv.slice();
    const docs = args.includes('--docs');
    const state = option(args, '--state');
    FIXTURES = path.resolve(option(args, '--fixtures') || FIXTURES);
    OUT = path.resolve(option(args, '--out') || OUT);
    const viewsDir = option(args, '--views');
    const states = state ? [state] : STATES;
    const names = args.filter((a) => !a.startsWith('--'));
    const files = viewsDir ? fs.readdirSync(viewsDir).filter((f) => f.endsWith('.xml')).sort().map((f) => path.join(viewsDir, f)) : null;
    const views = loadViews(files).filter((v) => !names.length || names.includes(v.name));
    if (!views.length) throw new Error('no view to render');
    const bad = views.filter((v) => v.error);
    if (bad.length) throw new Error(bad.map((v) => `${v.name}: ${v.error}`).join('; '));
    const t0 = Date.now();
    await buildBundle();
    const tBundle = Date.now() - t0;
    const problems = [];
    const unexpected = [];
    const server = await startServer(views, problems, unexpected);
    const port = server.address().port;
    const { chromium } = require('playwright-core');
    const userDataDir = fs.mkdtempSync(path.join(require('os').tmpdir(), 'ingest-doctor-chromium-'));
    // A fresh --user-data-dir per run (playwright passes it for a persistent context).
    const browser = await chromium.launchPersistentContext(userDataDir, {
        executablePath: CHROMIUM, args: CHROMIUM_FLAGS, viewport: { width: 1440, height: 900 }, deviceScaleFactor: 1,
    });
    const jobs = [];
    for (const st of states) {
        fs.mkdirSync(path.join(OUT, st), { recursive: true });
        for (const view of views) jobs.push([view, st]);
    }
    const report = [];
    try {
        const worker = async () => {
            while (jobs.length) {
                const [view, st] = jobs.shift();
                report.push(await renderOne(browser, port, view, st, docs));
            }
        };
        await Promise.all(Array.from({ length: WORKERS }, worker));
    } finally {
        await browser.close();
        server.close();
        fs.rmSync(userDataDir, { recursive: true, force: true });
    }
    report.sort((a, b) => `${a.state}/${a.view}`.localeCompare(`${b.state}/${b.view}`));
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, 'report.json'), JSON.stringify({ report, problems, unexpected }, null, 2));
    problems.forEach((p) => console.error(`FAIL ${p}`));
    [...new Set(unexpected)].forEach((u) => console.error(`FAIL unexpected request: ${u}`));
    const failed = report.filter((r) => r.errors.length).length + problems.length + (unexpected.length ? 1 : 0);
    console.log(`render: ${report.length} renders, ${failed} failing, bundle ${tBundle} ms, total ${Date.now() - t0} ms`);
    return { code: failed ? 1 : 0, report, problems, unexpected };
}

if (require.main === module) {
    main(process.argv.slice(2)).then((r) => process.exit(r.code), (e) => { console.error(e.stack || String(e)); process.exit(2); });
}
module.exports = { main, testDefinition, consumers, loadFixture, startServer, buildBundle, settle, SETTLE_MS, CHROMIUM, CHROMIUM_FLAGS };
