// Reads every KTX2 file bake_engine_files wrote with ktx-parse (npm, Don McCurdy's KTX 2.0 parser,
// the one three.js's KTX2Loader uses) and checks header, Data Format Descriptor, key/values, level
// sizes and the texels of the first and last level against expected.json. Texels are decoded here from
// the formats' definitions (Khronos Data Format Specification 1.4 § 10.1-10.3 and its E5B9G9R9
// descriptor), not by the writer's code; Zstandard levels are inflated with fzstd (npm).
import { readFileSync } from 'node:fs';
import { read } from 'ktx-parse';
import { decompress } from 'fzstd';

const TEXEL_BYTES = { rgba16f: 8, rgba32f: 16, b10g11r11: 4, e5b9g9r9: 4 };

function e5Float(code, mbits) {  // 5-bit exponent (bias 15), mbits mantissa, no sign
  const e = code >>> mbits, m = code & ((1 << mbits) - 1);
  if (e === 0) return 2 ** -14 * (m / 2 ** mbits);
  if (e === 31) return m === 0 ? Infinity : NaN;
  return 2 ** (e - 15) * (1 + m / 2 ** mbits);
}

// One texel (r, g, b, a) of a level's bytes.
function decodeTexel(format, view, at) {
  switch (format) {
    case 'rgba16f': return [0, 1, 2, 3].map((c) => {
      const h = view.getUint16(at + 2 * c, true);
      return (h & 0x8000 ? -1 : 1) * e5Float(h & 0x7fff, 10);
    });
    case 'rgba32f': return [0, 1, 2, 3].map((c) => view.getFloat32(at + 4 * c, true));
    case 'b10g11r11': {
      const v = view.getUint32(at, true);
      return [e5Float(v & 0x7ff, 6), e5Float((v >>> 11) & 0x7ff, 6), e5Float(v >>> 22, 5), 1];
    }
    case 'e5b9g9r9': {
      const v = view.getUint32(at, true);
      const scale = 2 ** ((v >>> 27) - 15 - 9);
      return [v & 511, (v >>> 9) & 511, (v >>> 18) & 511].map((m) => m * scale).concat([1]);
    }
  }
  throw new Error(`unknown format ${format}`);
}

// The largest error a correct rounding may make at value x: half a unit in the last place.
function halfUlp(format, x, texelMax) {
  const ax = Math.abs(x);
  switch (format) {
    case 'rgba32f': return 0;
    case 'rgba16f': return 0.5 * 2 ** (Math.max(Math.floor(Math.log2(ax || 1e-30)), -14) - 10);
    case 'b10g11r11': return 0.5 * 2 ** (Math.max(Math.floor(Math.log2(ax || 1e-30)), -14) - 5);  // 5-bit mantissa (blue) bounds both
    // the shared exponent's unit: 2^(floor(log2 max) + 1 - 9), twice that when max rounds up to 512 units
    case 'e5b9g9r9': return 0.5 * 2 ** (Math.max(Math.floor(Math.log2(texelMax || 1e-30)), -16) + 2 - 9);
  }
  return NaN;
}

// The Basic DFD the Data Format Specification gives for each format: samples as
// [bitOffset, bitLength - 1, channelType, lower (uint32), upper (uint32)].
const ONE = 0x3f800000, MINUS_ONE = 0xbf800000;
const SPEC_SAMPLES = {
  rgba16f: [[0, 15, 0xc0, MINUS_ONE, ONE], [16, 15, 0xc1, MINUS_ONE, ONE], [32, 15, 0xc2, MINUS_ONE, ONE], [48, 15, 0xcf, MINUS_ONE, ONE]],
  rgba32f: [[0, 31, 0xc0, MINUS_ONE, ONE], [32, 31, 0xc1, MINUS_ONE, ONE], [64, 31, 0xc2, MINUS_ONE, ONE], [96, 31, 0xcf, MINUS_ONE, ONE]],
  b10g11r11: [[0, 10, 0x80, 0, ONE], [11, 10, 0x81, 0, ONE], [22, 9, 0x82, 0, ONE]],
  e5b9g9r9: [[0, 8, 0x00, 0, 8448], [27, 4, 0x20, 15, 31], [9, 8, 0x01, 0, 8448], [27, 4, 0x21, 15, 31],
             [18, 8, 0x02, 0, 8448], [27, 4, 0x22, 15, 31]],
};

