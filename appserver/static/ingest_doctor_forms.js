/*
 * Ingest Doctor: the Notifications settings form and the Acknowledge and snooze form (Simple XML views
 * ingest_doctor_notifications and ingest_doctor_hold; docs/notifications.md).
 *
 * Plain DOM and fetch, no framework: the page talks to splunkd through Splunk Web's proxy,
 *   <root>/<locale>/splunkd/__raw/servicesNS/nobody/ingest_doctor/...?output_mode=json
 * with the session Splunk Web holds for the signed-in user. A request that changes something carries
 * the header X-Splunk-Form-Key (the value of the cookie splunkweb_csrf_token_<port>) and
 * X-Requested-With: XMLHttpRequest, or Splunk Web refuses it ("CSRF validation failed"; see
 * community.splunk.com/t5/Monitoring-Splunk/POST-to-splunkd-raw-endpoint-returns-CSRF-validation-failed/m-p/418415).
 * Every text shown is set with textContent: nothing typed or answered is ever parsed as HTML.
 *
 * The URL checks repeat, word for word, what the ingest_doctor_flag action refuses
 * (bin/ingest_doctor/alert/payload.py validate_webhook_url, then the outbound policy of
 * bin/ingest_doctor/delivery/outbound.py for a target written as an address, localhost or port 8089);
 * tests/alert/test_alert_settings_page.py holds the two to the same words.
 */
