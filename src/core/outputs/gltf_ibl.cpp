#include "gltf_ibl.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "atomic_file.h"
#include "cube_map.h"
#include "engine_sh.h"
#include "errors.h"
#include "ibl_ktx2.h"
#include "ktx2_writer.h"
#include "rgbd.h"
#include "sun_lights.h"

namespace bake {
namespace {

using nlohmann::json;
using Bytes = std::vector<std::uint8_t>;

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

// Every face's PNG, level by level, +X -X +Y -Y +Z -Z, of the level mirrored in z.
std::vector<Bytes> face_pngs(const std::vector<CubeMap>& chain) {
    std::vector<Bytes> pngs;
    for (const CubeMap& level : chain)
        for (const Image& face : mirror_cube_z(level).faces)
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

// A file name as a glTF URI reference: every byte but RFC 3986's unreserved characters percent-encoded.
std::string uri_of(const std::string& name) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : name) {
        if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') out += static_cast<char>(c);
        else out += {'%', hex[c >> 4], hex[c & 15]};
    }
    return out;
}

void write_bytes(const std::string& path, const Bytes& bytes) {
    write_atomically(path, [&](const std::string& tmp) {
        std::ofstream out(tmp, std::ios::binary);
        out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
        out.close();
        if (out.fail()) throw OutputError(path + ": cannot write");
    });
}

}  // namespace

std::vector<std::string> gltf_output_files(const std::string& path, int levels) {
    if (ends_with(path, ".glb")) return {path};
    const std::size_t slash = path.find_last_of('/');
    const std::string folder = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    const std::string name = path.substr(folder.size());
    const std::string stem = name.substr(0, name.find_last_of('.'));
    static const char* faces[6] = {"px", "nx", "py", "ny", "pz", "nz"};
    std::vector<std::string> files = {path};
    for (int level = 0; level < levels; ++level)
        for (const char* face : faces) files.push_back(folder + stem + "_spec_" + std::to_string(level) + "_" + face + ".png");
    return files;
}

void write_gltf_ibl(const std::string& path, const std::vector<CubeMap>& specular_chain, const ShCoefficients& radiance,
                    const Sun* sun) {
    Bytes bytes;
    std::vector<Bytes> pngs;
    std::vector<std::string> files;
    try {
        validate_chain(specular_chain);
        json doc = document(specular_chain, radiance);
        if (sun) add_gltf_sun(doc, *sun);
        pngs = face_pngs(specular_chain);
        if (ends_with(path, ".glb")) {
            bytes = glb(doc, pngs);
            pngs.clear();
        } else {
            files = gltf_output_files(path, static_cast<int>(specular_chain.size()));
            json images = json::array();
            for (std::size_t i = 1; i < files.size(); ++i)
                images.push_back({{"uri", uri_of(files[i].substr(files[i].find_last_of('/') + 1))}, {"mimeType", "image/png"}});
            doc["images"] = images;
            const std::string text = doc.dump(1) + "\n";
            bytes.assign(text.begin(), text.end());
        }
    } catch (const std::exception& e) {
        throw OutputError(path + ": " + one_line(e.what()));
    }
    // All the files or none: a set of their own, or the caller's when a Scope of it is open here.
    OutputSet set;
    {
        const OutputSet::Scope joins(set);
        for (std::size_t i = 0; i < pngs.size(); ++i) write_bytes(files[i + 1], pngs[i]);
        write_bytes(path, bytes);
    }
    set.commit();
}

RgbdClipping rgbd_clipping(const std::vector<CubeMap>& specular_chain) {
    RgbdClipping out;
    for (std::size_t level = 0; level < specular_chain.size(); ++level) {
        const CubeMap& cube = specular_chain[level];
        const int n = cube.size;
        double energy = 0, lost = 0;  // double sums of at most 6 n^2 x 3 terms, each >= 0
        for (int row = 0; row < n; ++row)
            for (int col = 0; col < n; ++col) {
                const double omega = cube_texel_solid_angle(row, col, n);
                for (const Image& face : cube.faces) {
                    const float* v = face.at(row, col);
                    bool clipped = false;
                    for (int c = 0; c < 3; ++c) {
                        energy += std::max(0.0f, v[c]) * omega;
                        if (v[c] > 255.0f) {
                            lost += (v[c] - 255.0) * omega;
                            clipped = true;
                        }
                    }
                    out.texels += clipped;
                }
            }
        if (lost > 0 && lost / energy > out.energy_share) {
            out.energy_share = lost / energy;
            out.worst_level = static_cast<int>(level);
        }
    }
    return out;
}

}  // namespace bake
