// Builds static/vendor/plotly-road-<version>.min.js from entry.js (npm ci, then npm run build)
// and, beside it, the licences of every package the file holds. Same inputs, same bytes.
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const vendor = join(here, '..', '..', 'static', 'vendor');
const plotly = JSON.parse(readFileSync(join(here, 'node_modules/plotly.js/package.json')));
const out = join(vendor, `plotly-road-${plotly.version}.min.js`);

const result = await build({
  entryPoints: [join(here, 'entry.js')],
  bundle: true,
  minify: true,
  format: 'iife',
  globalName: 'Plotly', // road-chart.js draws with window.Plotly
  target: 'es2016',
  define: { global: 'window', 'define.amd': 'false' },
  loader: { '.css': 'empty' }, // only the map traces import a stylesheet
  legalComments: 'none', // the licences go to the file below
  banner: {
    js: `/*! plotly.js (Road to Attention: core, bar, heatmap - minified) v${plotly.version} | MIT, ` +
      'Plotly, Inc. | built by tools/plotly-bundle; licences: THIRD-PARTY-plotly-road.txt */',
  },
  metafile: true,
  outfile: out,
  logLevel: 'info',
});

// A package without a licence file: its README's licence section (else package.json's word)
function readmeLicence(dir, declared) {
  for (const f of ['README.md', 'readme.md', 'Readme.md']) {
    let text;
    try { text = readFileSync(join(dir, f), 'utf8'); } catch { continue; }
    const m = text.match(/^#+\s*Licen[cs]e[^\n]*\n([\s\S]*?)(?=^#+\s|$(?![\s\S]))/im);
    if (m && m[1].trim()) return `(no licence file; its ${f}:)\n${m[1].trim()}`;
  }
  return `(no licence file; package.json says: ${declared})`;
}

// Every package the bundle holds, with its version and licence text
const packages = new Map();
const inputs = Object.values(result.metafile.outputs)[0].inputs;
for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
  // (the map traces' stylesheet import stays as an empty module: no code of that package)
  const m = bytesInOutput > 0 && !input.endsWith('.css') && input.match(/node_modules\/((?:@[^/]+\/)?[^/]+)\//);
  if (m) packages.set(m[1], join(here, input.slice(0, input.indexOf(m[1]) + m[1].length)));
}
const names = [...packages.keys()].sort();
let text = `The packages bundled in plotly-road-${plotly.version}.min.js (tools/plotly-bundle), with their licences.\n`;
for (const name of names) {
  const dir = packages.get(name);
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json')));
  const file = ['LICENSE', 'LICENSE.md', 'LICENSE.txt', 'license', 'LICENCE', 'license.md']
    .map((f) => join(dir, f)).find((f) => { try { readFileSync(f); return true; } catch { return false; } });
  const licence = file ? readFileSync(file, 'utf8').trim() : readmeLicence(dir, pkg.license);
  text += `\n${'='.repeat(78)}\n${name} ${pkg.version} (${pkg.license})\n${'='.repeat(78)}\n${licence}\n`;
}
writeFileSync(join(vendor, 'THIRD-PARTY-plotly-road.txt'), text);
console.log(`${names.length} packages: ${names.join(', ')}`);
