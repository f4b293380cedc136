// The EXT_lights_image_based files: the Khronos glTF validator (npm gltf-validator) must report no error;
// every RGBD PNG, decoded by pngjs and Babylon.js's fromRGBD (helperFunctions.js:105: pow(rgb, 2.2) / D)
// with its rows reversed back (the README's flip), must give our float texel within RGBD's bound; and
// Babylon's own loader steps on irradianceCoefficients (EXT_lights_image_based.pure.js:99-102: FromArray,
// scale by intensity, / pi, SphericalPolynomial.FromHarmonics) must give our E(n)/pi.
import { readFileSync } from 'node:fs';
import validator from 'gltf-validator';
import pngjs from 'pngjs';
import { SphericalHarmonics, SphericalPolynomial } from '@babylonjs/core/Maths/sphericalPolynomial.js';
import { evalPolynomial } from './check_sh.mjs';

// The document and its images' bytes, from a .gltf (data: URIs) or a .glb (buffer views).
function load(bytes, name) {
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
  return { doc, images: doc.images.map((im) => Buffer.from(im.uri.split(',')[1], 'base64')) };
}

function checkFaces(r, name, doc, images, e) {
  const light = doc.extensions.EXT_lights_image_based.lights[0];
  r.check(light.specularImages.length === e.levels.length && light.specularImageSize === e.levels[0][0].bounds.length ** 0.5,
          `${name}: specularImages ${light.specularImages.length} levels of ${light.specularImageSize}`);
  let bad = 0, worst = 0;
  light.specularImages.forEach((faces, level) => faces.forEach((index, f) => {
    const png = pngjs.PNG.sync.read(Buffer.from(images[index]));
    const n = png.width, want = e.levels[level][f];
    if (png.height !== n || n * n !== want.bounds.length) { bad++; return; }
    for (let row = 0; row < n; row++) {
      for (let col = 0; col < n; col++) {
        const p = 4 * ((n - 1 - row) * n + col);  // the PNG's rows are reversed
        const t = row * n + col, bound = want.bounds[t];
        if (bound < 0) continue;  // brighter than RGBD's 255: clipped by design
        const d = png.data[p + 3] / 255;
        for (let c = 0; c < 3; c++) {
          const got = Math.pow(png.data[p + c] / 255, 2.2) / d;
          const err = Math.abs(got - want.values[3 * t + c]);
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
  const p = SphericalPolynomial.FromHarmonics(h);
  const maxE = Math.max(...sh.irradiance.flat().map(Math.abs));
  let worst = 0;
  sh.directions.forEach((n, i) => {
    for (let c = 0; c < 3; c++) worst = Math.max(worst, Math.abs(evalPolynomial(p, n, c) - sh.irradiance[i][c] / Math.PI) / (maxE / Math.PI));
  });
  r.check(worst <= 2e-4, `${name}: Babylon's loader makes E/pi ${worst.toExponential(2)} of its max from ours`);
}

export async function checkGltf(dir, expected, r) {
  for (const name of expected.gltf.files) {
    const bytes = new Uint8Array(readFileSync(`${dir}/${name}`));
    const report = await validator.validateBytes(bytes, { uri: name, maxIssues: 100 });
    const issues = report.issues;
    r.check(issues.numErrors === 0, `${name}: gltf-validator ${issues.numErrors} errors: ${JSON.stringify(issues.messages.filter((m) => m.severity === 0))}`);
    console.log(`${name}: gltf-validator ${report.validatorVersion}: ${issues.numErrors} errors, ${issues.numWarnings} warnings, ${issues.numInfos} infos ${JSON.stringify(issues.messages.map((m) => m.code))}`);
    const { doc, images } = load(bytes, name);
    const light = checkFaces(r, name, doc, images, expected.gltf);
    checkCoefficients(r, name, light, expected.sh);
    r.check(doc.scenes[doc.scene].extensions.EXT_lights_image_based.light === 0, `${name}: the scene uses the light`);
  }
}
