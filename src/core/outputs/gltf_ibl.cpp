#include "gltf_ibl.h"

#include <cstdint>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "engine_sh.h"
#include "errors.h"
#include "ktx2_writer.h"
#include "rgbd.h"

namespace bake {
namespace {

using nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

std::string base64(const Bytes& in) {
    static const char* k = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    for (std::size_t i = 0; i < in.size(); i += 3) {
        const std::uint32_t n = (in[i] << 16) | ((i + 1 < in.size() ? in[i + 1] : 0) << 8) | (i + 2 < in.size() ? in[i + 2] : 0);
        out += k[(n >> 18) & 63];
        out += k[(n >> 12) & 63];
        out += i + 1 < in.size() ? k[(n >> 6) & 63] : '=';
        out += i + 2 < in.size() ? k[n & 63] : '=';
    }
    return out;
}

void validate_chain(const std::vector<CubeMap>& chain) {
    if (chain.empty()) throw std::invalid_argument("the specular chain has no level");
    const int n = chain[0].size;
    if (n < 1 || (n & (n - 1)) != 0) throw std::invalid_argument("the specular faces must be a power of two");
    for (std::size_t i = 0; i < chain.size(); ++i) {
        const int size = n >> i;
        if (size < 1 || chain[i].size != size) throw std::invalid_argument("specular level " + std::to_string(i) + " must be " + std::to_string(size) + "x" + std::to_string(size));
        for (const Image& f : chain[i].faces)
            if (f.width != size || f.height != size) throw std::invalid_argument("specular level " + std::to_string(i) + " has a face of the wrong size");
    }
}

// Every face's PNG, level by level, +X -X +Y -Y +Z -Z.
std::vector<Bytes> face_pngs(const std::vector<CubeMap>& chain) {
    std::vector<Bytes> pngs;
    for (const CubeMap& level : chain)
        for (const Image& face : level.faces)
            pngs.push_back(encode_png_rgba8(encode_rgbd_image(face, true), face.width, face.height));
    return pngs;
}

json light_json(const std::vector<CubeMap>& chain, const ShCoefficients& radiance) {
    json coefficients = json::array();
    for (const Rgb& c : gltf_irradiance_coefficients(radiance)) coefficients.push_back({c[0], c[1], c[2]});
    json images = json::array(), roughness = json::array();
    for (std::size_t i = 0, index = 0; i < chain.size(); ++i) {
        json faces = json::array();
        for (int f = 0; f < 6; ++f) faces.push_back(index++);
        images.push_back(faces);
        roughness.push_back(chain.size() > 1 ? static_cast<double>(i) / static_cast<double>(chain.size() - 1) : 0.0);
    }
    // The extension maps the levels evenly from roughness 0 to 1; extras says so per level, as the
    // tool's other chain files do.
    return {{"name", "environment"},
            {"intensity", 1.0},
            {"rotation", {0.0, 0.0, 0.0, 1.0}},
            {"irradianceCoefficients", coefficients},
            {"specularImageSize", chain[0].size},
            {"specularImages", images},
            {"extras", {{"bakeSpecularRoughness", roughness}, {"bakeSpecularConvention", "GGX, alpha = roughness^2, N=V=R"}}}};
}

json document(const std::vector<CubeMap>& chain, const ShCoefficients& radiance) {
    return {{"asset", {{"version", "2.0"}, {"generator", ktx_writer_name()}}},
            {"extensionsUsed", {"EXT_lights_image_based"}},
            {"extensions", {{"EXT_lights_image_based", {{"lights", {light_json(chain, radiance)}}}}}},
            {"scene", 0},
            {"scenes", {{{"name", "environment"}, {"nodes", {0}},
                         {"extensions", {{"EXT_lights_image_based", {{"light", 0}}}}}}}},
            {"nodes", {{{"name", "environment"}}}}};
}

void append_u32(Bytes& out, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}

// GLB: 12-byte header, a JSON chunk padded with spaces, a BIN chunk padded with zeros (glTF 2.0 § 4.4).
Bytes glb(json doc, const std::vector<Bytes>& pngs) {
    Bytes bin;
    json views = json::array(), images = json::array();
    for (const Bytes& png : pngs) {
        while (bin.size() % 4) bin.push_back(0);
        views.push_back({{"buffer", 0}, {"byteOffset", bin.size()}, {"byteLength", png.size()}});
        images.push_back({{"bufferView", views.size() - 1}, {"mimeType", "image/png"}});
        bin.insert(bin.end(), png.begin(), png.end());
    }
    while (bin.size() % 4) bin.push_back(0);
    doc["buffers"] = {{{"byteLength", bin.size()}}};
    doc["bufferViews"] = views;
    doc["images"] = images;
    std::string text = doc.dump();
    while (text.size() % 4) text += ' ';
    Bytes out;
    append_u32(out, 0x46546C67);  // "glTF"
    append_u32(out, 2);
    append_u32(out, static_cast<std::uint32_t>(12 + 8 + text.size() + 8 + bin.size()));
    append_u32(out, static_cast<std::uint32_t>(text.size()));
    append_u32(out, 0x4E4F534A);  // "JSON"
    out.insert(out.end(), text.begin(), text.end());
    append_u32(out, static_cast<std::uint32_t>(bin.size()));
    append_u32(out, 0x004E4942);  // "BIN"
    out.insert(out.end(), bin.begin(), bin.end());
    return out;
}

bool ends_with(const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

}  // namespace

void write_gltf_ibl(const std::string& path, const std::vector<CubeMap>& specular_chain, const ShCoefficients& radiance) {
    Bytes bytes;
    try {
        validate_chain(specular_chain);
        json doc = document(specular_chain, radiance);
        const std::vector<Bytes> pngs = face_pngs(specular_chain);
        if (ends_with(path, ".glb")) {
            bytes = glb(doc, pngs);
        } else {
            json images = json::array();
            for (const Bytes& png : pngs) images.push_back({{"uri", "data:image/png;base64," + base64(png)}});
            doc["images"] = images;
            const std::string text = doc.dump(1) + "\n";
            bytes.assign(text.begin(), text.end());
        }
    } catch (const std::exception& e) {
        throw OutputError(path + ": " + one_line(e.what()));
    }
    write_atomically(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (out.fail()) throw OutputError(path + ": cannot write");
    });
}

}  // namespace bake