(function () {
    'use strict';

    var APP = 'ingest_doctor';
    var REALM = 'ingest_doctor';
    var WEBHOOK_NAME = 'webhook_url';
    var ALLOW_MACRO = 'ingest_doctor_webhook_allow';
    var SEVERITY_MACRO = 'ingest_doctor_min_severity';
    var SEVERITIES = ['info', 'warning', 'critical'];   // bin/ingest_doctor/findings.py SEVERITIES
    var CAPABILITY = 'ingest_doctor_acknowledge';       // default/authorize.conf
    var NS = '/servicesNS/nobody/' + APP + '/';

    // ------------------------------------------------------------------ Splunk Web's splunkd proxy
    function webRoot() {
        // <root_endpoint>/<locale>/app/ingest_doctor/<view>: everything before /app/
        var p = window.location.pathname;
        var i = p.indexOf('/app/');
        return i >= 0 ? p.slice(0, i) : '';
    }

    function csrfToken() {
        var cookies = document.cookie.split(';');
        var mine = 'splunkweb_csrf_token_' + (window.location.port || '') + '=';
        var any = null;
        for (var i = 0; i < cookies.length; i++) {
            var c = cookies[i].replace(/^\s+/, '');
            if (c.indexOf(mine) === 0) return decodeURIComponent(c.slice(mine.length));
            var m = /^splunkweb_csrf_token_\d+=(.*)$/.exec(c);
            if (m && any === null) any = decodeURIComponent(m[1]);
        }
        return any || '';
    }

    function formBody(fields) {
        var body = new URLSearchParams();
        fields.forEach(function (kv) { body.append(kv[0], kv[1]); });
        return body;
    }

    // One call: {status, data (parsed JSON or null), text}. Never throws on an HTTP status.
    function call(method, path, query, fields) {
        var url = webRoot() + '/splunkd/__raw' + path;
        var q = new URLSearchParams(query || []);
        q.append('output_mode', 'json');
        url += '?' + q.toString();
        var init = { method: method, credentials: 'same-origin',
                     headers: { 'X-Requested-With': 'XMLHttpRequest', 'Accept': 'application/json' } };
        if (method !== 'GET') init.headers['X-Splunk-Form-Key'] = csrfToken();
        if (fields) init.body = formBody(fields);
        return window.fetch(url, init).then(function (resp) {
            return resp.text().then(function (text) {
                var data = null;
                try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
                return { status: resp.status, data: data, text: text };
            });
        }, function (err) {
            return { status: 0, data: null, text: 'Splunk Web did not answer (' + err.message + ')' };
        });
    }

    // splunkd's own words for an answer that is not a success, as it gave them.
    function splunkdSays(res) {
        var msgs = res.data && res.data.messages;
        var texts = [];
        if (Array.isArray(msgs)) {
            msgs.forEach(function (m) { if (m && m.text) texts.push(String(m.text)); });
        }
        if (texts.length) return texts.join(' ');
        if (res.status === 0) return res.text;
        return 'HTTP ' + res.status;
    }

    function refused(res, what, needs) {
        var says = splunkdSays(res);
        if (res.status === 403) {
            return 'Not allowed to ' + what + ': ' + says + ' ' + needs;
        }
        return 'splunkd refused to ' + what + ' (HTTP ' + res.status + '): ' + says;
    }

    function show(el, text, kind) {
        el.textContent = text;
        el.className = el.className.replace(/\s*idr-(ok|error|info)\b/g, '') + ' idr-' + (kind || 'info');
    }

    function pyRepr(s) {
        // Python's repr() of a str, as the action's messages write a value (%r)
        var q = (s.indexOf("'") >= 0 && s.indexOf('"') < 0) ? '"' : "'";
        var out = s.replace(/\\/g, '\\\\');
        if (q === "'") out = out.replace(/'/g, "\\'");
        return q + out + q;
    }

    // ------------------------------------------------------------------ the action's URL rules
    // urlsplit as Python splits a URL: scheme, user info, host (lower case) and port.
    function splitUrl(url) {
        var out = { scheme: '', netloc: '', user: false, host: '', port: null, portError: null };
        var rest = url;
        var m = /^([A-Za-z][A-Za-z0-9+.\-]*):(.*)$/.exec(url);
        if (m) { out.scheme = m[1].toLowerCase(); rest = m[2]; }
        if (rest.slice(0, 2) === '//') {
            rest = rest.slice(2);
            var end = rest.search(/[\/?#]/);
            out.netloc = end < 0 ? rest : rest.slice(0, end);
        }
        var hostinfo = out.netloc;
        var at = hostinfo.lastIndexOf('@');
        if (at >= 0) { out.user = true; hostinfo = hostinfo.slice(at + 1); }
        if ((out.netloc.indexOf('[') >= 0) !== (out.netloc.indexOf(']') >= 0)) {
            out.portError = 'Invalid IPv6 URL';
            return out;
        }
        var port = '';
        var ob = hostinfo.indexOf('[');
        if (ob >= 0) {
            var inner = hostinfo.slice(ob + 1);
            var cb = inner.indexOf(']');
            out.host = inner.slice(0, cb);
            var after = inner.slice(cb + 1);
            var colon = after.indexOf(':');
            port = colon >= 0 ? after.slice(colon + 1) : '';
        } else {
            var c = hostinfo.indexOf(':');
            out.host = c >= 0 ? hostinfo.slice(0, c) : hostinfo;
            port = c >= 0 ? hostinfo.slice(c + 1) : '';
        }
        out.host = out.host.toLowerCase();
        if (port !== '') {
            if (!/^[0-9]+$/.test(port)) {
                out.portError = "Port could not be cast to integer value as " + pyRepr(port);
            } else {
                out.port = parseInt(port, 10);
                if (out.port > 65535) out.portError = 'Port out of range 0-65535';
            }
        }
        return out;
    }

    var HOST_RE = /^[A-Za-z0-9](?:[A-Za-z0-9.\-]*[A-Za-z0-9])?$/;
    var IPV6_RE = /^[0-9A-Fa-f:.]+$/;

    // payload.py validate_webhook_url: the stored URL's own checks.
    function urlProblem(raw) {
        var url = raw.trim();
        if (/\s/.test(url)) return 'webhook_url must not contain spaces';
        var u = splitUrl(url);
        if (u.portError) return 'webhook_url is not a valid URL (' + u.portError + ')';
        if (u.scheme !== 'https') {
            return 'webhook_url must use https:// (got ' + (u.scheme || 'no scheme') +
                '://); findings are never sent in clear text';
        }
        if (!u.host || !(HOST_RE.test(u.host) || (u.host.indexOf(':') >= 0 && IPV6_RE.test(u.host))) ||
                u.host.indexOf('..') >= 0) {
            return 'webhook_url has no valid host name';
        }
        if (u.user) return 'webhook_url must not carry credentials; use a secret path or token the receiver checks';
        if (u.port !== null && !(u.port > 0 && u.port < 65536)) return 'webhook_url port ' + u.port + ' is out of range';
        return null;
    }

    // Addresses: IPv4 as a number, IPv6 as 8 groups; networks as [address, prefix length].
    function ipv4(text) {
        var m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
        if (!m) return null;
        var n = 0;
        for (var i = 1; i <= 4; i++) {
            if (m[i].length > 1 && m[i][0] === '0') return null;
            var b = parseInt(m[i], 10);
            if (b > 255) return null;
            n = n * 256 + b;
        }
        return { v: 4, bits: n };
    }

    function ipv6(text) {
        if (!/^[0-9a-f:.]+$/i.test(text) || text.indexOf(':') < 0) return null;
        var tail4 = null;
        var m = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
        if (m) { tail4 = ipv4(m[2]); if (!tail4) return null; text = m[1] + '0:0'; }
        var halves = text.split('::');
        if (halves.length > 2) return null;
        var head = halves[0] ? halves[0].split(':') : [];
        var tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
        var fill = 8 - head.length - tail.length;
        if ((halves.length === 1 && fill !== 0) || (halves.length === 2 && fill < 1)) return null;
        var groups = head.concat(new Array(halves.length === 2 ? fill : 0).fill('0'), tail);
        var out = [];
        for (var i = 0; i < 8; i++) {
            if (!/^[0-9a-f]{1,4}$/i.test(groups[i])) return null;
            out.push(parseInt(groups[i], 16));
        }
        if (tail4) { out[6] = Math.floor(tail4.bits / 65536); out[7] = tail4.bits % 65536; }
        return { v: 6, groups: out };
    }

    function ip(text) { return ipv4(text) || ipv6(text); }

    function inNet(addr, net) {
        if (addr.v !== net.addr.v) return false;
        if (addr.v === 4) {
            var size = Math.pow(2, 32 - net.prefix);
            return Math.floor(addr.bits / size) === Math.floor(net.addr.bits / size);
        }
        for (var i = 0, left = net.prefix; left > 0; i++, left -= 16) {
            var keep = Math.min(16, left);
            var shift = 16 - keep;
            if ((addr.groups[i] >> shift) !== (net.addr.groups[i] >> shift)) return false;
        }
        return true;
    }

    function net(text) {
        var parts = text.split('/');
        var a = ip(parts[0]);
        if (!a || parts.length > 2) return null;
        var max = a.v === 4 ? 32 : 128;
        var prefix = parts.length === 2 ? (/^\d+$/.test(parts[1]) ? parseInt(parts[1], 10) : -1) : max;
        if (prefix < 0 || prefix > max) return null;
        return { addr: a, prefix: prefix };
    }

    function nets(list) { return list.map(net); }
    // Python's ipaddress, as outbound.address_problem reads it.
    var V4_METADATA = nets(['169.254.0.0/16']);
    var V6_METADATA = nets(['fd00:ec2::254/128']);
    var V4_PRIVATE = nets(['0.0.0.0/8', '10.0.0.0/8', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12',
                           '192.0.0.0/24', '192.0.2.0/24', '192.168.0.0/16', '198.18.0.0/15',
                           '198.51.100.0/24', '203.0.113.0/24', '240.0.0.0/4', '255.255.255.255/32',
                           '100.64.0.0/10']);
    var V6_PRIVATE = nets(['::1/128', '::/128', '64:ff9b:1::/48', '100::/64', '2001::/23', '2001:db8::/32',
                           '2002::/16', 'fc00::/7', 'fe80::/10']);

    function within(addr, list) { return list.some(function (n) { return inNet(addr, n); }); }

    function addressProblem(addr) {
        if (addr.v === 6 && addr.groups.slice(0, 5).every(function (g) { return g === 0; }) && addr.groups[5] === 0xffff) {
            addr = { v: 4, bits: addr.groups[6] * 65536 + addr.groups[7] };
        }
        if (within(addr, addr.v === 4 ? V4_METADATA : V6_METADATA)) return 'link-local / cloud metadata address';
        if (addr.v === 4 ? inNet(addr, net('127.0.0.0/8')) : inNet(addr, net('::1/128'))) return 'loopback address';
        if (addr.v === 4 ? inNet(addr, net('169.254.0.0/16')) : inNet(addr, net('fe80::/10'))) return 'link-local address';
        if (addr.v === 4 ? (addr.bits === 0 || inNet(addr, net('224.0.0.0/4')) || inNet(addr, net('240.0.0.0/4')))
                : (inNet(addr, net('::/128')) || inNet(addr, net('ff00::/8')))) {
            return 'reserved address';
        }
        if (within(addr, addr.v === 4 ? V4_PRIVATE : V6_PRIVATE)) return 'private address';
        return null;
    }

    var ALLOW_HOST_RE = /^[A-Za-z0-9]([A-Za-z0-9\-]{0,62})(\.[A-Za-z0-9]([A-Za-z0-9\-]{0,62}))*\.?$/;

    // outbound.parse_allow: [{host | net, port}] or throws the action's words.
    function parseAllow(text) {
        var out = [];
        text.split(/[,\s]+/).forEach(function (raw) {
            var item = raw.trim().toLowerCase();
            if (!item) return;
            var port = null;
            var m = /^\[([0-9a-f:.]+)\](?::(\d+))?$/.exec(item);
            if (m) {
                item = m[1];
                port = m[2] ? parseInt(m[2], 10) : null;
            } else if (item.split(':').length === 2) {
                var p = item.split(':');
                if (!/^[0-9]+$/.test(p[1])) throw new Error('allow-list entry ' + pyRepr(raw) + ': the port is not a number');
                item = p[0];
                port = parseInt(p[1], 10);
            }
            if (port !== null && !(port > 0 && port < 65536)) throw new Error('allow-list entry ' + pyRepr(raw) + ': port out of range');
            var n = net(item);
            if (n) { out.push({ net: n, port: port }); return; }
            if (!ALLOW_HOST_RE.test(item)) throw new Error('allow-list entry ' + pyRepr(raw) + ' is not a host name, address or network');
            out.push({ host: item.replace(/\.$/, ''), port: port });
        });
        return out;
    }

    // The allow-list as the action reads its macro: quotes and `none` / `-` mean none.
    function allowText(definition) {
        var t = String(definition || '').trim().replace(/^"+|"+$/g, '');
        return ['', 'none', '-'].indexOf(t.trim().toLowerCase()) >= 0 ? '' : t.trim();
    }

    function allowed(entries, host, addr, port) {
        return entries.some(function (e) {
            if (e.port !== null ? e.port !== port : port === 8089) return false;
            if (e.host !== undefined) return e.host === host;
            var a = addr || ip(host);
            return !!a && inNet(a, e.net);
        });
    }

    // outbound.check_target and, for a target written as an address, check_address.
    function targetProblem(raw, entries) {
        var u = splitUrl(raw.trim());
        var host = u.host.replace(/\.$/, '');
        var port = u.port || 443;
        var where = u.scheme + '://' + host + ':' + port;
        if (port === 8089 && !allowed(entries, host, null, port)) {
            return 'webhook URL ' + where + " points at port 8089, splunkd's management port: refused unless the " +
                'admin allow-list names it with its port';
        }
        if (host === 'localhost' && !allowed(entries, host, null, port)) {
            return 'webhook URL ' + where + ' is this machine (loopback): refused unless the admin allow-list names it';
        }
        var addr = ip(host);
        var problem = addr && addressProblem(addr);
        if (problem && !allowed(entries, host, addr, port)) {
            return 'webhook ' + where + ' resolves to ' + host + ', a ' + problem +
                ': refused unless the admin allow-list names it';
        }
        return null;
    }

    // ------------------------------------------------------------------ Notifications settings
    function passwordPath() {
        return NS + 'storage/passwords/' + encodeURIComponent(REALM + ':' + WEBHOOK_NAME + ':');
    }

    function macroPath(name) { return NS + 'configs/conf-macros/' + encodeURIComponent(name); }

    function macroDefinition(res) {
        var e = res.data && res.data.entry && res.data.entry[0];
        return e && e.content ? String(e.content.definition || '') : '';
    }

    function settingsPage(root) {
        var el = function (id) { return document.getElementById(id); };
        var status = el('idr-status');
        var result = el('idr-result');
        var state = { urlSet: null, allow: null, severity: null };   // as read: only what changes is written

        function setUrlState(isSet) {
            state.urlSet = isSet;
            el('idr-url-state').textContent = isSet === null ? 'unknown' : (isSet ? 'set' : 'not set');
            el('idr-clear-url').disabled = isSet === false;
        }

        function load() {
            // f= keeps the answer to the names: the stored URL itself never reaches the page.
            var pw = call('GET', passwordPath(), [['f', 'realm'], ['f', 'username']]);
            var allow = call('GET', macroPath(ALLOW_MACRO));
            var sev = call('GET', macroPath(SEVERITY_MACRO));
            return Promise.all([pw, allow, sev]).then(function (r) {
                var problems = [];
                if (r[0].status === 200) setUrlState(true);
                else if (r[0].status === 404) setUrlState(false);
                else { setUrlState(null); problems.push(refused(r[0], 'read whether a webhook URL is stored', '(needs the capability list_storage_passwords)')); }
                if (r[1].status === 200) el('idr-allow').value = state.allow = allowText(macroDefinition(r[1]));
                else problems.push(refused(r[1], 'read the macro ' + ALLOW_MACRO, ''));
                if (r[2].status === 200) {
                    var sev = macroDefinition(r[2]).trim().replace(/^"|"$/g, '').toLowerCase();
                    state.severity = sev;
                    el('idr-severity').value = SEVERITIES.indexOf(sev) >= 0 ? sev : 'warning';
                } else {
                    problems.push(refused(r[2], 'read the macro ' + SEVERITY_MACRO, ''));
                }
                show(status, problems.length ? problems.join(' ') : 'Settings read from this search head.', problems.length ? 'error' : 'ok');
            });
        }

        function writeMacro(name, definition) {
            return call('POST', macroPath(name), null, [['definition', definition]]).then(function (res) {
                if (res.status !== 200 && res.status !== 201) {
                    throw new Error(refused(res, 'change the macro ' + name, '(needs write access to the app\'s macros: role admin or sc_admin)'));
                }
            });
        }

        function storeUrl(url) {
            var needs = '(needs the capability admin_all_objects or edit_storage_passwords)';
            var update = function () {
                return call('POST', passwordPath(), null, [['password', url]]).then(function (res) {
                    if (res.status === 404) return create(false);
                    if (res.status !== 200 && res.status !== 201) throw new Error(refused(res, 'store the webhook URL', needs));
                });
            };
            var create = function (retry) {
                return call('POST', NS + 'storage/passwords', null,
                            [['name', WEBHOOK_NAME], ['realm', REALM], ['password', url]]).then(function (res) {
                    if (res.status === 409 && retry) return update();
                    if (res.status !== 200 && res.status !== 201) throw new Error(refused(res, 'store the webhook URL', needs));
                });
            };
            return state.urlSet ? update() : create(true);
        }

        function save() {
            var url = el('idr-url').value;
            var allowRaw = el('idr-allow').value.trim();
            var severity = el('idr-severity').value;
            var entries;
            try {
                entries = parseAllow(allowRaw);
            } catch (e) {
                show(result, ALLOW_MACRO + ': ' + e.message, 'error');
                return Promise.resolve();
            }
            if (SEVERITIES.indexOf(severity) < 0) {
                show(result, 'min_severity=' + pyRepr(severity) + ' is not one of ' + SEVERITIES.join(', '), 'error');
                return Promise.resolve();
            }
            if (url.trim()) {
                var problem = urlProblem(url) || targetProblem(url, entries);
                if (problem) { show(result, problem, 'error'); return Promise.resolve(); }
            }
            var allowChanged = allowRaw !== state.allow;
            var severityChanged = severity !== state.severity;
            if (!url.trim() && !allowChanged && !severityChanged) {
                show(result, 'Nothing changed.', 'info');
                return Promise.resolve();
            }
            show(result, 'Saving...', 'info');
            var done = [];
            return Promise.resolve()
                .then(function () {
                    if (!allowChanged) return null;
                    return writeMacro(ALLOW_MACRO, allowRaw || 'none').then(function () {
                        state.allow = allowRaw;
                        done.push('allow-list ' + (allowRaw || 'none'));
                    });
                })
                .then(function () {
                    if (!severityChanged) return null;
                    return writeMacro(SEVERITY_MACRO, severity).then(function () {
                        state.severity = severity;
                        done.push('minimum severity ' + severity);
                    });
                })
                .then(function () {
                    if (!url.trim()) return null;
                    return storeUrl(url.trim()).then(function () {
                        el('idr-url').value = '';
                        setUrlState(true);
                        done.push('webhook URL stored (encrypted)');
                    });
                })
                .then(function () {
                    show(result, 'Saved: ' + done.join(', ') + '. The alerts use them from their next run.', 'ok');
                }, function (e) {
                    show(result, (done.length ? 'Saved: ' + done.join(', ') + '. ' : '') + e.message, 'error');
                });
        }

        function clearUrl() {
            show(result, 'Clearing...', 'info');
            return call('DELETE', passwordPath()).then(function (res) {
                if (res.status === 200 || res.status === 404) {
                    setUrlState(false);
                    show(result, 'The stored webhook URL is cleared: the alerts post to no webhook (unless an alert sets its own).', 'ok');
                } else {
                    show(result, refused(res, 'clear the webhook URL', '(needs the capability admin_all_objects or edit_storage_passwords)'), 'error');
                }
            });
        }

        el('idr-save').addEventListener('click', save);
        el('idr-clear-url').addEventListener('click', clearUrl);
        setUrlState(null);
        load();
    }

    // ------------------------------------------------------------------ Acknowledge and snooze
    // A value as an SPL quoted string: a backslash and a double quote are escaped by a backslash,
    // so the text stays one argument whatever it holds.
    function splQuote(value) {
        return '"' + String(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"') + '"';
    }

    function holdProblem(fields) {
        for (var k in fields) {
            if (!Object.prototype.hasOwnProperty.call(fields, k)) continue;
            // Splunk expands `name` as a search macro before it parses the search, inside quotes too.
            if (fields[k].indexOf('`') >= 0) return k + ': a backtick (`) is read by Splunk as a search macro; leave it out';
            if (/[\r\n]/.test(fields[k])) return k + ': one line only';
        }
        return null;
    }

    function holdSearch(fields) {
        var spl = '| makeresults | sendalert ingest_doctor_hold';
        Object.keys(fields).forEach(function (k) {
            if (fields[k] !== '') spl += ' param.' + k + '=' + splQuote(fields[k]);
        });
        return spl;
    }

    var EXIT_MEANING = {   // bin/ingest_doctor/exitcodes.py
        3: 'the action refused the request',
        4: 'the action found a setting wrong',
        10: 'splunkd or the KV store was not available; try again',
        11: 'splunkd refused the action',
        20: 'the action failed unexpectedly; see ingest_doctor_hold.log'
    };

    function holdPage(root) {
        var el = function (id) { return document.getElementById(id); };
        var result = el('idr-hold-result');
        var who = { username: '', capabilities: [] };

        function fieldsFor(op) {
            if (op === 'ack') return { op: 'ack', finding: el('idr-finding').value.trim(), note: el('idr-note').value };
            var f = { op: op, scope: el('idr-scope').value, value: el('idr-value').value.trim() };
            if (op === 'snooze') { f.until = el('idr-until').value.trim(); f.reason = el('idr-reason').value; }
            return f;
        }

        // The action keeps why it refused an authorized user in ingest_doctor_hold_history: the user's latest
        // refusal ({time, note}, time 0 when none), read before and after a run; only a newer one is this run's
        // (no clock is compared but splunkd's own).
        function lastRefusal() {
            var query = JSON.stringify({ op: 'refused', user: who.username });
            return call('GET', NS + 'storage/collections/data/ingest_doctor_hold_history',
                        [['query', query], ['sort', 'time:-1'], ['limit', '1']])
                .then(function (res) {
                    var last = res.status === 200 && Array.isArray(res.data) ? res.data[0] : null;
                    return { time: last ? Number(last.time) || 0 : 0, note: last && last.note ? String(last.note) : null };
                });
        }

        function submit(op) {
            var fields = fieldsFor(op);
            var problem = holdProblem(fields);
            if (problem) { show(result, problem, 'error'); return Promise.resolve(); }
            if (who.capabilities.indexOf(CAPABILITY) < 0) {
                show(result, 'user ' + pyRepr(who.username) + ' lacks the capability ' + CAPABILITY +
                    ' (role ingest_doctor_admin): nothing written', 'error');
                return Promise.resolve();
            }
            var spl = holdSearch(fields);
            var before = null;
            el('idr-hold-search').textContent = spl;
            show(result, 'Running...', 'info');
            return lastRefusal().then(function (r) {
                before = r;
                return call('POST', NS + 'search/jobs', null, [['search', spl], ['exec_mode', 'oneshot'], ['count', '0']]);
            })
                .then(function (res) {
                    var says = splunkdSays(res);
                    var fatal = res.data && Array.isArray(res.data.messages) && res.data.messages.some(function (m) {
                        return m && (m.type === 'FATAL' || m.type === 'ERROR');
                    });
                    if (res.status === 200 && !fatal) {
                        show(result, 'Done: ' + describe(fields) + ' (kept in ingest_doctor_hold_history).', 'ok');
                        return null;
                    }
                    var m = /returned error code (\d+)/.exec(says);
                    var code = m ? parseInt(m[1], 10) : null;
                    if (code === 11) {
                        show(result, says + ' user ' + pyRepr(who.username) + ' lacks the capability ' + CAPABILITY +
                            ' (role ingest_doctor_admin): nothing written', 'error');
                        return null;
                    }
                    if (code === 3) {
                        return lastRefusal().then(function (r) {
                            var why = r.time > before.time ? r.note : null;
                            show(result, 'Refused: ' + (why || EXIT_MEANING[3]) + ' (' + says + ')', 'error');
                        });
                    }
                    if (res.status === 403) {
                        show(result, refused(res, 'run the search', '(needs the capability to run searches and ' + CAPABILITY + ')'), 'error');
                        return null;
                    }
                    show(result, says + (code !== null && EXIT_MEANING[code] ? ' (' + EXIT_MEANING[code] + ')' : ''), 'error');
                    return null;
                });
        }

        function describe(f) {
            if (f.op === 'ack') return 'finding ' + f.finding + ' acknowledged';
            if (f.op === 'snooze') return f.scope + ' ' + f.value + ' snoozed until ' + f.until;
            return 'snooze of ' + f.scope + ' ' + f.value + ' lifted';
        }

        var params = new URLSearchParams(window.location.search);
        if (params.get('finding')) el('idr-finding').value = params.get('finding');
        if (params.get('host')) { el('idr-value').value = params.get('host'); el('idr-scope').value = 'host'; }
        el('idr-ack').addEventListener('click', function () { submit('ack'); });
        el('idr-snooze').addEventListener('click', function () { submit('snooze'); });
        el('idr-unsnooze').addEventListener('click', function () { submit('unsnooze'); });

        call('GET', '/services/authentication/current-context').then(function (res) {
            var e = res.data && res.data.entry && res.data.entry[0];
            if (res.status !== 200 || !e) {
                show(el('idr-hold-status'), refused(res, 'read who you are', ''), 'error');
                return;
            }
            who = { username: String(e.content.username || ''), capabilities: e.content.capabilities || [] };
            var may = who.capabilities.indexOf(CAPABILITY) >= 0;
            show(el('idr-hold-status'), may ? 'Signed in as ' + who.username + ', who may acknowledge and snooze.'
                : 'user ' + pyRepr(who.username) + ' lacks the capability ' + CAPABILITY +
                  ' (role ingest_doctor_admin): ask an admin for the role', may ? 'ok' : 'error');
        });
    }

    // ------------------------------------------------------------------ start
    // Splunk Web may run this script before or after it renders the view's HTML panel: wait for it.
    function start() {
        var tries = 0;
        (function look() {
            var settings = document.getElementById('idr-notifications');
            var hold = document.getElementById('idr-hold');
            if (settings && !settings.getAttribute('data-started')) {
                settings.setAttribute('data-started', '1');
                settingsPage(settings);
            } else if (hold && !hold.getAttribute('data-started')) {
                hold.setAttribute('data-started', '1');
                holdPage(hold);
            } else if (!settings && !hold && tries++ < 200) {
                window.setTimeout(look, 50);
            }
        }());
    }

    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
    else start();
}());
