// bake_filament_render DIR MATERIAL CHAIN SH OUT [SUN]: Filament (Debian's libfilament 1.9.25, OpenGL
// backend; llvmpipe under xvfb-run here) renders the sphere grid of DIR/scene.json lit by an
// IndirectLight, and writes the float image to OUT (tests/filament/run_filament.sh runs it and compares).
//
//   CHAIN: our specular EXR (--specular x.exr: level i for roughness i / (levels - 1)), or a folder of
//          cmgen's faces, m<level>_<px|nx|py|ny|pz|nz>.exr (cmgen --format=exr --deploy), uploaded level
//          by level with Texture::setImage, faces in OpenGL's order and orientation as setImage takes
//          them ("follows exactly the OpenGL conventions", Texture.h), RGBA32F.
//   SH:    a text file of 9 "(r, g, b)" lines as --sh-format filament and cmgen --sh-shader write them
//          (pre-scaled: IndirectLight::Builder::irradiance(3, sh)).
//   SUN:   a light as --sun-format filament writes it (the arguments of LightManager::Builder(SUN)); with it
//          every sphere is the white dielectric of column 0, lit by the IndirectLight and the sun.
//   MATERIAL: tests/filament/sphere.mat compiled by matc (Filament's lit shading with the true sphere's
//          normal under each pixel and a parallel view direction).
//
// The grid: row k seen along views[k] by an orthographic camera (exposure 1: aperture 1, shutter 1.2 s,
// ISO 100), column 0 a white dielectric of reflectance 0 (f0 = 0) and roughness 1, columns 1.. white metals
// (metallic 1, f0 = 1) of the scene's roughness; the IndirectLight's intensity 1, so Filament's
// iblLuminance is 1 and a pixel is in the map's units. Post-processing off (no tone mapping, dithering or
// anti-aliasing); each view renders into an RGBA32F RenderTarget, read back with readPixels as floats.
// OUT: width x height x 4 little-endian floats, rows top to bottom, A = 1 where a sphere covers.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fstream>
#include <iterator>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

// Before Filament's headers: its utils/debug.h defines an assert_invariant macro that nlohmann's use of the
// same name would meet.
#include <nlohmann/json.hpp>

#include <filament/Camera.h>
#include <filament/Engine.h>
#include <filament/IndexBuffer.h>
#include <filament/IndirectLight.h>
#include <filament/LightManager.h>
#include <filament/Material.h>
#include <filament/MaterialInstance.h>
#include <filament/RenderTarget.h>
#include <filament/RenderableManager.h>
#include <filament/Renderer.h>
#include <filament/Scene.h>
#include <filament/Texture.h>
#include <filament/TransformManager.h>
#include <filament/VertexBuffer.h>
#include <filament/View.h>
#include <filament/Viewport.h>
#include <math/mat3.h>
#include <math/mat4.h>
#include <math/quat.h>
#include <math/vec3.h>
#include <utils/EntityManager.h>

#include "image_io.h"
#include "specular_io.h"

using namespace filament;
using namespace filament::math;
using utils::Entity;
using utils::EntityManager;
using nlohmann::json;

namespace {

std::vector<char> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot read");
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// 9 "(r, g, b)" triples in order, as cmgen and --sh-format filament write them.
std::vector<float3> read_sh(const std::string& path) {
    const std::vector<char> bytes = read_file(path);
    const std::string text(bytes.begin(), bytes.end());
    const std::regex triple(R"(\(\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*,\s*([-+0-9.eE]+)\s*\))");
    std::vector<float3> sh;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), triple); it != std::sregex_iterator(); ++it)
        sh.push_back({std::stof((*it)[1]), std::stof((*it)[2]), std::stof((*it)[3])});
    if (sh.size() < 9) throw std::runtime_error(path + ": fewer than 9 (r, g, b) coefficients");
    sh.resize(9);
    return sh;
}

