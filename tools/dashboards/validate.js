#!/usr/bin/env node
// Validate every Dashboard Studio view in default/data/ui/views/:
//   1. Splunk's own strict schema: createSchemaBasedOnPresets(EnterpriseViewOnlyPreset) from the
//      pinned @splunk/dashboard-* packages, after migrateToTabsLayout (the schema wants tabs).
//   2. Our named checks, which the schema does not make (tooling.md section 6): each message
//      names the dashboard and the offending object.
// Usage: node tools/dashboards/validate.js [view.xml ...]   (exit 1 on any problem)
'use strict';
const fs = require('fs');
const path = require('path');
const { loadViews, formViewNames } = require('./views');

// Token references as Splunk resolves them: $name$, $ns:name$, $name|filter$ ("$$" is a literal $).
const TOKEN_RE = /\$(?!\$)([^$\s|]+?)(\|[|\w]+)?\$/g;
// Tokens Splunk provides inside event handlers (the clicked row, point or value).
const EVENT_TOKEN = /^(row|click|value|name|name2|earliest|latest|trellis)\b/;

function tokensIn(value, out = []) {
    if (typeof value === 'string') {
        const s = value.replace(/\$\$/g, '');
        for (const m of s.matchAll(TOKEN_RE)) out.push(m[1]);
    } else if (Array.isArray(value)) {
        value.forEach((v) => tokensIn(v, out));
    } else if (value && typeof value === 'object') {
        Object.values(value).forEach((v) => tokensIn(v, out));
    }
    return out;
}

// ---------------------------------------------------------------- our named checks
function checkDanglingDataSource(def, fail) {
    const ds = def.dataSources || {};
    for (const [vid, viz] of Object.entries({ ...(def.visualizations || {}), ...(def.inputs || {}) })) {
        for (const [slot, ref] of Object.entries(viz.dataSources || {})) {
            if (!(ref in ds)) fail('dangling-data-source', `${vid}.dataSources.${slot} -> "${ref}" is not a data source`);
        }
    }
    for (const [id, d] of Object.entries(ds)) {
        if (d.type === 'ds.chain') {
            const ext = (d.options || {}).extend;
            if (!(ext in ds)) fail('dangling-chain', `data source ${id} extends "${ext}", which does not exist`);
            else if (!['ds.search', 'ds.chain', 'ds.savedSearch'].includes(ds[ext].type)) {
                fail('dangling-chain', `data source ${id} extends ${ext} of type ${ds[ext].type}, not a search`);
            }
        }
    }
    // a chain must not loop back on itself
    for (const id of Object.keys(ds)) {
        const seen = new Set([id]);
        let cur = ds[id];
        while (cur && cur.type === 'ds.chain') {
            const next = cur.options.extend;
            if (seen.has(next)) { fail('chain-cycle', `data source ${id} chains back to ${next}`); break; }
            seen.add(next);
            cur = ds[next];
        }
    }
}

function layoutItems(def) {
    const layout = def.layout || {};
    const items = [];
    (layout.structure || []).forEach((s) => items.push(s.item));
    for (const ld of Object.values(layout.layoutDefinitions || {})) (ld.structure || []).forEach((s) => items.push(s.item));
    return items;
}

function checkLayout(def, fail) {
    const viz = def.visualizations || {};
    const inputs = def.inputs || {};
    const items = layoutItems(def);
    const seen = new Set();
    for (const item of items) {
        if (!(item in viz) && !(item in inputs)) fail('dangling-visualization', `layout places "${item}", which is neither a visualization nor an input`);
        if (seen.has(item)) fail('duplicate-layout-item', `layout places "${item}" twice`);
        seen.add(item);
    }
    for (const vid of Object.keys(viz)) {
        if (!seen.has(vid)) fail('unplaced-visualization', `visualization ${vid} is not in the layout`);
    }
    for (const iid of (def.layout || {}).globalInputs || []) {
        if (!(iid in inputs)) fail('dangling-input', `layout.globalInputs names "${iid}", which is not an input`);
    }
    for (const iid of Object.keys(inputs)) {
        if (!((def.layout || {}).globalInputs || []).includes(iid) && !seen.has(iid)) {
            fail('unplaced-input', `input ${iid} is neither a global input nor in the layout`);
        }
    }
}

function definedTokens(def) {
    const defined = new Set();
    for (const input of Object.values(def.inputs || {})) {
        const tok = (input.options || {}).token;
        if (!tok) continue;
        defined.add(tok);
        if (input.type === 'input.timerange') { defined.add(`${tok}.earliest`); defined.add(`${tok}.latest`); }
    }
    const defaults = ((def.defaults || {}).tokens || {});
    for (const ns of Object.values(defaults)) Object.keys(ns || {}).forEach((t) => defined.add(t));
    for (const viz of Object.values(def.visualizations || {})) {
        for (const h of viz.eventHandlers || []) {
            for (const t of ((h.options || {}).tokens || [])) {
                if (h.type === 'drilldown.setToken' && t.token) defined.add(t.token);
            }
        }
    }
    return defined;
}

