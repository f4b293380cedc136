// The Bevy layout (--ktx-convention bevy), checked by doing what Bevy 0.19.1 does with the files.
// bake_engine_files ran the CLI twice on one map with the same settings in rgba32f: once for the GL
// layout (gl_diffuse.ktx2, gl_specular.ktx2, gl.json) and once for Bevy's (bevy_diffuse.ktx2,
// bevy_specular.ktx2). Here ktx-parse reads them, a cube sampler written from the OpenGL
// specification's face selection table (4.6 § 8.13, Table 8.19; bilinear in a face, linear between
// mips: textureSampleLevel) samples them, and Bevy's lookup is done as its WGSL does it
// (crates/bevy_pbr/src/light_probe/environment_map.wgsl at v0.19.1, the one-probe path):
//   radiance level = perceptual_roughness * (mip_level_count - 1)        (:244; environment_map.rs:314)
//   diffuse  = textureSampleLevel(diffuse_map, vec3(N.xy, -N.z), 0) * intensity            (:257-267)
//   specular = textureSampleLevel(specular_map, D with z negated, level) * intensity       (:270-280)
//              D = radiance_sample_direction(N, R, roughness) = mix(N, R, lerp)           (:411)
//   out.diffuse = (FmsEms + diffuse_color * Edss) * diffuse                                (:387, :390)
// with intensity 1. What must come out, for many N and roughness values:
//   - specular: our GL chain sampled at D, the same world direction (the files hold the same floats);
//   - diffuse: our GL irradiance cube at N divided by pi, and, at the texel centres, E(N)/pi from
//     gl.json's coefficients evaluated here in the basis of docs/CONVENTION.md: what a white
//     Lambertian surface reflects (Bevy's diffuse_color is the albedo, with no 1/pi).
// The map is not symmetric in z (checked), so an unmirrored file fails.
import { readFileSync } from 'node:fs';
import { read } from 'ktx-parse';

const VK_R32G32B32A32_SFLOAT = 109;

function loadCube(r, path) {
  const c = read(new Uint8Array(readFileSync(path)));
  r.check(c.vkFormat === VK_R32G32B32A32_SFLOAT && c.faceCount === 6 && c.pixelWidth === c.pixelHeight &&
          c.supercompressionScheme === 0, `${path}: an rgba32f cube (vkFormat ${c.vkFormat}, ${c.faceCount} faces)`);
  const levels = c.levels.map((l) => {
    const copy = l.levelData.slice();  // aligned for the Float32Array
    return new Float32Array(copy.buffer, copy.byteOffset, copy.byteLength / 4);
  });
  const text = (v) => (v instanceof Uint8Array ? new TextDecoder().decode(v).replace(/\0$/, '') : '');
  return { size: c.pixelWidth, levels, convention: text(c.keyValue.bakeConvention), content: text(c.keyValue.bakeContent) };
}

// OpenGL 4.6 Table 8.19: the face and (sc, tc, ma) of a direction; s = (sc/|ma| + 1)/2, t likewise.
export function faceCoords([x, y, z]) {
  const ax = Math.abs(x), ay = Math.abs(y), az = Math.abs(z);
  if (ax >= ay && ax >= az) return x > 0 ? [0, -z, -y, ax] : [1, z, -y, ax];
  if (ay >= az) return y > 0 ? [2, x, z, ay] : [3, x, -z, ay];
  return z > 0 ? [4, x, -y, az] : [5, -x, -y, az];
}

// The inverse at a texel centre of face f: row r is t, column c is s (KTXorientation rd).
export function texelDirection(f, r, c, n) {
  const sc = 2 * (c + 0.5) / n - 1, tc = 2 * (r + 0.5) / n - 1;
  return [[1, -tc, -sc], [-1, -tc, sc], [sc, 1, tc], [sc, -1, -tc], [sc, -tc, 1], [-sc, -tc, -1]][f];
}

// Bilinear in one face (clamped to its edge), RGB.
function sampleLevel(cube, level, dir) {
  const n = Math.max(1, cube.size >> level), data = cube.levels[level];
  const [f, sc, tc, ma] = faceCoords(dir);
  const u = (sc / ma + 1) / 2 * n - 0.5, v = (tc / ma + 1) / 2 * n - 0.5;
  const c0 = Math.floor(u), r0 = Math.floor(v), fu = u - c0, fv = v - r0;
  const at = (r, c, ch) => {
    r = Math.min(n - 1, Math.max(0, r));
    c = Math.min(n - 1, Math.max(0, c));
    return data[((f * n + r) * n + c) * 4 + ch];
  };
  return [0, 1, 2].map((ch) => (1 - fv) * ((1 - fu) * at(r0, c0, ch) + fu * at(r0, c0 + 1, ch)) +
                                fv * ((1 - fu) * at(r0 + 1, c0, ch) + fu * at(r0 + 1, c0 + 1, ch)));
}

// textureSampleLevel: linear between the two mips around `lod`.
function sampleCube(cube, dir, lod) {
  const last = cube.levels.length - 1, l = Math.min(last, Math.max(0, lod));
  const l0 = Math.floor(l), l1 = Math.min(last, l0 + 1), w = l - l0;
  const a = sampleLevel(cube, l0, dir), b = sampleLevel(cube, l1, dir);
  return a.map((v, i) => (1 - w) * v + w * b[i]);
}

const flipZ = ([x, y, z]) => [x, y, -z];
const normalize = (v) => { const l = Math.hypot(...v); return v.map((c) => c / l); };

// environment_map.wgsl:411, Frostbite's dominant direction; roughness = perceptual^2 clamped (pbr_lighting.wgsl:548).
function radianceSampleDirection(N, R, perceptual) {
  const p = Math.min(1, Math.max(0.089, perceptual)), roughness = p * p;
  const smoothness = Math.min(1, Math.max(0, 1 - roughness));
  const lerp = smoothness * (Math.sqrt(smoothness) + roughness);
  return N.map((n, i) => n + (R[i] - n) * lerp);
}

