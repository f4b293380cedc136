// The SH files read by the engines' own classes: three.js's ObjectLoader makes a LightProbe from
// light_probe.json and its SphericalHarmonics3.getIrradianceAt must give our E(n); Babylon.js's
// SphericalPolynomial.FromHarmonics(SphericalHarmonics.FromArray(harmonics)), and our polynomial, must
// give E(n)/pi when evaluated as Babylon's shader does (harmonicsFunctions computeEnvironmentIrradiance).
import { readFileSync } from 'node:fs';
import { ObjectLoader, Vector3 } from 'three';
import { SphericalHarmonics, SphericalPolynomial } from '@babylonjs/core/Maths/sphericalPolynomial.js';

export function evalPolynomial(p, [x, y, z], c) {  // Babylon's SphericalPolynomial at unit n, channel c
  const v = (k) => (Array.isArray(p[k]) ? p[k][c] : [p[k].x, p[k].y, p[k].z][c]);
  return v('x') * x + v('y') * y + v('z') * z + v('xx') * x * x + v('yy') * y * y + v('zz') * z * z +
         v('xy') * x * y + v('yz') * y * z + v('zx') * z * x;
}

export function checkSh(dir, expected, r) {
  const e = expected.sh;
  const maxE = Math.max(...e.irradiance.flat().map(Math.abs));
  // three.js: its constants have 6 digits, so 1e-5 of the largest E is allowed.
  const probe = new ObjectLoader().parse(JSON.parse(readFileSync(`${dir}/${e.light_probe}`, 'utf8')));
  r.check(probe.isLightProbe === true && probe.intensity === 1, 'three.js: ObjectLoader made a LightProbe');
  let worst = 0;
  e.directions.forEach((n, i) => {
    const got = probe.sh.getIrradianceAt(new Vector3(...n), new Vector3());
    [got.x, got.y, got.z].forEach((v, c) => { worst = Math.max(worst, Math.abs(v - e.irradiance[i][c]) / maxE); });
  });
  r.check(worst <= 1e-5, `three.js: LightProbe.sh.getIrradianceAt is ${worst.toExponential(2)} of max E from ours`);

  // Babylon: its FromHarmonics has 0.886277 for pi * 0.282095 (0.886227), 5.6e-5 off: 2e-4 allowed.
  const babylon = JSON.parse(readFileSync(`${dir}/${e.babylon}`, 'utf8'));
  const fromHarmonics = SphericalPolynomial.FromHarmonics(SphericalHarmonics.FromArray(babylon.harmonics));
  let worstH = 0, worstP = 0;
  e.directions.forEach((n, i) => {
    for (let c = 0; c < 3; c++) {
      const want = e.irradiance[i][c] / Math.PI;
      worstH = Math.max(worstH, Math.abs(evalPolynomial(fromHarmonics, n, c) - want) / (maxE / Math.PI));
      worstP = Math.max(worstP, Math.abs(evalPolynomial(babylon.polynomial, n, c) - want) / (maxE / Math.PI));
    }
  });
  r.check(worstH <= 2e-4, `Babylon: FromHarmonics(harmonics) is ${worstH.toExponential(2)} of max E/pi from ours`);
  r.check(worstP <= 1e-9, `Babylon: our polynomial is ${worstP.toExponential(2)} of max E/pi from ours`);
}
