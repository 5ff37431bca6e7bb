// Headless render entry: one dashboard definition (data sources already rewritten to ds.test
// by the test server) in the Enterprise view-only preset, dark theme, as Splunk Web shows it.
import React from 'react';
import { createRoot } from 'react-dom/client';
import { SplunkThemeProvider } from '@splunk/themes';
import { DashboardContextProvider } from '@splunk/dashboard-context';
import DashboardCore from '@splunk/dashboard-core';
import EnterpriseViewOnlyPreset from '@splunk/dashboard-presets/EnterpriseViewOnlyPreset';

const errors = [];
window.__renderErrors = errors;
window.addEventListener('error', (e) => errors.push(String(e.message || e)));

fetch('/definition.json' + window.location.search)
    .then((r) => r.json())
    .then((definition) => {
        const root = createRoot(document.getElementById('root'));
        root.render(
            <SplunkThemeProvider family="enterprise" colorScheme="dark">
                <DashboardContextProvider preset={EnterpriseViewOnlyPreset} initialDefinition={definition}>
                    <DashboardCore width="100%" height="100%" />
                </DashboardContextProvider>
            </SplunkThemeProvider>
        );
        window.__definitionLoaded = true;
    })
    .catch((e) => errors.push('definition: ' + e));
