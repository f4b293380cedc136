#include "ibl_ktx2.h"

#include <cstdio>

#include "errors.h"
#include "sheen_lut_files.h"

namespace bake {
namespace {

KtxWriteOptions with_content(const KtxWriteOptions& options, const std::string& content,
                             KtxCubeConvention convention = KtxCubeConvention::Gl) {
    KtxWriteOptions o = options;
    o.key_values.emplace_back("bakeConvention", convention == KtxCubeConvention::Bevy ? kKtxConventionBevy : kKtxConvention);
    o.key_values.emplace_back("bakeContent", content);
    return o;
}

std::string roughness_list(const std::vector<double>& roughness) {
    std::string s;
    for (double r : roughness) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.9g", s.empty() ? "" : " ", r);
        s += buf;
    }
    return s;
}

// Face, row and column of `cube` whose centre is the z mirror of texel (row, col) of `face`.
struct MirroredTexel {
    int face, row, col;
};
MirroredTexel mirrored_in_z(int face, int row, int col, int n) {
    const int flipped_col = n - 1 - col, flipped_row = n - 1 - row;
    switch (face) {
        case 0: return {0, row, flipped_col};  // +X (1, -t, -s): z = -s, so s flips
        case 1: return {1, row, flipped_col};  // -X (-1, -t, s)
        case 2: return {2, flipped_row, col};  // +Y (s, 1, t): z = t, so t flips
        case 3: return {3, flipped_row, col};  // -Y (s, -1, -t)
        case 4: return {5, row, flipped_col};  // +Z (s, -t, 1) mirrors to -Z (-s', -t, -1) with s' = -s
        default: return {4, row, flipped_col};  // -Z (-s, -t, -1) mirrors to +Z (s', -t, 1) with s' = -s
    }
}

constexpr double kPi = 3.14159265358979323846;

}  // namespace

bool parse_ktx_cube_convention(const std::string& name, KtxCubeConvention* convention) {
    if (name == "gl") *convention = KtxCubeConvention::Gl;
    else if (name == "bevy") *convention = KtxCubeConvention::Bevy;
    else return false;
    return true;
}

CubeMap mirror_cube_z(const CubeMap& cube) {
    const int n = cube.size;
    CubeMap out = cube;
    for (int face = 0; face < 6; ++face)
        for (int row = 0; row < n; ++row)
            for (int col = 0; col < n; ++col) {
                const MirroredTexel from = mirrored_in_z(face, row, col, n);
                const float* src = &cube.faces[from.face].rgb[3 * (static_cast<std::size_t>(from.row) * n + from.col)];
                float* dst = &out.faces[face].rgb[3 * (static_cast<std::size_t>(row) * n + col)];
                dst[0] = src[0];
                dst[1] = src[1];
                dst[2] = src[2];
            }
    return out;
}

KtxImages cube_chain_images(const std::vector<CubeMap>& chain) {
    KtxImages images;
    images.faces = 6;
    if (!chain.empty()) images.width = images.height = chain[0].size;
    for (const CubeMap& level : chain) {
        std::vector<const Image*> faces;
        for (const Image& face : level.faces) faces.push_back(&face);
        images.levels.push_back(faces);
    }
    return images;
}

KtxImages image_2d_images(const Image& image) {
    KtxImages images;
    images.width = image.width;
    images.height = image.height;
    images.levels.push_back({&image});
    return images;
}

CubeMap irradiance_cube_for(const CubeMap& irradiance, KtxCubeConvention convention) {
    if (convention == KtxCubeConvention::Gl) return irradiance;
    CubeMap bevy = mirror_cube_z(irradiance);
    for (Image& face : bevy.faces)
        for (float& v : face.rgb) v = static_cast<float>(v / kPi);
    return bevy;
}

std::vector<CubeMap> specular_chain_for(const std::vector<CubeMap>& chain, KtxCubeConvention convention) {
    if (convention == KtxCubeConvention::Gl) return chain;
    std::vector<CubeMap> mirrored;
    for (const CubeMap& level : chain) mirrored.push_back(mirror_cube_z(level));
    return mirrored;
}

