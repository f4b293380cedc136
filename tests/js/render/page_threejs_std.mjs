// three.js's standard path as users take it (served and driven by tests/js/render/render_threejs_std.mjs):
// our spec.ktx2 (rgba16f) loaded with KTX2Loader, made a cube by three_cube.mjs, set as scene.environment
// (three.js turns it into its own PMREM chain), and the sphere grid of scene.json lit by it: column 0 a
// white MeshPhysicalMaterial of metalness 0, roughness 1 and specularIntensity 0 (no specular: the pixel
// is three.js's irradiance from the PMREM, times 1/pi times pi), columns 1.. MeshStandardMaterial metals
// (metalness 1, white, roughness r: with F0 = 1 its multiple-scattering IBL terms sum to 1, so the pixel
// is the PMREM's radiance). Orthographic cameras, one float render target a row, no tone mapping.
//   standard:           scene.environment = environmentFromKtx2(texture) (mirrored in x, the documented step)
//   standard_as_loaded: scene.environment = cubeFromKtx2(texture) (the faces as in the file)
import * as THREE from 'three';
import { KTX2Loader } from 'three/addons/loaders/KTX2Loader.js';
import { cubeFromKtx2, environmentFromKtx2 } from '/three_cube.mjs';

const status = (window.bakeRender = { done: false, log: [], images: {} });
const log = (s) => { status.log.push(s); console.log(s); };

async function main() {
  const scene0 = await (await fetch('/data/scene.json')).json();
  const { width: W, height: H, cell } = scene0;
  const cols = scene0.spheres.length, rows = scene0.views.length;
  const renderer = new THREE.WebGLRenderer({ canvas: document.getElementById('view'), antialias: false, alpha: true });
  renderer.setPixelRatio(1);
  renderer.setSize(W, H, false);
  renderer.toneMapping = THREE.NoToneMapping;
  const gl = renderer.getContext();
  status.webgl = { version: gl.getParameter(gl.VERSION), three: THREE.REVISION };
  const ktx2 = new KTX2Loader().setTranscoderPath('/three/examples/jsm/libs/basis/').detectSupport(renderer);
  const texture = await ktx2.loadAsync(`/data/${scene0.files.specular_ktx2}`);
  const environments = { standard: environmentFromKtx2(texture), standard_as_loaded: cubeFromKtx2(texture) };
  const geometry = new THREE.SphereGeometry(1, 192, 96);
  const target = new THREE.WebGLRenderTarget(W, cell, { type: THREE.FloatType, format: THREE.RGBAFormat,
    minFilter: THREE.NearestFilter, magFilter: THREE.NearestFilter, depthBuffer: true, generateMipmaps: false });
  const rowPixels = new Float32Array(W * cell * 4);
  for (const [name, environment] of Object.entries(environments)) {
    const t0 = performance.now();
    const image = new Float32Array(W * H * 4);
    for (let row = 0; row < rows; row++) {
      const v = new THREE.Vector3(...scene0.views[row]);
      const right = new THREE.Vector3(v.z, 0, -v.x);
      const scene = new THREE.Scene();
      scene.environment = environment;
      scene0.spheres.forEach((sp, i) => {
        const material = sp.material === 'diffuse'
          ? new THREE.MeshPhysicalMaterial({ color: 0xffffff, metalness: 0, roughness: 1, specularIntensity: 0 })
          : new THREE.MeshStandardMaterial({ color: 0xffffff, metalness: 1, roughness: sp.roughness });
        const mesh = new THREE.Mesh(geometry, material);
        mesh.position.copy(right).multiplyScalar(2 * i);
        scene.add(mesh);
      });
      const camera = new THREE.OrthographicCamera(-1, 2 * cols - 1, 1, -1, 0.5, 20);
      camera.position.copy(v).multiplyScalar(10);
      camera.up.set(0, 1, 0);
      camera.lookAt(0, 0, 0);
      renderer.setRenderTarget(target);
      renderer.setClearColor(0x000000, 0);
      renderer.clear();
      renderer.render(scene, camera);
      renderer.readRenderTargetPixels(target, 0, 0, W, cell, rowPixels);
      for (let y = 0; y < cell; y++)  // GL rows are bottom to top
        image.set(rowPixels.subarray((cell - 1 - y) * W * 4, (cell - y) * W * 4), (row * cell + y) * W * 4);
    }
    renderer.setRenderTarget(null);
    const bytes = new Uint8Array(image.buffer);
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    status.images[name] = btoa(bin);
    log(`rendered ${name} in ${(performance.now() - t0).toFixed(0)} ms`);
  }
  status.done = true;
}

main().catch((e) => { status.error = String(e && e.stack || e); console.error(status.error); status.done = true; });
