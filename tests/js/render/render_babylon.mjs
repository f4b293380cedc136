// node render_babylon.mjs DIR: Babylon.js (npm babylonjs + babylonjs-loaders) in headless chromium loads
// our --gltf file with its own glTF loader and renders the sphere grid; each render is compared with
// our CPU shading in the glTF world (ctest: engine_render_babylon; DIR is what bake_engine_reference
// wrote: expected_gltf.f32 is shaded from the glTF's own decoded chain, so RGBD's rounding is in it).
//
// page_babylon.js says what each case is. Gated (harness.mjs): `rh` (right-handed scene), `rh_gltf`
// (the same from the .gltf) and `lh` (left-handed, the environment turned back by 180 degrees), all with
// the gammaSpace workaround: mean |d| <= 1% of the mean pixel value M, max |d| <= 5% of M or of the
// reference pixel where brighter, at most 1% of the sphere pixels covered by one image only. Against the
// pixel, as three.js's rgba16f render: Babylon decodes the RGBD PNGs into a half-float cube (textureType 2
// in the log), which rounds a sun hundreds of times M by 2^-11 of itself. Measured and printed:
// `lh_as_loaded`, `rh_gamma` (without the gammaSpace workaround), `rh_babylon_lod` (Babylon's own level
// choice), `rh_intensity2` (the light's intensity 2, against twice the reference: the extension's
// "brightness multiplier for environment"). Gated as well, against its own mean pixel value: `rh_sun`, the
// sample sky baked with --extract-sun --gltf (its KHR_lights_punctual sun over the residual), every sphere
// the white diffuse, against expected_gltf_sun.f32 (E_res(n)/π + E⊥ max(0, n·s)/π).
// Writes into DIR: babylon_<case>.png (Reinhard at exposure 1 / mean, sRGB), reference_gltf.png,
// diff_babylon_<case>.png (white = 5% of the mean), babylon_report.json. Exits 0 (pass) or 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, renderInChromium, decodeImage, meanPixel, pngWriter, judge, readF32 } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) { console.error('usage: node render_babylon.mjs DIR'); process.exit(2); }
const started = Date.now();
const fail = (msg) => { console.error(`engine render (Babylon.js): FAIL: ${msg}`); process.exit(1); };

const scene = JSON.parse(readFileSync(join(dir, 'scene.json'), 'utf8'));
const { width: W, height: H } = scene;
const expected = readF32(join(dir, scene.files.expected_gltf), W, H);
const expectedSun = readF32(join(dir, scene.files.expected_gltf_sun), W, H);
const modules = join(here, '..', 'node_modules');
const { server, base } = await serve(
  { '/page_babylon.html': join(here, 'page_babylon.html'), '/page_babylon.js': join(here, 'page_babylon.js') },
  { '/babylonjs/': join(modules, 'babylonjs'), '/babylonjs-loaders/': join(modules, 'babylonjs-loaders'), '/data/': dir });
const result = await renderInChromium(`${base}/page_babylon.html`, { W, H, fail, timeoutMs: 240000 });
server.close();

const M = meanPixel(expected, W, H);
const png = pngWriter(dir, W, H, M);
png.image('reference_gltf.png', expected);
const doubled = expected.map((v, i) => (i % 4 === 3 ? v : 2 * v));
console.log(`engine render (Babylon.js ${result.webgl.babylon}): ${W}x${H}, mean pixel value ${M.toPrecision(5)}`);
const report = { webgl: result.webgl, log: result.log, cases: result.cases, mean_pixel: M, renders: {} };
let ok = true;
for (const [name, b64] of Object.entries(result.images)) {
  const got = decodeImage(b64);
  if (got.length !== W * H * 4) fail(`${name}: ${got.length} floats`);
  const want = name === 'rh_intensity2' ? doubled : name === 'rh_sun' ? expectedSun : expected;
  const gate = ['rh', 'lh', 'rh_gltf'].includes(name) ? 'pixel' : name === 'rh_sun' ? 'strict' : null;
  const r = judge(`babylon ${name}`, got, want, scene, name === 'rh_sun' ? meanPixel(expectedSun, W, H) : M, gate);
  if (gate) ok = ok && r.pass;
  png.image(`babylon_${name}.png`, got);
  png.diff(`diff_babylon_${name}.png`, got, want);
  report.renders[name] = r;
}
report.seconds = (Date.now() - started) / 1000;
writeFileSync(join(dir, 'babylon_report.json'), JSON.stringify(report, null, 1));
console.log(`engine render (Babylon.js): ${ok ? 'PASS' : 'FAIL'} in ${report.seconds.toFixed(1)} s; images in ${dir}`);
process.exit(ok ? 0 : 1);