function checkLevelTexels(r, name, e, level, bytes, faceValues) {
  const w = Math.max(1, e.width >> level), h = Math.max(1, e.height >> level);
  const texel = TEXEL_BYTES[e.format];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let bad = 0;
  faceValues.forEach((vals, face) => {
    for (let t = 0; t < w * h; t++) {
      const got = decodeTexel(e.format, view, (face * w * h + t) * texel);
      const src = vals.source.slice(3 * t, 3 * t + 3);
      const max = Math.max(...src);
      for (let c = 0; c < 3; c++) {
        const exact = got[c] === vals.rounded[3 * t + c];
        const near = Math.abs(got[c] - src[c]) <= halfUlp(e.format, src[c], max) * (1 + 1e-12) ||
                     (src[c] < 0 && got[c] === 0 && e.format !== 'rgba16f' && e.format !== 'rgba32f');
        if (!exact || !near) bad++;
      }
      if (got[3] !== 1) bad++;
    }
  });
  r.check(bad === 0, `${name}: level ${level}: ${bad} texel values differ from ours after rounding`);
}

export function checkKtx2(dir, expected, r) {
  for (const e of expected.ktx2) {
    const name = e.file;
    const c = read(new Uint8Array(readFileSync(`${dir}/${name}`)));
    r.check(c.vkFormat === e.vkFormat, `${name}: vkFormat ${c.vkFormat}`);
    r.check(c.typeSize === (e.format === 'rgba16f' ? 2 : 4), `${name}: typeSize ${c.typeSize}`);
    r.check(c.pixelWidth === e.width && c.pixelHeight === e.height && c.pixelDepth === 0,
            `${name}: size ${c.pixelWidth}x${c.pixelHeight}x${c.pixelDepth}`);
    r.check(c.layerCount === 0 && c.faceCount === e.faces, `${name}: layers ${c.layerCount}, faces ${c.faceCount}`);
    r.check(c.levelCount === e.levels && c.levels.length === e.levels, `${name}: levelCount ${c.levelCount}`);
    r.check(c.supercompressionScheme === (e.zstd ? 2 : 0), `${name}: supercompression ${c.supercompressionScheme}`);
    const dfd = c.dataFormatDescriptor[0];
    r.check(c.dataFormatDescriptor.length === 1 && dfd.vendorId === 0 && dfd.descriptorType === 0 && dfd.versionNumber === 2,
            `${name}: DFD block header`);
    r.check(dfd.colorModel === 1 && dfd.colorPrimaries === 1 && dfd.transferFunction === 1 && dfd.flags === 0,
            `${name}: DFD model ${dfd.colorModel} primaries ${dfd.colorPrimaries} transfer ${dfd.transferFunction}`);
    r.check(dfd.texelBlockDimension.every((d) => d === 0), `${name}: texel block`);
    r.check(dfd.bytesPlane[0] === TEXEL_BYTES[e.format] && dfd.bytesPlane.slice(1).every((b) => b === 0),
            `${name}: bytesPlane ${dfd.bytesPlane}`);
    const samples = dfd.samples.map((s) => [s.bitOffset, s.bitLength, s.channelType, s.sampleLower >>> 0, s.sampleUpper >>> 0]);
    r.check(JSON.stringify(samples) === JSON.stringify(SPEC_SAMPLES[e.format]), `${name}: DFD samples ${JSON.stringify(samples)}`);
    r.check(c.keyValue.KTXorientation === 'rd', `${name}: KTXorientation ${c.keyValue.KTXorientation}`);
    r.check(/^bake-irradiance /.test(c.keyValue.KTXwriter), `${name}: KTXwriter ${c.keyValue.KTXwriter}`);
    // ktx-parse decodes only KTX* values; ours are NUL-terminated UTF-8 strings.
    const text = (v) => (v instanceof Uint8Array && v[v.length - 1] === 0) ? new TextDecoder().decode(v.subarray(0, v.length - 1)) : null;
    for (const [k, v] of Object.entries(e.key_values)) r.check(text(c.keyValue[k]) === v, `${name}: key ${k}`);
    r.check((text(c.keyValue.bakeContent) || '').length > 0, `${name}: bakeContent`);
    const inflated = c.levels.map((l, i) => {
      const w = Math.max(1, e.width >> i), h = Math.max(1, e.height >> i);
      const size = w * h * e.faces * TEXEL_BYTES[e.format];
      r.check(l.uncompressedByteLength === size, `${name}: level ${i} uncompressedByteLength ${l.uncompressedByteLength} != ${size}`);
      const data = e.zstd ? decompress(l.levelData) : l.levelData;
      r.check(data.byteLength === size, `${name}: level ${i} holds ${data.byteLength} bytes, not ${size}`);
      return data;
    });
    checkLevelTexels(r, name, e, 0, inflated[0], e.first_level);
    checkLevelTexels(r, name, e, e.levels - 1, inflated[e.levels - 1], e.last_level);
  }
}
