// node compare_f32.mjs DIR filament [START]: compares the float renders a native engine test wrote into DIR
// with our CPU shading (harness.mjs's measures and gate). For Filament (tests/filament/run_filament.sh):
//   ours (gated): filament_ours.f32 (our spec.exr and --sh-format filament) against expected_filament.f32,
//     our chain and SH shaded in Filament's model, read where Filament reads them: the file as Filament
//     shows it, checked texel for texel (orientation, units, SH layout, levels).
//   ours_vs_truth, cmgen_vs_truth (measured): our render and cmgen's (its own bake of the same map) against
//     expected_filament_truth.f32, the same model with the chain read at the level of each sphere's true
//     roughness: Filament reads level (levels - 1) r (2 - r), for which cmgen lays out its levels, while
//     ours hold roughness i / (levels - 1).
//   sun (gated): filament_sun.f32, the sample sky's residual after --extract-sun (spec_sun.exr, sh_sun.txt) and
//     our --sun-format filament light as Filament's SUN, every sphere the white dielectric, against
//     expected_filament_sun.f32 (the same in our shading), gated against its own mean pixel value.
// START: the test's start in seconds since the epoch (date +%s.%N), for the time it took. Writes
// filament_<case>.png, diff_filament_<comparison>.png, reference_filament*.png and filament_report.json
// into DIR. Exits 0 (pass) or 1.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { meanPixel, pngWriter, judge, readF32 } from './harness.mjs';

const [dir, engine, start] = process.argv.slice(2);
if (!dir || engine !== 'filament') { console.error('usage: node compare_f32.mjs DIR filament [START]'); process.exit(2); }
const scene = JSON.parse(readFileSync(join(dir, 'scene.json'), 'utf8'));
const { width: W, height: H } = scene;
const expected = readF32(join(dir, scene.files.expected_filament), W, H);
const truth = readF32(join(dir, scene.files.expected_filament_truth), W, H);
const M = meanPixel(expected, W, H);
const png = pngWriter(dir, W, H, M);
png.image('reference_filament.png', expected);
png.image('reference_filament_truth.png', truth);
console.log(`engine render (Filament 1.9.25): ${W}x${H}, mean pixel value ${M.toPrecision(5)}`);
const report = { mean_pixel: M, renders: {} };
let ok = true;
const renders = { ours: readF32(join(dir, 'filament_ours.f32'), W, H), cmgen: readF32(join(dir, 'filament_cmgen.f32'), W, H) };
for (const [name, got] of Object.entries(renders)) png.image(`filament_${name}.png`, got);
for (const [name, got, want, gate] of [['ours', renders.ours, expected, 'strict'], ['ours_vs_truth', renders.ours, truth, null],
                                       ['cmgen_vs_truth', renders.cmgen, truth, null]]) {
  const r = judge(`filament ${name}`, got, want, scene, M, gate);
  if (gate) ok = ok && r.pass;
  png.diff(`diff_filament_${name}.png`, got, want);
  report.renders[name] = r;
}
{
  const want = readF32(join(dir, scene.files.expected_filament_sun), W, H), got = readF32(join(dir, 'filament_sun.f32'), W, H);
  const Ms = meanPixel(want, W, H);
  png.image('filament_sun.png', got);
  const r = judge('filament sun (residual IBL + SUN light)', got, want, scene, Ms, 'strict');
  ok = ok && r.pass;
  png.diff('diff_filament_sun.png', got, want);
  report.renders.sun = r;
}
if (start) report.seconds = Date.now() / 1000 - Number(start);
writeFileSync(join(dir, 'filament_report.json'), JSON.stringify(report, null, 1));
console.log(`engine render (Filament): ${ok ? 'PASS' : 'FAIL'}${report.seconds ? ` in ${report.seconds.toFixed(1)} s` : ''}; images in ${dir}`);
process.exit(ok ? 0 : 1);
