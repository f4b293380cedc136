// node render_threejs_std.mjs DIR: three.js's standard path (scene.environment + MeshStandardMaterial)
// lit by our spec.ktx2 in headless chromium, against our shading (ctest: engine_render_threejs_std; DIR is
// what bake_engine_reference wrote). page_threejs_std.mjs says what is rendered.
//
// three.js rebuilds its own chain from our cube (PMREMGenerator: its own blur and roughness mapping), so
// the pixels are not ours; what is gated is what the file decides: the orientation and the level of light.
// For `standard` (the documented load step, three_cube.mjs's environmentFromKtx2), against
// expected_split_sum.f32 (our split sum) and expected_split_sum_mirror_x.f32 (the same of the environment
// mirrored in x):
//   orientation: mean |d| against ours at most half of mean |d| against the mirrored environment, for the
//     whole grid and for the mirror sphere (roughness 0) of each view;
//   level: the whole grid's sum within 5% of ours, and each diffuse and mirror (roughness 0) sphere's within
//     15% (sum of the render / sum of the reference): what a wrong unit or factor would break. PMREM's own
//     filtering moves them by up to 0.2% on the test map and 12% on maps with a sun; the rough metals' by
//     up to 42% (printed).
// Measured and printed: mean and max |d| per sphere (PMREM against our split sum), and `standard_as_loaded`
// (the cube as in the file: mirrored in x there). Writes threejs_std_<case>.png, diff_threejs_std_<case>.png,
// reference_split_sum.png and threejs_std_report.json into DIR. Exits 0 (pass) or 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, renderInChromium, decodeImage, meanPixel, pngWriter, judge, readF32, compare, pct } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) { console.error('usage: node render_threejs_std.mjs DIR'); process.exit(2); }
const started = Date.now();
const fail = (msg) => { console.error(`engine render (three.js standard path): FAIL: ${msg}`); process.exit(1); };

const scene = JSON.parse(readFileSync(join(dir, 'scene.json'), 'utf8'));
const { width: W, height: H, cell } = scene;
const ours = readF32(join(dir, scene.files.expected_split_sum), W, H);
const mirrored = readF32(join(dir, scene.files.expected_split_sum_mirror_x), W, H);
const pages = { '/page_threejs_std.html': join(here, 'page_threejs_std.html'), '/page_threejs_std.mjs': join(here, 'page_threejs_std.mjs'),
                '/three_cube.mjs': join(here, 'three_cube.mjs') };
const { server, base } = await serve(pages, { '/three/': join(here, '..', 'node_modules', 'three'), '/data/': dir });
const result = await renderInChromium(`${base}/page_threejs_std.html`, { W, H, fail });
server.close();

const M = meanPixel(ours, W, H);
const png = pngWriter(dir, W, H, M);
png.image('reference_split_sum.png', ours);
console.log(`engine render (three.js ${result.webgl.three} standard path): ${W}x${H}, mean pixel value ${M.toPrecision(5)}`);
const report = { webgl: result.webgl, log: result.log, mean_pixel: M, renders: {} };
let ok = true;
for (const [name, b64] of Object.entries(result.images)) {
  const got = decodeImage(b64);
  if (got.length !== W * H * 4) fail(`${name}: ${got.length} floats`);
  png.image(`threejs_std_${name}.png`, got);
  png.diff(`diff_threejs_std_${name}.png`, got, ours);
  const r = judge(`three.js ${name} (measured)`, got, ours, scene, M, null);
  const against = (ref, x0, y0, w, h) => compare(got, ref, W, M, x0, y0, w, h).meanRel;
  const orientation = [{ what: 'whole grid', right: against(ours, 0, 0, W, H), mirror: against(mirrored, 0, 0, W, H) }];
  scene.views.forEach((view, row) => scene.spheres.forEach((sp, s) => {
    if (sp.material === 'metal' && sp.roughness === 0)
      orientation.push({ what: `mirror sphere from ${JSON.stringify(view)}`, right: against(ours, s * cell, row * cell, cell, cell),
                         mirror: against(mirrored, s * cell, row * cell, cell, cell) });
  }));
  const orientationOk = orientation.every((o) => o.right <= 0.5 * o.mirror);
  const levelled = r.spheres.filter((s) => s.material === 'diffuse' || s.roughness === 0);
  const worstRatio = Math.max(...levelled.map((s) => Math.abs(s.ratio - 1)));
  const meanOk = Math.abs(r.ratio - 1) <= 0.05 && worstRatio <= 0.15;
  for (const o of orientation)
    console.log(`  ${name} orientation, ${o.what}: mean |d| ${pct(o.right)} against ours, ${pct(o.mirror)} against ours mirrored in x`);
  console.log(`  ${name} level: the grid's sum ${r.ratio.toFixed(4)} of ours; the diffuse and mirror spheres' within ` +
              `${pct(worstRatio)}; every sphere's within ${pct(Math.max(...r.spheres.map((s) => Math.abs(s.ratio - 1))))}`);
  const gated = name === 'standard';
  const pass = orientationOk && meanOk;
  if (gated) {
    ok = ok && pass;
    console.log(`three.js ${name} (gated: orientation, mean |d| against ours <= half that against the mirrored environment; ` +
                `the grid's sum within 5% of ours, the diffuse and mirror spheres' within 15%): ${pass ? 'PASS' : 'FAIL'}`);
  }
  report.renders[name] = { ...r, gated, pass: gated ? pass : null, orientation, worst_sum_ratio: worstRatio };
}
report.seconds = (Date.now() - started) / 1000;
writeFileSync(join(dir, 'threejs_std_report.json'), JSON.stringify(report, null, 1));
console.log(`engine render (three.js standard path): ${ok ? 'PASS' : 'FAIL'} in ${report.seconds.toFixed(1)} s; images in ${dir}`);
process.exit(ok ? 0 : 1);
