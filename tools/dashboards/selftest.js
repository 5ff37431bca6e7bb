#!/usr/bin/env node
// Show that the dashboard gates bite: a broken copy of a real view must fail validation with
// each named check, and a render with a failing visualization must fail naming it.
'use strict';
const assert = require('assert');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { loadViews, ROOT } = require('./views');

const origWarn = console.warn;
console.warn = (...a) => { if (!String(a[0]).includes('strict mode')) origWarn(...a); };

function brokenDefinition() {
    const view = loadViews().find((v) => v.name === 'ingest_doctor_findings');
    const def = JSON.parse(JSON.stringify(view.definition));
    def.visualizations.viz_findings_by.type = 'splunk.nonexistent_viz';             // schema
    def.visualizations.viz_kpi_info.dataSources.primary = 'ds_gone';                // dangling data source
    def.dataSources.ds_findings_kpi.options.extend = 'ds_nope';                     // dangling chain
    def.dataSources.ds_findings.options.query += ' $undefined_tok$';                // undefined token
    def.visualizations.viz_orphan = { type: 'splunk.markdown', title: 'orphan', options: { markdown: 'x' } }; // unplaced
    def.layout.structure.push({ item: 'viz_ghost', type: 'block', position: { x: 0, y: 5000, w: 1440, h: 100 } }); // dangling viz
    def.visualizations.viz_kpi_hosts.title = '';                                   // untitled
    def.visualizations.viz_findings_table.eventHandlers.push({
        type: 'drilldown.linkToDashboard', options: { app: 'ingest_doctor', dashboard: 'no_such_view', tokens: [], newTab: false } });
    def.visualizations.viz_findings_by.eventHandlers = [{
        type: 'drilldown.customUrl', options: { url: '/app/ingest_doctor/no_such_view2?form.host=$row.host.value|u$', newTab: false } }];
    return { view, def };
}

function viewXml(label, def) {
    return `<dashboard version="2" theme="dark">\n  <label>${label}</label>\n  <description>selftest</description>\n` +
        `  <definition><![CDATA[\n${JSON.stringify(def, null, 2)}\n]]></definition>\n</dashboard>\n`;
}

