// The three.js side of the render test (served and driven by tests/js/render/render.mjs).
//
// Loads what bake-irradiance wrote, with three.js's own loaders: the GGX chain spec.ktx2 and the DFG
// table dfg.ktx2 with KTX2Loader, the SH probe.json with ObjectLoader (a LightProbe). Renders the
// sphere grid of scene.json (bake_render_reference wrote it and shaded the same grid on the CPU):
// row k seen along views[k] by an orthographic camera, column 0 a white MeshLambertMaterial lit by
// the LightProbe only, columns 1.. white metals (F0 = 1) of the given roughness. Each row goes to a
// float render target (no tone mapping, linear), read back with readRenderTargetPixels.
//
// Renders, each returned as base64 of width x height x 4 floats, rows top to bottom:
//   shader:          the metals as a ShaderMaterial that reads our chain at the mirror direction with
//                    textureLod(level = roughness * (levels - 1)) and multiplies by the DFG table's
//                    A + B (NEAREST at uv = (N.V, r)): the split sum as our preview computes it; chain and
//                    table in rgba32f (float32 textures, filtered linearly: OES_texture_float_linear).
//   shader_rgba16f:  the same from the rgba16f files (the tool's default format).
//   shader_bc6h:     the same chain from the BC6H DDS as three.js's DDSLoader loads it (a CompressedTexture of
//                    six faces, RGB_BPTC_UNSIGNED: EXT_texture_compression_bptc), the rgba32f DFG table.
//   diffuse_sun:     every sphere the white MeshLambertMaterial, lit by the LightProbe of the map with its sun
//                    taken out (probe_sun.json) and by the sun as our DirectionalLight (threejs_sun.json,
//                    ObjectLoader): three.js drawing the sun as a real light.
//   standard:        the metals as MeshStandardMaterial (metalness 1, roughness r) with envMap = a
//                    PMREM that three.js's PMREMGenerator makes from our rgba16f cube as KTX2Loader loaded it.
//   standard_mirror: the same from our cube mirrored in x (three_cube.mjs's environmentFromKtx2), which
//                    undoes the x negation three.js applies to every CubeTexture it samples.
// The canvas shows `shader` through Reinhard at exposure 1 / mean (for the screenshot).
import * as THREE from 'three';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { DDSLoader } from 'three/addons/loaders/DDSLoader.js';
import { cubeFromKtx2, environmentFromKtx2 } from '/three_cube.mjs';

const status = (window.bakeRender = { done: false, log: [] });
const log = (s) => { status.log.push(s); console.log(s); };

const vertexShader = /* glsl */ `
void main() {
  gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
}`;

const fragmentShader = /* glsl */ `
uniform samplerCube chain;
uniform sampler2D dfg;
uniform float roughness;
uniform float maxLevel;
uniform vec2 centre;   // the sphere's centre in window pixels
uniform float radius;  // its radius in pixels
void main() {
  vec2 l = (gl_FragCoord.xy - centre) / radius;
  float nv = sqrt(max(0.0, 1.0 - dot(l, l)));
  vec3 n = (vec4(l, nv, 0.0) * viewMatrix).xyz;   // view to world (viewMatrix is a rotation here)
  vec3 v = (vec4(0.0, 0.0, 1.0, 0.0) * viewMatrix).xyz;
  vec3 r = 2.0 * nv * n - v;
  vec3 prefiltered = textureLod(chain, r, roughness * maxLevel).rgb;
  float albedo = texture2D(dfg, vec2(nv, roughness)).b;  // A + B: F0 = 1
  gl_FragColor = vec4(prefiltered * albedo, 1.0);
  #include <tonemapping_fragment>
  #include <colorspace_fragment>
}`;

