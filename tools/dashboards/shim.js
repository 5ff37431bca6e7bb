// Browser globals the Dashboard Studio preset needs when loaded in Node (tooling.md, Appendix A).
'use strict';
require('global-jsdom/register');
global.ResizeObserver = class { observe() {} unobserve() {} disconnect() {} };
const mm = () => ({ matches: false, media: '', addListener() {}, removeListener() {}, addEventListener() {}, removeEventListener() {} });
global.matchMedia = mm; window.matchMedia = mm;
global.requestAnimationFrame = (cb) => setTimeout(cb, 0); global.cancelAnimationFrame = clearTimeout;
const ace = { require: () => ({}), define: () => {}, config: { set() {}, setModuleUrl() {} }, edit: () => ({}) };
window.ace = ace; global.ace = ace;                      // @splunk/react-search expects window.ace
window.HTMLCanvasElement.prototype.getContext = () => null;
global.Event = window.Event; global.CustomEvent = window.CustomEvent; global.EventTarget = window.EventTarget; // uPlot
require.extensions['.css'] = () => {};
window.URL.createObjectURL = () => 'blob:fake'; global.URL.createObjectURL = window.URL.createObjectURL; // maplibre
global.Worker = window.Worker = class { postMessage() {} terminate() {} addEventListener() {} removeEventListener() {} };
