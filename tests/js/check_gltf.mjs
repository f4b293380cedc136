// The EXT_lights_image_based files: the Khronos glTF validator (npm gltf-validator) must report no error;
// every RGBD PNG, decoded by pngjs and Babylon.js's fromRGBD (helperFunctions.js:105: pow(rgb, 2.2) / D)
// with its rows reversed back (the README's flip), must hold our float texel within RGBD's bound, at the
// texel whose direction is ours mirrored in z (docs/CONVENTION.md, "glTF layout": the GL cube sampler
// returns, for (x, y, z), our value at (x, y, -z), as Babylon.js's right-handed scenes sample it); and
// Babylon's own classes on irradianceCoefficients, as its loader and PBR shader use them
// (EXT_lights_image_based.pure.js:99-102: FromArray, scale by intensity, / pi, SphericalPolynomial.
// FromHarmonics, whose preScaledHarmonics are the SH the shader sums, harmonicsFunctions.js, at the
// normal with z negated, REFLECTIONMAP_OPPOSITEZ), must give our E(n)/pi.
import { readFileSync } from 'node:fs';
import validator from 'gltf-validator';
import pngjs from 'pngjs';
import { SphericalHarmonics, SphericalPolynomial } from '@babylonjs/core/Maths/sphericalPolynomial.js';
import { faceCoords, texelDirection } from './check_bevy.mjs';

// The document and its images' bytes, from a .gltf (its PNGs beside it, by URI) or a .glb (buffer views).
function load(dir, bytes, name) {
  if (name.endsWith('.glb')) {
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const jsonLength = view.getUint32(12, true);
    const doc = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
    const bin = bytes.subarray(20 + jsonLength + 8);
    return { doc, images: doc.images.map((im) => {
      const bv = doc.bufferViews[im.bufferView];
      return bin.subarray(bv.byteOffset, bv.byteOffset + bv.byteLength);
    }) };
  }
  const doc = JSON.parse(new TextDecoder().decode(bytes));
  return { doc, images: doc.images.map((im) => readFileSync(`${dir}/${decodeURIComponent(im.uri)}`)) };
}

function checkFaces(r, name, doc, images, e) {
  const light = doc.extensions.EXT_lights_image_based.lights[0];
  r.check(light.specularImages.length === e.levels.length && light.specularImageSize === e.levels[0][0].bounds.length ** 0.5,
          `${name}: specularImages ${light.specularImages.length} levels of ${light.specularImageSize}`);
  let bad = 0, worst = 0;
  light.specularImages.forEach((faces, level) => faces.forEach((index, f) => {
    const png = pngjs.PNG.sync.read(Buffer.from(images[index]));
    const n = png.width;
    if (png.height !== n || n * n !== e.levels[level][f].bounds.length) { bad++; return; }
    for (let row = 0; row < n; row++) {
      for (let col = 0; col < n; col++) {
        const p = 4 * ((n - 1 - row) * n + col);  // the PNG's rows are reversed
        const [x, y, z] = texelDirection(f, row, col, n);
        const [g, sc, tc, ma] = faceCoords([x, y, -z]);  // our texel there
        const ours = e.levels[level][g];
        const t = Math.round(((tc / ma + 1) / 2) * n - 0.5) * n + Math.round(((sc / ma + 1) / 2) * n - 0.5);
        const bound = ours.bounds[t];
        if (bound < 0) continue;  // brighter than RGBD's 255: clipped by design
        const d = png.data[p + 3] / 255;
        for (let c = 0; c < 3; c++) {
          const got = Math.pow(png.data[p + c] / 255, 2.2) / d;
          const err = Math.abs(got - ours.values[3 * t + c]);
          worst = Math.max(worst, err / bound);
          if (!(err <= bound)) bad++;
        }
      }
    }
  }));
  r.check(bad === 0, `${name}: ${bad} RGBD channels beyond the bound (worst ${worst.toFixed(3)} of it)`);
  return light;
}

function checkCoefficients(r, name, light, sh) {
  const h = SphericalHarmonics.FromArray(light.irradianceCoefficients);
  h.scaleInPlace(light.intensity);
  h.convertIrradianceToLambertianRadiance();
  const s = SphericalPolynomial.FromHarmonics(h).preScaledHarmonics;
  const shader = ([x, y, zz], c) => {  // harmonicsFunctions computeEnvironmentIrradiance, z negated first
    const z = -zz, v = (k) => [s[k].x, s[k].y, s[k].z][c];
    return v('l00') + v('l1_1') * y + v('l10') * z + v('l11') * x + v('l2_2') * y * x + v('l2_1') * y * z +
           v('l20') * (3 * z * z - 1) + v('l21') * z * x + v('l22') * (x * x - y * y);
  };
  const maxE = Math.max(...sh.irradiance.flat().map(Math.abs));
  let worst = 0;
  sh.directions.forEach((n, i) => {
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(shader(n, c) - sh.irradiance[i][c] / Math.PI) / (maxE / Math.PI));
  });
  r.check(worst <= 1e-6, `${name}: Babylon's loader and shader make E/pi ${worst.toExponential(2)} of its max from ours`);
}

export async function checkGltf(dir, expected, r) {
  for (const name of expected.gltf.files) {
    const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
    const external = (uri) => Promise.resolve(new Uint8Array(readFileSync(`${dir}/${decodeURIComponent(uri)}`)));
    const report = await validator.validateBytes(bytes, { uri: name, maxIssues: 100, externalResourceFunction: external });
    const issues = report.issues;
    r.check(issues.numErrors === 0, `${name}: gltf-validator ${issues.numErrors} errors: ${JSON.stringify(issues.messages.filter((m) => m.severity === 0))}`);
    console.log(`${name}: gltf-validator ${report.validatorVersion}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ${issues.numInfos} infos ${JSON.stringify(issues.messages.map((m) => m.code))}`);
    const { doc, images } = load(dir, bytes, name);
    const light = checkFaces(r, name, doc, images, expected.gltf);
    checkCoefficients(r, name, light, expected.sh);
    r.check(doc.scenes[doc.scene].extensions.EXT_lights_image_based.light === 0, `${name}: the scene uses the light`);
  }
}
