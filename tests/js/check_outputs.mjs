// node check_outputs.mjs DIR: checks every file bake_engine_files wrote into DIR with the engines'
// and Khronos' own readers (see each check_*.mjs), and the Bevy layout through Bevy's lookup. Exit status 0 only when every check passed.
import { readFileSync } from 'node:fs';
import { Report } from './report.mjs';
import { checkKtx2 } from './check_ktx2.mjs';
import { checkSh } from './check_sh.mjs';
import { checkGltf } from './check_gltf.mjs';
import { checkBevy } from './check_bevy.mjs';

const dir = process.argv[2];
if (!dir) {
  console.error('usage: node check_outputs.mjs DIR');
  process.exit(2);
}
const expected = JSON.parse(readFileSync(`${dir}/expected.json`, 'utf8'));
const r = new Report();
checkKtx2(dir, expected, r);
checkSh(dir, expected, r);
await checkGltf(dir, expected, r);
checkBevy(dir, expected, r);
process.exit(r.close('engine readers') ? 0 : 1);