async function main() {
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ingest-doctor-selftest-'));
    try {
        // 1. validation
        const { def } = brokenDefinition();
        const viewsDir = path.join(tmp, 'views');
        fs.mkdirSync(viewsDir);
        // The only view to render: `def` as view `name`, over a copy of its saturated recordings
        // (returned: the copy's folder, for a test to alter).
        const stageView = (name, label, viewDef) => {
            fs.rmSync(viewsDir, { recursive: true, force: true });
            fs.mkdirSync(viewsDir);
            fs.writeFileSync(path.join(viewsDir, `${name}.xml`), viewXml(label, viewDef));
            const fx = path.join(tmp, 'fixtures', 'saturated', name);
            fs.mkdirSync(fx, { recursive: true });
            const src = path.join(ROOT, 'tests', 'fixtures', 'dashboards', 'saturated', name);
            for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(fx, f));
            return fx;
        };
        const broken = path.join(viewsDir, 'ingest_doctor_findings.xml');
        fs.writeFileSync(broken, viewXml('Findings (broken)', def));
        const lines = [];
        const origError = console.error;
        const origLog = console.log;
        console.error = (m) => lines.push(String(m));
        console.log = () => {};
        let result;
        try {
            result = require('./validate').validate([broken]);
        } finally {
            console.error = origError;
            console.log = origLog;
        }
        const text = lines.join('\n');
        const expect = {
            schema: /\[schema\] \/visualizations\/viz_findings_by\/type must be equal to one of the allowed values/,
            'dangling-data-source': /\[dangling-data-source\] viz_kpi_info\.dataSources\.primary -> "ds_gone"/,
            'dangling-chain': /\[dangling-chain\] data source ds_findings_kpi extends "ds_nope"/,
            'undefined-token': /\[undefined-token\] data source ds_findings uses \$undefined_tok\$/,
            'unplaced-visualization': /\[unplaced-visualization\] visualization viz_orphan/,
            'dangling-visualization': /\[dangling-visualization\] layout places "viz_ghost"/,
            'untitled-visualization': /\[untitled-visualization\] visualization viz_kpi_hosts/,
            'dangling-drilldown': /\[dangling-drilldown\] visualization viz_findings_table links to dashboard "no_such_view"/,
            'dangling-drilldown (customUrl)': /\[dangling-drilldown\] visualization viz_findings_by links to dashboard "no_such_view2"/,
        };
        assert.ok(result.problems > 0, 'the broken view passed validation');
        for (const [check, re] of Object.entries(expect)) {
            assert.match(text, re, `validation did not report ${check}; got:\n${text}`);
            console.log(`ok   validate bites: ${check}`);
        }

        // 2. render: a table whose recorded result is empty shows "No data" and must fail;
        //    a chart fed by a data source without a recording must fail too.
        const good = loadViews().find((v) => v.name === 'ingest_doctor_findings');
        const rdef = JSON.parse(JSON.stringify(good.definition));
        rdef.visualizations.viz_findings_by.dataSources.primary = 'ds_unrecorded';
        rdef.dataSources.ds_unrecorded = { type: 'ds.search', name: 'never recorded', options: { query: '| makeresults' } };
        fs.writeFileSync(broken, viewXml('Findings (render selftest)', rdef));
        const fx = path.join(tmp, 'fixtures', 'healthy', 'ingest_doctor_findings');
        fs.mkdirSync(fx, { recursive: true });
        const src = path.join(ROOT, 'tests', 'fixtures', 'dashboards', 'healthy', 'ingest_doctor_findings');
        for (const f of fs.readdirSync(src)) fs.copyFileSync(path.join(src, f), path.join(fx, f));
        const table = JSON.parse(fs.readFileSync(path.join(fx, 'ds_findings_table.json'), 'utf8'));
        table.rows = [];
        fs.writeFileSync(path.join(fx, 'ds_findings_table.json'), JSON.stringify(table));
        // the render of a broken view reports its failures; keep them out of the log
        const quietRender = async (state) => {
            console.error = (m) => lines.push(String(m));
            console.log = (m) => lines.push(String(m));
            try {
                return await require('./render').main(['--views', viewsDir, '--fixtures', path.join(tmp, 'fixtures'),
                    '--out', path.join(tmp, 'out'), '--state', state]);
            } finally {
                console.error = origError;
                console.log = origLog;
            }
        };
        let r = await quietRender('healthy');
        assert.strictEqual(r.code, 1, 'the broken render passed');
        const errs = r.report[0].errors.join('\n') + '\n' + r.problems.join('\n');
        assert.match(errs, /viz_findings_table \(splunk\.table\): message shown: warning: .*No data!/, errs);
        console.log('ok   render bites: an empty table (No data) fails, naming viz_findings_table');
        assert.match(errs, /viz_findings_by \(splunk\.bar\): status icon/, errs);
        console.log('ok   render bites: a chart with no data (status icon) fails, naming viz_findings_by');
        assert.match(errs, /no recorded results for data source ds_unrecorded/, errs);
        console.log('ok   render bites: a data source without recorded results fails, naming ds_unrecorded');

        // 3. render: the readability checks. A 12-series chart, a title longer than its panel, a hosts
        //    input with a count beside its choice and a chain table whose first row is not the saturated
        //    set must each fail, named.
        const ps = loadViews().find((v) => v.name === 'ingest_doctor_pipeline_sets');
        const pdef = JSON.parse(JSON.stringify(ps.definition));
        pdef.visualizations.viz_psets_time.title = 'A title far too long for its panel: '.repeat(8);
        // the hosts input as the multiselect it was: Studio draws "All hosts (1)" (issue 22)
        pdef.inputs.input_host.type = 'input.multiselect';
        pdef.inputs.input_host.options.defaultValue = ['*'];
        const pfx = stageView('ingest_doctor_pipeline_sets', 'Pipeline sets (selftest)', pdef);
        const fill = JSON.parse(fs.readFileSync(path.join(pfx, 'ds_fill_time.json'), 'utf8'));
        const wide = { fields: ['_time'], rows: fill.rows.map((r) => [r[0]]) };
        for (let i = 1; i <= 12; i += 1) {
            wide.fields.push(`idx-${String(i).padStart(2, '0')} set 0`);
            wide.rows.forEach((r, k) => r.push(String((i * 7 + k) % 50)));
        }
        fs.writeFileSync(path.join(pfx, 'ds_fill_time.json'), JSON.stringify(wide));
        const chainRec = JSON.parse(fs.readFileSync(path.join(pfx, 'ds_chain.json'), 'utf8'));
        chainRec.rows.reverse();
        fs.writeFileSync(path.join(pfx, 'ds_chain.json'), JSON.stringify(chainRec));
        // the headroom of a stage pegged now, averaged over the whole range instead of the recent window:
        // half busy with thousands of events/s to spare (issue 18)
        const head = JSON.parse(fs.readFileSync(path.join(pfx, 'ds_headroom.json'), 'utf8'));
        head.rows[0][3] = '47.5';
        head.rows[0][5] = '11415';
        head.rows[0][6] = '5,993';
        fs.writeFileSync(path.join(pfx, 'ds_headroom.json'), JSON.stringify(head));
        r = await quietRender('saturated');
        const perrs = r.report[0].errors.join('\n');
        assert.strictEqual(r.code, 1, 'the unreadable render passed');
        assert.match(perrs, /viz_fill_time: 12 series in one chart/, perrs);
        console.log('ok   render bites: a chart of 12 series without a top N fails, naming viz_fill_time');
        assert.match(perrs, /viz_psets_time \(splunk\.line\): truncated title/, perrs);
        console.log('ok   render bites: a title cut short in the page fails, naming viz_psets_time');
        assert.match(perrs, /input shows: a count beside its choice: "All hosts.*" \(\(1\)\)/, perrs);
        console.log('ok   render bites: a hosts input showing "All hosts (1)" fails');
        assert.match(perrs, /viz_chain: shows first "hf-02 \| none/, perrs);
        console.log('ok   render bites: a saturated chain whose first row is not idx-07 set 1 fails, naming viz_chain');
        assert.match(perrs, /viz_headroom: shows first "idx-07 \| 1 \| typing \| 47\.5/, perrs);
        assert.match(perrs, /viz_headroom: first row's "busy % of one core \(now\)" \(47\.5\) painted/, perrs);
        console.log('ok   render bites: a pegged stage with headroom left, coloured by the range, fails, naming viz_headroom');

        // 4. render: legibility. The Setup view with its Logs search column too narrow for its words, and
        //    its status cells painted red under their (link-blue "optional") text, must fail, named. The
        //    search column, not fix: since issue 39 both recorded Logs rows are ok, their fix a bare "-".
        const su = loadViews().find((v) => v.name === 'ingest_doctor_setup');
        const sdef = JSON.parse(JSON.stringify(su.definition));
        sdef.visualizations.viz_logs.options.columnFormat.search.width = 60;
        const st = sdef.visualizations.viz_instances;
        st.options.columnFormat.status.rowBackgroundColors = '> table | seriesByName("status") | matchValue(redCells)';
        st.context.redCells = [{ match: 'ok', value: '#D41F1F' }, { match: 'optional', value: '#D41F1F' }, { match: 'gap', value: '#D41F1F' }];
        stageView('ingest_doctor_setup', 'Setup (selftest)', sdef);
        r = await quietRender('saturated');
        const serrs = r.report[0].errors.join('\n');
        assert.strictEqual(r.code, 1, 'the illegible render passed');
        assert.match(serrs, /viz_logs \(splunk\.table\): truncated word ".*" broken inside itself/, serrs);
        console.log('ok   render bites: a word broken inside itself fails, naming viz_logs');
        assert.match(serrs, /viz_instances \(splunk\.table\): truncated link-coloured text "optional" on a coloured cell/, serrs);
        console.log('ok   render bites: link-coloured text on a coloured cell fails, naming viz_instances');
    } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
    }
    console.log('selftest: the dashboard gates bite');
}

main().then(() => process.exit(0), (e) => { console.error(e.stack || String(e)); process.exit(1); });
