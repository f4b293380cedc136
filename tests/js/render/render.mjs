// node render.mjs DIR: three.js in headless chromium renders bake-irradiance's outputs, compared with
// our CPU shading (ctest: engine_render_threejs; DIR is what bake_render_reference wrote).
//
// Serves page.html/page.mjs, node_modules/three and DIR, opens the page in Debian's chromium through
// puppeteer-core (harness.mjs), takes back the float renders (page.mjs says what each is) and compares
// each with DIR/expected.f32. Gate (issue 21), for the `shader` render (rgba32f files): mean |d| <= 1%
// of the mean pixel value M, max |d| <= 5% of M, and at most 1% of the sphere pixels covered by one
// image only. For `shader_rgba16f` (the default format) the max is gated against max(M, the reference
// pixel's own value) instead: a mirrored sun is thousands of times M, where half floats alone round by
// 2^-11 of the value. `shader_bc6h` (the BC6H DDS) is gated as `shader_rgba16f`, against our shading of
// the chain our encoder and decoder made (expected_bc6h.f32): what three.js reads of our blocks.
// `diffuse_sun` (white Lambertian spheres, the residual's LightProbe and our DirectionalLight) is gated
// strictly against expected_sun.f32 (the same lights shaded by us), and measured against the map's exact
// irradiance, with our whole-map SH measured beside it. The MeshStandardMaterial renders are measured and printed, not gated. Writes into
// DIR: screenshot.png (the page's canvas), threejs_<variant>.png, reference.png (Reinhard at exposure
// 1 / M, sRGB, as --preview tone-maps), diff_shader.png (|d| per pixel, white = 5% of M),
// threejs_shader.f32, render_report.json. Exits 0 (pass), 1 (fail, or chromium/WebGL/page error or timeout).
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serve, renderInChromium, decodeImage, meanPixel, pngWriter, judge, readF32 } from './harness.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const dir = process.argv[2];
if (!dir) { console.error('usage: node render.mjs DIR'); process.exit(2); }
const started = Date.now();
const fail = (msg) => { console.error(`engine render: FAIL: ${msg}`); process.exit(1); };

const scene = JSON.parse(readFileSync(join(dir, 'scene.json'), 'utf8'));
const { width: W, height: H, cell } = scene;
const expected = readF32(join(dir, scene.files.expected), W, H);
const expectedBc6h = readF32(join(dir, scene.files.expected_bc6h), W, H);  // our shading of our BC6H blocks, decoded
const expectedSun = readF32(join(dir, scene.files.expected_sun), W, H);    // residual SH + the sun as a light
const truthDiffuse = readF32(join(dir, scene.files.truth_diffuse), W, H);  // the whole map's exact irradiance / π
const shDiffuse = readF32(join(dir, scene.files.sh_diffuse), W, H);        // the whole map's order-3 SH, ours

const { server, base } = await serve({ '/page.html': join(here, 'page.html'), '/page.mjs': join(here, 'page.mjs'), '/three_cube.mjs': join(here, 'three_cube.mjs') },
                                     { '/three/': join(here, '..', 'node_modules', 'three'), '/data/': dir });
const result = await renderInChromium(`${base}/page.html`, { W, H, screenshot: join(dir, 'screenshot.png'), fail });
server.close();

const M = meanPixel(expected, W, H);
const png = pngWriter(dir, W, H, M);
png.image('reference.png', expected);
const report = { webgl: result.webgl, log: result.log, mean_pixel: M, renders: {} };
console.log(`engine render: ${W}x${H}, ${scene.spheres.length} spheres x ${scene.views.length} views, cell ${cell} px; ` +
            `mean pixel value ${M.toPrecision(5)}`);
let ok = true;
for (const [variant, b64] of Object.entries(result.images)) {
  const got = decodeImage(b64);
  if (got.length !== W * H * 4) fail(`${variant}: ${got.length} floats`);
  png.image(`threejs_${variant}.png`, got);
  const gate = { shader: 'strict', shader_rgba16f: 'pixel', shader_bc6h: 'pixel', diffuse_sun: 'strict' }[variant] || null;
  const reference = { shader_bc6h: expectedBc6h, diffuse_sun: expectedSun }[variant] || expected;
  const r = judge(variant, got, reference, scene, variant === 'diffuse_sun' ? meanPixel(expectedSun, W, H) : M, gate);
  if (variant === 'diffuse_sun') {
    // What the light is for: three.js's IBL + sun against the whole map's exact irradiance, beside
    // our order-3 SH of the whole map (sun included) against the same.
    const Mt = meanPixel(truthDiffuse, W, H);
    r.against_truth = judge('diffuse_sun against the exact irradiance', got, truthDiffuse, scene, Mt, null);
    r.sh_whole_map_against_truth = judge('order-3 SH of the whole map (ours, CPU) against the exact irradiance', shDiffuse, truthDiffuse, scene, Mt, null);
  }
  if (gate) ok = ok && r.pass;
  if (variant === 'shader') {
    writeFileSync(join(dir, 'threejs_shader.f32'), Buffer.from(got.buffer));
    png.diff('diff_shader.png', got, expected);
  }
  report.renders[variant] = r;
}
report.seconds = (Date.now() - started) / 1000;
writeFileSync(join(dir, 'render_report.json'), JSON.stringify(report, null, 1));
console.log(`engine render: ${ok ? 'PASS' : 'FAIL'} in ${report.seconds.toFixed(1)} s (WebGL: ${result.webgl.renderer}); ` +
            `screenshots in ${dir}`);
process.exit(ok ? 0 : 1);