// E(n) from order-3 irradiance coefficients, docs/CONVENTION.md's basis (no Condon-Shortley phase).
function irradianceAt(e, [x, y, z]) {
  const Y = [0.282094791773878, 0.488602511902920 * y, 0.488602511902920 * z, 0.488602511902920 * x,
             1.092548430592079 * x * y, 1.092548430592079 * y * z, 0.315391565252520 * (3 * z * z - 1),
             1.092548430592079 * x * z, 0.546274215296040 * (x * x - y * y)];
  return [0, 1, 2].map((ch) => Y.reduce((s, b, k) => s + b * e[k][ch], 0));
}

// A deterministic spread of unit directions (golden-angle spiral, turned off the axes).
function directions(count) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const y = 1 - 2 * (i + 0.5) / count, rr = Math.sqrt(1 - y * y), phi = i * Math.PI * (3 - Math.sqrt(5)) + 0.1;
    out.push(normalize([rr * Math.cos(phi), y, rr * Math.sin(phi)]));
  }
  return out;
}

export function checkBevy(dir, expected, r) {
  const e = expected.bevy;
  if (!e) return;
  const gl = { diffuse: loadCube(r, `${dir}/${e.gl_diffuse}`), specular: loadCube(r, `${dir}/${e.gl_specular}`) };
  const bevy = { diffuse: loadCube(r, `${dir}/${e.bevy_diffuse}`), specular: loadCube(r, `${dir}/${e.bevy_specular}`) };
  const irradiance = JSON.parse(readFileSync(`${dir}/${e.coefficients}`, 'utf8')).irradiance;
  r.check(bevy.diffuse.convention.includes('Bevy layout') && bevy.specular.convention.includes('Bevy layout'),
          'bevy: bakeConvention names the Bevy layout');
  r.check(bevy.diffuse.content.includes('E(n)/pi'), `bevy: diffuse bakeContent says E/pi: ${bevy.diffuse.content}`);
  r.check(bevy.specular.levels.length === gl.specular.levels.length && bevy.specular.size === gl.specular.size,
          'bevy: the specular chain has the GL chain\'s levels');
  const maxOf = (cube) => Math.max(...cube.levels[0].filter((_, i) => i % 4 !== 3));
  const maxSpec = maxOf(gl.specular), maxE = maxOf(gl.diffuse);
  const levels = bevy.specular.levels.length;  // Bevy: smallest_specular_mip_level = mip_level_count - 1

  let worstSpec = 0, worstDiffuse = 0, asymmetric = 0;
  const dirs = directions(500);
  dirs.forEach((N, i) => {
    const V = normalize(dirs[(i * 7 + 3) % dirs.length].map((v, k) => v + 1.5 * N[k]));  // a view on N's side
    const nv = N.reduce((s, n, k) => s + n * V[k], 0);
    const R = N.map((n, k) => 2 * nv * n - V[k]);
    for (const perceptual of [0, 0.25, 0.5, (i % 17) / 16, 1]) {
      const D = radianceSampleDirection(N, R, perceptual);
      const got = sampleCube(bevy.specular, flipZ(D), perceptual * (levels - 1));
      const want = sampleCube(gl.specular, D, perceptual * (levels - 1));
      got.forEach((g, c) => { worstSpec = Math.max(worstSpec, Math.abs(g - want[c]) / maxSpec); });
    }
    const diffuseColor = 1, intensity = 1;  // a white Lambertian, no specular layer
    const got = sampleCube(bevy.diffuse, flipZ(N), 0).map((v) => v * intensity * diffuseColor);
    const glAtN = sampleCube(gl.diffuse, N, 0);
    got.forEach((g, c) => { worstDiffuse = Math.max(worstDiffuse, Math.abs(g - glAtN[c] / Math.PI) / (maxE / Math.PI)); });
    const mirrored = sampleCube(gl.diffuse, flipZ(N), 0);
    if (Math.abs(mirrored[0] - glAtN[0]) > 0.01 * maxE) asymmetric++;
  });
  r.check(asymmetric > dirs.length / 4, `bevy: the map is not symmetric in z (${asymmetric} of ${dirs.length} directions differ by 1%)`);
  // The same floats permuted: only the sampler's arithmetic in double differs.
  r.check(worstSpec <= 1e-9, `bevy: specular through Bevy's lookup is ${worstSpec.toExponential(2)} of the max from our GL chain at the same direction`);
  // E/pi stored as float32 against float32(E)/pi: one float rounding.
  r.check(worstDiffuse <= 3e-7, `bevy: diffuse through Bevy's lookup is ${worstDiffuse.toExponential(2)} of max E/pi from our GL cube / pi`);

  // At the texel centres the sampler returns the texel: E(N)/pi from the coefficients.
  let worstE = 0, texels = 0;
  const n = bevy.diffuse.size;
  for (let f = 0; f < 6; f++)
    for (let row = 0; row < n; row++)
      for (let col = 0; col < n; col++) {
        const d = texelDirection(f, row, col, n), N = normalize(flipZ(d));
        const got = sampleCube(bevy.diffuse, d, 0), want = irradianceAt(irradiance, N).map((v) => v / Math.PI);
        got.forEach((g, c) => { worstE = Math.max(worstE, Math.abs(g - want[c]) / (maxE / Math.PI)); });
        texels++;
      }
  r.check(texels === 6 * n * n && worstE <= 1e-6,
          `bevy: the diffuse texel Bevy reads for N is ${worstE.toExponential(2)} of max E/pi from E(N)/pi of the coefficients`);
}
