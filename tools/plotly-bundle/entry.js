// plotly.js's core (scatter, the cartesian axes, hover, legend, colour bars) and the two other
// trace types the app draws. Add a trace type here only when a figure builder uses it
// (tests/ui/test_chart_element.py checks that every trace type the app builds is bundled).
'use strict';

var Plotly = require('plotly.js/lib/core');

Plotly.register([require('plotly.js/lib/bar'), require('plotly.js/lib/heatmap')]);

module.exports = Plotly;