async function main() {
  const scene = await (await fetch('/data/scene.json')).json();
  const { width: W, height: H, cell } = scene;
  const cols = scene.spheres.length, rows = scene.views.length;

  const canvas = document.getElementById('view');
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, alpha: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(1);
  renderer.setSize(W, H, false);
  const gl = renderer.getContext();
  status.webgl = { version: gl.getParameter(gl.VERSION), renderer: gl.getParameter(gl.RENDERER),
                   colorBufferFloat: !!gl.getExtension('EXT_color_buffer_float'),
                   floatLinear: !!gl.getExtension('OES_texture_float_linear') };
  log(`WebGL: ${status.webgl.version}; ${status.webgl.renderer}; EXT_color_buffer_float ${status.webgl.colorBufferFloat}; ` +
      `OES_texture_float_linear ${status.webgl.floatLinear}`);
  if (!(gl instanceof WebGL2RenderingContext)) throw new Error('no WebGL 2');
  // Without it a float32 cube with mipmap filtering is incomplete and samples as black.
  if (!status.webgl.floatLinear) throw new Error('no OES_texture_float_linear: float32 textures cannot be filtered');

  const ktx2 = new KTX2Loader().setTranscoderPath('/three/examples/jsm/libs/basis/').detectSupport(renderer);
  // One chain and DFG table a format: {chain (a cube), raw (as KTX2Loader returned it), dfg}.
  const load = async (specFile, dfgFile) => {
    const raw = await ktx2.loadAsync(`/data/${specFile}`);
    const dfg = await ktx2.loadAsync(`/data/${dfgFile}`);
    log(`KTX2Loader: ${specFile} -> ${raw.constructor.name} ${raw.image.width}x${raw.image.height}, ` +
        `${raw.mipmaps.length} mips, type ${raw.type}; ${dfgFile} -> ${dfg.constructor.name} ` +
        `${dfg.image.width}x${dfg.image.height}, type ${dfg.type}`);
    const chain = cubeFromKtx2(raw);
    if (chain.image[0].mipmaps.length !== scene.levels)
      throw new Error(`${specFile} has ${chain.image[0].mipmaps.length} levels, scene says ${scene.levels}`);
    dfg.minFilter = THREE.NearestFilter;
    dfg.magFilter = THREE.NearestFilter;
    dfg.needsUpdate = true;
    return { chain, raw, dfg };
  };
  const f32 = await load(scene.files.specular, scene.files.dfg);
  const f16 = await load(scene.files.specular_rgba16f, scene.files.dfg_rgba16f);
  if (f32.raw.type !== THREE.FloatType || f16.raw.type !== THREE.HalfFloatType)
    throw new Error(`texture types ${f32.raw.type}, ${f16.raw.type}: not float and half float`);
  // BC6H: KTX2Loader (0.187) refuses vkFormat 143, so the DDS, which DDSLoader reads.
  if (!gl.getExtension('EXT_texture_compression_bptc')) throw new Error('no EXT_texture_compression_bptc: BC6H cannot be sampled');
  const bc6h = await new DDSLoader().loadAsync(`/data/${scene.files.specular_bc6h_dds}`);
  log(`DDSLoader: ${scene.files.specular_bc6h_dds} -> format ${bc6h.format}, ${bc6h.image.length} faces of ` +
      `${bc6h.image[0].mipmaps.length} levels`);
  if (bc6h.format !== THREE.RGB_BPTC_UNSIGNED_Format || bc6h.image.length !== 6 || bc6h.image[0].mipmaps.length !== scene.levels)
    throw new Error(`${scene.files.specular_bc6h_dds}: not six BC6H faces of ${scene.levels} levels`);
  bc6h.minFilter = THREE.LinearMipmapLinearFilter;
  bc6h.magFilter = THREE.LinearFilter;
  bc6h.generateMipmaps = false;
  bc6h.needsUpdate = true;
  // X mirrored: +X' = -X and -X' = +X, every face's columns reversed.
  const chainMirror = environmentFromKtx2(f16.raw);

  const probeJson = await (await fetch(`/data/${scene.files.probe}`)).json();
  const objectLoader = new THREE.ObjectLoader();
  const probeOf = () => { const p = objectLoader.parse(probeJson); if (!p.isLightProbe) throw new Error('not a LightProbe'); return p; };
  const probeSunJson = await (await fetch(`/data/${scene.files.probe_sun}`)).json();
  const sunJson = await (await fetch(`/data/${scene.files.sun_light}`)).json();
  // The residual's probe and the sun, for the diffuse_sun variant.
  const sunLights = () => {
    const probe = objectLoader.parse(probeSunJson), sun = objectLoader.parse(sunJson);
    if (!probe.isLightProbe || !sun.isDirectionalLight) throw new Error('probe_sun.json / threejs_sun.json: not a LightProbe and a DirectionalLight');
    return [probe, sun];
  };

  const pmrem = new THREE.PMREMGenerator(renderer);
  const envs = { standard: pmrem.fromCubemap(f16.chain).texture, standard_mirror: pmrem.fromCubemap(chainMirror).texture };

  const geometry = new THREE.SphereGeometry(1, 192, 96);
  const diffuse = new THREE.MeshLambertMaterial({ color: 0xffffff });
  const shaderMaterial = (files, roughness, centre) => new THREE.ShaderMaterial({
    uniforms: { chain: { value: files.chain }, dfg: { value: files.dfg }, roughness: { value: roughness },
                maxLevel: { value: scene.levels - 1 }, centre: { value: centre }, radius: { value: cell / 2 } },
    vertexShader, fragmentShader });
  const metal = {
    shader: (r, centre) => shaderMaterial(f32, r, centre),
    shader_rgba16f: (r, centre) => shaderMaterial(f16, r, centre),
    shader_bc6h: (r, centre) => shaderMaterial({ chain: bc6h, dfg: f32.dfg }, r, centre),
    standard: (r) => new THREE.MeshStandardMaterial({ color: 0xffffff, metalness: 1, roughness: r, envMap: envs.standard }),
    standard_mirror: (r) => new THREE.MeshStandardMaterial({ color: 0xffffff, metalness: 1, roughness: r, envMap: envs.standard_mirror }),
  };

  // One scene a row and variant: spheres along the camera's right, the probe lighting the Lambert sphere.
  // y0: the row's bottom in window pixels (0 in the row's render target).
  const rowScene = (variant, row, y0 = 0) => {
    const v = new THREE.Vector3(...scene.views[row]);
    const right = new THREE.Vector3(v.z, 0, -v.x);
    const s = new THREE.Scene();
    const sunLit = variant === 'diffuse_sun';
    for (const light of sunLit ? sunLights() : [probeOf()]) s.add(light);
    scene.spheres.forEach((sp, i) => {
      const centre = new THREE.Vector2((i + 0.5) * cell, y0 + cell / 2);
      const mesh = new THREE.Mesh(geometry, sunLit || sp.material === 'diffuse' ? diffuse : metal[variant](sp.roughness, centre));
      mesh.position.copy(right).multiplyScalar(2 * i);
      s.add(mesh);
    });
    const camera = new THREE.OrthographicCamera(-1, 2 * cols - 1, 1, -1, 0.5, 20);
    camera.position.copy(v).multiplyScalar(10);
    camera.up.set(0, 1, 0);
    camera.lookAt(0, 0, 0);
    camera.updateMatrixWorld();
    return { s, camera };
  };

  renderer.toneMapping = THREE.NoToneMapping;
  const target = new THREE.WebGLRenderTarget(W, cell, { type: THREE.FloatType, format: THREE.RGBAFormat,
    minFilter: THREE.NearestFilter, magFilter: THREE.NearestFilter, depthBuffer: true, generateMipmaps: false });
  const rowPixels = new Float32Array(W * cell * 4);
  status.images = {};
  for (const variant of [...Object.keys(metal), 'diffuse_sun']) {
    const t0 = performance.now();
    const image = new Float32Array(W * H * 4);
    for (let row = 0; row < rows; row++) {
      const { s, camera } = rowScene(variant, row);
      renderer.setRenderTarget(target);
      renderer.setClearColor(0x000000, 0);
      renderer.clear();
      renderer.render(s, camera);
      renderer.readRenderTargetPixels(target, 0, 0, W, cell, rowPixels);
      for (let y = 0; y < cell; y++)  // GL rows are bottom to top
        image.set(rowPixels.subarray((cell - 1 - y) * W * 4, (cell - y) * W * 4), ((row * cell) + y) * W * 4);
    }
    renderer.setRenderTarget(null);
    const bytes = new Uint8Array(image.buffer);
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    status.images[variant] = btoa(bin);
    log(`rendered ${variant} in ${(performance.now() - t0).toFixed(0)} ms`);
  }

  // The screenshot: the shader variant on the canvas, Reinhard at exposure 1 / mean, sRGB.
  const f = new Float32Array(Uint8Array.from(atob(status.images.shader), (c) => c.charCodeAt(0)).buffer);
  let sum = 0, count = 0;
  for (let i = 0; i < f.length; i += 4) if (f[i + 3] > 0.5) { sum += (f[i] + f[i + 1] + f[i + 2]) / 3; count++; }
  renderer.toneMapping = THREE.ReinhardToneMapping;
  renderer.toneMappingExposure = count ? count / sum : 1;
  renderer.outputColorSpace = THREE.SRGBColorSpace;
  renderer.setClearColor(0x000000, 1);
  renderer.setScissorTest(true);
  renderer.clear();
  for (let row = 0; row < rows; row++) {
    const { s, camera } = rowScene('shader', row, (rows - 1 - row) * cell);
    renderer.setViewport(0, (rows - 1 - row) * cell, W, cell);
    renderer.setScissor(0, (rows - 1 - row) * cell, W, cell);
    renderer.render(s, camera);
  }
  status.exposure = renderer.toneMappingExposure;
  status.done = true;
}

main().catch((e) => { status.error = String(e && e.stack || e); console.error(status.error); status.done = true; });
