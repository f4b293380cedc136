// node check_sun.mjs DIR: the sun's light files bake_sun_files wrote into DIR (threejs_sun.json,
// sun.gltf, expected.json with the sun they stand for), read by three.js 0.187's own loaders and the
// Khronos glTF validator. Each must give a directional light that travels away from the sun
// (-direction) with colour x intensity = the sun's illuminance per channel. Exit 0 only if all pass.
import { readFileSync } from 'node:fs';
import { ObjectLoader, Vector3 } from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import validator from 'gltf-validator';
import { Report } from './report.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node check_sun.mjs DIR');
  process.exit(2);
}
const expected = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8'));
const r = new Report();
const travel = new Vector3(...expected.direction).negate();

// The light's travel in world space: from its world position toward its target's.
function checkLight(light, label) {
  r.check(light?.isDirectionalLight === true, `${label}: a DirectionalLight`);
  if (!light?.isDirectionalLight) return;
  light.updateWorldMatrix(true, true);
  const from = light.getWorldPosition(new Vector3()), to = light.target.getWorldPosition(new Vector3());
  const dir = to.sub(from).normalize();
  const angle = dir.angleTo(travel);
  r.check(angle < 1e-6, `${label}: shines along -direction (${angle.toExponential(2)} rad off)`);
  const got = [light.color.r, light.color.g, light.color.b].map((c) => c * light.intensity);
  const worst = Math.max(...got.map((v, c) => Math.abs(v / expected.illuminance[c] - 1)));
  r.check(worst < 1e-6, `${label}: color x intensity is the illuminance (${worst.toExponential(2)} off)`);
}

// three.js's ObjectLoader (the light has no target object: it aims at the origin).
checkLight(new ObjectLoader().parse(JSON.parse(readFileSync(`${dir}/threejs_sun.json`, 'utf8'))), 'three.js ObjectLoader');

// three.js's GLTFLoader: KHR_lights_punctual on the node.
const text = readFileSync(`${dir}/sun.gltf`, 'utf8');
const gltf = await new Promise((resolve, reject) => new GLTFLoader().parse(text, '', resolve, reject));
let found;
gltf.scene.traverse((o) => { if (o.isDirectionalLight) found = o; });
checkLight(found, 'three.js GLTFLoader');

// The Khronos validator: no error.
const report = await validator.validateString(text, { uri: 'sun.gltf', maxIssues: 100 });
r.check(report.issues.numErrors === 0, `sun.gltf: gltf-validator ${report.issues.numErrors} errors: ${JSON.stringify(report.issues.messages.filter((m) => m.severity === 0))}`);
console.log(`sun.gltf: gltf-validator ${report.validatorVersion}: ${report.issues.numErrors} errors, ${report.issues.numWarnings} warnings ${JSON.stringify(report.issues.messages.map((m) => m.code))}`);
process.exit(r.close('sun light readers') ? 0 : 1);