function checkTokens(def, fail) {
    const defined = definedTokens(def);
    const where = [];
    for (const [id, d] of Object.entries(def.dataSources || {})) where.push([`data source ${id}`, d.options]);
    for (const [id, v] of Object.entries(def.visualizations || {})) {
        where.push([`visualization ${id}`, { title: v.title, description: v.description, options: v.options }]);
        for (const h of v.eventHandlers || []) where.push([`visualization ${id} event handler`, h.options, true]);
    }
    for (const [id, i] of Object.entries(def.inputs || {})) where.push([`input ${id}`, { title: i.title, options: i.options }]);
    where.push(['defaults', def.defaults]);
    for (const [what, obj, inHandler] of where) {
        for (const tok of tokensIn(obj)) {
            const name = tok.includes(':') ? tok.split(':').pop() : tok;
            if (defined.has(name) || defined.has(tok)) continue;
            if (inHandler && EVENT_TOKEN.test(name)) continue;
            if (what.endsWith('event handler') && name.startsWith('form.')) continue;
            fail('undefined-token', `${what} uses $${tok}$, which no input, default or event handler defines`);
        }
    }
}

function checkVisualizations(def, fail) {
    for (const [id, v] of Object.entries(def.visualizations || {})) {
        if (!v.title || !String(v.title).trim()) fail('untitled-visualization', `visualization ${id} has no title`);
        const needsData = !['splunk.markdown', 'splunk.rectangle', 'splunk.ellipse', 'splunk.image', 'abslayout.line'].includes(v.type);
        if (needsData && !(v.dataSources || {}).primary) fail('no-primary-data-source', `visualization ${id} (${v.type}) has no primary data source`);
    }
    for (const [id, d] of Object.entries(def.dataSources || {})) {
        if (!d.name) fail('unnamed-data-source', `data source ${id} has no name`);
    }
}

function checkDrilldowns(def, fail, known) {
    for (const [id, v] of Object.entries(def.visualizations || {})) {
        for (const h of v.eventHandlers || []) {
            let target = null;
            if (h.type === 'drilldown.linkToDashboard') target = (h.options || {}).dashboard;
            if (h.type === 'drilldown.customUrl') {
                // a URL relative to the view, or /app/ingest_doctor/<view>: the view must exist
                const url = String((h.options || {}).url || '');
                const pathPart = url.split('?')[0];
                if (/^[a-z]+:/i.test(url) || pathPart.includes('$')) continue;
                if (pathPart.startsWith('/') && !pathPart.includes('/app/ingest_doctor/')) continue;
                target = pathPart.split('/').pop();
            }
            if (target !== null && !known.has(target)) fail('dangling-drilldown', `visualization ${id} links to dashboard "${target}", which this app does not ship`);
        }
    }
}

const CHECKS = [checkDanglingDataSource, checkLayout, checkTokens, checkVisualizations];

// ---------------------------------------------------------------- schema
let validator = null;
function schemaValidator() {
    if (validator) return validator;
    require('./shim');
    const { DashboardValidator } = require('@splunk/dashboard-validation');
    const DS = require('@splunk/dashboard-definition/DashboardSchema');
    const preset = require('@splunk/dashboard-presets/EnterpriseViewOnlyPreset').default;
    validator = new DashboardValidator();
    validator.setSchema(DS.createSchemaBasedOnPresets(preset));
    return validator;
}

function schemaErrors(def) {
    const { migrateToTabsLayout } = require('@splunk/dashboard-utils');
    const migrated = migrateToTabsLayout({ definition: JSON.parse(JSON.stringify(def)) }).definition;
    const errors = schemaValidator().validate(migrated) || [];
    // ajv reports each failing branch of an anyOf/if; keep the leaf messages, which name the path.
    return errors.filter((e) => !['anyOf', 'if', 'oneOf'].includes(e.keyword));
}

function validate(files) {
    const views = loadViews(files);
    const known = new Set(views.map((v) => v.name).concat(formViewNames()));
    let problems = 0;
    for (const view of views) {
        const out = [];
        const fail = (check, msg) => out.push(`${view.name}: [${check}] ${msg}`);
        if (view.error) {
            fail('xml', view.error);
        } else {
            for (const e of schemaErrors(view.definition)) {
                fail('schema', `${e.instancePath || '/'} ${e.message}${e.params && e.params.allowedValues ? ' ' + JSON.stringify(e.params.allowedValues) : ''}`);
            }
            CHECKS.forEach((c) => c(view.definition, fail));
            checkDrilldowns(view.definition, fail, known);
        }
        problems += out.length;
        out.forEach((m) => console.error(m));
        console.log(`${out.length ? 'FAIL' : 'ok  '} ${view.name} (${Object.keys(view.definition ? view.definition.visualizations || {} : {}).length} visualizations, ${Object.keys(view.definition ? view.definition.dataSources || {} : {}).length} data sources)`);
    }
    return { problems, count: views.length };
}

module.exports = { validate, CHECKS, checkDrilldowns, tokensIn, definedTokens };

if (require.main === module) {
    const origWarn = console.warn;
    console.warn = (...a) => { if (!String(a[0]).includes('strict mode')) origWarn(...a); };
    const files = process.argv.slice(2);
    const { problems, count } = validate(files.length ? files : null);
    if (count === 0) { console.error('no view found'); process.exit(1); }
    console.log(problems ? `validate: ${problems} problem(s)` : `validate: ${count} dashboards valid`);
    process.exit(problems ? 1 : 0);
}
