// node check_bc6h_ktx2.mjs DIR: reads DIR/bc6h.ktx2 (bake_bc6h_files) with ktx-parse, the reader
// three.js's KTX2Loader uses, and checks it against the KTX 2.0 and Data Format specifications:
// vkFormat 143 (VK_FORMAT_BC6H_UFLOAT_BLOCK), typeSize 1, the BC6H Basic DFD (model 133, 4x4 texel
// blocks of 16 bytes, one 128-bit float unsigned sample of channel BC6H_COLOR, lower 0.0, upper
// 1.0: what KTX-Software's vk2dfd makes), and every level's bytes against the blocks in
// DIR/bc6h_ktx2.json. Exit 77 (skipped) without ktx-parse outside CI.
import { readFileSync } from 'node:fs';
import { Report } from './report.mjs';

let read;
try {
  ({ read } = await import('ktx-parse'));
} catch {
  if (process.env.CI) {
    console.error('check_bc6h_ktx2: ktx-parse missing (scripts/setup runs npm ci --prefix tests/js)');
    process.exit(1);
  }
  console.log('check_bc6h_ktx2 SKIPPED: ktx-parse missing; run scripts/setup (npm ci --prefix tests/js)');
  process.exit(77);
}

const dir = process.argv[2];
const expected = JSON.parse(readFileSync(`${dir}/bc6h_ktx2.json`, 'utf8'));
const c = read(new Uint8Array(readFileSync(`${dir}/bc6h.ktx2`)));
const r = new Report();
r.check(c.vkFormat === 143, `vkFormat ${c.vkFormat}`);
r.check(c.typeSize === 1, `typeSize ${c.typeSize}`);
r.check(c.pixelWidth === expected.width && c.pixelHeight === expected.height && c.pixelDepth === 0,
        `size ${c.pixelWidth}x${c.pixelHeight}x${c.pixelDepth}`);
r.check(c.layerCount === 0 && c.faceCount === expected.faces, `layers ${c.layerCount}, faces ${c.faceCount}`);
r.check(c.levelCount === expected.levels && c.levels.length === expected.levels, `levelCount ${c.levelCount}`);
r.check(c.supercompressionScheme === 0, `supercompression ${c.supercompressionScheme}`);
const dfd = c.dataFormatDescriptor[0];
r.check(c.dataFormatDescriptor.length === 1 && dfd.vendorId === 0 && dfd.descriptorType === 0 && dfd.versionNumber === 2,
        'DFD block header');
r.check(dfd.colorModel === 133 && dfd.colorPrimaries === 1 && dfd.transferFunction === 1 && dfd.flags === 0,
        `DFD model ${dfd.colorModel} primaries ${dfd.colorPrimaries} transfer ${dfd.transferFunction} flags ${dfd.flags}`);
r.check(JSON.stringify(Array.from(dfd.texelBlockDimension)) === '[3,3,0,0]', `texel block ${dfd.texelBlockDimension}`);
r.check(JSON.stringify(Array.from(dfd.bytesPlane)) === '[16,0,0,0,0,0,0,0]', `bytesPlane ${dfd.bytesPlane}`);
const samples = dfd.samples.map((s) => [s.bitOffset, s.bitLength, s.channelType, s.sampleLower >>> 0, s.sampleUpper >>> 0]);
r.check(JSON.stringify(samples) === JSON.stringify([[0, 127, 0x80, 0, 0x3f800000]]), `DFD samples ${JSON.stringify(samples)}`);
r.check(c.keyValue.KTXorientation === 'rd', `KTXorientation ${c.keyValue.KTXorientation}`);
c.levels.forEach((level, i) => {
  const hex = Buffer.from(level.levelData).toString('hex');
  const n = Math.max(1, expected.width >> i);
  const size = 6 * Math.ceil(n / 4) ** 2 * 16;
  r.check(level.uncompressedByteLength === size && level.levelData.byteLength === size,
          `level ${i}: ${level.levelData.byteLength} bytes, not ${size}`);
  r.check(hex === expected.blocks[i], `level ${i}: the blocks differ from bc6h_encode_images'`);
});
process.exit(r.close('BC6H KTX2 through ktx-parse') ? 0 : 1);
