#include "ibl_ktx2.h"

#include <cstdio>

#include "errors.h"

namespace bake {
namespace {

KtxWriteOptions with_content(const KtxWriteOptions& options, const std::string& content) {
    KtxWriteOptions o = options;
    o.key_values.emplace_back("bakeConvention", kKtxConvention);
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

}  // namespace

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

void write_specular_ktx2(const std::string& path, const std::vector<CubeMap>& chain, const KtxWriteOptions& options,
                         const std::vector<double>& roughness) {
    std::vector<double> r = roughness;
    if (r.empty())
        for (std::size_t i = 0; i < chain.size(); ++i) r.push_back(chain.size() > 1 ? double(i) / (chain.size() - 1) : 0.0);
    if (r.size() != chain.size())
        throw OutputError(path + ": " + std::to_string(r.size()) + " roughness values for " + std::to_string(chain.size()) +
                          " levels");
    KtxWriteOptions o = with_content(options,
                                     "specular: the environment's radiance prefiltered with the GGX lobe, alpha = "
                                     "roughness^2, N = V = R; level i for roughness bakeSpecularRoughness[i]");
    o.key_values.emplace_back("bakeSpecularRoughness", roughness_list(r));
    write_ktx2(path, cube_chain_images(chain), o);
}

void write_irradiance_cube_ktx2(const std::string& path, const CubeMap& irradiance, const KtxWriteOptions& options) {
    const std::vector<CubeMap> one{irradiance};
    write_ktx2(path, cube_chain_images(one),
               with_content(options, "irradiance E(n) at each texel's centre direction n, not divided by pi "
                                     "(a white Lambertian surface shows E/pi)"));
}

void write_irradiance_equirect_ktx2(const std::string& path, const Image& irradiance, const KtxWriteOptions& options) {
    write_ktx2(path, image_2d_images(irradiance),
               with_content(options, "irradiance E(n) as a lat-long map, not divided by pi (a white Lambertian "
                                     "surface shows E/pi)"));
}

void write_dfg_ktx2(const std::string& path, const Image& dfg, const KtxWriteOptions& options) {
    write_ktx2(path, image_2d_images(dfg),
               with_content(options, "split-sum DFG table, GGX with height-correlated Smith: texel (row, col) "
                                     "at N.V = (col + 0.5)/size, roughness = (row + 0.5)/size (sample at uv = "
                                     "(N.V, roughness)); R = A (scale of F0), G = B (bias), B = A + B"));
}

}  // namespace bake