namespace {

KtxWriteOptions specular_options(const std::string& path, std::size_t levels, const KtxWriteOptions& options,
                                 KtxCubeConvention convention, const std::vector<double>& roughness, SpecularLobe lobe) {
    std::vector<double> r = roughness;
    if (r.empty())
        for (std::size_t i = 0; i < levels; ++i) r.push_back(levels > 1 ? double(i) / (levels - 1) : 0.0);
    if (r.size() != levels)
        throw OutputError(path + ": " + std::to_string(r.size()) + " roughness values for " + std::to_string(levels) +
                          " levels");
    KtxWriteOptions o = with_content(options,
                                     lobe == SpecularLobe::Charlie
                                         ? "sheen: the environment's radiance prefiltered with the Charlie lobe "
                                           "(Estevez & Kulla 2017, KHR_materials_sheen), alpha = roughness^2, N = V = R; "
                                           "level i for roughness bakeSpecularRoughness[i]; level 0: the mean over the "
                                           "horizon circle n.l = 0"
                                         : "specular: the environment's radiance prefiltered with the GGX lobe, alpha = "
                                           "roughness^2, N = V = R; level i for roughness bakeSpecularRoughness[i]",
                                     convention);
    o.key_values.emplace_back("bakeSpecularRoughness", roughness_list(r));
    return o;
}

}  // namespace

void write_specular_ktx2(const std::string& path, const std::vector<CubeMap>& chain, const KtxWriteOptions& options,
                         KtxCubeConvention convention, const std::vector<double>& roughness, SpecularLobe lobe) {
    const KtxWriteOptions o = specular_options(path, chain.size(), options, convention, roughness, lobe);
    if (convention == KtxCubeConvention::Gl) {
        write_ktx2(path, cube_chain_images(chain), o);
        return;
    }
    write_ktx2(path, cube_chain_images(specular_chain_for(chain, convention)), o);
}

void write_specular_ktx2(const std::string& path, const EncodedTexture& chain, const KtxWriteOptions& options,
                         KtxCubeConvention convention, const std::vector<double>& roughness, SpecularLobe lobe) {
    write_ktx2(path, chain, specular_options(path, chain.levels.size(), options, convention, roughness, lobe));
}

void write_irradiance_cube_ktx2(const std::string& path, const CubeMap& irradiance, const KtxWriteOptions& options,
                                KtxCubeConvention convention) {
    const std::vector<CubeMap> one{irradiance_cube_for(irradiance, convention)};
    const char* content = convention == KtxCubeConvention::Gl
                              ? "irradiance E(n) at each texel's centre direction n, not divided by pi (a white "
                                "Lambertian surface shows E/pi)"
                              : "irradiance E(n)/pi (the radiance a white Lambertian surface reflects) at each texel's "
                                "direction as bakeConvention maps it: Bevy multiplies its diffuse map by the albedo with "
                                "no 1/pi";
    write_ktx2(path, cube_chain_images(one), with_content(options, content, convention));
}

void write_irradiance_equirect_ktx2(const std::string& path, const Image& irradiance, const KtxWriteOptions& options) {
    write_ktx2(path, image_2d_images(irradiance),
               with_content(options, "irradiance E(n) as a lat-long map, not divided by pi (a white Lambertian "
                                     "surface shows E/pi)"));
}

void write_dfg_ktx2(const std::string& path, const Image& dfg, const KtxWriteOptions& options) {
    if (options.format == KtxFormat::Bc6hUFloat) throw OutputError(path + ": " + kDfgNotBc6h);
    write_ktx2(path, image_2d_images(dfg),
               with_content(options, "split-sum DFG table, GGX with height-correlated Smith: texel (row, col) "
                                     "at N.V = (col + 0.5)/size, roughness = (row + 0.5)/size (sample at uv = "
                                     "(N.V, roughness)); R = A (scale of F0), G = B (bias), B = A + B"));
}

void write_sheen_lut_ktx2(const std::string& path, const Image& table, const KtxWriteOptions& options) {
    write_ktx2(path, image_2d_images(table),
               with_content(options, std::string(kSheenLutContent) + ": texel (row, col) at N.V = (col + 0.5)/size, sheen "
                                     "roughness = (row + 0.5)/size (sample at uv = (N.V, roughness)), alpha = roughness^2; " +
                                     kSheenLutChannels));
}

}  // namespace bake
