// The engine render tests' shared half: serving a page to Debian's headless chromium (puppeteer-core,
// WebGL 2 on SwiftShader), taking back its float renders, and comparing any engine's float render with
// our CPU shading (the reference makers: tests/render_reference_main.cpp for three.js,
// tests/engines/reference_main.cpp for Babylon.js and Filament). render.mjs (three.js),
// render_babylon.mjs and compare_f32.mjs (Filament's C++ renders) use it.
//
// Images are width x height x 4 floats, rows top to bottom, RGB linear, A > 0.5 where a sphere covers
// the pixel. Measures (issue 21's): on the pixels both images cover and their RGB channels, mean |d|
// and max |d| as shares of M, the reference's mean pixel value over its covered pixels; the max also
// against max(M, the reference pixel) where a pixel is brighter than M; the pixels covered by one
// image only (the mesh's silhouette against the true circle). Gate: mean <= 1%, max <= 5% of M (or of
// the pixel, for 'against the pixel'), at most 1% of the covered pixels covered by one image only.
import { createServer } from 'node:http';
import { readFileSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { join, normalize, extname, sep } from 'node:path';
import { PNG } from 'pngjs';

export const pct = (v) => `${(100 * v).toFixed(3)}%`;

export function readF32(path, W, H) {
  const f = new Float32Array(readFileSync(path).buffer.slice(0));
  if (f.length !== W * H * 4) throw new Error(`${path} holds ${f.length} floats, not ${W}x${H}x4`);
  return f;
}

// A static server on 127.0.0.1 (an ephemeral port): `pages` maps /name to a file, `roots` maps a
// prefix (/three/, /data/, ...) to a folder. Nothing outside them.
export async function serve(pages, roots) {
  const types = { '.html': 'text/html', '.mjs': 'text/javascript', '.js': 'text/javascript', '.json': 'application/json',
                  '.wasm': 'application/wasm' };
  const resolvePath = (url) => {
    const path = decodeURIComponent(new URL(url, 'http://x').pathname);
    if (pages[path]) return pages[path];
    for (const [prefix, root] of Object.entries(roots)) {
      if (!path.startsWith(prefix)) continue;
      const file = normalize(join(root, path.slice(prefix.length)));
      return file.startsWith(normalize(root) + sep) ? file : null;
    }
    return null;
  };
  const server = createServer((req, res) => {
    const file = resolvePath(req.url);
    if (!file || !existsSync(file) || !statSync(file).isFile()) {
      console.log(`  [server] 404 ${req.url}`);
      res.writeHead(404); res.end(); return;
    }
    res.writeHead(200, { 'Content-Type': types[extname(file)] || 'application/octet-stream', 'Cache-Control': 'no-store' });
    res.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, base: `http://127.0.0.1:${server.address().port}` };
}

// Opens `url` in headless chromium, waits for window.bakeRender.done and returns window.bakeRender
// (its `images`: name -> base64 of the float image). A screenshot of #view goes to `screenshot`.
// fail(msg) is called on any error or on the total timeout; chromium is always killed.
export async function renderInChromium(url, { W, H, screenshot, fail, timeoutMs = 90000 }) {
  const { default: puppeteer } = await import('puppeteer-core');
  let browser = null;
  const kill = () => {
    const p = browser && browser.process();
    if (p && p.exitCode === null && p.signalCode === null) { try { p.kill('SIGKILL'); } catch { /* gone */ } }
  };
  const die = (msg) => { kill(); fail(msg); };
  const watchdog = setTimeout(() => die(`timed out after ${timeoutMs / 1000} s`), timeoutMs);
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => die(`got ${sig}`));
  process.on('exit', kill);
  let result;
  try {
    browser = await puppeteer.launch({
      executablePath: process.env.BAKE_CHROMIUM || '/usr/bin/chromium',
      headless: true,
      pipe: true,  // no debugging port; chromium also exits when the pipe closes
      timeout: 30000,
      protocolTimeout: timeoutMs,
      args: ['--headless=new', '--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
             '--disable-dev-shm-usage', '--no-first-run', '--no-default-browser-check', `--window-size=${W},${H}`],
    });
    const page = await browser.newPage();
    page.setDefaultTimeout(timeoutMs);
    page.on('console', (m) => console.log(`  [page ${m.type()}] ${m.text()}`));
    page.on('pageerror', (e) => console.log(`  [page error] ${e.message}`));
    await page.setViewport({ width: W, height: H, deviceScaleFactor: 1 });
    await page.goto(url, { waitUntil: 'load' });
    await page.waitForFunction('window.bakeRender && window.bakeRender.done', { timeout: timeoutMs, polling: 100 });
    result = await page.evaluate(() => window.bakeRender);
    if (result.error) die(`page: ${result.error}`);
    if (screenshot) await (await page.$('#view')).screenshot({ path: screenshot });
    await browser.close();
    browser = null;
  } catch (e) {
    die(String(e && e.stack || e));
  }
  clearTimeout(watchdog);
  return result;
}

export const decodeImage = (b64) => new Float32Array(Buffer.from(b64, 'base64').buffer.slice(0));

// The reference's mean pixel value M over its covered pixels and RGB channels.
export function meanPixel(expected, W, H) {
  let sum = 0, n = 0;
  for (let i = 0; i < W * H; i++) if (expected[4 * i + 3] > 0.5) { sum += expected[4 * i] + expected[4 * i + 1] + expected[4 * i + 2]; n += 3; }
  return sum / n;
}

const covers = (img, i) => img[4 * i + 3] > 0.5;

// got against expected over the window (x0, y0, w, h); M the whole reference's mean pixel value.
export function compare(got, expected, W, M, x0, y0, w, h) {
  let sum = 0, sumGot = 0, sumAbs = 0, maxAbs = 0, maxRelLocal = 0, n = 0, onlyOne = 0, covered = 0, at = null;
  for (let y = y0; y < y0 + h; y++)
    for (let x = x0; x < x0 + w; x++) {
      const i = y * W + x, a = covers(got, i), b = covers(expected, i);
      if (a || b) covered++;
      if (a !== b) { onlyOne++; continue; }
      if (!a) continue;
      for (let c = 0; c < 3; c++) {
        const want = expected[4 * i + c], d = Math.abs(got[4 * i + c] - want);
        sum += want;
        sumGot += got[4 * i + c];
        sumAbs += d;
        if (d > maxAbs) { maxAbs = d; at = [x, y, c]; }
        maxRelLocal = Math.max(maxRelLocal, d / Math.max(M, Math.abs(want)));
        n++;
      }
    }
  return { mean: sum / n, ratio: sumGot / sum, meanRel: sumAbs / n / M, maxRel: maxAbs / M, at, maxRelLocal, onlyOne, covered };
}

// Reinhard at exposure 1 / M, sRGB (preview_tone_map), or |d| with white = 5% of M.
export function pngWriter(dir, W, H, M) {
  const toSrgb = (v) => {
    const t = Math.max(0, v / M); const r = t / (1 + t);
    const s = r <= 0.0031308 ? 12.92 * r : 1.055 * Math.pow(r, 1 / 2.4) - 0.055;
    return Math.max(0, Math.min(255, Math.round(s * 255)));
  };
  const write = (name, f) => {
    const png = new PNG({ width: W, height: H });
    for (let i = 0; i < W * H; i++) {
      for (let c = 0; c < 3; c++) png.data[4 * i + c] = f(i, c);
      png.data[4 * i + 3] = 255;
    }
    writeFileSync(join(dir, name), PNG.sync.write(png));
  };
  return {
    image: (name, img) => write(name, (i, c) => toSrgb(img[4 * i + c])),
    diff: (name, got, expected) => write(name, (i, c) => {
      if (!covers(got, i) || !covers(expected, i)) return covers(got, i) !== covers(expected, i) ? (c === 0 ? 255 : 0) : 0;
      const d = (Math.abs(got[4 * i] - expected[4 * i]) + Math.abs(got[4 * i + 1] - expected[4 * i + 1]) +
                 Math.abs(got[4 * i + 2] - expected[4 * i + 2])) / 3;
      return Math.min(255, Math.round(255 * d / (0.05 * M)));
    }),
  };
}

// One render against its reference, whole and sphere by sphere; gate: null (measured only), 'strict'
// (max against M) or 'pixel' (max against max(M, the pixel)). Prints a line per render and per sphere.
export function judge(name, got, expected, scene, M, gate) {
  const { width: W, height: H, cell } = scene;
  const all = compare(got, expected, W, M, 0, 0, W, H);
  const spheres = [];
  scene.views.forEach((view, r) => scene.spheres.forEach((sp, s) => {
    const m = compare(got, expected, W, M, s * cell, r * cell, cell, cell);
    spheres.push({ view, material: sp.material, roughness: sp.roughness, mean: m.mean, ratio: m.ratio, mean_abs_rel: m.meanRel,
                   max_abs_rel: m.maxRel, max_abs_rel_to_mean_or_pixel: m.maxRelLocal, coverage_mismatch: m.onlyOne });
  }));
  const maxGated = gate === 'pixel' ? all.maxRelLocal : all.maxRel;
  const pass = all.meanRel <= 0.01 && maxGated <= 0.05 && all.onlyOne <= 0.01 * all.covered;
  const gateText = gate === 'strict' ? ' (gated: mean <= 1% and max <= 5% of the mean pixel value)'
    : gate === 'pixel' ? ' (gated: mean <= 1% of the mean pixel value, max <= 5% of it or of the pixel where brighter)'
    : ' (measured, not gated)';
  const ref = all.at ? expected[4 * (all.at[1] * W + all.at[0]) + all.at[2]].toPrecision(5) : '-';
  console.log(`${name}${gateText}: mean |d| ${pct(all.meanRel)} of the mean pixel value; max |d| ${pct(all.maxRel)} ` +
              `at x, y, channel ${JSON.stringify(all.at)}, reference ${ref} (${pct(all.maxRelLocal)} of the mean or of the ` +
              `pixel's own value where brighter); ${all.onlyOne} of ${all.covered} sphere pixels covered by one image only` +
              `${gate ? (pass ? ': PASS' : ': FAIL') : ''}`);
  for (const s of spheres)
    console.log(`    view ${JSON.stringify(s.view)} ${s.material}${s.material === 'metal' ? ` r=${s.roughness.toFixed(3)}` : ''}: ` +
                `mean |d| ${pct(s.mean_abs_rel)}, max |d| ${pct(s.max_abs_rel)} (${pct(s.max_abs_rel_to_mean_or_pixel)} of the mean or the pixel); ` +
                `sum of the render / sum of the reference ${s.ratio.toFixed(4)}`);
  return { gated: !!gate, gate, pass, ratio: all.ratio, mean_abs_rel: all.meanRel, max_abs_rel: all.maxRel, max_at: all.at,
           max_abs_rel_to_mean_or_pixel: all.maxRelLocal, coverage_mismatch: all.onlyOne, covered: all.covered, spheres };
}
