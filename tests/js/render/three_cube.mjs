// Our KTX2 cube files in three.js (0.187), as a user loads them; the engine render tests import this file,
// and docs/engines-rendered.md shows it.
//
// cubeFromKtx2(texture): KTX2Loader returns an uncompressed cube file (faceCount 6, e.g. rgba16f) as a 2D
// DataTexture whose every mip holds the six faces one after another (createRawTexture takes its
// UNCOMPRESSED_FORMATS branch before looking at faceCount). This splits those mips into the faces of a
// CompressedCubeTexture, as its own branch for block-compressed cubes does; the texels are untouched.
// That cube is our GL layout, right for a shader that samples it at the world direction itself.
//
// environmentFromKtx2(texture): the same cube mirrored in x, for scene.environment (and a material's
// envMap): three.js samples every CubeTexture at (-x, y, z) (flipEnvMap, also when PMREMGenerator turns it
// into its own chain), so the file's texel for (-x, y, z) must be the one that holds our (x, y, z): the
// +X and -X faces swapped and every face's columns reversed. Rendered, it shows our environment where
// ours is (tests/js/render/render_threejs_std.mjs).
import * as THREE from 'three';

export function cubeFromKtx2(texture, { mirrorX = false } = {}) {
  if (texture.isCubeTexture && !mirrorX) return texture;
  if (texture.isCubeTexture) throw new Error('cubeFromKtx2: a cube texture already, its faces cannot be mirrored here');
  const w = texture.image.width, h = texture.image.height;
  for (const m of texture.mipmaps)
    if (m.data.length !== 6 * m.width * m.height * 4) throw new Error(`KTX2 cube level ${m.width}: ${m.data.length} values, not 6 faces`);
  const faces = [];
  for (let f = 0; f < 6; f++) {
    const src = mirrorX && f < 2 ? 1 - f : f;  // +X <-> -X
    faces.push({
      width: w, height: h,
      mipmaps: texture.mipmaps.map((m) => {
        const n = m.width * m.height * 4;
        let data = m.data.subarray(src * n, (src + 1) * n);
        if (mirrorX) {  // columns reversed
          const out = new data.constructor(n);
          for (let r = 0; r < m.height; r++)
            for (let c = 0; c < m.width; c++)
              for (let k = 0; k < 4; k++) out[(r * m.width + c) * 4 + k] = data[(r * m.width + (m.width - 1 - c)) * 4 + k];
          data = out;
        }
        return { data, width: m.width, height: m.height };
      }),
    });
  }
  const cube = new THREE.CompressedCubeTexture(faces, texture.format, texture.type);
  cube.minFilter = THREE.LinearMipmapLinearFilter;
  cube.magFilter = THREE.LinearFilter;
  cube.generateMipmaps = false;
  cube.colorSpace = texture.colorSpace;
  cube.needsUpdate = true;
  return cube;
}

export const environmentFromKtx2 = (texture) => cubeFromKtx2(texture, { mirrorX: true });
