#include "ibl_dds.h"

#include "dds_writer.h"
#include "errors.h"

namespace bake {
namespace {

void write_images(const std::string& path, const TextureImages& images, const DdsWriteOptions& options) {
    EncodedTexture texture;
    try {
        texture = encode_texture(images, options.format, options.bc6h_quality, options.threads);
    } catch (const std::invalid_argument& e) {
        throw OutputError(path + ": " + one_line(e.what()));
    }
    write_dds(path, texture);
}

}  // namespace

void write_specular_dds(const std::string& path, const std::vector<CubeMap>& chain, const DdsWriteOptions& options,
                        KtxCubeConvention convention) {
    if (convention == KtxCubeConvention::Gl) {
        write_images(path, cube_chain_images(chain), options);
        return;
    }
    write_images(path, cube_chain_images(specular_chain_for(chain, convention)), options);
}

void write_specular_dds(const std::string& path, const EncodedTexture& chain) { write_dds(path, chain); }

void write_irradiance_cube_dds(const std::string& path, const CubeMap& irradiance, const DdsWriteOptions& options,
                               KtxCubeConvention convention) {
    const std::vector<CubeMap> one{irradiance_cube_for(irradiance, convention)};
    write_images(path, cube_chain_images(one), options);
}

void write_irradiance_equirect_dds(const std::string& path, const Image& irradiance, const DdsWriteOptions& options) {
    write_images(path, image_2d_images(irradiance), options);
}

void write_dfg_dds(const std::string& path, const Image& dfg, const DdsWriteOptions& options) {
    if (options.format == TextureFormat::Bc6hUFloat) throw OutputError(path + ": " + kDfgNotBc6h);
    write_images(path, image_2d_images(dfg), options);
}

}  // namespace bake