// Our chain (a specular EXR) or cmgen's faces, as cube maps of RGB floats.
std::vector<bake::CubeMap> read_chain(const std::string& path) {
    if (path.size() > 4 && path.compare(path.size() - 4, 4, ".exr") == 0) return bake::read_specular_exr(path);
    static const char* faces[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    std::vector<bake::CubeMap> chain;
    for (int level = 0;; ++level) {
        const std::string first = path + "/m" + std::to_string(level) + "_px.exr";
        if (!std::ifstream(first)) break;
        bake::CubeMap cube;
        for (int f = 0; f < 6; ++f) {
            bake::LoadedImage img = bake::load_image(path + "/m" + std::to_string(level) + "_" + faces[f] + ".exr");
            if (img.is_packed() || img.image.width != img.image.height) throw std::runtime_error(path + ": a face is not square");
            if (f == 0) cube = bake::CubeMap(img.image.width);
            cube.faces[f] = std::move(img.image);
        }
        chain.push_back(std::move(cube));
    }
    if (chain.empty()) throw std::runtime_error(path + ": no m0_px.exr");
    return chain;
}

// The chain as a Filament cube map texture: RGBA32F, every level, faces in OpenGL's order.
Texture* upload_chain(Engine& engine, const std::vector<bake::CubeMap>& chain) {
    const int n = chain[0].size;
    Texture* t = Texture::Builder()
                     .width(n)
                     .height(n)
                     .levels(static_cast<uint8_t>(chain.size()))
                     .sampler(Texture::Sampler::SAMPLER_CUBEMAP)
                     .format(Texture::InternalFormat::RGBA32F)
                     .build(engine);
    for (std::size_t level = 0; level < chain.size(); ++level) {
        const int s = chain[level].size;
        const std::size_t face_floats = static_cast<std::size_t>(s) * s * 4;
        auto* data = new float[6 * face_floats];
        for (int f = 0; f < 6; ++f)
            for (std::size_t t = 0; t < static_cast<std::size_t>(s) * s; ++t) {
                for (int c = 0; c < 3; ++c) data[f * face_floats + 4 * t + c] = chain[level].faces[f].rgb[3 * t + c];
                data[f * face_floats + 4 * t + 3] = 1.0f;
            }
        Texture::PixelBufferDescriptor buffer(data, 6 * face_floats * sizeof(float), Texture::Format::RGBA, Texture::Type::FLOAT,
                                              [](void* p, size_t, void*) { delete[] static_cast<float*>(p); });
        t->setImage(engine, level, std::move(buffer), Texture::FaceOffsets(face_floats * sizeof(float)));
    }
    return t;
}

// A UV sphere of radius 1: positions and tangent frames (quaternions: tangent along +phi, normal outwards).
struct SphereMesh {
    VertexBuffer* vertices = nullptr;
    IndexBuffer* indices = nullptr;
    std::size_t index_count = 0;
};

SphereMesh make_sphere(Engine& engine, int rings, int segments) {
    const double pi = 3.14159265358979323846;
    auto* positions = new std::vector<float3>();
    auto* tangents = new std::vector<quatf>();
    auto* index = new std::vector<uint32_t>();
    for (int i = 0; i <= rings; ++i) {
        const double theta = pi * i / rings;
        for (int j = 0; j <= segments; ++j) {
            const double phi = 2 * pi * j / segments;
            const float3 n{float(std::sin(theta) * std::cos(phi)), float(std::cos(theta)), float(std::sin(theta) * std::sin(phi))};
            const float3 t{float(-std::sin(phi)), 0.0f, float(std::cos(phi))};
            positions->push_back(n);
            tangents->push_back(mat3f::packTangentFrame(mat3f{t, cross(n, t), n}));
        }
    }
    for (int i = 0; i < rings; ++i)
        for (int j = 0; j < segments; ++j) {
            const uint32_t a = i * (segments + 1) + j, b = a + segments + 1;
            index->insert(index->end(), {a, a + 1, b, a + 1, b + 1, b});
        }
    SphereMesh m;
    m.index_count = index->size();
    m.vertices = VertexBuffer::Builder()
                     .vertexCount(static_cast<uint32_t>(positions->size()))
                     .bufferCount(2)
                     .attribute(VertexAttribute::POSITION, 0, VertexBuffer::AttributeType::FLOAT3)
                     .attribute(VertexAttribute::TANGENTS, 1, VertexBuffer::AttributeType::FLOAT4)
                     .build(engine);
    m.vertices->setBufferAt(engine, 0, VertexBuffer::BufferDescriptor(positions->data(), positions->size() * sizeof(float3),
                                                                      [](void*, size_t, void* v) { delete static_cast<std::vector<float3>*>(v); }, positions));
    m.vertices->setBufferAt(engine, 1, VertexBuffer::BufferDescriptor(tangents->data(), tangents->size() * sizeof(quatf),
                                                                      [](void*, size_t, void* v) { delete static_cast<std::vector<quatf>*>(v); }, tangents));
    m.indices = IndexBuffer::Builder().indexCount(static_cast<uint32_t>(index->size())).bufferType(IndexBuffer::IndexType::UINT).build(engine);
    m.indices->setBuffer(engine, IndexBuffer::BufferDescriptor(index->data(), index->size() * sizeof(uint32_t),
                                                               [](void*, size_t, void* v) { delete static_cast<std::vector<uint32_t>*>(v); }, index));
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 6 && argc != 7) {
        std::fprintf(stderr, "usage: bake_filament_render DIR MATERIAL CHAIN SH OUT [SUN]\n");
        return 2;
    }
    const std::string dir = argv[1], material_path = argv[2], chain_path = argv[3], sh_path = argv[4], out_path = argv[5];
    const std::string sun_path = argc == 7 ? argv[6] : "";
    Engine* engine = nullptr;
    try {
        const json scene_json = json::parse(std::ifstream(dir + "/scene.json"));
        const int W = scene_json.at("width"), H = scene_json.at("height"), cell = scene_json.at("cell");
        const auto& views = scene_json.at("views");
        const auto& spheres = scene_json.at("spheres");
        const int cols = static_cast<int>(spheres.size()), rows = static_cast<int>(views.size());
        const std::vector<bake::CubeMap> chain = read_chain(chain_path);
        const std::vector<float3> sh = read_sh(sh_path);

        engine = Engine::create(Engine::Backend::OPENGL);
        if (!engine) throw std::runtime_error("Filament: no OpenGL engine");
        if (!Texture::isTextureFormatSupported(*engine, Texture::InternalFormat::RGBA32F))
            throw std::runtime_error("Filament: RGBA32F textures are not supported here");
        SwapChain* swap = engine->createSwapChain(W, cell, 0);
        Renderer* renderer = engine->createRenderer();
        Renderer::ClearOptions clear;
        clear.clearColor = {0, 0, 0, 0};
        clear.clear = true;
        renderer->setClearOptions(clear);

        const std::vector<char> package = read_file(material_path);
        Material* material = Material::Builder().package(package.data(), package.size()).build(*engine);
        Texture* cube = upload_chain(*engine, chain);
        IndirectLight* ibl = IndirectLight::Builder().reflections(cube).irradiance(3, sh.data()).intensity(1.0f).build(*engine);
        Texture* color = Texture::Builder()
                             .width(W)
                             .height(cell)
                             .levels(1)
                             .format(Texture::InternalFormat::RGBA32F)
                             .usage(Texture::Usage::COLOR_ATTACHMENT | Texture::Usage::SAMPLEABLE)
                             .build(*engine);
        Texture* depth = Texture::Builder()
                             .width(W)
                             .height(cell)
                             .levels(1)
                             .format(Texture::InternalFormat::DEPTH24)
                             .usage(Texture::Usage::DEPTH_ATTACHMENT)
                             .build(*engine);
        RenderTarget* target = RenderTarget::Builder()
                                   .texture(RenderTarget::AttachmentPoint::COLOR, color)
                                   .texture(RenderTarget::AttachmentPoint::DEPTH, depth)
                                   .build(*engine);
        const SphereMesh mesh = make_sphere(*engine, 96, 192);
        Entity sun;
        if (!sun_path.empty()) {
            const json light = json::parse(std::ifstream(sun_path));
            const std::vector<float> color = light.at("color"), direction = light.at("direction");
            sun = EntityManager::get().create();
            LightManager::Builder(LightManager::Type::SUN)
                .color({color[0], color[1], color[2]})
                .intensity(light.at("intensity").get<float>())
                .direction({direction[0], direction[1], direction[2]})
                .sunAngularRadius(light.at("sunAngularRadius").get<float>())
                .castShadows(false)
                .build(*engine, sun);
        }

        std::vector<float> image(static_cast<std::size_t>(W) * H * 4, 0.0f);
        EntityManager& em = EntityManager::get();
        for (int row = 0; row < rows; ++row) {
            const double3 v{views[row][0].get<double>(), views[row][1].get<double>(), views[row][2].get<double>()};
            const double3 right{v.z, 0, -v.x};
            Scene* scene = engine->createScene();
            scene->setIndirectLight(ibl);
            if (!sun.isNull()) scene->addEntity(sun);
            std::vector<Entity> entities;
            std::vector<MaterialInstance*> instances;
            for (int i = 0; i < cols; ++i) {
                const bool diffuse = !sun.isNull() || spheres[i].at("material") == "diffuse";
                MaterialInstance* mi = material->createInstance();
                mi->setParameter("sphere", float3{(i + 0.5f) * cell, cell / 2.0f, cell / 2.0f});
                mi->setParameter("right", float3(right));
                mi->setParameter("up", float3{0, 1, 0});
                mi->setParameter("view", float3(v));
                mi->setParameter("metallic", diffuse ? 0.0f : 1.0f);
                mi->setParameter("roughness", diffuse ? 1.0f : spheres[i].at("roughness").get<float>());
                mi->setParameter("reflectance", 0.0f);
                const Entity e = em.create();
                RenderableManager::Builder(1)
                    .boundingBox({{-1, -1, -1}, {1, 1, 1}})
                    .material(0, mi)
                    .geometry(0, RenderableManager::PrimitiveType::TRIANGLES, mesh.vertices, mesh.indices, 0, mesh.index_count)
                    .culling(false)
                    .castShadows(false)
                    .receiveShadows(false)
                    .build(*engine, e);
                auto& tm = engine->getTransformManager();
                tm.setTransform(tm.getInstance(e), mat4f::translation(float3(right * (2.0 * i))));
                scene->addEntity(e);
                entities.push_back(e);
                instances.push_back(mi);
            }
            // The material sets the view direction per pixel; the camera frames the row.
            const Entity camera_entity = em.create();
            Camera* camera = engine->createCamera(camera_entity);
            camera->setProjection(Camera::Projection::ORTHO, -1, 2.0 * cols - 1, -1, 1, 1, 20);
            camera->lookAt(v * 10.0, double3{0, 0, 0}, double3{0, 1, 0});
            camera->setExposure(1.0f);
            View* view = engine->createView();
            view->setScene(scene);
            view->setCamera(camera);
            view->setViewport({0, 0, static_cast<uint32_t>(W), static_cast<uint32_t>(cell)});
            view->setPostProcessingEnabled(false);
            view->setShadowingEnabled(false);
            view->setRenderTarget(target);

            std::vector<float> pixels(static_cast<std::size_t>(W) * cell * 4, -1.0f);
            bool read = false;
            for (int attempt = 0; attempt < 100 && !read; ++attempt) {
                if (!renderer->beginFrame(swap)) continue;
                renderer->render(view);
                if (attempt == 0)
                    renderer->readPixels(target, 0, 0, W, cell,
                                         backend::PixelBufferDescriptor(pixels.data(), pixels.size() * sizeof(float),
                                                                        backend::PixelDataFormat::RGBA, backend::PixelDataType::FLOAT,
                                                                        [](void*, size_t, void* flag) { *static_cast<bool*>(flag) = true; }, &read));
                renderer->endFrame();
                engine->flushAndWait();
            }
            if (!read) throw std::runtime_error("Filament: readPixels never completed");
            // Filament's readPixels of a RenderTarget gives the rows top to bottom here (the sky, +Y, in the
            // first rows of a diffuse sphere lit through its mesh normals).
            std::memcpy(&image[static_cast<std::size_t>(row) * cell * W * 4], pixels.data(), pixels.size() * sizeof(float));

            engine->destroy(view);
            engine->destroyCameraComponent(camera_entity);
            em.destroy(camera_entity);
            for (Entity e : entities) {
                engine->destroy(e);
                em.destroy(e);
            }
            for (MaterialInstance* mi : instances) engine->destroy(mi);
            engine->destroy(scene);
        }
        // Coverage: the clear leaves alpha 0; a lit sphere writes 1.
        for (std::size_t i = 0; i < image.size(); i += 4) image[i + 3] = image[i + 3] > 0.5f ? 1.0f : 0.0f;
        std::ofstream out(out_path, std::ios::binary);
        out.write(reinterpret_cast<const char*>(image.data()), static_cast<std::streamsize>(image.size() * sizeof(float)));
        if (!out) throw std::runtime_error(out_path + ": cannot write");
        std::printf("bake_filament_render: %s with %zu levels of %d, %s: %dx%d\n", chain_path.c_str(), chain.size(), chain[0].size,
                    sh_path.c_str(), W, H);
        if (!sun.isNull()) {
            engine->destroy(sun);
            EntityManager::get().destroy(sun);
        }
        engine->destroy(mesh.vertices);
        engine->destroy(mesh.indices);
        engine->destroy(target);
        engine->destroy(color);
        engine->destroy(depth);
        engine->destroy(ibl);
        engine->destroy(cube);
        engine->destroy(material);
        engine->destroy(renderer);
        engine->destroy(swap);
        Engine::destroy(&engine);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "bake_filament_render: %s\n", e.what());
        if (engine) Engine::destroy(&engine);
        return 1;
    }
    return 0;
}
