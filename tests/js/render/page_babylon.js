// The Babylon.js side of the engine render test (served and driven by tests/js/render/render_babylon.mjs).
// A classic script: babylon.js and babylon.glTF2FileLoader.js (npm babylonjs, babylonjs-loaders) are UMD
// bundles that set window.BABYLON.
//
// Loads our --gltf file (ibl.glb) with Babylon's own glTF loader (EXT_lights_image_based sets
// scene.environmentTexture) and renders the sphere grid of scene.json in the glTF world: row k seen
// along views[k] by an orthographic camera, column 0 a white diffuse PBRMaterial (metallic 0,
// metallicF0Factor 0: no specular at all, so the pixel is the SH irradiance / pi Babylon evaluates, here
// per pixel: forceIrradianceInFragment),
// columns 1.. white metals (metallic 1, F0 = F90 = 1) of the given roughness. Each row goes to a float
// RenderTargetTexture (image processing applied by a post process that is not there: linear, unclamped).
//
// Babylon's PBR for a white metal: environment radiance x reflectance x energy conservation; with
// F0 = F90 = 1 these are y and 1/y of its BRDF table (pbrBlockReflectance, pbrBlockFinalLitComponents),
// so the pixel is the radiance the cube holds at the reflected direction and the level Babylon reads.
// Two settings make Babylon read what the extension's README says (levels evenly in roughness) and show
// it unmixed: environmentTexture.linearSpecularLOD = true (level = roughness x (levels - 1) with the
// loader's lodGenerationScale) and material.brdf.mixIblRadianceWithIrradiance = false (Babylon's default
// blends the radiance towards the SH irradiance by alpha).
//
// The glTF world in each scene: right-handed scenes load glTF as it is; left-handed ones (Babylon's
// default) under a root node that maps glTF (x, y, z) to (-x, y, z) (glTFLoader _createRootNode: rotation
// 180 degrees about Y, scale z -1). The spheres and cameras are placed with the same map, so both scenes
// show the glTF world from the same places.
//
// Babylon turns loaded glTF content by 180 degrees about Y in a left-handed scene (the root node's
// rotation) but not the environment the file brings: there the environment shows turned by 180 degrees
// against the glTF world, whatever the file holds (the file's `rotation` is applied in both kinds of
// scene alike). environmentTexture.rotationY = Math.PI turns it back.
//
// Cases (each a fresh scene that loads the file again):
//   rh:               right-handed, environmentTexture.gammaSpace = false (the workaround: Babylon's
//                     loader leaves gammaSpace true on the decoded cube, and its shader would then raise
//                     the linear radiance to the power 2.2).
//   lh:               left-handed, gammaSpace = false and rotationY = Math.PI.
//   rh_gltf:          as rh, from the .gltf with its PNGs beside it (loaded by URL).
//   lh_as_loaded:     left-handed, gammaSpace = false, no rotation.
//   rh_gamma:         right-handed, gammaSpace as the loader leaves it.
//   rh_babylon_lod:   right-handed, gammaSpace false, Babylon's own level choice (linearSpecularLOD off).
//   rh_intensity2:    right-handed, gammaSpace false, the file's light intensity set to 2.
//   rh_sun:           as rh, from ibl_sun.glb (--extract-sun: the residual and its sun as a KHR_lights_punctual
//                     directional light, which the loader makes a DirectionalLight), every sphere the diffuse one.
(function () {
  const status = (window.bakeRender = { done: false, log: [], images: {}, cases: {} });
  const log = (s) => { status.log.push(s); console.log(s); };

  // A .glb with its light's intensity replaced (the JSON chunk rewritten, the BIN chunk kept).
  function withIntensity(glb, intensity) {
    const view = new DataView(glb.buffer, glb.byteOffset, glb.byteLength);
    const jsonLength = view.getUint32(12, true);
    const doc = JSON.parse(new TextDecoder().decode(glb.subarray(20, 20 + jsonLength)));
    doc.extensions.EXT_lights_image_based.lights[0].intensity = intensity;
    let text = JSON.stringify(doc);
    while (text.length % 4) text += ' ';
    const json = new TextEncoder().encode(text), bin = glb.subarray(20 + jsonLength);
    const out = new Uint8Array(20 + json.length + bin.length);
    const o = new DataView(out.buffer);
    out.set(glb.subarray(0, 12));
    o.setUint32(8, out.length, true);
    o.setUint32(12, json.length, true);
    o.setUint32(16, 0x4E4F534A, true);
    out.set(json, 20);
    out.set(bin, 20 + json.length);
    return out;
  }

  // The true sphere under each pixel, as the reference shades it: a material plugin sets Babylon's
  // normalW and viewDirectionW from the pixel's position in the sphere's disc (bakeSphere: centre in
  // window pixels, radius) and the camera's right, up and view directions, where the mesh would give
  // its interpolated normals (at the silhouette they turn a grazing mirror reflection by degrees).
  // Everything after that line (environment lookup, BRDF, SH) is Babylon's own.
  function analyticSphere(material, sphere, right, up, view) {
    const B = window.BABYLON;
    class AnalyticSphere extends B.MaterialPluginBase {
      constructor() {
        super(material, 'BakeAnalyticSphere', 200, { BAKESPHERE: false });
        this._enable(true);
      }
      getClassName() { return 'BakeAnalyticSphere'; }
      prepareDefines(defines) { defines.BAKESPHERE = true; }
      getUniforms() {
        return { ubo: [{ name: 'bakeSphere', size: 3, type: 'vec3' }, { name: 'bakeRight', size: 3, type: 'vec3' },
                       { name: 'bakeUp', size: 3, type: 'vec3' }, { name: 'bakeView', size: 3, type: 'vec3' }],
                 fragment: '#ifdef BAKESPHERE\nuniform vec3 bakeSphere; uniform vec3 bakeRight; uniform vec3 bakeUp; uniform vec3 bakeView;\n#endif\n' };
      }
      bindForSubMesh(ubo) {
        ubo.updateVector3('bakeSphere', sphere);
        ubo.updateVector3('bakeRight', right);
        ubo.updateVector3('bakeUp', up);
        ubo.updateVector3('bakeView', view);
      }
      getCustomCode(shaderType) {
        return shaderType !== 'fragment' ? null : { CUSTOM_FRAGMENT_UPDATE_ALPHA: `
#ifdef BAKESPHERE
{ vec2 l = (gl_FragCoord.xy - bakeSphere.xy) / bakeSphere.z;
  float w = sqrt(max(0.0, 1.0 - dot(l, l)));
  normalW = normalize(l.x * bakeRight + l.y * bakeUp + w * bakeView);
  viewDirectionW = bakeView; }
#endif
` };
      }
    }
    return new AnalyticSphere();
  }

  async function renderCase(engine, scene0, glb, c) {
    const B = window.BABYLON;
    const { width: W, height: H, cell } = scene0;
    const cols = scene0.spheres.length, rows = scene0.views.length;
    const scene = new B.Scene(engine);
    scene.useRightHandedSystem = c.rightHanded;
    scene.clearColor = new B.Color4(0, 0, 0, 0);
    scene.imageProcessingConfiguration.applyByPostProcess = true;  // no post process: linear output
    scene.imageProcessingConfiguration.skipFinalColorClamp = true;
    if (c.url) await B.AppendSceneAsync(c.url, scene);
    else await B.AppendSceneAsync(glb, scene, { pluginExtension: '.glb' });
    const env = scene.environmentTexture;
    if (c.sun) log(`${c.name}: lights ${scene.lights.map((l) => `${l.getClassName()} intensity ${l.intensity} direction ` +
                   `${l.direction} diffuse ${l.diffuse} falloff ${l.falloffType}`).join('; ')}`);
    if (!env) throw new Error(`${c.name}: the loader set no environmentTexture`);
    const info = { gammaSpaceAsLoaded: env.gammaSpace, level: env.level, linearSpecularLODAsLoaded: env.linearSpecularLOD,
                   isRGBD: env.isRGBD, textureType: env._texture && env._texture.type,
                   lodGenerationScale: env.lodGenerationScale };
    if (c.gammaFix) env.gammaSpace = false;
    if (c.linearLod) env.linearSpecularLOD = true;
    if (c.turn) env.rotationY = Math.PI;
    status.cases[c.name] = info;
    log(`${c.name}: loaded; environmentTexture ${env.getClassName()} gammaSpace ${info.gammaSpaceAsLoaded} -> ${env.gammaSpace}, ` +
        `level ${env.level}, linearSpecularLOD ${info.linearSpecularLODAsLoaded} -> ${env.linearSpecularLOD}, RGBD ${env.isRGBD}, ` +
        `texture type ${info.textureType}, lodGenerationScale ${info.lodGenerationScale}`);

    const conv = (x, y, z) => (c.rightHanded ? new B.Vector3(x, y, z) : new B.Vector3(-x, y, z));
    const material = (sp, i) => {
      const m = new B.PBRMaterial(`m${i}`, scene);
      m.albedoColor = new B.Color3(1, 1, 1);
      m.brdf.mixIblRadianceWithIrradiance = false;
      m.forceIrradianceInFragment = true;  // the SH at the pixel's (true) normal, not at the mesh's vertices
      if (sp.material === 'diffuse' || c.allDiffuse) {
        m.metallic = 0;
        m.roughness = 1;
        m.metallicF0Factor = 0;
      } else {
        m.metallic = 1;
        m.roughness = sp.roughness;
      }
      return m;
    };
    const target = new B.RenderTargetTexture('rt', { width: W, height: cell }, scene, false, true,
                                             B.Constants.TEXTURETYPE_FLOAT, false, B.Constants.TEXTURE_NEAREST_SAMPLINGMODE);
    target.clearColor = new B.Color4(0, 0, 0, 0);
    const image = new Float32Array(W * H * 4);
    for (let row = 0; row < rows; row++) {
      const [vx, vy, vz] = scene0.views[row];
      const right = [vz, 0, -vx];
      const meshes = scene0.spheres.map((sp, i) => {
        const s = B.MeshBuilder.CreateSphere(`s${row}_${i}`, { diameter: 2, segments: 96 }, scene);
        s.position = conv(right[0] * 2 * i, 0, right[2] * 2 * i);
        s.material = material(sp, i);
        analyticSphere(s.material, new B.Vector3((i + 0.5) * cell, cell / 2, cell / 2), conv(...right),
                       new B.Vector3(0, 1, 0), conv(vx, vy, vz));
        return s;
      });
      // Far away: Babylon's PBR takes the view vector from the eye's position even for an orthographic
      // camera, so the eye must be far for it to be parallel (8 units across at 1e5: 8e-5 radians).
      const far = 1e5;
      const camera = new B.FreeCamera(`c${row}`, conv(far * vx, far * vy, far * vz), scene);
      camera.upVector = new B.Vector3(0, 1, 0);
      camera.setTarget(conv(0, 0, 0));
      camera.mode = B.Camera.ORTHOGRAPHIC_CAMERA;
      camera.orthoLeft = -1; camera.orthoRight = 2 * cols - 1; camera.orthoTop = 1; camera.orthoBottom = -1;
      camera.minZ = far - 10; camera.maxZ = far + 10;
      scene.activeCamera = camera;
      target.activeCamera = camera;
      target.renderList = meshes;
      await scene.whenReadyAsync();
      for (const s of meshes)
        for (let k = 0; !s.material.isReady(s) && k < 200; k++) await new Promise((r) => setTimeout(r, 50));
      target.render();
      const px = await target.readPixels();
      if (!px || px.length !== W * cell * 4) throw new Error(`${c.name}: readPixels gave ${px && px.length} values`);
      for (let y = 0; y < cell; y++)  // GL rows are bottom to top
        image.set(px.subarray((cell - 1 - y) * W * 4, (cell - y) * W * 4), (row * cell + y) * W * 4);
      meshes.forEach((s) => { s.material.dispose(); s.dispose(); });
      camera.dispose();
    }
    target.dispose();
    scene.dispose();
    const bytes = new Uint8Array(image.buffer);
    let bin = '';
    for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
    status.images[c.name] = btoa(bin);
  }

  async function main() {
    const B = window.BABYLON;
    const scene0 = await (await fetch('/data/scene.json')).json();
    const canvas = document.getElementById('view');
    canvas.width = scene0.width;
    canvas.height = scene0.height;
    const engine = new B.Engine(canvas, false, { preserveDrawingBuffer: true, stencil: false });
    const caps = engine.getCaps();
    status.webgl = { version: engine.webGLVersion, renderer: engine.getGlInfo().renderer, babylon: B.Engine.Version,
                     textureFloatRender: caps.textureFloatRender, textureHalfFloatRender: caps.textureHalfFloatRender,
                     textureFloatLinearFiltering: caps.textureFloatLinearFiltering };
    log(`Babylon.js ${B.Engine.Version}; WebGL ${engine.webGLVersion}; ${status.webgl.renderer}; float render ` +
        `${caps.textureFloatRender}, half-float render ${caps.textureHalfFloatRender}`);
    if (engine.webGLVersion < 2 || !caps.textureFloatRender) throw new Error('no WebGL 2 with float render targets');
    const glb = new Uint8Array(await (await fetch(`/data/${scene0.files.gltf}`)).arrayBuffer());
    const cases = [
      { name: 'rh', rightHanded: true, gammaFix: true, linearLod: true },
      { name: 'lh', rightHanded: false, gammaFix: true, linearLod: true, turn: true },
      { name: 'rh_gltf', rightHanded: true, gammaFix: true, linearLod: true, url: `/data/${scene0.files.gltf_json}` },
      { name: 'lh_as_loaded', rightHanded: false, gammaFix: true, linearLod: true },
      { name: 'rh_gamma', rightHanded: true, gammaFix: false, linearLod: true },
      { name: 'rh_babylon_lod', rightHanded: true, gammaFix: true, linearLod: false },
      { name: 'rh_intensity2', rightHanded: true, gammaFix: true, linearLod: true, intensity: 2 },
      { name: 'rh_sun', rightHanded: true, gammaFix: true, linearLod: true, allDiffuse: true, sun: true },
    ];
    const glbSun = new Uint8Array(await (await fetch(`/data/${scene0.files.gltf_sun}`)).arrayBuffer());
    for (const c of cases) {
      const t0 = performance.now();
      await renderCase(engine, scene0, c.sun ? glbSun : c.intensity ? withIntensity(glb, c.intensity) : glb, c);
      log(`rendered ${c.name} in ${(performance.now() - t0).toFixed(0)} ms`);
    }
    engine.dispose();
    status.done = true;
  }

  main().catch((e) => { status.error = String(e && e.stack || e); console.error(status.error); status.done = true; });
})();
