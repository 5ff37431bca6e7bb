// Read the Studio views: <dashboard version="2"> XML with the JSON definition in a CDATA block.
// The app's two form views (<dashboard version="1.1">, tools/formviews.py) are not Studio: loadViews
// leaves them out (their own gate is tests/gates/test_gates_form_views.py); formViewNames lists them,
// so a drilldown may open one.
'use strict';
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
const VIEWS = path.join(ROOT, 'default', 'data', 'ui', 'views');

function parseView(file) {
    const name = path.basename(file, '.xml');
    const xml = fs.readFileSync(file, 'utf8');
    const view = { name, file };
    if (!/^<dashboard\s+version="2"/.test(xml.trim())) view.error = 'root element is not <dashboard version="2" ...>';
    const label = xml.match(/<label>([\s\S]*?)<\/label>/);
    view.label = label ? label[1] : null;
    if (!view.label) view.error = view.error || 'no <label>';
    const m = xml.match(/<definition><!\[CDATA\[([\s\S]*?)\]\]><\/definition>/);
    if (!m) { view.error = view.error || 'no <definition><![CDATA[ ... ]]></definition>'; return view; }
    try {
        view.definition = JSON.parse(m[1]);
    } catch (e) {
        view.error = view.error || `definition is not JSON: ${e.message}`;
    }
    return view;
}

function isFormView(file) {
    return /^<dashboard\s+version="1\.1"/.test(fs.readFileSync(file, 'utf8').trim());
}

function loadViews(files) {
    const list = files || fs.readdirSync(VIEWS).filter((f) => f.endsWith('.xml')).sort().map((f) => path.join(VIEWS, f))
        .filter((f) => !isFormView(f));
    return list.map(parseView);
}

function formViewNames(dir = VIEWS) {
    return fs.readdirSync(dir).filter((f) => f.endsWith('.xml') && isFormView(path.join(dir, f)))
        .map((f) => path.basename(f, '.xml')).sort();
}

module.exports = { loadViews, parseView, formViewNames, ROOT, VIEWS };
